"""Snakemake adapter for the worker that `onstart` warms up before the score jobs (rules/score_helpers.smk,
`warm_score_worker`): it loads what the first score job of a language pair would, then waits for that job."""

from lyss.metrics.warm_up import warm_up
from lyss.settings import MetricOptions

warm_up(snakemake.params.metrics, *snakemake.params.pair, snakemake.params.languages_dir,
        MetricOptions.of(snakemake.params.options))
