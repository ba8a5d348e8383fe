"""Where numba keeps compiled kernels: a folder per version of the kernel sources.

numba's on-disk cache (``cache=True``) checks only the source file of the function it caches, so a
cached caller keeps using an old copy of a callee that was changed in another file (the engine
inlines the policies, the policies inline the state helpers). After an upgrade or an edit that
would silently run stale code. Keying the cache folder by a hash of the kernel source files (the
kernels live in ``rng.py`` and ``games/``; the rest of the package never runs inside numba)
makes any change to them start from a clean cache. A user's own ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def source_hash() -> str:
    """Hash of the kernel sources (rng.py and games/), names and contents."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted([root / "rng.py", *(root / "games").rglob("*.py")]):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    """Point numba's cache at ``$XDG_CACHE_HOME/balance/numba-<source hash>`` unless set."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = str(base / "balance" / f"numba-{source_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = path
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before balance: its config has read the environment already
        numba.config.CACHE_DIR = path
