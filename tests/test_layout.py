"""The package is shaped like the pipeline (docs/layout.md): one subpackage per stage, shared helpers beside
them, no import circle between them, and the library never imports the command line. Read from the
sources with lyss.codehash's import reader (lazy imports and importlib names count), nothing is imported."""

import ast
import graphlib
from pathlib import Path

from lyss.codehash import PACKAGE, SRC, _edges, module_name

ROOT = Path(__file__).resolve().parents[1]
LYSS = SRC / PACKAGE
CLI_FILES = {LYSS / "cli.py", *(LYSS / "commands").glob("*.py")}
LIBRARY = sorted(p for p in LYSS.rglob("*.py") if p not in CLI_FILES and "__pycache__" not in p.parts)
STAGES = ("prep", "translate", "embed", "metrics", "aggregate", "significance", "report", "validate")


def unit(module: str) -> str:
    """lyss.aggregate.runcard → aggregate, lyss.settings → settings: a subpackage or a top-level module."""
    return module.split(".")[1] if "." in module else module


def imported_units(path: Path) -> set[str]:
    """The subpackages and top-level modules of lyss that `path` imports (import statements at any depth;
    a package named in a string, e.g. the data that orthography.py reads from lyss.eval_standards, is
    no import)."""
    units = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
        units.update(unit(n) for n in names if n.startswith(PACKAGE + "."))
    return units


def is_cli(module: str) -> bool:
    return module == "lyss.cli" or module == "lyss.commands" or module.startswith("lyss.commands.")


def test_no_library_module_or_workflow_script_imports_the_command_line():
    importers = {str(p.relative_to(ROOT)): sorted(m for m in _edges(p)[0] if is_cli(m))
                 for p in [*LIBRARY, *sorted((ROOT / "scripts").glob("*.py"))]}
    assert {path: names for path, names in importers.items() if names} == {}


def test_the_subpackages_and_top_level_modules_import_each_other_without_a_circle():
    graph = {}
    for path in LIBRARY:
        source = unit(module_name(path))
        graph.setdefault(source, set()).update(imported_units(path))
    for source, targets in graph.items():
        targets.discard(source)
    order = list(graphlib.TopologicalSorter(graph).static_order())  # CycleError names the circle
    assert set(STAGES) <= set(order)


def test_each_stage_exposes_the_function_its_script_calls():
    scripts = {"prep.py": "lyss.prep", "embed.py": "lyss.embed", "score.py": "lyss.metrics.score",
               "aggregate.py": "lyss.aggregate", "significance.py": "lyss.significance", "report.py": "lyss.report",
               "validate.py": "lyss.validate.steps", "validate_dataset.py": "lyss.validate.dataset",
               "translate.py": "lyss.translate.jobs", "postprocess.py": "lyss.translate.jobs",
               "validation_plots.py": "lyss.report.plots"}
    for script, module in scripts.items():
        assert module in _edges(ROOT / "scripts" / script)[0], script


def test_the_settings_import_no_stage():
    """Every stage receives the typed settings, so lyss.settings sits below them all: the names it checks
    (metric ids, hooks, method kinds, validation options) are handed in (lyss.config.vocabulary), and editing
    a stage's code changes the code hash of no other stage through it."""
    assert imported_units(LYSS / "settings.py") <= {"errors"}
