"""Stage `validate`: labels from ratings, metric-human correlation, judge juries, judge probes, and the
agreement of the metrics with the human scores of a pipeline dataset (rules validate, validate_dataset).

The logic lives here and is importable without the command line; `lyss.validate.steps.{labels,
correlate, jury, probe}` read a part's inputs and write its output files (run_step, which rule `validate`
calls; the `lyss <part>` subcommands are the same parsers), and lyss.validate.dataset is rule
`validate_dataset`.
"""
