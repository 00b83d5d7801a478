"""Juries of LLM judges grading on a small integer scale, compared with human grades.

Follows the analysis in the jury note (seed 004): every judge and every aggregation rule is scored
against the human grades per corpus, before and after quantile-mapping calibration fitted on the
other corpora; jury-size curves average over all member combinations of a size; every odd
combination is compared with its own members; unanimity is checked as a routing signal.
"""

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from lyss.errors import InputError
from lyss.stats.correlation import weighted_spearman
from lyss.studies.agreement import grade_agreement, per_grade_exact
from lyss.studies.calibration import leave_one_corpus_out
from lyss.studies.merge_grades import RULES, aggregate, to_grade
from lyss.tables import CsvTable, check_unique

JURY_PREFIX = "jury:"
GRADED = ("bias", "exact", "within1", "mae", "qwk", "sensitivity", "specificity", "f1", "exact_macro")
# +1: higher is better; -1: lower is better. bias has no better direction and is not ranked.
RANKED = {
    "exact": 1,
    "within1": 1,
    "mae": -1,
    "spearman": 1,
    "qwk": 1,
    "sensitivity": 1,
    "specificity": 1,
    "f1": 1,
}
CURVE_STATS = ("exact", "within1", "mae", "spearman", "qwk")


@dataclass
class GradesData:
    path: str
    items: list[str]
    corpus: np.ndarray
    human: np.ndarray
    judges: dict[str, np.ndarray]
    kinds: dict[str, str]
    anchor: np.ndarray | None = None
    anchored: dict[str, np.ndarray] = field(default_factory=dict)
    rubric: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass(frozen=True)
class JuryOptions:
    scale: tuple[int, int] = (1, 5)
    threshold: float = 4
    rules: tuple[str, ...] = RULES
    trim: float = 0.2
    raw_rule: str = "median"
    calibrated_rule: str = "mean"
    odd_sizes_only: bool = True
    members: tuple[str, ...] | None = None
    resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0

    @property
    def levels(self) -> np.ndarray:
        return np.arange(self.scale[0], self.scale[1] + 1, dtype=float)


@dataclass
class Member:
    """One row group of the report: a judge or a jury rule, raw and (if possible) calibrated.

    raw_grade is None for a judge holding continuous scores: it has no grade until calibration."""

    name: str
    raw_score: np.ndarray
    raw_grade: np.ndarray | None
    calibrated: np.ndarray | None


def _on_scale(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    return np.isin(values, levels)


@dataclass(frozen=True)
class GradeColumns:
    """Where a grades file keeps what: the human grade, the judges, the item and (optional) corpus and
    anchor columns, and the suffixes of a judge's anchored and rubric grades (`<judge><suffix>`)."""

    human: str
    judges: list[str]
    item: str
    corpus: str | None = None
    anchor: str | None = None
    anchored_suffix: str = "_anchored"
    rubric_suffix: str = "_rubric"


def read_grades(table: CsvTable, columns: GradeColumns, levels: np.ndarray) -> GradesData:
    """Human grades must be on the scale; a judge column is a grade judge when all its values are
    scale grades, otherwise it holds continuous scores (a metric). A grade judge's grades given with
    a rubric are read from the column `<judge><rubric_suffix>` when the file has it."""
    human_col, judge_cols, item_col = columns.human, columns.judges, columns.item
    corpus_col, anchor_col = columns.corpus, columns.anchor
    anchored_suffix, rubric_suffix = columns.anchored_suffix, columns.rubric_suffix
    table.require(human_col, item_col, *judge_cols, *(c for c in (corpus_col, anchor_col) if c))
    human = table.numbers(human_col)
    _require_scale(table, human_col, human, levels)
    items = table.strings(item_col)
    corpus = np.asarray(table.strings(corpus_col) if corpus_col else ["all"] * len(items))
    check_unique(table, zip(corpus, items, strict=True), item_col, lambda key: f"item '{key[1]}' appears")
    judges = {name: table.numbers(name) for name in judge_cols}
    kinds = {name: "grade" if _on_scale(v, levels).all() else "continuous" for name, v in judges.items()}
    data = GradesData(table.path, items, corpus, human, judges, kinds)
    for name in judge_cols:
        column = f"{name}{rubric_suffix}"
        if kinds[name] == "grade" and column in table.header:
            data.rubric[name] = table.numbers(column)
            _require_scale(table, column, data.rubric[name], levels)
    if anchor_col:
        data.anchor = table.numbers(anchor_col)
        _require_scale(table, anchor_col, data.anchor, levels)
        for name in judge_cols:
            column = f"{name}{anchored_suffix}"
            if kinds[name] == "grade" and column in table.header:
                data.anchored[name] = table.numbers(column)
                _require_scale(table, column, data.anchored[name], levels)
    return data


def _require_scale(table: CsvTable, column: str, values: np.ndarray, levels: np.ndarray) -> None:
    bad = np.flatnonzero(~_on_scale(values, levels))
    if bad.size:
        k = bad[0]
        raise InputError(
            table.path,
            f"grade {values[k]:g} is not on the scale {levels[0]:g}..{levels[-1]:g}",
            line=table.lines[k],
            field=column,
        )


def jury_members(data: GradesData, options: JuryOptions) -> list[str]:
    """The judges that form the jury: the given ones, or every judge holding grades."""
    names = list(options.members) if options.members else [n for n, k in data.kinds.items() if k == "grade"]
    for name in names:
        if name not in data.judges:
            raise InputError(data.path, f"jury member '{name}' is not one of the judge columns", field=name)
        if data.kinds[name] != "grade":
            raise InputError(data.path, f"jury member '{name}' holds continuous scores, not grades", field=name)
    if len(names) < 2:
        raise InputError(data.path, "a jury needs at least two judge columns holding grades")
    return names


def rubric_columns(data: GradesData, names: list[str], suffix: str) -> bool:
    """Whether the rubric condition is analysed: all jury members have rubric grades (True) or none
    has (False); rubric grades for only some of them are an input error (header line, the first
    missing column)."""
    given = [n for n in names if n in data.rubric]
    if given and len(given) < len(names):
        missing = next(n for n in names if n not in data.rubric)
        raise InputError(
            data.path,
            f"rubric grades for {len(given)} of {len(names)} jury members ({', '.join(given)}) but no column "
            f"'{missing}{suffix}'; give a '<judge>{suffix}' column for every jury member or for none",
            line=1,
            field=missing + suffix,
        )
    return bool(given)


def has_rubric(data: GradesData, names) -> bool:
    return all(n in data.rubric for n in names)


def can_calibrate(data: GradesData) -> bool:
    return len(np.unique(data.corpus)) >= 2


def jury_grades(data: GradesData, chosen, options: JuryOptions, rubric: bool = False):
    """(raw grade, raw score, calibrated grade or None) of the jury of the members `chosen`.

    The raw jury is `raw_rule` rounded to the scale; the calibrated jury maps the `calibrated_rule`
    score with the quantile mapping fitted out of corpus on the **blind** score and the human
    grades. With rubric=True both aggregate the rubric grades instead, and the calibrated one
    applies that same blind-fitted mapping to them. One member: its own grade and calibration.
    """
    blind = np.column_stack([data.judges[n] for n in chosen])
    given = np.column_stack([data.rubric[n] for n in chosen]) if rubric else blind
    raw = aggregate(given, options.raw_rule, options.levels, options.trim)
    calibrated = None
    if can_calibrate(data):
        fit = aggregate(blind, options.calibrated_rule, options.levels, options.trim)
        apply = aggregate(given, options.calibrated_rule, options.levels, options.trim) if rubric else None
        calibrated = leave_one_corpus_out(data.corpus, fit, data.human, apply)
    return to_grade(raw, options.levels), raw, calibrated


def _exact(human, grade, options: JuryOptions) -> float:
    return grade_agreement(human, grade, options.levels, options.threshold)["exact"]


def build_members(data: GradesData, names: list[str], options: JuryOptions) -> list[Member]:
    """Every judge and every jury rule, with raw and leave-one-corpus-out calibrated grades."""
    calibrate = can_calibrate(data)
    members = []
    for name, values in data.judges.items():
        grade = values if data.kinds[name] == "grade" else None
        calibrated = leave_one_corpus_out(data.corpus, values, data.human) if calibrate else None
        members.append(Member(name, values, grade, calibrated))
    matrix = np.column_stack([data.judges[n] for n in names])
    for rule in options.rules:
        score = aggregate(matrix, rule, options.levels, options.trim)
        calibrated = leave_one_corpus_out(data.corpus, score, data.human) if calibrate else None
        members.append(Member(JURY_PREFIX + rule, score, to_grade(score, options.levels), calibrated))
    return members


def member_statistics(human, grade, score, options: JuryOptions) -> dict:
    """All per-member statistics; graded ones are undefined (NaN) without a grade."""
    row = {"n": len(human), "spearman": float(weighted_spearman(human, score))}
    if grade is None:
        return row | dict.fromkeys(GRADED, float("nan"))
    row |= grade_agreement(human, grade, options.levels, options.threshold)
    per_grade = [exact for _, count, exact in per_grade_exact(human, grade, options.levels) if count]
    row["exact_macro"] = float(np.mean(per_grade))
    return row


def _versions(member: Member):
    """(calibrated flag, grade, score) for the raw and the calibrated version of a member."""
    yield False, member.raw_grade, member.raw_score
    if member.calibrated is not None:
        yield True, member.calibrated, member.calibrated


def corpora(data: GradesData) -> list[str]:
    return list(dict.fromkeys(data.corpus.tolist()))


def judge_table(
    data: GradesData, members: list[Member], names: list[str], options: JuryOptions
) -> tuple[list[dict], list[dict]]:
    """judges.csv rows (with ranks among the jury members) and per_grade.csv rows."""
    rows, per_grade = [], []
    for name in corpora(data):
        mask = data.corpus == name
        human = data.human[mask]
        for member in members:
            for calibrated, grade, score in _versions(member):
                g = None if grade is None else grade[mask]
                stats = member_statistics(human, g, score[mask], options)
                rows.append({"corpus": name, "member": member.name, "calibrated": calibrated, **stats})
                if g is not None:
                    per_grade.extend(
                        {
                            "corpus": name,
                            "member": member.name,
                            "calibrated": calibrated,
                            "grade": level,
                            "n": count,
                            "exact": exact,
                        }
                        for level, count, exact in per_grade_exact(human, g, options.levels)
                    )
    _add_ranks(rows, names)
    return rows, per_grade


def _add_ranks(rows: list[dict], names: list[str]) -> None:
    """rank_<stat>: 1 + number of jury members (other than the member itself) strictly better, in
    the same corpus and calibration: a jury's rank among its members plus itself ("2nd of 8")."""
    for row in rows:
        peers = [
            r
            for r in rows
            if r["corpus"] == row["corpus"]
            and r["calibrated"] == row["calibrated"]
            and r["member"] in names
            and r["member"] != row["member"]
        ]
        for stat, direction in RANKED.items():
            value = row[stat]
            if np.isnan(value):
                row[f"rank_{stat}"] = float("nan")
                continue
            better = sum(1 for p in peers if not np.isnan(p[stat]) and direction * (p[stat] - value) > 1e-12)
            row[f"rank_{stat}"] = 1 + better


def item_table(data: GradesData, members: list[Member]) -> list[dict]:
    rows = []
    for member in members:
        for k, item in enumerate(data.items):
            rows.append(
                {
                    "item": item,
                    "corpus": data.corpus[k],
                    "member": member.name,
                    "human": data.human[k],
                    "raw_score": member.raw_score[k],
                    "raw_grade": None if member.raw_grade is None else member.raw_grade[k],
                    "calibrated_grade": None if member.calibrated is None else member.calibrated[k],
                }
            )
    return rows


def distribution_table(data: GradesData, members: list[Member], names: list[str], options: JuryOptions) -> list[dict]:
    """Share of each grade per corpus: human, each member (raw and calibrated), all jury members pooled."""
    rows = []

    def add(corpus, member, calibrated, grades):
        for level in options.levels:
            rows.append(
                {
                    "corpus": corpus,
                    "member": member,
                    "calibrated": calibrated,
                    "grade": level,
                    "share": float(np.mean(grades == level)),
                }
            )

    for name in corpora(data):
        mask = data.corpus == name
        add(name, "human", False, data.human[mask])
        add(name, "judges:pooled", False, np.concatenate([data.judges[n][mask] for n in names]))
        for member in members:
            for calibrated, grade, _ in _versions(member):
                if grade is not None:
                    add(name, member.name, calibrated, grade[mask])
    return rows


@dataclass
class Subset:
    members: tuple[str, ...]
    raw_grade: np.ndarray
    raw_score: np.ndarray
    calibrated: np.ndarray | None
    # The same jury on the rubric grades (None without rubric columns); calibrated with the blind fit.
    rubric_raw_grade: np.ndarray | None = None
    rubric_calibrated: np.ndarray | None = None


def jury_subsets(data: GradesData, names: list[str], options: JuryOptions) -> list[Subset]:
    """Every combination of jury members used by the size curve and the combination analysis:
    the raw jury uses `raw_rule`, the calibrated one maps `calibrated_rule` out of corpus."""
    rubric = has_rubric(data, names)
    sizes = range(1, len(names) + 1, 2 if options.odd_sizes_only else 1)
    subsets = []
    for size in sizes:
        for chosen in combinations(names, size):
            subset = Subset(chosen, *jury_grades(data, chosen, options))
            if rubric:
                subset.rubric_raw_grade, _, subset.rubric_calibrated = jury_grades(data, chosen, options, rubric=True)
            subsets.append(subset)
    return subsets


def _subset_stats(data: GradesData, subsets: list[Subset], options: JuryOptions) -> dict:
    """(corpus, calibrated, members) -> statistics of that jury on that corpus."""
    stats = {}
    for name in corpora(data):
        mask = data.corpus == name
        for subset in subsets:
            versions = [(False, subset.raw_grade, subset.raw_score)]
            if subset.calibrated is not None:
                versions.append((True, subset.calibrated, subset.calibrated))
            for calibrated, grade, score in versions:
                stats[(name, calibrated, subset.members)] = member_statistics(
                    data.human[mask], grade[mask], score[mask], options
                )
    return stats


def size_and_combination_tables(data: GradesData, names: list[str], options: JuryOptions):
    """sizes.csv (mean over all combinations of each size), combinations.csv (every odd combination
    of three or more against its own members) and the counts of combinations that win."""
    subsets = jury_subsets(data, names, options)
    stats = _subset_stats(data, subsets, options)
    keys = sorted({(c, cal) for c, cal, _ in stats}, key=lambda k: (corpora(data).index(k[0]), k[1]))
    sizes, combos = [], []
    for corpus, calibrated in keys:
        by_size: dict[int, list[dict]] = {}
        for subset in subsets:
            by_size.setdefault(len(subset.members), []).append(stats[(corpus, calibrated, subset.members)])
        for size, group in by_size.items():
            sizes.append(
                {
                    "corpus": corpus,
                    "calibrated": calibrated,
                    "size": size,
                    "combinations": len(group),
                    **{s: float(np.mean([g[s] for g in group])) for s in CURVE_STATS},
                }
            )
        for subset in subsets:
            if len(subset.members) < 3 or len(subset.members) % 2 == 0:
                continue
            jury = stats[(corpus, calibrated, subset.members)]["exact"]
            singles = {m: stats[(corpus, calibrated, (m,))]["exact"] for m in subset.members}
            best = max(singles, key=singles.get)
            mean = float(np.mean(list(singles.values())))
            row = {
                "corpus": corpus,
                "calibrated": calibrated,
                "members": "+".join(subset.members),
                "size": len(subset.members),
                "jury_exact": jury,
                "member_mean_exact": mean,
                "member_best_exact": singles[best],
                "best_member": best,
                "beats_member_mean": jury > mean + 1e-12,
                "at_least_member_best": jury >= singles[best] - 1e-12,
                "beats_member_best": jury > singles[best] + 1e-12,
            }
            rubric_grade = subset.rubric_calibrated if calibrated else subset.rubric_raw_grade
            if rubric_grade is not None:
                mask = data.corpus == corpus
                row["jury_exact_rubric"] = _exact(data.human[mask], rubric_grade[mask], options)
                row["better_with_rubric"] = row["jury_exact_rubric"] > jury + 1e-12
            combos.append(row)
    return sizes, combos, _combination_counts(combos, corpora(data))


COMBINATION_FLAGS = ("beats_member_mean", "at_least_member_best", "beats_member_best")
# The note's joint criteria: (1) beats the member mean, (2) better with a rubric, (4) at least the best member.
JOINT_FLAGS = {
    "both": ("beats_member_mean", "at_least_member_best"),
    "mean_and_rubric": ("beats_member_mean", "better_with_rubric"),
    "mean_rubric_and_best": ("beats_member_mean", "better_with_rubric", "at_least_member_best"),
}


def _combination_counts(combos: list[dict], corpus_names: list[str]) -> dict:
    """How many odd combinations beat their member mean / reach or beat their best member / (with
    rubric grades) are better with the rubric, per corpus and in every corpus at once; joint
    criteria in JOINT_FLAGS ("both" = beats the mean and reaches the best)."""
    rubric = bool(combos) and "better_with_rubric" in combos[0]
    flags = (*COMBINATION_FLAGS, "better_with_rubric") if rubric else COMBINATION_FLAGS
    joint = {k: v for k, v in JOINT_FLAGS.items() if rubric or "better_with_rubric" not in v}
    counts: dict = {}
    for calibrated in sorted({c["calibrated"] for c in combos}):
        rows = [c for c in combos if c["calibrated"] == calibrated]
        groups: dict[str, list[dict]] = {}
        for c in rows:
            groups.setdefault(c["members"], []).append(c)
        # In every corpus: a combination counts when the flag holds in each corpus.
        everywhere = [{f: all(c[f] for c in g) for f in flags} for g in groups.values()]
        per_corpus = {}
        for corpus in [*corpus_names, "every corpus"]:
            outcome = everywhere if corpus == "every corpus" else [c for c in rows if c["corpus"] == corpus]
            per_corpus[corpus] = {"combinations": len(outcome)} | {f: sum(bool(o[f]) for o in outcome) for f in flags}
            for name, parts in joint.items():
                per_corpus[corpus][name] = sum(all(o[f] for f in parts) for o in outcome)
        counts["calibrated" if calibrated else "raw"] = per_corpus
    return counts


def before_after_table(data: GradesData, judge_rows: list[dict], names: list[str], options: JuryOptions) -> list[dict]:
    """The note's before/after table: jury vs the mean and the best of its members, raw and
    calibrated, with the human mean grade and the members' mean bias (the diagnosis)."""
    rows = []
    for corpus in corpora(data):
        bias = [r["bias"] for r in judge_rows if r["corpus"] == corpus and not r["calibrated"] and r["member"] in names]
        row = {
            "corpus": corpus,
            "raw_rule": options.raw_rule,
            "calibrated_rule": options.calibrated_rule,
            "members": len(names),
            "human_mean": float(data.human[data.corpus == corpus].mean()),
            "member_bias_mean": float(np.mean(bias)),
        }
        for calibrated, tag, rule in (
            (False, "raw", options.raw_rule),
            (True, "cal", options.calibrated_rule),
        ):
            mine = {r["member"]: r for r in judge_rows if r["corpus"] == corpus and r["calibrated"] == calibrated}
            if JURY_PREFIX + rule not in mine:
                continue
            jury = mine[JURY_PREFIX + rule]["exact"]
            singles = {n: mine[n]["exact"] for n in names}
            best = max(singles, key=singles.get)
            mean = float(np.mean(list(singles.values())))
            row |= {
                f"jury_{tag}": jury,
                f"member_mean_{tag}": mean,
                f"member_best_{tag}": singles[best],
                f"best_member_{tag}": best,
                f"gain_{tag}": jury - mean,
                f"members_beaten_{tag}": sum(1 for v in singles.values() if jury > v + 1e-12),
            }
        rows.append(row)
    return rows


RUBRIC_SERIES = ("jury_cal", "member_mean_cal", "jury_raw")


def rubric_table(data: GradesData, names: list[str], options: JuryOptions) -> list[dict]:
    """rubric.csv, the note's rubric-effect table: per corpus, exact agreement blind -> rubric and
    the change, for the calibrated jury, the mean of the members each calibrated alone, and the
    raw jury. Every calibrated rubric grade uses the mapping fitted on the blind grades of the other
    corpora (jury_grades); without calibration (one corpus) the calibrated columns stay empty."""
    jury = {rubric: jury_grades(data, tuple(names), options, rubric) for rubric in (False, True)}
    alone = {rubric: [jury_grades(data, (n,), options, rubric) for n in names] for rubric in (False, True)}
    rows = []
    for corpus in corpora(data):
        mask = data.corpus == corpus
        human = data.human[mask]
        row = {
            "corpus": corpus,
            "n": int(mask.sum()),
            "members": len(names),
            "raw_rule": options.raw_rule,
            "calibrated_rule": options.calibrated_rule,
        }
        for rubric, condition in ((False, "blind"), (True, "rubric")):
            row[f"jury_raw_{condition}"] = _exact(human, jury[rubric][0][mask], options)
            if jury[rubric][2] is not None:
                row[f"jury_cal_{condition}"] = _exact(human, jury[rubric][2][mask], options)
                row[f"member_mean_cal_{condition}"] = float(
                    np.mean([_exact(human, grades[2][mask], options) for grades in alone[rubric]])
                )
        for series in RUBRIC_SERIES:
            if f"{series}_blind" in row:
                row[f"{series}_change"] = row[f"{series}_rubric"] - row[f"{series}_blind"]
        rows.append(row)
    return rows


def unanimity_table(data: GradesData, names: list[str]) -> list[dict]:
    """Share of items where all jury members give the same grade and how often that grade is right;
    plus routing: unanimous -> that grade, otherwise -> one fallback judge (the best such judge)."""
    rows = []
    for corpus in corpora(data):
        mask = data.corpus == corpus
        human = data.human[mask]
        matrix = np.column_stack([data.judges[n][mask] for n in names])
        unanimous = (matrix == matrix[:, :1]).all(axis=1)
        alone = {n: float(np.mean(matrix[:, k] == human)) for k, n in enumerate(names)}
        routed = {
            n: float(np.mean(np.where(unanimous, matrix[:, 0], matrix[:, k]) == human)) for k, n in enumerate(names)
        }
        fallback = max(routed, key=routed.get)
        best = max(alone, key=alone.get)
        rows.append(
            {
                "corpus": corpus,
                "n": int(mask.sum()),
                "unanimous": int(unanimous.sum()),
                "unanimity_rate": float(unanimous.mean()),
                "exact_when_unanimous": float(np.mean(matrix[unanimous, 0] == human[unanimous]))
                if unanimous.any()
                else float("nan"),
                "best_fallback": fallback,
                "exact_routed": routed[fallback],
                "exact_fallback_alone": alone[fallback],
                "best_member": best,
                "exact_best_member": alone[best],
            }
        )
    return rows
