"""What `lyss score` and `lyss compare` read: line-parallel plain text files, the settings, the language cards,
and the short names that stand for system files in tables.

A bad file is one `InputError` naming it; a language is resolved once (`es` and `spa` are the same card), and
every warning about what was read goes through one `Notes` log, so it is printed once however many systems are
scored.
"""

import sys
from pathlib import Path, PurePath

from lyss.config import vocabulary
from lyss.errors import InputError, unreadable
from lyss.languages import card_for, provenance_warning, resolve_code
from lyss.settings import default_of, read_params_file, validate_params, with_defaults


class Notes:
    """Warnings (and notes) in the order they arise, each printed on stderr the first time only; the JSON
    output lists the warnings too, the text output does not repeat them."""

    def __init__(self):
        self.warnings: list[str] = []

    def warn(self, line: str) -> None:
        if line not in self.warnings:
            self.warnings.append(line)
            print(f"lyss: warning: {line}", file=sys.stderr)

    @staticmethod
    def note(line: str) -> None:
        print(f"lyss: note: {line}", file=sys.stderr)


def read_segments(path: Path) -> list[str]:
    """One segment per line (a final newline ends the last line, it does not add an empty one); `-` is
    standard input. As in sacrebleu, trailing whitespace (a `\r`, a tab an export left) is no part of a
    segment, so it moves no metric; unlike sacrebleu, a byte-order mark is not part of the first one."""
    try:
        text = sys.stdin.buffer.read().decode("utf-8") if str(path) == "-" else path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = err.object[: err.start].count(b"\n") + 1
        raise InputError(path, f"not UTF-8 text ({err.reason})", line=line) from None
    except OSError as err:
        raise unreadable(path, err) from None
    if not text:
        raise InputError(path, "file is empty")
    return [line.rstrip() for line in text.removeprefix("\ufeff").removesuffix("\n").split("\n")]


def read_parallel(paths: list[Path]) -> list[list[str]]:
    """Read files that must have one line per segment each; the first file sets the count. Standard input
    can be read once only."""
    if sum(str(p) == "-" for p in paths) > 1:
        raise InputError("-", "standard input is given for more than one file")
    texts = [read_segments(p) for p in paths]
    for path, lines in zip(paths[1:], texts[1:], strict=True):
        if len(lines) != len(texts[0]):
            raise InputError(path, f"has {len(lines)} lines but {paths[0]} has {len(texts[0])}; "
                                   "the files must be line-parallel")
    return texts


def system_names(paths: list[Path]) -> list[str]:
    """Short names for system files in tables: the file name without its last suffix (`out/nemo.de` → nemo),
    with as many parent folders as it takes to tell files apart (`a/sys.de`, `b/sys.de` → a/sys, b/sys);
    `-` is stdin. The same file given twice is an error: its rows would be compared with themselves."""
    for i, path in enumerate(paths):
        if str(path) != "-" and any(Path(path).resolve() == Path(other).resolve() for other in paths[:i]):
            raise InputError(path, "is given more than once as a system output")
    whole = [("stdin",) if str(p) == "-" else PurePath(p).parts for p in paths]
    stems = [parts[:-1] + (PurePath(parts[-1]).stem,) for parts in whole]
    for parts in (stems, whole):  # `sys.de` and `sys.fr` differ only by their suffix
        for depth in range(1, max(map(len, parts)) + 1):
            names = ["/".join(p[-depth:]) for p in parts]
            if len(set(names)) == len(names):
                return names
    return [str(p) for p in paths]


def default_path(local: str, packaged: str) -> Path:
    """`local` (relative to the current folder) when it exists, else the copy packaged with lyss
    (src/lyss/defaults/, the repository's own params.yaml and language cards): `lyss score` works from any
    folder without --params or --languages."""
    if Path(local).exists():
        return Path(local)
    from importlib import resources

    return Path(str(resources.files("lyss.defaults").joinpath(packaged)))


def load_settings(path: Path | None, notes: Notes) -> dict:
    """params.yaml, checked whole (lyss.settings) before anything is scored, with the schema's defaults filled
    in; the composite, tier, caveat and stats sections are what scoring reads (the spec's tables live there).
    None: the default settings."""
    path = default_path("params.yaml", "params.yaml") if path is None else path
    if not Path(path).exists():
        raise InputError(path, "cannot read the settings (no such file); give --params PATH to the LYSS "
                               "params.yaml")
    params = read_params_file(path)
    for warning in validate_params(params, vocabulary(), path):
        notes.warn(warning)
    return with_defaults(params)


def language_cards(lang_pair: str, languages_dir: Path | None, notes: Notes) -> tuple[str, str, dict, dict]:
    """Source and target codes (ISO 639-1 resolved to ISO 639-3: `en-es` is `eng-spa`) and their cards (a card
    file merged over CLDR's facts, or CLDR's alone); a language without a card file is a warning."""
    if languages_dir is not None and not languages_dir.is_dir():  # a typo would silently drop every card file
        raise InputError("--languages", f"{languages_dir} is not a folder of language cards")
    languages_dir = default_path(default_of("languages_dir"), "languages") if languages_dir is None else languages_dir
    codes = lang_pair.split("-")
    if len(codes) != 2 or not all(codes):
        raise InputError("--lang-pair", f"expected SRC-TGT such as eng-deu or en-de, got {lang_pair!r}")
    codes = [resolve_code(code, languages_dir) for code in codes]
    cards = [card_for(code, languages_dir) for code in codes]
    for code, card in zip(codes, cards, strict=True):
        warning = provenance_warning(code, card)
        if warning:
            notes.warn(warning)
    return codes[0], codes[1], cards[0], cards[1]
