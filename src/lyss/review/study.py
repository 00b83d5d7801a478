"""The two things `lyss review` does: export a study (the page for the speakers, the key for the study) and
import the ratings that come back into the dataset's folder.

Everything the import writes lives in `data/corpora/<dataset>/reviews/`, beside the corpus, so DVC (or git)
versions it with the dataset:

  key.json               the study key (lyss.review.sample): which item is which system's output
  ratings/<rater>-packet<k>.jsonl   the speakers' files as they sent them (a later file of the same rater
                         and packet, with more items rated, replaces the earlier one)
  human_scores.csv       z-normalised DA per output (`method,id,human,annotators`: point the dataset's
                         `human_scores` at it and the evidence stage measures every metric against it)
  human_scores_mqm.csv   the same outputs scored by their marked error spans (minor 1, major 5)
  labels.csv             seed 000's two labels per output
  verdict.json           agreement, the labels' cross-table, each method's verdict and the §1.6 bar; the run
                         cards of the dataset read it (lyss.aggregate.validation_status.tier_review)
  jury.json              (`lyss review jury`) LLM judges and their calibrated jury against the speakers

Every derived file is rebuilt from all stored ratings at each import, so ratings may arrive speaker by speaker.
"""

import math
from pathlib import Path

from lyss.errors import InputError
from lyss.io import write_json_atomic, write_text_atomic
from lyss.review.jury import jury_against_speakers, read_judge_scores
from lyss.review.page import review_html
from lyss.review.ratings import RatingProblems, check_ratings
from lyss.review.sample import build_study, read_key, read_outputs, read_system
from lyss.review.scores import write_human_scores
from lyss.review.settings import ReviewSettings
from lyss.review.statistics import LABEL_COLUMNS, review_summary
from lyss.tables import write_csv

REVIEWS = "reviews"
VERDICT_FILE = "verdict.json"
JURY_FILE = "jury.json"
DIGITS = 6


def export_review(dataset: dict, entries: list[dict], runs: dict[str, tuple], settings: ReviewSettings,
                  out_dir) -> tuple[Path, Path]:
    """Write `<out>/review_<dataset>.html` (for the speakers) and `<out>/key.json` (for the study);
    `runs`: method → (translations path, run card path)."""
    outputs = {method: read_outputs(translations) for method, (translations, _) in runs.items()}
    systems = {method: read_system(card)[1] for method, (_, card) in runs.items()}
    key = build_study(dataset, entries, outputs, systems, settings)
    out_dir = Path(out_dir)
    page_path, key_path = out_dir / f"review_{dataset['id']}.html", out_dir / "key.json"
    write_text_atomic(page_path, review_html(key, {e["id"]: e for e in entries}, outputs))
    write_json_atomic(key_path, key)
    return page_path, key_path


def _rounded(value):
    """Floats at a fixed precision (the files are versioned: the same ratings give the same bytes)."""
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, DIGITS)
    return value


def _study_key(reviews: Path, key_path) -> dict:
    """The key given on the command line (stored on first use), else the one stored with the dataset."""
    stored = reviews / "key.json"
    if key_path is None:
        if not stored.exists():
            raise InputError(stored, "no study key stored yet: give the key.json that `lyss review export` wrote "
                             "(--key PATH)")
        return read_key(stored)
    key = read_key(key_path)
    if stored.exists() and read_key(stored)["study"] != key["study"]:
        raise InputError(key_path, f"study {key['study']} is not the study stored in {stored} "
                         f"({read_key(stored)['study']}): move the old reviews away to start a new study",
                         field="study")
    return key


def import_reviews(dataset_dir, files, settings: ReviewSettings, key_path=None) -> dict:
    """Check the files (RatingProblems lists every problem), store them, and rebuild the derived files
    from every stored rating. Returns the verdict summary."""
    reviews = Path(dataset_dir) / REVIEWS
    key = _study_key(reviews, key_path)
    incoming = check_ratings(files, key)
    names = {f"{f.rater}-packet{f.packet}.jsonl": f for f in incoming}
    stored = [p for p in sorted((reviews / "ratings").glob("*.jsonl")) if p.name not in names]
    try:
        every = check_ratings([*stored, *(f.path for f in incoming)], key)
    except RatingProblems as problems:
        raise RatingProblems([*problems.problems, InputError(reviews / "ratings", "conflicts with the ratings "
                              "already stored there (above)")]) from None
    if key_path is not None:
        write_json_atomic(reviews / "key.json", key)
    for name, found in names.items():
        write_text_atomic(reviews / "ratings" / name, Path(found.path).read_text(encoding="utf-8"))
    ratings = [r for f in every for r in f.ratings]
    if not ratings:
        raise InputError(files[0] if files else reviews, "no ratings to import")
    write_human_scores(ratings, key, reviews / "human_scores.csv", reviews / "human_scores_mqm.csv")
    summary, rows = review_summary(ratings, key, settings)
    write_csv(reviews / "labels.csv", LABEL_COLUMNS, _rounded(rows))
    summary = _rounded(summary)
    write_json_atomic(reviews / VERDICT_FILE, summary)
    return summary


def stored_ratings(dataset_dir) -> tuple[dict, list]:
    """The stored key and every stored rating, checked again (the files are the record, not the summary)."""
    reviews = Path(dataset_dir) / REVIEWS
    key = _study_key(reviews, None)
    files = check_ratings(sorted((reviews / "ratings").glob("*.jsonl")), key)
    ratings = [r for f in files for r in f.ratings]
    if not ratings:
        raise InputError(reviews / "ratings", "no stored ratings: run `lyss review import` first")
    return key, ratings


def jury_review(dataset_dir, judges_dir, settings: ReviewSettings) -> dict:
    """Seed 004's judges and calibrated jury against the stored speakers' ratings; writes reviews/jury.json."""
    key, ratings = stored_ratings(dataset_dir)
    _, rows = review_summary(ratings, key, settings)
    judges = read_judge_scores(judges_dir, sorted(key["systems"]))
    report = _rounded({"study": key["study"], **jury_against_speakers(ratings, rows, key, judges, settings.neutral)})
    write_json_atomic(Path(dataset_dir) / REVIEWS / JURY_FILE, report)
    return report
