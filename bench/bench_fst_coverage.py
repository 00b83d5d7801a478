"""How often each card's FST analyzer rejects real words (spec §1.6 item 2), and whether
fst_acceptance_rate still separates good from bad output once names and loanwords are excused.

Three kinds of real text, all optional:
- `--wordfreq N`: wordfreq's bundled top-N frequency list of each card language (lower-cased by wordfreq, so a
  word also counts as accepted when its capitalised form is, e.g. "madrid");
- `--corpus FILE.jsonl --source eng --target deu`: a corpus of {source, reference} entries;
- `--gettext DIR` (e.g. /usr/share/locale): the English→target message catalogs (`*.mo`) installed there, a
  real parallel corpus for every card language, sampled to `--entries` messages per language.

For a corpus it scores the reference, a copy of the source and the reference with every fifth word misspelt
(two inner letters swapped) as if they were outputs, and prints the reference false-rejection rates from the
metric's details. Prints one table row per language; `--json` writes everything.
"""

import argparse
import gettext
import itertools
import json
import random
import re
import sys
from pathlib import Path

import regex

from lyss.languages import cldr_locale, load_cards
from lyss.metrics import ScoringInput
from lyss.metrics.analyzers import analyse_words, load_analyzer
from lyss.metrics.fst import FstAcceptance
from lyss.prep.corpus import load_corpus
from lyss.text import words

ROOT = Path(__file__).resolve().parents[1]
# gettext catalogs of the Serbo-Croatian cards; the others use the card's CLDR locale.
GETTEXT_LOCALE = {"hbs": "hr", "hrv": "hr", "bos": "bs"}
PRINTF = re.compile(r"%(?:\d+\$)?[-+ #0]*[\d*]*(?:\.[\d*]+)?[hlLqjzt]*[a-zA-Z%]")
ACCELERATOR = re.compile(r"[_&~](?=\w)")
LONG_WORD = regex.compile(r"[\p{L}\p{M}]{4,}")  # Devanagari vowel signs are marks, not letters


def misspell(texts: list[str], rng: random.Random, every: int = 5) -> list[str]:
    """Every `every`-th run of at least four letters of the corpus gets two inner letters swapped (abcd → acbd)."""
    count = itertools.count(1)

    def swap(match) -> str:
        token = match.group()
        if next(count) % every:
            return token
        i = rng.randrange(1, len(token) - 2)
        return token[:i] + token[i + 1] + token[i] + token[i + 2:]

    return [LONG_WORD.sub(swap, text) for text in texts]


def score_corpus(entries: list[dict], source: str, target: str, cards) -> dict:
    """fst_acceptance_rate of the reference, a source copy and a misspelt reference (raw and robust)."""
    rng = random.Random(1)
    card = cards[target]
    outputs = {"reference": [e["reference"] for e in entries], "source_copy": [e["source"] for e in entries],
               "misspelt": misspell([e["reference"] for e in entries], rng)}
    row = {}
    for name, predictions in outputs.items():
        data = ScoringInput(entries, predictions, predictions, source, target, source_card=cards[source],
                            target_card=card)
        result = FstAcceptance().score(data)
        if result.corpus_value is None:
            return {"reason": result.reason}
        row[name] = {"robust": round(result.corpus_value, 4), "raw": result.details["raw_acceptance"]}
        row["reference_false_rejection"] = result.details["reference_false_rejection"]
    return row


def wordfreq_rejection(card: dict, n: int) -> dict | None:
    """Share of the top-n frequent words (as lyss.text.words sees them) the analyzer rejects."""
    import wordfreq

    locale = cldr_locale(card["code"]) or ""
    lang = {"hbs": "sh", "hrv": "sh", "bos": "sh"}.get(card["code"], locale.split("_")[0])
    if lang not in wordfreq.available_languages():
        return None
    top = list(dict.fromkeys(w for item in wordfreq.top_n_list(lang, n) for w in words(item, card)))
    analyzer = load_analyzer(card)
    seen = analyse_words(analyzer, top + [w.capitalize() for w in top], card.get("caseless", False))
    rejected = [w for w in top if not seen[w].accepted]
    still = [w for w in rejected if not seen[w.capitalize()].accepted]
    return {"wordfreq": lang, "words": len(top), "rejected": round(len(rejected) / len(top), 4),
            "rejected_also_capitalised": round(len(still) / len(top), 4), "examples": still[:8]}


def gettext_entries(directory: Path, code: str, limit: int) -> list[dict]:
    """English msgid → target msgstr pairs of the installed catalogs, seeded sample of `limit`."""
    locale = GETTEXT_LOCALE.get(code) or (cldr_locale(code) or code).split("_")[0]
    pairs = {}
    for mo in sorted((directory / locale / "LC_MESSAGES").glob("*.mo")):
        try:
            catalog = gettext.GNUTranslations(mo.open("rb"))._catalog
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        for msgid, msgstr in catalog.items():
            if not isinstance(msgid, str) or not msgid or not isinstance(msgstr, str) or msgstr == msgid:
                continue
            clean = [ACCELERATOR.sub("", PRINTF.sub(" ", t)).replace("\\n", " ") for t in (msgid, msgstr)]
            if len(clean[0].split()) >= 3:
                pairs.setdefault(clean[0], clean[1])
    chosen = random.Random(0).sample(sorted(pairs.items()), min(limit, len(pairs)))
    return [{"id": f"m{i}", "source": s, "reference": r} for i, (s, r) in enumerate(chosen)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", default=str(ROOT / "data/languages"))
    parser.add_argument("--languages", help="comma-separated card codes (default: every card with an analyzer)")
    parser.add_argument("--wordfreq", type=int, default=0, metavar="N")
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--source", default="eng")
    parser.add_argument("--target")
    parser.add_argument("--gettext", type=Path, metavar="DIR")
    parser.add_argument("--entries", type=int, default=300)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    cards = load_cards(args.cards)
    codes = args.languages.split(",") if args.languages else sorted(
        c for c, card in cards.items() if (card.get("fst_analyzer") or {}).get("backend") == "lttoolbox")
    report = {}
    if args.corpus:
        report[f"corpus:{args.target}"] = row = score_corpus(load_corpus(args.corpus), args.source, args.target,
                                                             cards)
        print(args.corpus, args.target, json.dumps(row, ensure_ascii=False))
    for code in codes if args.wordfreq or args.gettext else []:
        row = {}
        if args.wordfreq:
            row["wordfreq"] = wordfreq_rejection(cards[code], args.wordfreq)
        if args.gettext:
            entries = gettext_entries(args.gettext, code, args.entries)
            row["gettext"] = {"entries": len(entries), **score_corpus(entries, "eng", code, cards)} if entries else None
        report[code] = row
        print(code, json.dumps(row, ensure_ascii=False), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
