"""Stage `prep` (rule prep): a dataset's corpus validated, NFC-normalised and written with its card and
content fingerprint, so that every later job reads a corpus that is known to be well-formed."""

from collections.abc import Mapping
from pathlib import Path

import yaml

from lyss.errors import InputError
from lyss.io import write_json_atomic, write_jsonl_atomic
from lyss.languages import load_cards
from lyss.prep.corpus import fingerprint, load_dataset_card
from lyss.prep.folders import load_dataset_entries
from lyss.settings import Limits


def check_dataset(name, dataset_dir, card_path, language_cards: Mapping,
                  limits: Limits | None = None) -> tuple[dict, list[dict]]:
    """(card, NFC-normalised entries) of a dataset, or the InputError of its first problem. The workflow runs
    this for every dataset before its first job (rules/common.smk), and rule `prep` again on its own inputs."""
    card = load_dataset_card(card_path, language_cards)
    if str(card["id"]) != name:
        raise InputError(card_path, f"id {card['id']!r} differs from the dataset's name {name!r} in "
                         "params.yaml (results are filed under that name)", field="id")
    return card, load_dataset_entries(dataset_dir, limits)


def prep_dataset(name, dataset_dir, card_path, languages_dir, out_corpus, out_meta,
                 limits: Limits | None = None) -> dict:
    """Validate and NFC-normalise a dataset folder's corpus (corpus.jsonl or plain text, lyss.prep.folders;
    within params.yaml `limits`); write it with its card and content fingerprint."""
    card, entries = check_dataset(name, dataset_dir, card_path, load_cards(languages_dir), limits)
    meta = {"dataset": card, "entries": len(entries), "fingerprint": fingerprint(entries)}
    write_jsonl_atomic(out_corpus, entries)
    write_json_atomic(out_meta, meta)
    return meta


def dataset_language_pair(dataset_path) -> tuple[str, str]:
    """Read `language_pair` from a dataset card without validating it (for Snakemake's DAG; `prep`
    validates the card and reports problems properly)."""
    card = yaml.safe_load(Path(dataset_path, "dataset.yaml").read_text(encoding="utf-8")) or {}
    source, _, target = str(card.get("language_pair", "")).partition("-")
    return source or "und", target or "und"
