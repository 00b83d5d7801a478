"""The options of `lyss score` and `lyss compare`, spelled as a sacrebleu user types them, and read so that
nothing is misread.

- The references are given with `-r` or, as in sacrebleu, before the options (`lyss score REF -i HYP`).
- List options (`-r`, `-i`, `-m`) take several values after one flag (`-r A B`, sacrebleu's style); given
  again they extend the same list (`-r A -r B` is `-r A B`), never a last-one-wins.
- A single-value option given twice (`-l en-de -l en-fr`) is an error, not the last one silently.
- sacrebleu's metric names (BLEU, TER; `chrf` with `--chrf-word-order 2`) and `chrF++`/`chrfpp` name the
  LYSS metrics that compute the same number; a name LYSS has no metric for is one error line with the names.
- Every parsing error is one line (argparse's usage block is for `--help`), exit status 2.
"""

import argparse
from pathlib import Path

from sacrebleu.metrics.bleu import _TOKENIZERS

from lyss.argtypes import non_negative_int
from lyss.errors import InputError, did_you_mean
from lyss.metrics import REGISTRY, declaration

FORMATS = ("text", "json", "tsv")
# sacrebleu's `-m chrf --chrf-word-order 2` is chrF++: the metric that declares this alias.
CHRF_WORD_ORDER_2 = "chrf++"


def aliases() -> dict[str, str]:
    """Lower-cased id or declared alias (lyss.metrics.base: `aliases`) → metric id. sacrebleu's names for BLEU
    and TER are the ids themselves; its `chrf` alone is chrF with word order 0, which no metric computes."""
    names = {m.lower(): m for m in REGISTRY}
    names.update({alias.lower(): m for m in REGISTRY for alias in declaration(m, "aliases")})
    return names


class Once(argparse.Action):
    """A single-value option that refuses a second occurrence (argparse keeps the last one silently)."""

    def __call__(self, parser, namespace, values, option_string=None):
        seen = namespace.__dict__.setdefault("_given_once", {})
        if self.dest in seen:
            raise argparse.ArgumentError(self, f"given twice ('{seen[self.dest]}', then '{values}'); give it once")
        seen[self.dest] = values
        setattr(namespace, self.dest, values)


class OnceFlag(Once):
    """A flag that sets its `const` as the value of a single-value option (sacrebleu's `--paired-ar` for `lyss
    compare --test ar`), refused beside another value for that option as Once refuses a second one."""

    def __init__(self, option_strings, dest, const, help=None):
        super().__init__(option_strings, dest, nargs=0, const=const, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, self.const, option_string)


# sacrebleu options that `lyss score`/`compare` do not take, and what to do instead: a sacrebleu user's habit
# gets its answer in the error line, not only "unrecognized arguments".
_DOWNLOADS_NOTHING = "LYSS downloads no test set: give its files (-s SRC -r REF -i HYP)"
_FIXED_BY_THE_SPEC = "the LYSS spec fixes it at sacrebleu's default, which the metric's signature prints"
SACREBLEU_ELSEWHERE = {
    "--paired-bs": "paired tests are `lyss compare`, which takes --paired-bs as sacrebleu does",
    "--paired-ar": "paired tests are `lyss compare`, which takes --paired-ar as sacrebleu does",
    "--paired-bs-n": "paired tests are `lyss compare`", "--paired-ar-n": "paired tests are `lyss compare`",
    "--paired-jobs": "paired tests are `lyss compare`",
    "-t": _DOWNLOADS_NOTHING, "--test-set": _DOWNLOADS_NOTHING, "--echo": _DOWNLOADS_NOTHING,
    "--download": _DOWNLOADS_NOTHING, "--origlang": _DOWNLOADS_NOTHING, "--subset": _DOWNLOADS_NOTHING,
    "-nr": "several references are several files: -r A B", "--num-refs": "several references are several files: -r A B",
    "-e": "files are read as UTF-8", "--encoding": "files are read as UTF-8",
    "--smooth-method": _FIXED_BY_THE_SPEC, "--smooth-value": _FIXED_BY_THE_SPEC, "-sv": _FIXED_BY_THE_SPEC,
    "--chrf-char-order": _FIXED_BY_THE_SPEC, "-cc": _FIXED_BY_THE_SPEC, "--chrf-beta": _FIXED_BY_THE_SPEC,
    "--chrf-whitespace": _FIXED_BY_THE_SPEC, "--ter-asian-support": _FIXED_BY_THE_SPEC,
    "--ter-no-punct": _FIXED_BY_THE_SPEC, "--ter-normalized": _FIXED_BY_THE_SPEC,
    "-q": "warnings go to stderr: add 2>/dev/null", "--quiet": "warnings go to stderr: add 2>/dev/null",
    "-sh": "signatures are printed whole", "--short": "signatures are printed whole",
}


class Refused(argparse.Action):
    """A sacrebleu option LYSS does not take, declared so that argparse does not read it as the prefix of one of
    ours (sacrebleu's `-t wmt20` would otherwise be `-tok wmt20`): using it is the error with what to do instead."""

    def __call__(self, parser, namespace, values, option_string=None):
        raise argparse.ArgumentError(self, SACREBLEU_ELSEWHERE[option_string])


def one_line_errors(parser: argparse.ArgumentParser) -> None:
    """Make the parser's errors one line (what is wrong, and where the options are listed), exit status 2;
    an option it does not know is named there, with what to do instead where it is a sacrebleu option."""
    def error(message: str):
        parser.exit(2, f"lyss: error: {parser.prog}: {message} (`{parser.prog} --help` lists the options)\n")

    parse_known_args = parser.parse_known_args

    def parse_all(args=None, namespace=None):  # the parent parser would only say "unrecognized arguments"
        namespace, extras = parse_known_args(args, namespace)
        if extras:
            hints = [f"{flag}: {SACREBLEU_ELSEWHERE[flag]}" for flag in extras if flag in SACREBLEU_ELSEWHERE]
            error(f"unrecognized arguments: {' '.join(extras)}" + "".join(f"; {hint}" for hint in hints))
        if hasattr(namespace, "positional_references"):
            references_once(namespace, error)
        return namespace, extras

    parser.error = error
    parser.parse_known_args = parse_all
    parser.allow_abbrev = False  # a misspelt option is an error, never read as the prefix of another


def references_once(namespace: argparse.Namespace, error) -> None:
    """The references, given either as sacrebleu gives them (positional, before `-i`) or with `-r`, into
    `namespace.reference`. Both at once is an error rather than one list appended to the other: which file is
    the first reference (the one every single-reference metric reads) would depend on the order of the words."""
    positional = namespace.__dict__.pop("positional_references")
    if positional and namespace.reference:
        error(f"references given twice: {' '.join(map(str, positional))} (positional, sacrebleu's spelling) and "
              f"-r {' '.join(map(str, namespace.reference))}; give them one way")
    namespace.reference = namespace.reference or positional
    if not namespace.reference:
        error("the references are required: `-r REF [REF …]`, or sacrebleu's `REF [REF …]` before -i")


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `score` and `compare` share: the files, the languages, the settings and the output."""
    one_line_errors(parser)
    parser.add_argument("--source", "-s", type=Path, action=Once,
                        help="source segments, one per line; needed only by metrics that read the source "
                        "(chrF++, BLEU, TER, exact match and length ratio do not)")
    parser.add_argument("positional_references", nargs="*", type=Path, metavar="REF",
                        help="sacrebleu's spelling of -r: `%(prog)s REF [REF …] -i HYP`")
    parser.add_argument("--reference", "-r", type=Path, nargs="+", action="extend",
                        help="reference translations, one per line; several (`-r A B`) are several references "
                        "of each segment, used by every metric that supports them (chrF++, BLEU, TER as "
                        "sacrebleu does, exact match: any of them); the others use the first and say so")
    parser.add_argument("--lang-pair", "-l", action=Once,
                        help="SRC-TGT as ISO 639-1 or ISO 639-3 codes, e.g. en-de or eng-deu (the same cards); "
                        "the target also chooses BLEU's tokenizer as sacrebleu does (zh, ja-mecab, ko-mecab). "
                        "Needed unless every metric asked for is sacrebleu's, exact match or length ratio "
                        "(then, as in sacrebleu, BLEU tokenizes with 13a)")
    parser.add_argument("--metrics", "-m", nargs="+", action="extend",
                        help="metric ids, space- or comma-separated, case-insensitive; sacrebleu's BLEU, TER "
                        "and chrF++ (chrfpp, or `chrf --chrf-word-order 2`) are accepted")
    parser.add_argument("--chrf-word-order", "-cw", type=int, choices=(2,), action=Once,
                        help="sacrebleu's flag: with 2, `-m chrf` is chrF++; LYSS computes no "
                        "chrF of another word order")
    parser.add_argument("--tokenize", "-tok", choices=sorted(_TOKENIZERS), action=Once, metavar="NAME",
                        help=f"BLEU's tokenizer, one of sacrebleu's ({', '.join(sorted(_TOKENIZERS))}); default: "
                        "the target card's, else the one sacrebleu picks for the target language, else 13a")
    parser.add_argument("--lowercase", "-lc", action="store_true",
                        help="sacrebleu's flag: BLEU ignores case (its signature says case:lc)")
    parser.add_argument("--chrf-lowercase", action="store_true", help="sacrebleu's flag: chrF++ ignores case")
    parser.add_argument("--ter-case-sensitive", action="store_true",
                        help="sacrebleu's flag: TER counts case (by default it ignores it, as TERCOM does)")
    parser.add_argument("--comet-model", action=Once, metavar="PATH",
                        help="COMET checkpoint (checkpoints/model.ckpt, or the folder holding checkpoints/) or a hub "
                        "id already in the local Hugging Face cache; scores comet_score (reported beside the "
                        "composite, never in it) with the defaults too. Nothing is downloaded")
    parser.add_argument("--languages", type=Path, action=Once,
                        help="language card folder (default data/languages when it exists, else the cards "
                        "packaged with lyss); a language without a card file gets the card derived from CLDR "
                        "(docs/languages.md)")
    parser.add_argument("--params", type=Path, action=Once,
                        help="params.yaml with the composite weights, tiers and stats settings (default "
                        "params.yaml when it exists, else the settings packaged with lyss)")
    parser.add_argument("--width", "-w", type=non_negative_int, action=Once, metavar="N",
                        help="sacrebleu's flag: digits after the decimal point of the scores printed as text "
                        "(default 4); json and tsv keep full precision")
    parser.add_argument("--test-set", "-t", action=Refused, help=argparse.SUPPRESS)
    parser.add_argument("--format", "-f", choices=FORMATS, action=Once,
                        help="text (default), json or tsv")
    parser.add_argument("--json", action="store_true", help="the same as --format json")
    parser.add_argument("--seed", type=int, action=Once, help="random seed (default: params stats)")


def output_format(args: argparse.Namespace) -> str:
    if args.json and args.format not in (None, "json"):
        raise InputError("--format", f"--json and --format {args.format} ask for two formats; give one")
    return "json" if args.json else (args.format or "text")


def metric_names(given: list[str] | None, chrf_word_order: int | None,
                 allowed_extra: tuple[str, ...] = ()) -> list[str] | None:
    """The metric ids of `-m` (None when it was not given), aliases resolved, each once, in the order given."""
    if given is None:
        return None
    ids = []
    for name in (n.strip() for text in given for n in text.split(",")):
        if name:
            ids.append(_metric_id(name, chrf_word_order, allowed_extra))
    if not ids:
        raise InputError("--metrics", "no metric given")
    return list(dict.fromkeys(ids))


def _metric_id(name: str, chrf_word_order: int | None, allowed_extra: tuple[str, ...]) -> str:
    if name in REGISTRY or name in allowed_extra:
        return name
    known = aliases()
    lowered = name.lower()
    if lowered == "chrf" and chrf_word_order == 2:
        lowered = CHRF_WORD_ORDER_2
    if lowered in known:
        return known[lowered]
    listing = ", ".join([*sorted(REGISTRY), *allowed_extra])
    if lowered == "chrf":
        raise InputError("--metrics", f"'chrf' is sacrebleu's chrF of character n-grams only (word order 0), which "
                         f"LYSS does not compute; chrF++ is {known[CHRF_WORD_ORDER_2]} (also chrF++, chrfpp, or "
                         f"`-m chrf --chrf-word-order 2` as in sacrebleu); known: {listing}")
    raise InputError("--metrics", f"unknown metric {name!r}{did_you_mean(lowered, [*known, *allowed_extra])}; "
                                  f"known: {listing} (case-insensitive; also "
                                  "sacrebleu's BLEU, TER and chrF++)")
