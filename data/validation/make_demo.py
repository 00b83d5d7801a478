"""Generate the SYNTHETIC demo inputs of `lyss labels`, `correlate`, `jury` and `probe`.

Nothing here is real data: every rating, score, grade and probability is drawn from a seeded random
model written below, designed only to exercise the commands and to show the kind of effect each
statistic is meant to detect. Re-running the script reproduces the files byte for byte:

    .venv/bin/python data/validation/make_demo.py
"""

import csv
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SEED = 20240501


def write_rows(path: Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def ratings(rng: np.random.Generator) -> None:
    """60 items x 5 annotators on -3..+3 (CommitmentBank style), plus one item rated only once.

    Item means come from three groups (clearly positive, around zero, clearly negative); each
    annotator adds a small personal offset and noise, and ratings are rounded and clipped."""
    group = rng.choice(3, size=60, p=[0.45, 0.25, 0.30])
    centre = np.array([1.8, 0.0, -1.6])[group] + rng.normal(0, 0.6, 60)
    offsets = rng.normal(0, 0.3, 5)
    rows = []
    for k in range(60):
        for a in range(5):
            score = int(np.clip(np.rint(centre[k] + offsets[a] + rng.normal(0, 1.0)), -3, 3))
            rows.append([f"cb{k + 1:03d}", f"ann{a + 1}", score])
    rows.append(["cb061", "ann1", 2])
    write_rows(HERE / "ratings.csv", ["item", "annotator", "score"], rows)


def scores(rng: np.random.Generator) -> None:
    """4 MT systems x 50 segments: a human score on 0..100 and three metrics of decreasing quality."""
    systems = ["sysA", "sysB", "sysC", "sysD"]
    system_quality = np.array([6.0, 3.0, 0.0, -4.0])
    difficulty = rng.normal(0, 8, 50)
    rows = []
    for s, name in enumerate(systems):
        for i in range(50):
            quality = 70 + system_quality[s] + difficulty[i] + rng.normal(0, 8)
            human = int(np.clip(np.rint(quality + rng.normal(0, 5)), 0, 100))
            good = round(0.5 + 0.01 * quality + rng.normal(0, 0.05), 4)
            fair = round(0.4 + 0.008 * quality + rng.normal(0, 0.12), 4)
            weak = round(20 + 0.1 * quality + rng.normal(0, 4), 2)
            rows.append([name, f"seg{i + 1:02d}", human, good, fair, weak])
    write_rows(HERE / "scores.csv", ["system", "item", "human", "metric_good", "metric_fair", "metric_weak"], rows)


JUDGES = ["judge_a", "judge_b", "judge_c", "judge_d", "judge_e", "judge_f", "judge_g"]
# Every judge grades higher than the humans, some a lot: the finding of the jury note.
BIAS = [1.2, 1.1, 0.6, 0.5, 1.1, 0.6, 0.5]
NOISE = [0.9, 1.0, 0.7, 0.7, 0.9, 0.8, 1.2]


# With a rubric the judges keep most of their bias and part of their blind error, and add a little
# fresh noise: somewhat closer to the human grade, as the note found.
RUBRIC_BIAS = 0.85
RUBRIC_KEEP = 0.75
RUBRIC_FRESH = 0.3


def grades(rng: np.random.Generator, rubric_rng: np.random.Generator) -> None:
    """Three corpora graded 1..5 by humans, seven biased judges, one continuous metric, the same
    judges again with a random anchor grade shown (anchored columns) and with a rubric (rubric
    columns). The rubric noise comes from its own generator so the other columns do not move."""
    corpora = {"news": 150, "dialogue": 120, "patents": 100}
    header = [
        "item",
        "corpus",
        "human",
        *JUDGES,
        "metric_sim",
        "anchor",
        *(f"{j}_anchored" for j in JUDGES),
        *(f"{j}_rubric" for j in JUDGES),
    ]
    rows = []
    for corpus, size in corpora.items():
        latent = rng.uniform(0.6, 5.4, size) if corpus != "dialogue" else rng.beta(1.6, 2.2, size) * 4.8 + 0.6
        for k in range(size):
            truth = latent[k]
            human = int(np.clip(np.rint(truth + rng.normal(0, 0.35)), 1, 5))
            error = [rng.normal(0, s) for s in NOISE]
            blind = [int(np.clip(np.rint(truth + b + e), 1, 5)) for b, e in zip(BIAS, error, strict=True)]
            metric = round(float(1 / (1 + np.exp(-(truth - 3 + rng.normal(0, 0.6))))), 4)
            anchor = int(rng.integers(1, 6))
            anchored = []
            for grade in blind:
                step = int(np.sign(anchor - grade))
                pull = rng.random()
                if step and pull < 0.3:
                    grade += step
                elif pull > 0.98:
                    grade = int(np.clip(grade - (step or 1), 1, 5))
                anchored.append(grade)
            rubric = []
            for b, e, s in zip(BIAS, error, NOISE, strict=True):
                graded = truth + RUBRIC_BIAS * b + RUBRIC_KEEP * e + rubric_rng.normal(0, RUBRIC_FRESH * s)
                rubric.append(int(np.clip(np.rint(graded), 1, 5)))
            rows.append([f"{corpus}-{k + 1:03d}", corpus, human, *blind, metric, anchor, *anchored, *rubric])
    write_rows(HERE / "grades.csv", header, rows)


CATEGORIES = ["abbreviation", "entity", "description", "human", "location", "numeric"]
CONDITIONS = ["label_definition", "label_only", "definition_only", "letters", "shifted"]


def _softmax(logits: np.ndarray) -> np.ndarray:
    z = np.exp(logits - logits.max())
    return z / z.sum()


def _rounded(p: np.ndarray) -> list[float]:
    """Six decimals, the largest entry absorbing the rounding so the sum stays 1 to 1e-6."""
    q = np.round(p, 6)
    q[np.argmax(q)] = round(q.max() + 1 - q.sum(), 6)
    return [float(x) for x in q]


def probe_runs(rng: np.random.Generator) -> None:
    """A simulated judge over 150 questions with six answer categories, under five prompt conditions,
    run twice. It reads definitions but also follows labels, strongly enough that labels shifted
    off their definitions drag it to the wrong option with high confidence."""
    n = 150
    gold = rng.integers(0, 6, n)
    definition_signal = rng.normal(3.0, 1.6, n)
    label_signal = rng.normal(4.2, 0.8, n)
    noise = rng.normal(0, 1.0, (n, 6))
    letter_noise = rng.normal(0, 0.15, (n, 6))
    confidence_noise = rng.normal(0, 0.2, n)
    letters = "ABCDEF"
    records = []
    for condition in CONDITIONS:
        for k in range(n):
            g = gold[k]
            logits = noise[k].copy()
            if condition != "label_only":
                logits[g] += definition_signal[k]
            else:
                logits[g] += 0.6 * definition_signal[k]
            if condition in ("label_definition", "label_only"):
                logits[g] += 0.3 * label_signal[k]
            if condition == "shifted":
                # The definition of category c carries the label of category c + 1, so the option
                # named after the gold category is the one defined as category gold - 1.
                logits[(g - 1) % 6] += label_signal[k]
                labels = [CATEGORIES[(c + 1) % 6] for c in range(6)]
            elif condition == "letters":
                # Neutral letters still nudge the judge a little: it reads whatever label it sees.
                logits += letter_noise[k]
                labels = list(letters)
            else:
                labels = list(CATEGORIES)
            p = _rounded(_softmax(logits))
            # A separate self-reported confidence that only loosely follows the top probability.
            confidence = round(float(np.clip(max(p) + confidence_noise[k], 0, 1)), 3)
            record = {
                "run": "r1",
                "condition": condition,
                "item": f"q{k + 1:03d}",
                "gold": CATEGORIES[g],
                "probs": dict(zip(labels, p, strict=True)),
                "confidence": confidence,
            }
            if labels != CATEGORIES:
                record["options"] = dict(zip(labels, CATEGORIES, strict=True))
            records.append(record)
    repeat = []
    for record in records:
        again = json.loads(json.dumps(record))
        again["run"] = "r2"
        # Run 2 repeats run 1 exactly, except five label_only items nudged by 1e-6 so that the
        # determinism check has a difference to find.
        if record["condition"] == "label_only" and record["item"] in {"q001", "q002", "q003", "q004", "q005"}:
            keys = sorted(again["probs"], key=again["probs"].get, reverse=True)
            again["probs"][keys[0]] = round(again["probs"][keys[0]] + 1e-6, 6)
            again["probs"][keys[1]] = round(again["probs"][keys[1]] - 1e-6, 6)
        repeat.append(again)
    with open(HERE / "probe_runs.jsonl", "w", encoding="utf-8") as handle:
        for record in records + repeat:
            handle.write(json.dumps(record) + "\n")


def main() -> None:
    rng = np.random.default_rng(SEED)
    ratings(rng)
    scores(rng)
    grades(rng, np.random.default_rng([SEED, 1]))
    probe_runs(rng)


if __name__ == "__main__":
    main()
