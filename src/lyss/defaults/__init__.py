"""Settings and language cards packaged with lyss, so `lyss score` and `lyss compare` work from any folder:
`params.yaml` and `languages/` are links to the repository's own files (one copy of the spec's tables)."""
