# Two entry points for a fresh machine: `make run` (the demo benchmark end to end) and `make test`.
# Both install what they need and are quick no-ops for what is already installed.
SHELL := /bin/bash
VENV := .venv
HASH := $(shell sha1sum pyproject.toml | cut -c1-12)
BASE := $(VENV)/.base-$(HASH)
CORE := $(VENV)/.core-$(HASH)
FULL := $(VENV)/.full-$(HASH)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The FST analyzers of the shipped language cards (`fst_analyzer.package` in data/languages/*.yaml, listed in
# docs/languages.md): 26 Apertium packages, 63 MB to download, 165 MB installed (with cg3).
ANALYZER_APT := apertium-eo-en apertium-spa-cat apertium-fra-cat apertium-es-pt apertium-srd-ita \
  apertium-en-gl apertium-oc-ca apertium-br-fr apertium-eu-en apertium-isl-eng apertium-mkd-eng \
  apertium-mkd-bul apertium-hbs-eng apertium-hbs-slv apertium-nno-nob apertium-swe-nor apertium-dan-nor \
  apertium-bel-rus apertium-rus-ukr apertium-hin apertium-urd apertium-pol-szl apertium-es-ro \
  apertium-afr-nld apertium-spa-ast apertium-spa-arg
# The Hunspell dictionaries of the shipped cards (`spelling_dictionary.package`; code_switching_rate's target
# evidence, docs/languages.md): 19 packages, 11 MB to download.
SPELLING_APT := hunspell-af hunspell-an hunspell-be hunspell-bg hunspell-bs hunspell-ca hunspell-de-de myspell-eo \
  hunspell-es hunspell-eu hunspell-hi hunspell-hr hunspell-is hunspell-it hunspell-oc hunspell-pt-pt hunspell-ru \
  hunspell-sl hunspell-sw
RUN_APT := apertium apertium-eng-spa lttoolbox hfst $(ANALYZER_APT) $(SPELLING_APT)
# postgresql: the store tests start a throwaway server; chromium + chromium-driver: the leaderboard page test;
# slurmctld slurmd slurm-client munge: tests/cluster starts a one-node SLURM; openssh-server: the SSH DVC remote.
TEST_APT := $(RUN_APT) postgresql chromium chromium-driver slurmctld slurmd slurm-client munge openssh-server

.PHONY: run test lint lock apt-run apt-test

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

# What the pipeline needs (`make run`: the package alone, no test or lint tools, docs/performance.md); the
# development tools on top of it (lint, tests); the tests add the optional COMET extra (torch CPU wheel +
# unbabel-comet) so the COMET metric is tested for real. uv installs the package under requirements/run.txt's
# pins in ≈ 35 s where pip took ≈ 200 s; --compile-bytecode because this machine sets PYTHONDONTWRITEBYTECODE,
# and without .pyc files every pipeline job pays 2–3 s of imports. The pins keep pyarrow, whose releases
# change the parquet bytes dvc.lock records (its version is in every file), where the committed dvc.lock was made.
UV := $(VENV)/bin/uv pip install --python $(VENV)/bin/python -q --compile-bytecode -c requirements/run.txt
$(BASE): pyproject.toml requirements/run.txt
	[ -x $(VENV)/bin/python ] || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q uv==0.13.9
	$(UV) -e .
	rm -f $(VENV)/.base-*
	touch $@

$(CORE): $(BASE)
	$(UV) -e '.[dev]'
	rm -f $(VENV)/.core-*
	touch $@

$(FULL): $(CORE)
	$(VENV)/bin/pip install -q -e '.[dev,comet]'
	rm -f $(VENV)/.full-*
	touch $@

# The package's own modules as bytecode: an editable install compiles none, and with this machine's
# PYTHONDONTWRITEBYTECODE no import writes them either, so every process of a run or of the tests (Snakemake, each
# job worker, each `lyss` command) compiled the ~200 modules it imports again. compileall writes only what changed
# since; .dvcignore keeps the bytecode out of the stages' dependencies.
BYTECODE := $(VENV)/bin/python -m compileall -q src/lyss
# The embedder's ONNX graph for this CPU, built into the environment once per version (lyss.embed.graph_cache): a
# first `lyss score` on a fresh cache, a cluster node or a new LYSS_CACHE_DIR reads it instead of spending ≈ 0.4 s
# building it; a no-op when it is there.
GRAPH := $(VENV)/bin/python -m lyss.devtools install-graph

# Quiet on the terminal (a progress line per translation, one line per validation step, then the
# leaderboard); every job's full log is in results/logs/, Snakemake's own in .snakemake/log/.
# Then `dvc commit` files the outputs in DVC's cache, as `dvc repro` would have: what DVC versions is the same
# bytes on any machine, so on a fresh clone dvc.lock does not change and `dvc status` is clean.
# The target comes first: `--quiet` takes a list, and a target after it (`--quiet rules reason host all`) is
# read as the choice `all`, which silences Snakemake entirely, its "N of M steps done" lines included.
run: apt-run $(BASE)
	$(BYTECODE)
	$(GRAPH) >/dev/null
	DVC_NO_ANALYTICS=1 bin/snakemake all --cores all --quiet rules reason host
	DVC_NO_ANALYTICS=1 $(VENV)/bin/dvc commit --force --quiet
	@echo; sed -n '3,$$p' results/leaderboard.md; echo; echo "full logs: results/logs/ and .snakemake/log/"

test: apt-test $(FULL)
	$(BYTECODE)
	$(GRAPH) >/dev/null
	DVC_NO_ANALYTICS=1 $(VENV)/bin/pytest -q -rs --durations=25

lint: $(CORE)
	$(VENV)/bin/ruff check src tests scripts bench
	$(VENV)/bin/snakefmt --check Snakefile rules

# Re-pins requirements/run.txt after a dependency change in pyproject.toml; pyarrow stays where it is (a new
# release changes the parquet bytes). Then `make run` and commit the dvc.lock it writes.
lock: $(BASE)
	$(VENV)/bin/uv pip compile -q pyproject.toml --no-header --no-annotate \
	  -c <(grep -E '^pyarrow==' requirements/run.txt) -o requirements/run.txt
