"""PyYAML's safe loader, libyaml's where PyYAML was built with it: the same safe constructor, ~6× faster. Every
Snakemake start-up reads the ~70 language cards several times (the settings check, the input check, each score
rule's code hash), so the parser's speed is part of every `snakemake` and `dvc repro` call."""

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str):
    """yaml.safe_load's result, from libyaml's parser where it is built in."""
    return yaml.load(text, Loader=SAFE_LOADER)
