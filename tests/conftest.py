"""The suite reads the project's own files by their paths inside the project (`params.yaml`,
`data/languages/spa.yaml`, the library's default `data/languages`), as the workflow does from the project
folder. Running from the project root whatever the caller's working directory keeps those paths true, so
`pytest /path/to/lyss/tests` from anywhere runs the same tests as `make test`."""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from plain_text_files import write_files  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    os.chdir(ROOT)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Plain text files for `lyss score` and `lyss compare` (tests/plain_text_files.py)."""
    return write_files(tmp_path_factory.mktemp("text"))


@pytest.fixture
def spm_home(tmp_path, monkeypatch):
    """sacrebleu's model folder moved to an empty tmp folder, and any network call a test failure."""
    from sacrebleu.tokenizers import tokenizer_spm

    monkeypatch.setattr(tokenizer_spm, "SACREBLEU_DIR", str(tmp_path / "sacrebleu"))

    def no_network(*args, **kwargs):
        raise AssertionError("a download was attempted")

    monkeypatch.setattr("urllib.request.urlopen", no_network)
    return tmp_path / "sacrebleu"
