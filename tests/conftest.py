"""The suite reads the project's own files by their paths inside the project (`params.yaml`,
`data/languages/spa.yaml`, the library's default `data/languages`), as the workflow does from the project
folder. Running from the project root whatever the caller's working directory keeps those paths true, so
`pytest /path/to/lyss/tests` from anywhere runs the same tests as `make test`."""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    os.chdir(ROOT)
