"""Stage `evidence` (rule validate_dataset, DVC stage `evidence`): how well each metric and the card's
composite agree with the human scores of a pipeline dataset, the evidence that run cards read
(results/evidence/<dataset>/evidence.json). One module per job:

  dataset            the stage: a dataset's human scores joined with its metric files (validate_pipeline_dataset)
  correlate          segment- and system-level correlations with intervals, and the pairwise significance tests
  orientation        which sign of a correlation agrees with people, from each metric's declared direction
  composite_entries  the card's composite applied entry by entry, so it can be correlated segment by segment
  weights            `lyss weights`: composite weights fitted to human scores, cross-validated

This package imports nothing itself, so a module of it costs only what that module imports (the studies'
`lyss correlate` reads correlate and orientation without the stage's run-card imports).
"""
