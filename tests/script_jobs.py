"""A Snakemake job and a workflow script as a rule's `run:` hands them over, to `lyss.scripting.run_script` on a
thread (tests/test_scripting.py) or to a worker process (tests/test_script_workers.py)."""

from types import SimpleNamespace


def job(tmp_path, name: str = "job", **params):
    """A job writing `<name>.json` with log `<name>.log` in `tmp_path`; picklable, as Snakemake's named lists are."""
    return SimpleNamespace(input=SimpleNamespace(corpus="data/corpus.jsonl"), output=[str(tmp_path / f"{name}.json")],
                           params=SimpleNamespace(**params), wildcards={"dataset": "demo"}, threads=1, resources={},
                           log=[str(tmp_path / f"{name}.log")], config={"stats": {"seed": 7}}, rule="score_cpu")


def write_script(tmp_path, body: str):
    """A script as in scripts/: `body` inside `logged(snakemake.log[0])`, with json, os, sys and InputError at hand."""
    path = tmp_path / "script.py"
    path.write_text("import json, os, sys\nfrom lyss.errors import InputError\nfrom lyss.scripting import logged\n\n"
                    "with logged(snakemake.log[0]):\n" + "".join(f"    {line}\n" for line in body.splitlines()),
                    encoding="utf-8")
    return path
