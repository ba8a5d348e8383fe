"""Where numba keeps compiled kernels: a folder per version of the kernel sources.

numba's on-disk cache (``cache=True``) checks only the source file of the function it caches, so a
cached caller keeps using an old copy of a callee that was changed in another file (the engine
inlines the policies, the policies inline the state helpers). After an upgrade or an edit that
would silently run stale code. Keying the cache folder by a hash of the kernel source files (the
kernels live in ``rng.py`` and ``games/``; the rest of the package never runs inside numba) and
of this file (the LLVM settings the kernels are compiled with, ``_codegen``) makes any change to
them start from a clean cache. A user's own ``NUMBA_CACHE_DIR`` is respected.

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
    """Hash of the kernel sources (rng.py and games/) and of this file (the LLVM settings in
    _codegen), names and contents."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted([root / "rng.py", root / "_cache.py", *(root / "games").rglob("*.py")]):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def configure() -> None:
    """Set the kernels' LLVM settings (_codegen) and point numba's cache at
    ``$XDG_CACHE_HOME/balance/numba-<source hash>`` unless NUMBA_CACHE_DIR is set."""
    _codegen()
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


def _codegen() -> None:
    """Two LLVM settings for the kernels, set before any of them is compiled (numba reads them
    when it compiles; the kernels compute the same results either way):

    - No loop vectorizer (``NUMBA_LOOP_VECTORIZE=0`` unless set). The kernels' loops run over a
      hand, a pile or the seats, a few to a few dozen elements; with the state's constant
      strides (five_ravens/state.py) the vectorizer gave them vector bodies and the checks that
      choose them, never used: Five Ravens ran at 0.94x with it.
    - No runtime unrolling (LLVM's ``-unroll-runtime=false``). LLVM unrolled loops of unknown
      length by 4 or 8 with a remainder loop and a test to choose, for loops that mostly run
      fewer times than that: 1.016x Five Ravens games/s, 1.13x The Raven Order's, a third less
      code. This one is an LLVM option of the whole process.
    """
    if "NUMBA_LOOP_VECTORIZE" not in os.environ:
        os.environ["NUMBA_LOOP_VECTORIZE"] = "0"
        numba = sys.modules.get("numba")
        if numba is not None:  # imported before balance: its config has read the environment
            numba.config.LOOP_VECTORIZE = 0
    import llvmlite.binding as llvm

    llvm.set_option("balance", "-unroll-runtime=false")


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
