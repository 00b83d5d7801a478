"""Run fingerprints: a hash of the corpus, the settings that shape the numbers, and the code version,
so identical inputs give identical run cards and a changed input is visible in the card."""

import functools
import hashlib
import json
from importlib import resources

from lyss import __version__


@functools.cache
def code_version() -> str:
    """Package version plus a hash of the package's Python sources (catches unreleased edits), as a local
    version label (`0.1.0+<hash>`). Once per process: the sources do not change under a running command."""
    digest = hashlib.sha256()
    root = resources.files("lyss")
    for path in sorted(_python_files(root), key=str):
        digest.update(str(path.relative_to(root) if hasattr(path, "relative_to") else path).encode())
        digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def _python_files(folder):
    for child in folder.iterdir():
        if child.is_dir() and child.name != "__pycache__":
            yield from _python_files(child)
        elif child.name.endswith(".py"):
            yield child


def run_fingerprint(corpus_hash: str, settings: dict) -> dict:
    params_hash = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode()).hexdigest()
    version = code_version()
    combined = hashlib.sha256(f"{corpus_hash}|{params_hash}|{version}".encode()).hexdigest()
    return {"hash": combined, "corpus": corpus_hash, "params": params_hash, "code_version": version}
