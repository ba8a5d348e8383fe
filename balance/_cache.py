"""Where numba keeps compiled kernels: a folder per version of the kernel sources.

numba's on-disk cache (``cache=True``) checks only the source file of the function it caches, so a
cached caller keeps using an old copy of a callee that was changed in another file (the engine
inlines the policies, the policies inline the state helpers). After an upgrade or an edit that
would silently run stale code. Keying the cache folder by a hash of the kernel source files (the
kernels live in ``rng.py`` and ``games/``; the rest of the package never runs inside numba)
makes any change to them start from a clean cache. A user's own ``NUMBA_CACHE_DIR`` is respected.

Each start marks its folder as used (its modification time); folders of other source versions
unused for ``STALE_DAYS`` days (an upgrade, an old checkout) are deleted, so the cache does not
grow by a minute's worth of kernels with every version forever.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

STALE_DAYS = 30


def source_hash() -> str:
    """Hash of the kernel sources (rng.py and games/), names and contents."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted([root / "rng.py", *(root / "games").rglob("*.py")]):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    """Point numba's cache at ``$XDG_CACHE_HOME/balance/numba-<source hash>`` unless set, and
    turn LLVM's loop vectorizer off unless ``NUMBA_LOOP_VECTORIZE`` is set.

    The vectorizer: the kernels' loops run over a hand, a pile or the seats, a few to a few
    dozen elements, and the state's arrays have constant strides (state.State), which is what
    the vectorizer looks for. It then adds a vector body and the checks that choose it to
    loops that never run long enough to use them: measured 0.94x the games/s of the same
    kernels without it. numba reads the setting when it compiles, so this is set before any
    kernel is compiled; the kernels compute the same results either way.
    """
    if "NUMBA_LOOP_VECTORIZE" not in os.environ:
        os.environ["NUMBA_LOOP_VECTORIZE"] = "0"
        numba = sys.modules.get("numba")
        if numba is not None:  # imported before balance: its config has read the environment
            numba.config.LOOP_VECTORIZE = 0
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "balance" / f"numba-{source_hash()}"
    path = str(folder)
    os.environ["NUMBA_CACHE_DIR"] = path
    prune(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before balance: its config has read the environment already
        numba.config.CACHE_DIR = path


def prune(current: Path, *, days: float = STALE_DAYS, now: float | None = None) -> list[Path]:
    """Mark ``current`` as used and delete its sibling ``numba-*`` folders unused for ``days``;
    returns what was deleted. Never raises: a cache it cannot tidy is still a cache."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        if current.is_dir():
            os.utime(current, (now, now))
        for entry in os.scandir(current.parent):
            if not entry.name.startswith("numba-") or entry.path == str(current):
                continue
            if entry.is_dir(follow_symlinks=False) and now - entry.stat().st_mtime > days * 86400:
                shutil.rmtree(entry.path, ignore_errors=True)
                removed.append(Path(entry.path))
    except OSError:
        pass
    return removed
