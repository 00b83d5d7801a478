"""Which configured methods run on which dataset (params.yaml `datasets.<name>.methods`).

Without a list, a dataset gets every method that can serve its language pair; a method that cannot
(an Apertium pair that is not installed, a precomputed file configured for another corpus) is skipped with a
reason the report shows, instead of failing the run or scoring outputs of another corpus (a dataset folder's
systems are not offered to the other datasets at all). A method the user lists explicitly but that cannot serve
the dataset is a configuration error: the user asked for it.

Everything here runs when Snakemake builds its DAG, so it must be fast and must not translate anything:
Apertium's installed modes come from `apertium -l`, asked once per process.
"""

import functools
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from lyss.errors import InputError, unknown
from lyss.translate.simple import precomputed_path


@functools.cache
def installed_apertium_modes() -> tuple[str, ...] | None:
    """The modes `apertium -l` lists; None when Apertium itself is not installed."""
    if shutil.which("apertium") is None:
        return None
    listed = subprocess.run(["apertium", "-l"], capture_output=True, text=True, check=False)
    return tuple(listed.stdout.split())


def mode_pair(mode: str) -> str:
    """The language pair an Apertium mode translates: `eng-spa` → eng-spa, `spa-cat_valencia` → spa-cat,
    `eng-spa-tagger` (a debugging mode) → eng-spa."""
    source, _, rest = mode.partition("-")
    return f"{source}-{rest.split('-')[0].split('_')[0]}"


def _apertium_reason(method: dict, dataset: str, pair: str) -> str | None:
    modes = installed_apertium_modes()
    if modes is None:
        return "Apertium is not installed (no `apertium` on PATH)"
    mode = method.get("mode") or pair
    if mode_pair(mode) != pair:
        return f"Apertium mode {mode!r} translates {mode_pair(mode)}, not {pair}"
    if mode not in modes:
        return (f"Apertium mode {mode!r} is not installed (installed: {', '.join(modes) or 'none'}); "
                f"install the pair package, e.g. apertium-{pair}")
    return None


def _precomputed_reason(method: dict, dataset: str, pair: str, source: str, name: str) -> str | None:
    paths = method.get("paths")
    if isinstance(paths, dict) and paths and dataset not in paths and "path" not in method:
        return f"no file for this dataset in methods.{name}.paths (files were given for: {', '.join(sorted(paths))})"
    path = precomputed_path(method, dataset, source, name)  # other mistakes are configuration errors
    if not Path(path).is_file():
        raise InputError(source, f"{path} does not exist", field=f"methods.{name}.paths.{dataset}")
    return None


def unavailable_reason(name: str, method: dict, dataset: str, pair: str, source: str = "params.yaml") -> str | None:
    """Why method `name` cannot translate `dataset` (language pair `pair`, e.g. "eng-spa"), or None when it
    can. Kinds not named here (copy_source, command, openai_compatible) serve any pair."""
    kind = method.get("kind")
    if kind == "apertium":
        return _apertium_reason(method, dataset, pair)
    if kind == "precomputed":
        return _precomputed_reason(method, dataset, pair, source, name)
    return None


def another_folders_system(name: str, paths: dict[str, str], dataset_config: dict) -> str:
    """Why a system found in another dataset's folder cannot be listed here, and where its file would go: its
    outputs translate that folder's sources, and `methods.<name>.paths` exists only in the expanded settings."""
    where = ", ".join(f"{dataset} ({path})" for dataset, path in sorted(paths.items()))
    folder = dataset_config.get("path")
    home = f"{folder}/systems/{name}.txt" if folder else f"a file in methods.{name}.paths"
    return (f"method {name!r} is a system of another dataset's folder: {where}; a folder's systems run on their "
            f"own dataset only (give this dataset's outputs as {home})")


@dataclass
class MethodSelection:
    """The methods that run on a dataset, in params.yaml order, and those skipped, with why."""

    methods: list[str]
    skipped: dict[str, str] = field(default_factory=dict)


def select_methods(methods: dict, dataset: str, dataset_config: dict, pair: str,
                   source: str = "params.yaml", folder_systems: frozenset[str] = frozenset()) -> MethodSelection:
    """Apply `datasets.<dataset>.methods` (or the default: every method that can serve `pair`).

    `folder_systems`: the methods found in dataset folders' systems/ (`lyss.prep.folders`). The default offers
    each only to the datasets whose folder holds it, and lists it among the others' skipped methods no more than
    a method of another project: nobody configured it for them (13 TED systems "skipped" on the demo told a
    user nothing). A method listed by name is checked as any other."""
    key = f"datasets.{dataset}.methods"
    listed = dataset_config.get("methods")
    if listed is None:
        selection = MethodSelection([])
        for name, method in methods.items():
            if name in folder_systems and dataset not in method["paths"]:
                continue
            reason = unavailable_reason(name, method, dataset, pair, source)
            if reason is None:
                selection.methods.append(name)
            else:
                selection.skipped[name] = reason
        return selection
    if not isinstance(listed, list) or not all(isinstance(n, str) for n in listed):
        raise InputError(source, "expected a list of method names", field=key)
    for name in listed:
        if name not in methods:
            raise InputError(source, unknown("method", name, methods), field=key)
        if listed.count(name) > 1:
            raise InputError(source, f"method {name!r} is listed twice", field=key)
        if name in folder_systems and dataset not in methods[name]["paths"]:
            raise InputError(source, another_folders_system(name, methods[name]["paths"], dataset_config), field=key)
        reason = unavailable_reason(name, methods[name], dataset, pair, source)
        if reason is not None:
            raise InputError(source, f"method {name!r} cannot translate {pair}: {reason}", field=key)
    return MethodSelection(list(listed))
