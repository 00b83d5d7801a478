"""Snakemake adapter for rule `skipped`: the methods a dataset does not run, with why."""

from lyss.io import write_json_atomic
from lyss.scripting import logged

with logged(snakemake.log[0]):
    write_json_atomic(snakemake.output[0], snakemake.params.reasons)
