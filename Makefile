# Two entry points for a fresh machine: `make run` (the demo benchmark end to end) and `make test`.
# Both install what they need and are quick no-ops for what is already installed.
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | sha1sum | cut -c1-12)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RUN_APT := apertium apertium-eng-spa lttoolbox hfst
# postgresql: the store tests start a throwaway server; chromium + chromium-driver: the leaderboard page test.
TEST_APT := $(RUN_APT) postgresql chromium chromium-driver

.PHONY: run test lint apt-run apt-test

define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

apt-run:
	$(call apt_install,$(RUN_APT))

apt-test:
	$(call apt_install,$(TEST_APT))

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $@

run: apt-run $(STAMP)
	DVC_NO_ANALYTICS=1 bin/snakemake --cores all all

test: apt-test $(STAMP)
	DVC_NO_ANALYTICS=1 $(VENV)/bin/pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests scripts bench
	$(VENV)/bin/snakefmt --check Snakefile rules
