"""Surface metrics of spec §2.1: exact match, chrF++, BLEU, TER, length ratio.

chrF++, BLEU and TER use sacrebleu's statistics, extracted once per corpus: chrF++ and BLEU against one
reference by the array path of `sufficient.corpus_statistics` (entry for entry sacrebleu's own extraction),
otherwise by `sacrebleu_stats.py` (sacrebleu's extraction with the references read once per process and a
hypothesis equal to a reference not extracted again; TER always). The per-entry and corpus
scores are then computed from those statistics (see `sufficient.py`), which equals sacrebleu's sentence and
corpus scores and lets the bootstrap resample the same rows. With several references
(`ScoringInput.reference_streams`) sacrebleu's extraction already keeps, per entry, the statistics of the
best reference (chrF++), the clipped counts over all references and the closest length (BLEU), the fewest
edits over the average length (TER), so the rows stay additive and the numbers stay sacrebleu's.
"""

from pathlib import Path

import numpy as np
from sacrebleu.metrics import BLEU

from lyss.languages import cldr_locale
from lyss.metrics.base import COUNT, MetricResult, ScoringInput
from lyss.metrics.sacrebleu_stats import BleuStats, ChrFStats, TerStats
from lyss.metrics.sufficient import bleu_from_stats, chrf_from_stats, corpus_statistics, ter_from_stats


def _hypotheses(data: ScoringInput) -> list[str]:
    """Entries without output score as empty strings (they count against the system)."""
    return [p if p is not None else "" for p in data.predictions]


# The case options (params.yaml `metric_options.<id>.lowercase` / `ter.case_sensitive`, or their sacrebleu flags
# on `lyss score`) are off unless given, as in sacrebleu: BLEU and chrF++ count case, TER (as TERCOM) does not.
BOOLEAN = {"type": "boolean"}


def _normalise_for_match(text: str) -> str:
    return " ".join(text.split())


class ExactMatch:
    """1 when the prediction equals a reference (any of them) after whitespace normalisation, else 0."""

    id = "exact_match_rate"
    uses_all_references = True
    reads_source = False
    reads_language = False
    card_position = 1
    companions = {"exact_matches": (None, COUNT)}
    has_ci = True
    tier_key = "exact_match_rate"
    significance = True
    binary = True
    db_column = "exact_match_rate"
    label = "exact match"
    leaderboard_position = 3
    direction = "higher"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        streams = data.reference_streams
        values = np.array([
            float(p is not None and _normalise_for_match(p) in {_normalise_for_match(r) for r in refs})
            for p, *refs in zip(data.predictions, *streams, strict=True)
        ])
        details = {"normalisation": "whitespace collapsed; case and punctuation kept"}
        if len(streams) > 1:
            details["references"] = f"equal to any of the {len(streams)} references"
        return MetricResult(self.id, values, float(values.mean()), stats=values[:, None],
                            counts={"exact_matches": int(values.sum())}, details=details)


class ChrFPlusPlus:
    """sacrebleu CHRF(word_order=2); per entry = sentence chrF++, corpus = corpus chrF++."""

    id = "chrf_plus_plus"
    aliases = ("chrF++", "chrfpp", "chrF2++")  # sacrebleu prints chrF2++; `-m chrf --chrf-word-order 2` too
    uses_all_references = True
    reads_source = False
    reads_language = False
    options_schema = {"lowercase": BOOLEAN}
    cli_options = {"chrf_lowercase": "lowercase"}
    card_position = 3
    maximum = 100
    normalisation = "divide_by_100"
    has_ci = True
    tier_key = "corpus_chrf"  # §9 names the per-tier chrF++ interval `corpus_chrf`
    corpus_rows = "stats"
    significance = True
    db_column = "chrf_plus_plus"
    label = "chrF++"
    decimals = 2
    leaderboard_position = 1

    @staticmethod
    def corpus_value(sums):
        """sacrebleu's chrF++ (β = 2) over summed statistics; the order follows from the column count."""
        return chrf_from_stats(sums, np.shape(sums)[-1] // 3)
    direction = "higher"
    ideal = 100.0

    def score(self, data: ScoringInput) -> MetricResult:
        metric = ChrFStats(word_order=2, lowercase=bool(data.options.get("lowercase")))
        stats = corpus_statistics(metric, _hypotheses(data), data.reference_streams).astype(float)
        corpus = float(chrf_from_stats(stats.sum(axis=0), metric.order, metric.beta))
        return MetricResult(self.id, chrf_from_stats(stats, metric.order, metric.beta), corpus, stats=stats,
                            signature=str(metric.get_signature()))


def bleu_tokenizer(data: ScoringInput) -> str:
    """The option (params.yaml `metric_options.bleu.tokenize`, `lyss score --tokenize`), else the tokenizer the
    target card names, else the one sacrebleu picks for the target language (`sacrebleu -l en-zh`: zh; ja:
    ja-mecab; ko: ko-mecab; else 13a), found through the language's CLDR code (zho, cmn → zh)."""
    chosen = data.options.get("tokenize") or data.target_card.get("bleu_tokenizer")
    if chosen:
        return chosen
    language = cldr_locale(data.target_lang) if data.target_lang else None
    return BLEU._TOKENIZER_MAP.get((language or "").split("_")[0], BLEU.TOKENIZER_DEFAULT)


def missing_tokenizer_model(tokenize: str) -> str | None:
    """Why sacrebleu's SentencePiece tokenizer (flores101, flores200, spBLEU-1K) cannot run offline, or None.
    sacrebleu downloads the model on first use; LYSS downloads nothing at run time, so a missing file is a
    null BLEU with where to put it, never a network call or a urllib traceback."""
    from sacrebleu.tokenizers import tokenizer_spm  # its SACREBLEU_DIR: where it will look

    if tokenize not in tokenizer_spm.SPM_MODELS:
        return None
    url = tokenizer_spm.SPM_MODELS[tokenize]["url"]
    path = Path(tokenizer_spm.SACREBLEU_DIR) / "models" / Path(url).name
    if path.is_file():
        return None
    return (f"sacrebleu's {tokenize} tokenizer needs its SentencePiece model at {path}, which is not there and "
            f"which LYSS does not download: copy it there from a machine that has it (sacrebleu fetches it from "
            f"{url}) or point $SACREBLEU at a folder with models/{path.name}")


class Bleu:
    """sacrebleu BLEU; corpus BLEU as the value, per entry = sentence BLEU with effective order."""

    id = "bleu"
    uses_all_references = True
    reads_source = False
    reads_language = False
    options_schema = {"tokenize": {"$ref": "#/$defs/bleu_tokenizer"}, "lowercase": BOOLEAN}
    cli_options = {"tokenize": "tokenize", "lowercase": "lowercase"}
    card_position = 4
    maximum = 100
    corpus_rows = "stats"
    significance = True
    db_column = "corpus_bleu"
    label = "BLEU"
    decimals = 2
    leaderboard_position = 2

    @staticmethod
    def corpus_value(sums):
        """sacrebleu's corpus BLEU (exp smoothing) over summed statistics; order from the column count."""
        return bleu_from_stats(sums, (np.shape(sums)[-1] - 2) // 2)
    direction = "higher"
    ideal = 100.0

    def score(self, data: ScoringInput) -> MetricResult:
        tokenize = bleu_tokenizer(data)
        missing = missing_tokenizer_model(tokenize)
        if missing:
            return MetricResult.unavailable(self.id, len(data.entries), missing)
        try:
            metric = BleuStats(tokenize=tokenize, lowercase=bool(data.options.get("lowercase")))
        except RuntimeError as err:  # ja-mecab / ko-mecab without their optional packages
            first = next((line for line in str(err).splitlines() if line.strip()), "")
            extra = {"ja-mecab": "ja", "ko-mecab": "ko"}.get(tokenize, "all")
            return MetricResult.unavailable(self.id, len(data.entries), f"sacrebleu's {tokenize} tokenizer: "
                                            f"{first.strip()} (pip install 'sacrebleu[{extra}]')")
        stats = corpus_statistics(metric, _hypotheses(data), data.reference_streams).astype(float)
        corpus = float(bleu_from_stats(stats.sum(axis=0), metric.max_ngram_order, metric.smooth_method))
        per_entry = bleu_from_stats(stats, metric.max_ngram_order, "exp", effective_order=True)
        return MetricResult(self.id, per_entry, corpus, stats=stats, signature=str(metric.get_signature()))


class Ter:
    """sacrebleu TER (0–∞, lower is better); stats are [edits, reference length]."""

    id = "ter"
    uses_all_references = True
    reads_source = False
    reads_language = False
    options_schema = {"case_sensitive": BOOLEAN}
    cli_options = {"ter_case_sensitive": "case_sensitive"}
    card_position = 5
    maximum = None
    corpus_rows = "stats"
    db_column = "ter"
    corpus_value = staticmethod(ter_from_stats)
    direction = "lower"
    ideal = 0.0

    def score(self, data: ScoringInput) -> MetricResult:
        metric = TerStats(case_sensitive=bool(data.options.get("case_sensitive")))
        stats = np.asarray(metric._extract_corpus_statistics(_hypotheses(data), data.reference_streams),
                           dtype=float)
        return MetricResult(self.id, ter_from_stats(stats), float(ter_from_stats(stats.sum(axis=0))),
                            stats=stats, signature=str(metric.get_signature()))


class LengthRatio:
    """len(prediction) / len(reference) in characters; corpus value = mean over entries (§2.1)."""

    id = "length_ratio"
    reads_source = False
    reads_language = False
    card_position = 6
    maximum = None
    db_column = "length_ratio"
    direction = "target"
    ideal = 1.0

    def score(self, data: ScoringInput) -> MetricResult:
        values = np.array([
            len(p or "") / len(r) if r else np.nan for p, r in zip(data.predictions, data.references, strict=True)
        ])
        defined = values[~np.isnan(values)]
        if not defined.size:
            return MetricResult.unavailable(self.id, len(values), "every reference is empty")
        return MetricResult(self.id, values, float(defined.mean()),
                            details={"unit": "characters", "aggregation": "mean of per-entry ratios"})
