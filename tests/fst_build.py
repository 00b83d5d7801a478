"""Builds the tests' HFST optimized-lookup analyzer from a lexc lexicon with the real HFST tools."""

import subprocess
from pathlib import Path

LEXC_DIR = Path(__file__).parent / "data" / "fst"


def build_hfstol(lexc_name: str, out_dir: Path) -> Path:
    """lexc → hfst-lexc (generator) → hfst-invert (analyzer) → hfst-fst2fst -O (optimized lookup)."""
    generator, analyzer, optimized = (out_dir / f"{lexc_name}.{ext}" for ext in ("gen", "hfst", "hfstol"))
    for command in (["hfst-lexc", "-q", str(LEXC_DIR / f"{lexc_name}.lexc"), "-o", str(generator)],
                    ["hfst-invert", str(generator), "-o", str(analyzer)],
                    ["hfst-fst2fst", "-O", str(analyzer), "-o", str(optimized)]):
        subprocess.run(command, check=True, capture_output=True)
    return optimized
