"""What the plain-file tests of `lyss score` and `lyss compare` share (their fixtures `files` and `spm_home`
are in conftest.py): 120 synthetic Spanish segments with a settings file whose profiles weigh only surface
metrics, and the call that returns exit status and output."""

import random
from pathlib import Path

import yaml

from lyss.cli import main

ROOT = Path(__file__).resolve().parents[1]
WORDS = "el la de que y en un una los se del las por con para es al lo como casa perro agua libro día".split()
SURFACE = "exact_match_rate,chrf_plus_plus,bleu"
# The project's settings with both weight profiles cut to the surface metrics, so that `compare`'s
# composite does not pull in the embedding-based metrics (slow, and tested elsewhere).
FAST_WEIGHTS = {"chrf_plus_plus": 0.25, "exact_match_rate": 0.10}


def write_files(folder: Path):
    """120 segments (system a close to the reference, b a little further, c far off) in `folder`, and the
    --params/--languages options: (paths, texts, options)."""
    rng = random.Random(1)
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    params["composite"]["profiles"] = {"A": FAST_WEIGHTS, "B": FAST_WEIGHTS}
    (folder / "params.yaml").write_text(yaml.safe_dump(params), encoding="utf-8")
    common = ["--params", str(folder / "params.yaml"), "--languages", str(ROOT / "data" / "languages")]
    refs = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(120)]

    def perturb(rate):
        return [" ".join(w if rng.random() >= rate else rng.choice(WORDS) for w in r.split()) for r in refs]

    texts = {"src": refs, "ref": refs, "a": perturb(0.2), "b": perturb(0.22), "c": perturb(0.6)}
    paths = {}
    for name, lines in texts.items():
        paths[name] = folder / f"{name}.txt"
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths, texts, common


def run(capsys, *argv):
    """Exit status, stdout, stderr; argparse's own errors exit (SystemExit) with status 2."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err
