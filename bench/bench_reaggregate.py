"""Wall time of `dvc repro` after a weight change against a full `snakemake all` from scratch on the
demo corpus, in one run on a scratch copy of the project. Target: ratio ≤ 0.1."""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FILES = ["Snakefile", "rules", "scripts", "bin", "src", "params.yaml", "dvc.yaml", "data", ".dvc/config", ".dvcignore",
         ".gitignore"]


def sh(cwd, *cmd):
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}", DVC_NO_ANALYTICS="1")
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.perf_counter() - start


def main():
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in FILES:
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (ROOT / name).is_dir() else shutil.copy2)(ROOT / name, target)
        sh(work, "git", "init", "-q")
        full = sh(work, "snakemake", "--cores", "all", "all")
        sh(work, "dvc", "repro")
        params = yaml.safe_load((work / "params.yaml").read_text())
        params["composite"]["profiles"]["A"]["chrf_plus_plus"] = 0.30
        (work / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False, allow_unicode=True))
        again = sh(work, "dvc", "repro")
    print(f"snakemake all from scratch: {full:.1f} s")
    print(f"dvc repro after a weight change: {again:.1f} s")
    print(f"ratio: {again / full:.3f} (target ≤ 0.1)")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__).parse_args()
    main()
