# LYSS bench workflow: corpus prep → translation → per-metric scoring → aggregation → significance → report.
# All settings come from params.yaml; targets are derived from it in rules/common.smk.
from lyss.config import one_line_errors
from lyss.settings import read_params_file
from lyss.workflow_end import end_without_waiting

# Snakemake's own reader says only "not valid JSON or YAML"; read first, a syntax error names file and line.
with one_line_errors():
    read_params_file("params.yaml")


configfile: "params.yaml"


include: "rules/common.smk"
include: "rules/prep.smk"
include: "rules/translate_helpers.smk"
include: "rules/translate.smk"
include: "rules/embed_helpers.smk"
include: "rules/embed.smk"
include: "rules/score_helpers.smk"
include: "rules/score.smk"
include: "rules/aggregate.smk"
include: "rules/significance.smk"
include: "rules/report.smk"
include: "rules/validate_helpers.smk"
include: "rules/validate.smk"


# a worker loads the score jobs' word lists and models on the core that Snakemake's start leaves idle
onstart:
    warn_without_threads()
    warm_score_worker()


# neither the scheduler's pending timers nor a final garbage collection holds the exit (lyss.workflow_end)
onsuccess:
    end_without_waiting()


onerror:
    end_without_waiting()


rule all:
    input:
        run_cards(),
        significance_files(),
        raw_translations(),
        rules.report.output,
        validation_outputs(),
        rules.validation_plots.output,
