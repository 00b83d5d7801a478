"""Code is an input: the lyss files a workflow script can run, found from the import graph, and their hash.

Snakemake reruns a job when its params change, but it does not look at the modules a script imports, and
dvc.yaml used to list code by hand (and missed half of it). Each rule now gets `code=<hash>` over exactly
the files its script reaches (rules/common.smk), and tests/test_dvc_sync.py checks that each DVC stage's
deps cover the same files, so an edit reruns the jobs whose code changed, in both tools.

What counts as reached, read with `ast` (nothing is imported):
- `import lyss.x`, `from lyss.x import y` (y a submodule or a name), relative imports, at any depth in a
  module (a lazy import inside a function is still code the job can run), with the packages' __init__.py;
- a string constant naming a lyss module, `"lyss.translate.command:ApertiumTranslator"` (importlib
  registries such as METHOD_KINDS);
- a computed module name under a package (`f"lyss.commands.{name}"`): every module of that package;
- package data read with `resources.files(pkg).joinpath("file.json")`: that file (every data file of the
  package's tree when the name is computed at run time).

Metric plugins are the exception that keeps an edit precise: the registry (lyss/metrics/__init__.py) imports
every metric module, yet a job scoring `bleu` runs only surface.py. So the registry's own edges to metric
modules are followed only for the metrics a job scores (`metrics=`); a metric module imported from
anywhere else (a language card's plugin, lyss.eval_standards.crk.metrics, imports equivalence.py) counts
for every job that reaches the importer.
"""

import ast
import functools
import hashlib
import json
import os
from pathlib import Path

from lyss.cachedir import cache_root
from lyss.fastyaml import safe_load
from lyss.io import write_json_atomic

SRC = Path(__file__).resolve().parents[1]  # the folder holding the `lyss` package
PACKAGE = "lyss"
REGISTRY_MODULE = "lyss.metrics"
# Scripts whose output records lyss.aggregate.fingerprint.code_version, a hash of every module of the package (the run
# card): any edit anywhere changes what they write, so they depend on the whole package.
WHOLE_PACKAGE_SCRIPTS = frozenset({"aggregate.py"})
DATA_SUFFIXES = (".json", ".yaml", ".yml", ".txt", ".tsv", ".csv", ".npz")
FACTS_VERSION = 1  # part of every stored entry's key: raise it when `_read_facts` changes what it reads
# lyss.defaults links to the repository's own params.yaml and language cards (for `lyss score` outside the
# repository). They are settings and data, which the rules already take as params and inputs: hashed as
# code, a weight change would rerun every job.
DEFAULTS = SRC / PACKAGE / "defaults"


def is_code(path: Path) -> bool:
    return path.suffix == ".py" or not path.is_relative_to(DEFAULTS)


@functools.cache
def module_file(name: str) -> Path | None:
    """lyss.a.b → src/lyss/a/b.py or src/lyss/a/b/__init__.py (None when it is not a lyss module)."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    base = SRC.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def module_name(path: Path) -> str:
    parts = path.resolve().relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve_relative(current: str, is_package: bool, level: int, module: str | None) -> str:
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([module] if module else []))


def _package_of(node, current: str, is_package: bool) -> str | None:
    """The package named by the first argument of `resources.files(...)`: a string or `__package__`."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "files"
            and node.args):
        return None
    arg = node.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.Name) and arg.id == "__package__":
        return current if is_package else current.rpartition(".")[0]
    return None


def _data_files(package: str, parts=None) -> set[Path]:
    """`resources.files(package).joinpath(*parts)`: that file when every part is a constant, else every data
    file in the package's tree (the file is chosen at run time)."""
    if package == PACKAGE:  # lyss.aggregate.fingerprint reads the package's own sources: see package_hash
        return set()
    folder = SRC.joinpath(*package.split("."))
    if parts is not None:
        path = folder.joinpath(*parts)
        return {path} if path.is_file() and is_code(path) else set()
    if not folder.is_dir():
        return set()
    return {p for p in folder.rglob("*") if p.suffix in DATA_SUFFIXES and p.is_file() and is_code(p)}


def _package_modules(package: str) -> set[str]:
    """Every module of a lyss package: what a computed name such as f"lyss.commands.{name}" may import."""
    folder = SRC.joinpath(*package.split("."))
    return {f"{package}.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__"} if folder.is_dir() else set()


@functools.cache
def _edges(path: Path) -> tuple[frozenset[str], frozenset[Path]]:
    """(lyss modules `path` imports or names, package data files it reads)."""
    facts = _source_facts(path)
    modules = set(facts["modules"])
    for package in facts["computed"]:
        modules.update(_package_modules(package))
    data = set()
    for package, parts in facts["reads"]:
        data.update(_data_files(package, parts))
    return frozenset(m for m in modules if module_file(m)), frozenset(data)


def _source_facts(path: Path) -> dict:
    """What the syntax tree of `path` names (see `_read_facts`), kept on disk under the hash of the file's bytes
    and module name. Parsing and walking the ~100 modules a workflow reaches took ≈ 0.5 s of every Snakemake
    start (each SLURM job's too); the facts depend on nothing else, while what they resolve to (which modules and
    data files exist) is looked up fresh by `_edges` on every call."""
    source = path.read_bytes()
    current = module_name(path) if path.is_relative_to(SRC) else ""
    is_package = path.name == "__init__.py"
    key = hashlib.sha256(f"{FACTS_VERSION}\0{current}\0{is_package}\0".encode() + source).hexdigest()
    stored = _stored_facts(key)
    if stored is not None:
        return stored
    facts = _read_facts(source.decode("utf-8"), path, current, is_package)
    _store_facts(key, facts)
    return facts


def _read_facts(source: str, path: Path, current: str, is_package: bool) -> dict:
    """`modules`: the lyss module names the file imports or names in a string (not yet checked to exist);
    `computed`: packages whose modules a computed name may import; `reads`: (package, parts) of package data
    read with `resources.files(...)`, parts None when the file is chosen at run time."""
    tree = ast.parse(source, filename=str(path))
    modules, computed, reads, read_whole = set(), set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = _resolve_relative(current, is_package, node.level, node.module)
            modules.add(base)
            modules.update(f"{base}.{alias.name}" for alias in node.names)  # kept only if a submodule
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            name = node.value.split(":")[0]  # "lyss.translate.command:ApertiumTranslator" (importlib registries)
            if name.startswith(PACKAGE + ".") and name.replace(".", "").replace("_", "").isalnum():
                modules.add(name)
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            prefix = str(node.values[0].value)
            if prefix.startswith(PACKAGE + ".") and prefix.endswith("."):
                computed.add(prefix[:-1])
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath":
            package = _package_of(node.func.value, current, is_package)
            if package:
                constant = all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
                reads.add((package, tuple(a.value for a in node.args) if constant else None))
                read_whole.add(id(node.func.value))
    for node in ast.walk(tree):  # resources.files(package) used otherwise: any file of its tree
        package = _package_of(node, current, is_package)
        if package and id(node) not in read_whole:
            reads.add((package, None))
    return {"modules": sorted(modules), "computed": sorted(computed),
            "reads": sorted(reads, key=lambda r: (r[0], r[1] is not None, r[1] or ()))}


def _facts_folder() -> Path | None:
    return None if os.environ.get("LYSS_CODEHASH_CACHE", "1") == "0" else cache_root() / "codehash"


def _stored_facts(key: str) -> dict | None:
    """The facts stored under `key`; None when there are none or the file is not what `_store_facts` writes."""
    folder = _facts_folder()
    if folder is None:
        return None
    try:
        facts = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        return {"modules": [str(m) for m in facts["modules"]], "computed": [str(p) for p in facts["computed"]],
                "reads": [(str(package), None if parts is None else tuple(map(str, parts)))
                          for package, parts in facts["reads"]]}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store_facts(key: str, facts: dict) -> None:
    """Written atomically (lyss.io), so a reader in another process sees the whole file or none;
    a folder that cannot be written only costs the parse next time."""
    folder = _facts_folder()
    if folder is None:
        return
    try:
        write_json_atomic(folder / f"{key}.json", facts)
    except OSError:
        return


def _with_parents(name: str) -> list[str]:
    """lyss.metrics.fst → [lyss, lyss.metrics, lyss.metrics.fst]: importing a module runs its packages."""
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


@functools.cache
def metric_modules() -> dict[str, str]:
    """metric id → the module defining its plugin, from the registry's own source (its imports and the classes
    REGISTRY is built from) and each class's `id = "..."` in its module, so that this module never imports
    the metrics."""
    tree = ast.parse(module_file(REGISTRY_MODULE).read_text(encoding="utf-8"))
    class_module = {alias.asname or alias.name: node.module for node in tree.body
                    if isinstance(node, ast.ImportFrom) and node.module for alias in node.names}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (node.targets[0] if isinstance(node, ast.Assign)
                                                                        else None)
        if isinstance(target, ast.Name) and target.id == "REGISTRY" and isinstance(node.value, ast.DictComp):
            classes = [n.id for n in node.value.generators[0].iter.elts]
            return {_class_id(class_module[name], name): class_module[name] for name in classes}
    raise LookupError(f"no REGISTRY built from a tuple of classes in {module_file(REGISTRY_MODULE)}")


def _class_id(module: str, class_name: str) -> str:
    """The `id = "..."` a metric class declares in its module's source."""
    for node in ast.parse(module_file(module).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            for statement in node.body:
                if (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
                        and statement.targets[0].id == "id" and isinstance(statement.value, ast.Constant)):
                    return statement.value.value
    raise LookupError(f"{module}.{class_name} declares no `id = \"...\"`")


def closure(script, metrics="all", extra_modules=()) -> list[Path]:
    """The lyss files (modules and package data) that `script` (a path) can run. `metrics`: "all" metric
    plugins, or the metric ids whose plugins the job uses (empty for jobs that score nothing);
    `extra_modules`: modules it loads by a name found elsewhere (language cards' `evalMetrics`)."""
    if Path(script).name in WHOLE_PACKAGE_SCRIPTS:
        return sorted({Path(script).resolve(), *package_files()})
    plugins = set(metric_modules().values())
    wanted = plugins if metrics == "all" else {metric_modules()[m] for m in metrics}
    seen_modules: set[str] = set()
    files: set[Path] = set()
    todo = [Path(script).resolve()]
    for name in extra_modules:
        for module in _with_parents(name):
            if module_file(module) and module not in seen_modules:
                seen_modules.add(module)
                todo.append(module_file(module))
    while todo:
        path = todo.pop()
        if path in files:
            continue
        files.add(path)
        imported, data = _edges(path)
        files.update(data)
        source = module_name(path) if path.is_relative_to(SRC) else None
        for name in imported:
            if source == REGISTRY_MODULE and name in plugins and name not in wanted:
                continue  # a plugin reached only through the registry: counted for the jobs that score it
            for module in _with_parents(name):
                if module not in seen_modules:
                    seen_modules.add(module)
                    todo.append(module_file(module))
    return sorted(files)


def _stored_name(path: Path) -> str:
    """A file's name as the hash sees it: its path inside the folder holding the package (`lyss/io.py`), or
    `scripts/score.py` for a workflow script, never where either sits on this disk."""
    path = Path(path)
    return (path.relative_to(SRC) if path.is_relative_to(SRC) else Path(path.parent.name, path.name)).as_posix()


def digest(files) -> str:
    """SHA-256 over the files' names and contents, in the order of those names: sorted by absolute path, a
    checkout in /home/a and its installed package in /opt/venv would interleave the scripts and the modules
    differently from a copy elsewhere, and the same code would hash differently. Short, as Snakemake shows
    params."""
    h = hashlib.sha256()
    for name, path in sorted((_stored_name(p), Path(p)) for p in files):
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


@functools.cache
def code_hash(script, metrics="all", extra_modules=()) -> str:
    """The `code` param of a rule: hash of the script and its closure; arguments must be hashable."""
    return digest(closure(script, metrics, extra_modules))


def card_plugins(card_paths, metric: str) -> tuple[str, ...]:
    """Modules that language cards name for `metric` under `evalMetrics` (lyss.languages.language_plugin)."""
    return tuple(module for path in card_paths for named, module in _declared_plugins(Path(path).read_bytes())
                 if named == metric)


@functools.lru_cache(maxsize=1024)
def _declared_plugins(text: bytes) -> tuple[tuple[str, str], ...]:
    """(metric, module) of each plugin a card's text declares. Parsed once per content: a Snakemake start asks
    for every metric of every dataset, two cards each, and a parse per question with PyYAML's pure-Python
    loader was 0.5 s of every `snakemake` start on the default params.yaml."""
    card = safe_load(text.decode("utf-8")) or {}
    return tuple((p.get("metric"), p["module"]) for p in card.get("evalMetrics") or []
                 if isinstance(p, dict) and isinstance(p.get("module"), str))


def score_hash(script, metric: str, card_paths=()) -> str:
    """The `code` param of a `score` job: the shared scoring code, the metric's own plugin module, and the
    plugin a language card of the dataset declares for it."""
    return code_hash(script, (metric,), card_plugins(card_paths, metric))


def package_files() -> list[Path]:
    """Every Python and data file of the package (lyss.aggregate.fingerprint.code_version hashes the Python ones)."""
    root = SRC / PACKAGE
    return sorted(p for p in root.rglob("*") if p.is_file() and (p.suffix == ".py" or p.suffix in DATA_SUFFIXES)
                  and "__pycache__" not in p.parts and is_code(p))
