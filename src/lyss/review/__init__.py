"""Community review (spec §1.6 and §5): bilingual speakers rate a blind sample of a dataset's outputs on an
offline page, and their ratings become the dataset's human scores, agreement figures, usable / unusable
labels and a verdict on each method's tier. One module per job:

  settings    params.yaml `review:` with its defaults
  sample      which outputs are reviewed, by whom, in what blind order (the study key)
  page        the self-contained HTML page a speaker rates on
  ratings     reading and checking the ratings files that come back
  scores      per-rater z-normalised DA and MQM-style error weights, as `human_scores` CSVs
  statistics  agreement, seed 000's labels and each method's verdict
  study       export and import, the two things `lyss review` does
"""
