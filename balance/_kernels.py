"""Whether a game's kernels start cold or warm, and how long a cold compile took on this machine.

A game's first run on a machine, or after an update (a new kernel cache folder, balance/_cache.py),
compiles its kernels: about a minute. Later runs load them from numba's cache in about a second.
The CLI says which of the two is happening before it happens (:func:`kernels_cached`) and, for a
compile, how long compiles took here before (:func:`compile_times`, :func:`expected_text`): the
runner records each cold compile it measures (:func:`record_compile_time`).

Not in balance/_cache.py: that file is part of the kernel cache's key (its LLVM settings), and
a change to these helpers must not throw away every compiled kernel.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TIMES_FILE = "compile_times.json"
KEEP_TIMES = 10  # measured compiles kept per game (the newest)


def cache_dir() -> Path:
    """numba's cache folder for this process (``numba.config.CACHE_DIR``, set by configure)."""
    numba = sys.modules.get("numba")
    folder = getattr(getattr(numba, "config", None), "CACHE_DIR", "") if numba else ""
    return Path(folder or os.environ.get("NUMBA_CACHE_DIR") or ".")


def index_files(package: str, folder: Path | None = None) -> list[Path] | None:
    """Where numba keeps the index file (``*.nbi``) of each cached kernel (``cache=True``) of
    the imported modules ``package`` and ``package.*``, under ``folder`` (default: numba's
    cache folder); None when they define no cached kernel (a game in plain Python, or
    NUMBA_DISABLE_JIT=1). The path is numba's own: ``<folder>/<source dir name>_<sha1 of the
    source dir>/<module>.<qualname>-<first line>.py<version><abiflags>.nbi``."""
    try:
        from numba.core.caching import _CacheLocator
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover - numba moved them
        return None
    folder = cache_dir() if folder is None else Path(folder)
    py = f"py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    found: dict[int, Path] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, Dispatcher) or id(value) in found:
                continue
            func = value.py_func
            if type(getattr(value, "_cache", None)).__name__ == "NullCache" or not (
                func.__module__ == package or func.__module__.startswith(package + ".")
            ):
                continue  # not cached, or a kernel of another module imported here
            source = func.__code__.co_filename
            stem = os.path.splitext(os.path.basename(source))[0]
            qualname = func.__qualname__.replace("<", "").replace(">", "")
            line = func.__code__.co_firstlineno
            sub = _CacheLocator.get_suitable_cache_subpath(source)
            found[id(value)] = folder / sub / f"{stem}.{qualname}-{line}.{py}.nbi"
    return sorted(found.values()) or None


def kernels_cached(package: str, folder: Path | None = None) -> bool | None:
    """Whether numba's cache folder already holds kernels of ``package`` (see index_files):
    True when any of their index files exists (a warm start loads them), False when none does
    (a cold start compiles them: the first run on this machine or after an update, which gets
    a fresh folder), None when the package has no cached kernels. Any rather than all: a run
    compiles only the kernels its config reaches (narration, other policies wait for theirs)."""
    _import_modules(package)
    files = index_files(package, folder)
    if files is None:
        return None
    return any(path.is_file() for path in files)


def _import_modules(package: str) -> None:
    """Import every module of ``package`` (a game imports its engine only when it first plays),
    so that index_files sees all its kernels; defining a kernel compiles nothing."""
    import importlib
    import pkgutil

    module = sys.modules.get(package) or importlib.import_module(package)
    for info in pkgutil.walk_packages(getattr(module, "__path__", []), prefix=package + "."):
        try:
            importlib.import_module(info.name)
        except ImportError:  # pragma: no cover - an optional module; its kernels are not ours
            continue


def times_path(folder: Path | None = None) -> Path:
    """The JSON file of measured compile times: next to the ``numba-<hash>`` folders when the
    cache is ours (it outlives the folder of a version, and a cold compile comes with a new
    folder), else in the user's NUMBA_CACHE_DIR."""
    folder = cache_dir() if folder is None else Path(folder)
    if folder.name.startswith("numba-"):
        return folder.parent / TIMES_FILE
    return folder / TIMES_FILE


def compile_times(game: str, folder: Path | None = None) -> list[float]:
    """The compile times of ``game`` measured on this machine (seconds, oldest first); [] when
    none is recorded or the file does not read."""
    import json

    try:
        data = json.loads(times_path(folder).read_text())
        return [float(t) for t in data.get(game, []) if float(t) > 0]
    except (OSError, ValueError, TypeError, AttributeError):
        return []


def record_compile_time(game: str, seconds: float, folder: Path | None = None) -> None:
    """Add a measured cold compile of ``game`` to the times file (the newest KEEP_TIMES per
    game). Never raises: a time it cannot record only leaves the next estimate rougher."""
    import json

    path = times_path(folder)
    try:
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        times = [t for t in data.get(game, []) if isinstance(t, int | float)]
        data[game] = [*times, round(float(seconds), 2)][-KEEP_TIMES:]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def expected_text(times: list[float]) -> str:
    """What a cold compile is expected to take, from the times measured on this machine:
    ``expected 48-61 s`` (min-max), ``expected about 52 s`` (one measure), or, with none yet,
    ``expected about a minute, first time measured now``."""
    if not times:
        return "expected about a minute, first time measured now"
    lo, hi = min(times), max(times)
    if round(lo) == round(hi):
        return f"expected about {lo:.0f} s" + (" (measured once)" if len(times) == 1 else "")
    return f"expected {lo:.0f}-{hi:.0f} s"
