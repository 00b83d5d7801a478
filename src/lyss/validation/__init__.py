"""Validation statistics: labels from ratings, metric-human correlation, judge juries, judge probes.

The logic lives here and is importable without the command line; `lyss.commands.{labels,
correlate, jury, probe}` are thin wrappers that read inputs and write the output files.
"""
