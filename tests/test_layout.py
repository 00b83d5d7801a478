"""The package is shaped like the pipeline (docs/layout.md): one subpackage per stage, shared helpers beside
them, no import circle between them, the library never imports the command line, and the command line
imports only public names of the modules docs/layout.md lists. Read from the sources with lyss.codehash's
import reader (lazy imports and importlib names count), nothing is imported."""

import ast
import graphlib
import re
from pathlib import Path

from lyss.codehash import PACKAGE, SRC, _edges, module_name

ROOT = Path(__file__).resolve().parents[1]
LYSS = SRC / PACKAGE
CLI_FILES = {LYSS / "cli.py", *(LYSS / "commands").glob("*.py")}
LIBRARY = sorted(p for p in LYSS.rglob("*.py") if p not in CLI_FILES and "__pycache__" not in p.parts)
# The stage packages (and the review, no stage but library code of its own), top line first: each imports only
# from lines below it (docs/layout.md, "Imports run one way").
LAYERS = (("report", "significance", "review"), ("studies",), ("evidence",), ("aggregate",), ("metrics",), ("embed",),
          ("prep", "translate"))
STAGES = tuple(name for line in LAYERS for name in line)


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
    line_of = {name: number for number, line in enumerate(LAYERS) for name in line}
    upward = {(source, target) for source in STAGES for target in graph[source]
              if target in line_of and line_of[target] <= line_of[source]}
    assert upward == set()


def test_each_stage_exposes_the_function_its_script_calls():
    scripts = {"prep.py": "lyss.prep", "embed.py": "lyss.embed", "score.py": "lyss.metrics.score",
               "aggregate.py": "lyss.aggregate", "significance.py": "lyss.significance", "report.py": "lyss.report",
               "validate.py": "lyss.studies.steps", "validate_dataset.py": "lyss.evidence.dataset",
               "translate.py": "lyss.translate.jobs", "postprocess.py": "lyss.translate.jobs",
               "validation_plots.py": "lyss.report.plots"}
    for script, module in scripts.items():
        assert module in _edges(ROOT / "scripts" / script)[0], script


def cli_public_modules() -> set[str]:
    """The public modules docs/layout.md lists under "What the command line may import"."""
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    paragraph = text.split("**What the command line may import.**", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"`(lyss(?:\.\w+){2,})`", paragraph))


def may_be_imported_by_the_cli(module: str, public: set[str]) -> bool:
    """A package root or top-level module (lyss.x), a module of lyss.commands, or a documented public module."""
    parts = module.split(".")
    return (parts[0] == PACKAGE and len(parts) <= 2) or is_cli(module) or module in public


def cli_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of every lyss import in `path`, and of a computed module name f"lyss.x.{…}"."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == PACKAGE:
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, "") for alias in node.names if alias.name.split(".")[0] == PACKAGE]
        elif (isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant)
              and str(node.values[0].value).startswith(PACKAGE + ".")):
            found.append((node.lineno, str(node.values[0].value).rstrip("."), ""))
    return found


def test_the_command_line_imports_only_public_names_of_documented_modules():
    public = cli_public_modules()
    assert {"lyss.studies.judge", "lyss.evidence.weights"} <= public  # the paragraph was found
    wrong = [f"{path.relative_to(ROOT)}:{line}: {module} {name}".rstrip()
             for path in sorted(CLI_FILES) for line, module, name in cli_imports(path)
             if not may_be_imported_by_the_cli(module, public)
             or any(part.startswith("_") and not part.startswith("__") for part in [*module.split("."), name])]
    assert wrong == []


def test_the_public_module_check_sees_a_private_name_and_an_undocumented_module(tmp_path):
    fake = tmp_path / "command.py"
    fake.write_text("from lyss.aggregate.runcard import _private\nfrom lyss.aggregate.validation_status import x\n")
    public = cli_public_modules()
    found = cli_imports(fake)
    assert [m for _, m, _ in found if not may_be_imported_by_the_cli(m, public)] == ["lyss.aggregate.validation_status"]
    assert [n for _, _, n in found if n.startswith("_")] == ["_private"]
    for documented in sorted(public):  # every listed module exists
        path = SRC.joinpath(*documented.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), documented


def test_the_settings_import_no_stage():
    """Every stage receives the typed settings, so lyss.settings sits below them all: the names it checks
    (metric ids, hooks, method kinds, validation options) are handed in (lyss.config.vocabulary), and editing
    a stage's code changes the code hash of no other stage through it."""
    assert imported_units(LYSS / "settings.py") <= {"errors"}
