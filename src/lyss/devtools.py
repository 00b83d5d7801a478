"""Maintenance commands for the project itself (not part of `lyss`):

    python -m lyss.devtools dvc-deps            # list the code each DVC stage runs but does not depend on
    python -m lyss.devtools dvc-deps --write    # rewrite the src/lyss deps of every stage in dvc.yaml
    python -m lyss.devtools install-graph       # the embedder's graph into the environment (make run/test)

A DVC stage runs a Snakemake target, and so the scripts it lists under deps; the lyss code those scripts
import is found from the import graph (lyss.codehash), never typed by hand, so dvc.yaml cannot miss a module
(pipeline.py, caveats.py, … once were). Snakemake reads the whole workflow (the Snakefile and every
rules/*.smk) for any target, and the lyss modules those files import decide which jobs exist and what their
params are: every stage depends on them as well. Snakemake still decides which jobs rerun (each rule's `code`
param); DVC only has to notice that something its stage runs has changed.
"""

import argparse
import re
import sys
from pathlib import Path

import yaml

from lyss.codehash import SRC, card_plugins, closure, is_code, module_file, package_files

PROJECT = SRC.parent
CODE_PREFIX = "src/lyss"
WORKFLOW_IMPORT = re.compile(r"^\s*(?:from\s+(lyss[\w.]*)\s+import|import\s+(lyss[\w.]*))", re.M)


def workflow_files() -> list[Path]:
    return [PROJECT / "Snakefile", *sorted((PROJECT / "rules").glob("*.smk"))]


def workflow_code() -> set[Path]:
    """The lyss files the workflow itself runs while Snakemake builds the DAG (rules/common.smk imports
    lyss.codehash, lyss.config, …): read from the import lines, as .smk files are not Python."""
    files: set[Path] = set()
    for path in workflow_files():
        for match in WORKFLOW_IMPORT.finditer(path.read_text(encoding="utf-8")):
            module = module_file(match.group(1) or match.group(2))
            if module:
                files.update(f for f in closure(module, "all") if f.is_relative_to(SRC))
    return files


def stage_code(stage: dict, languages_dir: Path) -> set[Path]:
    """Every lyss file that the scripts in the stage's deps can run (all metric plugins, and the plugins the
    language cards declare)."""
    cards = sorted(languages_dir.glob("*.yaml"))
    plugins = tuple(m for metric in _all_metric_ids() for m in card_plugins(cards, metric))
    files = workflow_code()
    for dep in stage.get("deps", []):
        if dep.startswith("scripts/") and dep.endswith(".py"):
            files.update(f for f in closure(PROJECT / dep, "all", plugins) if f.is_relative_to(SRC))
    return files


def _all_metric_ids() -> list[str]:
    from lyss.codehash import metric_modules

    return sorted(metric_modules())


def collapsed(files: set[Path]) -> list[str]:
    """The files as project-relative deps, a folder standing for its files when it needs all of them."""
    needed = {f.relative_to(PROJECT) for f in files}
    every = {f.relative_to(PROJECT) for f in package_files()}
    out: set[Path] = set()
    for path in sorted(needed):
        folder = path.parent
        while (folder.is_relative_to(CODE_PREFIX) and {f for f in every if f.is_relative_to(folder)} <= needed
               and all(is_code(f) for f in (PROJECT / folder).rglob("*") if f.is_file())):  # no data links
            path, folder = folder, folder.parent
        out.add(path)
    return sorted(str(p) for p in out if not any(p != q and p.is_relative_to(q) for q in out))


def covered(path: Path, deps: list[str]) -> bool:
    relative = path.relative_to(PROJECT)
    return any(relative == Path(d) or relative.is_relative_to(d) for d in deps)


def missing_deps(dvc_path: Path, languages_dir: Path) -> dict[str, list[str]]:
    """stage → code files it runs that no dep covers (the workflow files included)."""
    stages = yaml.safe_load(dvc_path.read_text(encoding="utf-8"))["stages"]
    out = {}
    for name, stage in stages.items():
        deps = stage.get("deps", [])
        runs = [*workflow_files(), *stage_code(stage, languages_dir)]
        absent = sorted(str(f.relative_to(PROJECT)) for f in runs if not covered(f, deps))
        if absent:
            out[name] = absent
    return out


def rewrite(dvc_path: Path, languages_dir: Path) -> None:
    """Replace each stage's `- src/lyss…` deps lines by the generated ones, keeping everything else."""
    text = dvc_path.read_text(encoding="utf-8")
    stages = yaml.safe_load(text)["stages"]
    for name, stage in stages.items():
        generated = collapsed(stage_code(stage, languages_dir))
        block = re.search(rf"(?ms)^  {re.escape(name)}:\n.*?^    deps:\n((?:      - [^\n]*\n)+)", text)
        if not block:
            continue
        lines = block.group(1).splitlines(keepends=True)
        kept = [line for line in lines if not line.strip().startswith(f"- {CODE_PREFIX}")]
        first = next((i for i, line in enumerate(lines) if line.strip().startswith(f"- {CODE_PREFIX}")), len(kept))
        new = kept[:first] + [f"      - {dep}\n" for dep in generated] + kept[first:]
        text = text[: block.start(1)] + "".join(new) + text[block.end(1):]
    dvc_path.write_text(text, encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lyss.devtools")
    sub = parser.add_subparsers(dest="command", required=True)
    deps = sub.add_parser("dvc-deps", help="the lyss code each DVC stage runs, from the import graph")
    deps.add_argument("--dvc", type=Path, default=PROJECT / "dvc.yaml")
    deps.add_argument("--languages", type=Path, default=PROJECT / "data/languages")
    deps.add_argument("--write", action="store_true", help="rewrite the src/lyss deps in dvc.yaml")
    sub.add_parser("install-graph", help="build the default embedder's graph into the environment, once per "
                   "version (lyss.embed.graph_cache)")
    args = parser.parse_args(argv)
    if args.command == "install-graph":
        from lyss.embed.e5_onnx import install_default_graph  # late: onnx and the weights, for this command only

        path, built = install_default_graph()
        print(f"embedder graph {'built into' if built else 'up to date in'} {path}")
        return 0
    if args.write:
        rewrite(args.dvc, args.languages)
    absent = missing_deps(args.dvc, args.languages)
    for stage, files in absent.items():
        print(f"{args.dvc}: stage {stage!r} runs code it does not depend on: {', '.join(files)}")
    return 1 if absent else 0


if __name__ == "__main__":
    sys.exit(main())
