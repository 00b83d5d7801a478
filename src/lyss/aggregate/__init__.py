"""Stage `aggregate` (rule aggregate): the run card of one dataset × method, from its metric files,
checked against the reference oracle and the validation evidence, with confidence intervals
(lyss.aggregate.card.build_card, the builder `lyss score` calls too)."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lyss.aggregate.card import CardSettings

# The stage's other imports are inside its functions: `lyss score` and `compare` import lyss.aggregate.card,
# .caveats and .runcard, and importing this package first must not pull in pandas, pyarrow and the
# translation code.


@dataclass(frozen=True)
class RunFiles:
    """The files of one dataset × method that rule `aggregate` reads and writes. `timing`: the translation's
    wall-clock file (not versioned: without it the card's speed is null with the reason); `review`: the
    dataset's community verdict (data/corpora/<d>/reviews/verdict.json, lyss.review) when it has one;
    `embeddings`: the cached vectors misaligned_output reads, when the metrics computed them."""

    corpus: str
    meta: str
    translations: str
    metrics: Sequence[str]
    reference_metrics: Sequence[str]
    out: str
    evidence: Sequence[str] = ()
    review: Sequence[str] = ()
    embeddings: Sequence[str] = ()
    timing: str | None = None


def _read_results(metric_paths) -> dict:
    from lyss.metrics.files import read_metric_result

    results = {}
    for path in metric_paths:
        result, _ = read_metric_result(path)
        results[result.metric] = result
    return results


def aggregate_run(files: RunFiles, method: str, settings: "CardSettings") -> dict:
    """Build, validate and write the run card of `method` (a name under params.yaml `methods`) on one dataset;
    `settings`: lyss.settings.Settings (its `languages_dir` and `embeddings.backend` too)."""
    from lyss.aggregate.card import CardInput, Dataset, Method, Translation, build_card
    from lyss.aggregate.validation_status import load_evidence, load_raters
    from lyss.embed.embedders import embeddings_from_files
    from lyss.io import iter_jsonl, read_json, write_json_atomic
    from lyss.languages import card_for
    from lyss.prep.corpus import read_prepared
    from lyss.translate.jobs import timed_records

    corpus_meta = read_json(files.meta)
    dataset = corpus_meta["dataset"]
    records, elapsed_seconds, untimed = timed_records([r for _, r in iter_jsonl(files.translations)], files.timing)
    codes = (dataset["source_lang"], dataset["target_lang"])
    embeddings = (embeddings_from_files(files.embeddings, settings.embeddings.backend)
                  if files.embeddings else None)
    card = build_card(CardInput(
        dataset=Dataset(dataset["id"], *codes, corpus_meta["fingerprint"], dataset["licence"]),
        method=Method(method, settings.raw["methods"][method]),  # as written: the card records it
        results=_read_results(files.metrics),
        reference_results=_read_results(files.reference_metrics),
        entries=read_prepared(files.corpus),
        translation=Translation(records, elapsed_seconds, untimed),
        settings=settings,
        cards={code: card_for(code, settings.languages_dir) for code in codes},  # not the folder's ~70 cards
        embeddings=embeddings,
        evidence=load_evidence(files.evidence, dataset["language_pair"]),
        review=read_json(files.review[0]) if files.review else None,
        raters=load_raters(files.evidence, dataset["id"]),
    ))
    write_json_atomic(files.out, card)
    return card
