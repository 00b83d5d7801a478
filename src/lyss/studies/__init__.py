"""The human-judgment studies (rule validate, DVC stage `validate`): seed 000's labels from ratings, seed
004's LLM juries, seed 003's label-bias probe of a judge, and the LLM judge they study. They run on the
synthetic inputs of data/validation/ and nothing of the leaderboard reads them. One module per job:

  steps/        the four parts rule `validate` runs (labels, correlate, jury, probe); `lyss <part>` is the same parser
  labels        usable / unusable labels from 0–100 ratings, with bootstrap intervals (seed 000)
  jury          juries of LLM judges against human grades: size, rule, rubric and calibration tables (seed 004)
  merge_grades  the rules that merge several judges' grades into one jury grade
  anchors       how grades move when the prompt shows a reference grade
  calibration   the quantile map from judge grades onto the human distribution, fitted out of fold
  agreement     agreement between raters on an ordinal scale (kappa, Krippendorff's alpha)
  probe         the label-bias probe of a judge that returns a probability for every option (seed 003)
  plots         the jury report's figures
  judge         the LLM judge itself (`lyss judge`), a client of the shared lyss.chat_client transport

This package imports nothing itself: lyss.settings reads the parts' options from steps/ without the judge.
"""
