"""The ratings files the review page downloads, read and checked against the study key.

A file is JSON Lines: a header `{"format", "study", "dataset", "rater", "packet", "exported"}`, then one
`{"item", "score", "errors": [{"start", "end", "text", "category", "severity"}]}` per rated output. Every
problem in every file is collected, one line each naming the file, the line and the field, so a speaker's
file can be fixed in one go rather than one complaint per run.
"""

import math
import re
from dataclasses import dataclass

from lyss.errors import InputError
from lyss.io import iter_jsonl

RATINGS_FORMAT = "lyss-review-ratings"
CATEGORIES = ("accuracy", "fluency", "terminology", "other")
SEVERITIES = ("minor", "major")
SCALE = (0.0, 100.0)
RATER_ID = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    category: str
    severity: str


@dataclass(frozen=True)
class Rating:
    rater: str
    packet: int
    item: str
    score: float
    errors: tuple[Span, ...]
    path: str
    line: int


@dataclass(frozen=True)
class RatingsFile:
    path: str
    rater: str
    packet: int
    ratings: tuple[Rating, ...]


class RatingProblems(InputError):
    """Every problem found in a set of ratings files; `problems` holds one InputError per problem."""

    def __init__(self, problems: list[InputError]):
        self.problems = problems
        first = problems[0]
        super().__init__(first.path, first.problem, line=first.line, field=first.field)
        self.args = ("\n".join(str(p) for p in problems),)

    def __str__(self) -> str:
        return self.args[0]


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _header_problems(path, line: int, header: dict, key: dict) -> list[InputError]:
    problems = []
    expected = {"format": RATINGS_FORMAT, "study": key["study"], "dataset": key["dataset"]}
    for field, value in expected.items():
        if header.get(field) != value:
            problems.append(InputError(path, f"is {header.get(field)!r}, expected {value!r} (a ratings file of "
                                       "this study's page)", line=line, field=field))
    rater = header.get("rater")
    if not isinstance(rater, str) or not RATER_ID.match(rater):
        problems.append(InputError(path, f"rater id {rater!r} must be letters, digits, '-' or '_'",
                                   line=line, field="rater"))
    packet = header.get("packet")
    if not (isinstance(packet, int) and not isinstance(packet, bool) and 1 <= packet <= len(key["packets"])):
        problems.append(InputError(path, f"packet {packet!r} is not one of 1..{len(key['packets'])}",
                                   line=line, field="packet"))
    return problems


def _span_problems(path, line: int, errors, chars: int | None) -> tuple[list[Span], list[InputError]]:
    if not isinstance(errors, list):
        return [], [InputError(path, "must be a list of error spans", line=line, field="errors")]
    spans, problems = [], []
    for k, span in enumerate(errors):
        where = f"errors[{k}]"
        if not isinstance(span, dict):
            problems.append(InputError(path, "must be an object", line=line, field=where))
            continue
        start, end = span.get("start"), span.get("end")
        category, severity = span.get("category"), span.get("severity")
        found = []
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start < end):
            found.append(InputError(path, f"start {start!r} and end {end!r} must be offsets with 0 <= start < end",
                                    line=line, field=f"{where}.start"))
        elif chars is not None and end > chars:
            found.append(InputError(path, f"end {end} is past the output's {chars} characters", line=line,
                                    field=f"{where}.end"))
        if category not in CATEGORIES:
            found.append(InputError(path, f"category {category!r} is not one of {', '.join(CATEGORIES)}",
                                    line=line, field=f"{where}.category"))
        if severity not in SEVERITIES:
            found.append(InputError(path, f"severity {severity!r} is not one of {', '.join(SEVERITIES)}",
                                    line=line, field=f"{where}.severity"))
        problems += found
        if not found:
            spans.append(Span(start, end, category, severity))
    return spans, problems


def read_ratings_file(path, key: dict) -> tuple[RatingsFile | None, list[InputError]]:
    """One file's ratings and its problems (an unreadable file or header gives no ratings)."""
    path = str(path)
    try:
        rows = list(iter_jsonl(path))
    except InputError as err:
        return None, [err]
    except OSError as err:
        return None, [InputError(path, f"cannot read the file ({err.strerror or err})")]
    if not rows:
        return None, [InputError(path, "empty file: expected a header line and one line per rating", line=1)]
    header_line, header = rows[0]
    problems = _header_problems(path, header_line, header, key)
    if problems:
        return None, problems
    rater, packet = header["rater"], header["packet"]
    in_packet = set(key["packets"][packet - 1])
    ratings, first_line = [], {}
    for line, row in rows[1:]:
        item, score = row.get("item"), row.get("score")
        found = []
        if item not in key["items"]:
            found.append(InputError(path, f"unknown item {item!r} (not in this study)", line=line, field="item"))
        elif item not in in_packet:
            found.append(InputError(path, f"item {item!r} is not in packet {packet}", line=line, field="item"))
        elif item in first_line:
            found.append(InputError(path, f"item {item!r} rated twice (first on line {first_line[item]})",
                                    line=line, field="item"))
        if not _is_number(score):
            found.append(InputError(path, f"score {score!r} is not a number", line=line, field="score"))
        elif not SCALE[0] <= score <= SCALE[1]:
            found.append(InputError(path, f"score {score:g} is off the scale {SCALE[0]:g}..{SCALE[1]:g}",
                                    line=line, field="score"))
        chars = key["items"][item].get("chars") if item in key["items"] else None
        spans, span_problems = _span_problems(path, line, row.get("errors", []), chars)
        found += span_problems
        problems += found
        if isinstance(item, str) and item not in first_line:
            first_line[item] = line
        if not found:
            ratings.append(Rating(rater, packet, item, float(score), tuple(spans), path, line))
    return RatingsFile(path, rater, packet, tuple(ratings)), problems


def check_ratings(paths, key: dict) -> list[RatingsFile]:
    """All files read and checked; a rater who rated an output in two files (or sent the same packet twice)
    is a problem too. Raises RatingProblems listing every problem."""
    files, problems = [], []
    for path in paths:
        found, file_problems = read_ratings_file(path, key)
        problems += file_problems
        if found is not None:
            files.append(found)
    seen_packet: dict[tuple[str, int], str] = {}
    seen_item: dict[tuple[str, str], Rating] = {}
    for found in files:
        if (found.rater, found.packet) in seen_packet:
            problems.append(InputError(found.path, f"rater {found.rater!r} packet {found.packet} also comes from "
                                       f"{seen_packet[(found.rater, found.packet)]}", line=1, field="packet"))
            continue
        seen_packet[(found.rater, found.packet)] = found.path
        for rating in found.ratings:
            other = seen_item.get((rating.rater, rating.item))
            if other is not None:
                problems.append(InputError(rating.path, f"rater {rating.rater!r} already rated item {rating.item!r} "
                                           f"in {other.path}:{other.line}", line=rating.line, field="item"))
            else:
                seen_item[(rating.rater, rating.item)] = rating
    if problems:
        raise RatingProblems(problems)
    return files
