"""One statistics package for the whole project (spec §8, human-judgment studies alike).

- `resample`: the one bootstrap resampler (count matrices drawn as sacrebleu draws them, in blocks of
  bounded memory) and corpus statistics over per-entry rows.
- `intervals`: the one percentile rule (order statistics, sacrebleu's; see docs/statistics.md).
- `paired`: the paired bootstrap, the one permutation test (approximate randomization with shared swap
  masks, p = (c + 1) / (N + 1)), exact McNemar, Holm's correction,
  pairwise permutation p-values between systems and soft pairwise accuracy (SPA).
- `correlation`: rank and correlation statistics (Pearson, Spearman, Kendall, pairwise accuracy) that take
  bootstrap multiplicities, for metric–human agreement.

Run cards (lyss.aggregate.confidence), significance blocks (lyss.significance) and `lyss correlate / jury / labels
/ probe` all draw from here, so "95% CI" and "p" mean one thing everywhere.
"""

from lyss.stats.intervals import percentile_ci, percentile_interval
from lyss.stats.paired import (
    McNemar,
    PairedBootstrap,
    approximate_randomization,
    holm,
    holm_resolvable,
    mcnemar_exact,
    mcnemar_p,
    one_sided_p_values,
    paired_bootstrap,
    pairwise_permutation_p_values,
    significant,
    soft_pairwise_accuracy,
    swap_mask_matrix,
    swap_masks,
)
from lyss.stats.resample import (
    BLOCK_CELLS,
    CorpusStatistic,
    bootstrap_counts,
    bootstrap_scores,
    chunk_slices,
    count_matrix,
    in_order,
    joint,
    rows_per_chunk,
)

__all__ = [
    "BLOCK_CELLS", "CorpusStatistic", "McNemar", "PairedBootstrap", "approximate_randomization",
    "bootstrap_counts", "bootstrap_scores", "chunk_slices", "count_matrix", "holm", "holm_resolvable", "in_order",
    "joint",
    "mcnemar_exact", "mcnemar_p", "one_sided_p_values", "paired_bootstrap", "pairwise_permutation_p_values",
    "percentile_ci",
    "percentile_interval", "rows_per_chunk", "significant",
    "soft_pairwise_accuracy", "swap_mask_matrix", "swap_masks",
]
