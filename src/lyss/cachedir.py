"""Where lyss keeps what it can recompute: sentence vectors (lyss.embed.cache), word-list and language-identifier
answers (lyss.metrics.lookups) and what the code-hash reader found in each source file (lyss.codehash).

`$LYSS_CACHE_DIR`, else `$XDG_CACHE_HOME/lyss`, else `~/.cache/lyss`. Each store keys what it keeps by what the
value depends on, so deleting the folder only costs the time to compute it again.
"""

import os
from pathlib import Path


def cache_root() -> Path:
    if os.environ.get("LYSS_CACHE_DIR"):
        return Path(os.environ["LYSS_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "lyss"
