"""`lyss judge`: grade a method's translations of a corpus with an LLM judge (see `lyss.studies.judge`).

Default output: one JSON object per corpus entry, in corpus order, with the `lyss.studies.judge.judge_items`
fields (id, grade, probabilities, answer, error). An entry without a translation, or whose
translation failed, is an error row and costs no request.

With `--condition NAME --run-id N` the output is instead the RUNS.jsonl format read by `lyss probe`
(`lyss.studies.probe`): per judged entry `{"run", "condition", "item", "gold", "probs",
"options"}`, where `probs` is keyed by the answer token shown to the judge (A–E under
`--render letters`), `options` maps each shown token to its rubric grade, and `gold` is the entry's
human grade (corpus field `--gold-field`, default `human_score`, an integer on the rubric). The probe
cannot read error rows, so entries the judge failed on are left out and counted on stderr; each
probe condition is one `lyss judge` call, and files are concatenated for `lyss probe`.
"""

import argparse
import sys
from pathlib import Path

from lyss.argtypes import non_negative, positive_int, usage_error
from lyss.errors import InputError
from lyss.io import iter_jsonl, write_jsonl_atomic
from lyss.prep.corpus import load_corpus
from lyss.studies.judge import RENDERINGS, Judge


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "judge", help="grade translations with an LLM judge (a probability per grade, from logprobs)",
        description="Grade each translation on a 1-5 rubric with a model behind an OpenAI-compatible "
        "chat-completions endpoint. The API key is read from the environment only.",
    )
    parser.add_argument("--corpus", type=Path, required=True, help="corpus JSONL (source, reference)")
    parser.add_argument("--translations", type=Path, required=True, help="translation JSONL of one method")
    parser.add_argument("--base-url", required=True, help="endpoint base, e.g. https://api.openai.com/v1")
    parser.add_argument("--model", required=True, help="judge model name")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY",
                        help="environment variable holding the API key (default OPENAI_API_KEY)")
    parser.add_argument("--no-api-key", action="store_true", help="send no key (local servers)")
    parser.add_argument("--render", choices=RENDERINGS, default="label_definition",
                        help="how the rubric options are shown (default label_definition)")
    parser.add_argument("--top-logprobs", type=positive_int, default=20,
                        help="alternatives requested for the answer token (default 20, the OpenAI maximum)")
    parser.add_argument("--concurrency", type=positive_int, default=4, help="requests in flight (default 4)")
    parser.add_argument("--timeout-s", type=non_negative, default=60.0, help="per request (default 60)")
    parser.add_argument("--max-retries", type=int, default=4, help="retries per item (default 4)")
    parser.add_argument("--backoff-s", type=non_negative, default=1.0, help="first retry wait (default 1)")
    parser.add_argument("--condition", help="write `lyss probe` rows for this prompt condition name")
    parser.add_argument("--run-id", help="run id of the probe rows (required with --condition)")
    parser.add_argument("--gold-field", default="human_score",
                        help="corpus field with the human grade, for probe rows (default human_score)")
    parser.add_argument("--out", type=Path, required=True, help="output JSONL")
    parser.set_defaults(func=run)


def read_predictions(path: Path, corpus_ids: set[str]) -> dict[str, str | None]:
    """id → prediction (None when the translation failed); an id outside the corpus means the files
    do not belong together, which is an error rather than something to skip."""
    if not path.exists():
        raise InputError(path, "translation file does not exist")
    predictions = {}
    for line, row in iter_jsonl(path):
        entry_id = str(row.get("id", ""))
        if entry_id not in corpus_ids:
            raise InputError(path, f"id {entry_id!r} is not in the corpus", line=line, field="id")
        prediction = row.get("prediction")
        usable = isinstance(prediction, str) and row.get("error") is None
        predictions[entry_id] = prediction if usable else None
    return predictions


def gold_grades(corpus: list[dict], path: Path, field: str, tokens: list[str]) -> dict[str, str]:
    """Every entry's human grade as a rubric token, checked before any request is paid for."""
    grades = {}
    for entry in corpus:
        value = entry.get(field)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        grade = str(int(value)) if number and float(value).is_integer() else None
        if grade not in tokens:
            raise InputError(path, f"entry {entry['id']!r}: expected a grade in {', '.join(tokens)}, "
                             f"got {value!r}", field=field)
        grades[entry["id"]] = grade
    return grades


def probe_rows(results: list[dict], judge: Judge, condition: str, run_id: str, gold: dict) -> list[dict]:
    """Successful results as `lyss probe` records, probabilities re-keyed by the shown token."""
    shown_of = {token: shown for shown, token in judge.shown.items()}
    return [{"run": run_id, "condition": condition, "item": r["id"], "gold": gold[r["id"]],
             "probs": {shown_of[token]: p for token, p in r["probabilities"].items()},
             "options": dict(judge.shown)}
            for r in results if r["error"] is None]


def run(args: argparse.Namespace) -> int:
    if (args.condition is None) != (args.run_id is None):
        return usage_error("judge", "--condition and --run-id go together")
    options = {"base_url": args.base_url, "model": args.model, "api_key_env": args.api_key_env,
               "api_key_required": not args.no_api_key, "render": args.render,
               "top_logprobs": args.top_logprobs, "concurrency": args.concurrency,
               "timeout_s": args.timeout_s, "max_retries": args.max_retries, "backoff_s": args.backoff_s}
    judge = Judge(options, source="command line")
    corpus = load_corpus(args.corpus)
    tokens = list(judge.shown.values())
    gold = gold_grades(corpus, args.corpus, args.gold_field, tokens) if args.condition else {}
    predictions = read_predictions(args.translations, {e["id"] for e in corpus})
    items = [{"id": e["id"], "source": e["source"], "reference": e["reference"],
              "prediction": predictions.get(e["id"])} for e in corpus]
    results = judge.grade_all(items)
    errors = sum(r["error"] is not None for r in results)
    rows = probe_rows(results, judge, args.condition, args.run_id, gold) if args.condition else results
    write_jsonl_atomic(args.out, rows)
    left_out = " (left out of the probe rows)" if args.condition and errors else ""
    print(f"judge: {len(results)} items, {errors} errors{left_out} -> {args.out}", file=sys.stderr)
    return 0
