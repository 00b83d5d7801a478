# LYSS bench workflow: corpus prep → translation → per-metric scoring → aggregation → significance → report.
# All settings come from params.yaml; targets are derived from it in rules/common.smk.


configfile: "params.yaml"


include: "rules/common.smk"
include: "rules/prep.smk"
include: "rules/translate.smk"
include: "rules/embed.smk"
include: "rules/score.smk"
include: "rules/aggregate.smk"
include: "rules/significance.smk"
include: "rules/report.smk"
include: "rules/validate.smk"


rule all:
    input:
        run_cards(),
        significance_files(),
        raw_translations(),
        rules.report.output,
        validation_outputs(),
        rules.validation_plots.output,
