"""The dataset folder convention: your own files, as WMT distributes them, with no per-system settings.

    data/corpora/<name>/
      dataset.yaml                 id, language_pair, licence, citation (required)
      corpus.jsonl                 the entries (docs/corpus.md), or, as plain text, line i = entry i:
      source.txt                     the sources
      reference.txt                  the reference
      reference.<label>.txt          further references, optional (several references: `references`)
      systems/<system>.txt|.jsonl  outputs made elsewhere: each file is a precomputed method named <system>
      human_scores.csv             optional: `method,id,human[,annotators]` (the evidence stage reads it)
      reviews/human_scores.csv     else: the speakers' ratings stored by `lyss review import` (lyss.review)

A dataset listed under `datasets:` with only `path:` gets its systems and its human scores from the folder;
params.yaml names a system only to give it settings of its own. Plain-text entries get the ids 1, 2, … (line
numbers), so a plain-text system output lines up with them by line as well.
"""

from pathlib import Path

from lyss.errors import InputError
from lyss.prep.corpus import load_corpus, validated_entries
from lyss.settings import Limits

CORPUS, SOURCE, REFERENCE, SYSTEMS, HUMAN_SCORES = (
    "corpus.jsonl", "source.txt", "reference.txt", "systems", "human_scores.csv")
# Human scores by convention, first found wins: scores that came with the data, else the community review's.
HUMAN_SCORE_FILES = (HUMAN_SCORES, f"reviews/{HUMAN_SCORES}")
SYSTEM_SUFFIXES = (".txt", ".jsonl")


def read_lines(path: Path) -> list[str]:
    """The lines of a UTF-8 text file, without the final newline's empty line and without CR of CRLF files."""
    if not path.exists():
        raise InputError(path, "does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise InputError(path, f"not UTF-8 text (byte {err.start})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def extra_reference_files(folder) -> list[Path]:
    """`reference.<label>.txt`, in name order (after `reference.txt`, which is the first reference)."""
    return sorted(p for p in Path(folder).glob("reference.*.txt") if p.name != REFERENCE)


def corpus_files(folder) -> list[Path]:
    """The files a dataset's entries are read from: `corpus.jsonl`, or the plain-text source and references."""
    folder = Path(folder)
    if (folder / CORPUS).exists() or not (folder / SOURCE).exists():
        return [folder / CORPUS]
    return [folder / SOURCE, folder / REFERENCE, *extra_reference_files(folder)]


def plaintext_entries(folder) -> list[tuple[int, dict]]:
    """(line, raw entry) from source.txt and its references, line-parallel; a count mismatch names both files."""
    folder = Path(folder)
    if not (folder / REFERENCE).exists():
        raise InputError(folder / REFERENCE, f"does not exist (a plain-text dataset needs it beside {SOURCE})")
    sources = read_lines(folder / SOURCE)
    references = [(path, read_lines(path)) for path in (folder / REFERENCE, *extra_reference_files(folder))]
    for path, lines in references:
        if len(lines) != len(sources):
            raise InputError(path, f"has {len(lines)} lines but {folder / SOURCE} has {len(sources)}")
    rows = []
    for i, source in enumerate(sources):
        raw = {"id": str(i + 1), "source": source, "reference": references[0][1][i]}
        if len(references) > 1:
            raw["references"] = [lines[i] for _, lines in references]
        rows.append((i + 1, raw))
    return rows


def load_dataset_entries(folder, limits: Limits | None = None) -> list[dict]:
    """The validated entries of a dataset folder, from corpus.jsonl or from its plain-text files."""
    first = corpus_files(folder)[0]
    if first.name == CORPUS:
        return load_corpus(first, limits)
    return validated_entries(first, plaintext_entries(folder), limits)


def discovered_systems(folder) -> dict[str, Path]:
    """System name → output file, from `systems/`; two files for one name (a.txt, a.jsonl) are an error."""
    found: dict[str, Path] = {}
    for path in sorted(Path(folder, SYSTEMS).glob("*")):
        if path.suffix not in SYSTEM_SUFFIXES or not path.is_file():
            continue
        if path.stem in found:
            raise InputError(path, f"a second output file for system {path.stem!r} (also {found[path.stem].name})")
        found[path.stem] = path
    return found


def expand_dataset_folders(config: dict, source: str = "params.yaml") -> frozenset[str]:
    """Add each dataset folder's systems (as precomputed methods run on that dataset) and its
    human_scores.csv to `config`, in place, before the settings are checked, and return the systems' names:
    each belongs to the datasets whose folder holds it, so the others are not offered it
    (`lyss.translate.eligibility.select_methods`). A system named like a method of params.yaml is an error:
    which of the two is meant would be a guess."""
    configured = set(config.get("methods") or {})
    discovered: dict[str, dict] = {}
    for name, dataset in (config.get("datasets") or {}).items():
        if not isinstance(dataset, dict) or not isinstance(dataset.get("path"), str):
            continue  # the settings check reports it
        folder = Path(dataset["path"])
        found = [folder / name for name in HUMAN_SCORE_FILES if (folder / name).exists()]
        if "human_scores" not in dataset and found:
            dataset["human_scores"] = str(found[0])
        systems = discovered_systems(folder)
        for system, path in systems.items():
            if system in configured:
                raise InputError(source, f"{path} is a system of dataset {name!r} and also a method of "
                                 "params.yaml; rename one of them", field=f"methods.{system}")
            discovered.setdefault(system, {"kind": "precomputed", "paths": {}})["paths"][name] = str(path)
        if systems and isinstance(dataset.get("methods"), list):
            dataset["methods"] = [*dataset["methods"], *(s for s in systems if s not in dataset["methods"])]
    if discovered:
        config["methods"] = {**(config.get("methods") or {}), **discovered}
    return frozenset(discovered)
