"""The single files a command writes: checked before any work, written whole or not at all.

Every page, table, JUnit file, figure file or tuned config a command writes (results directories
are balance/results/'s) goes through two functions:

- :func:`check_output_file` at the start of the command, before kernels load or games play: a
  path that exists and is not a regular file (a directory, a FIFO, a socket, a device, after
  following symlinks), a parent that cannot be created or written, one of the command's inputs
  or a file a results directory keeps is refused with one line naming the option and the path.
  A FIFO is never opened (that would block), a device node never replaced.
- :func:`write_atomic` at the end: a temporary file in the same directory, written, flushed to
  disk and renamed over the path, so that a reader sees the old file or the new one. A failure
  removes the temporary file and leaves an old file as it was, and a full disk, a quota, a
  read-only file system or a permission says so in one line naming the path
  (``reports/x.html: disk full (No space left on device) while writing; nothing was written,
  the old file is kept``).

A symlink is written through: its target gets the new content and the link stays a link.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from balance.errors import BalanceError

# The names balance/results/ and the sweep give a dataset's own files (the manifest, the parts'
# folder, the sweep's manifest); their hidden files (temporary files, locks) are theirs too.
MANIFEST = "manifest.json"
PARTS_DIR = "games"
TRACE_DIR = "trajectories"  # the parts' trajectories (balance/results/layout.py)
SWEEP_MANIFEST = "sweep.json"


class OutputError(BalanceError):
    """An output file that cannot, or must not, be written; the message is one line naming it."""


def kind_of(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file ("a directory", "a FIFO (named
    pipe)", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, words in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def check_output_file(
    path: str | os.PathLike[str],
    option: str = "",
    *,
    inputs: Mapping[str | os.PathLike[str], str] | None = None,
    results_dirs: Iterable[str | os.PathLike[str]] = (),
    suggest: str | None = None,
    fix: str | None = None,
) -> Path:
    """Raise OutputError now, before any work, if ``path`` cannot or must not be written.

    ``option`` names it in the message (``--out``; empty for a file the command names itself).
    ``inputs`` maps each file or directory the command reads to how a user knows it (``"the
    check spec"``): the output must be none of them. ``results_dirs`` are results directories
    the command is about to create or fill: the output must be neither one nor a file it keeps
    (an existing results or sweep directory is recognised by its manifest). ``suggest`` is a file
    name to propose when ``path`` is a directory (``report.html``); ``fix`` replaces what the
    message tells the user to do (for a file the command names itself: ``pass --no-impact``).
    Returns ``path``."""
    p = Path(path)
    shown = f"{option} {path}" if option else str(path)

    def refuse(problem: str, default_fix: str | None = None) -> OutputError:
        said = fix or default_fix
        return OutputError(f"{shown}: {problem}" + (f"; {said}" if said else ""))

    try:
        st: os.stat_result | None = os.stat(p)  # follows symlinks; never opens (a FIFO blocks)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # a missing parent, or one that is a file, is said below
    except OSError as e:  # a symlink loop, a name too long, a directory it may not search
        raise refuse(f"cannot write: {e.strerror or e}") from None
    target = target_of(p)
    for rd in results_dirs:
        if _same(target, rd):
            hint = f", e.g. {Path(rd) / suggest}" if suggest else ""
            raise refuse("is the results directory this command writes", f"name a file{hint}")
    if st is not None:
        kind = kind_of(st.st_mode)
        if kind == "a directory":
            what = "a results directory" if _dataset_dir(target) else "a directory"
            hint = f", e.g. {p / suggest}" if suggest else ""
            raise refuse(f"is {what}", f"name a file to write{hint}")
        if kind is not None:
            raise refuse(f"is {kind}, not a regular file", "name a file to write")
    for source, what in (inputs or {}).items():
        if _same(target, source):
            also = f" ({source})" if os.fspath(source) != os.fspath(path) else ""
            raise refuse(f"is {what}{also}", "name another file to write")
    owner = _dataset_file(target, [Path(os.path.realpath(rd)) for rd in results_dirs])
    if owner is not None:
        what = (
            "sweep"
            if (owner / SWEEP_MANIFEST).is_file() or target.name == SWEEP_MANIFEST
            else "results"
        )
        raise refuse(f"is a file the {what} directory {owner} keeps", "name another file to write")
    probe = target.parent
    while True:  # the nearest ancestor that exists: the parents below it are created on writing
        try:
            pst = os.stat(probe)
            break
        except (FileNotFoundError, NotADirectoryError):
            if probe.parent == probe:  # "." when the working directory was removed
                raise refuse(f"cannot write: {probe} does not exist") from None
            probe = probe.parent
        except OSError as e:
            raise refuse(f"cannot write: {probe}: {e.strerror or e}") from None
    if not stat.S_ISDIR(pst.st_mode):
        raise refuse(f"cannot write: {probe} is not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        why = "read-only file system" if _read_only(probe) else "permission denied"
        raise refuse(f"cannot write: {why} in {probe}")
    return p


_WHY = {
    errno.ENOSPC: "disk full",
    errno.EDQUOT: "disk quota exceeded",
    errno.EROFS: "read-only file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
}


def write_atomic(
    path: str | os.PathLike[str],
    data: str | bytes,
    *,
    check: Callable[[Path], None] | None = None,
) -> Path:
    """Replace ``path`` with ``data`` (text is UTF-8) in one step: a temporary file in the same
    directory (parents created), written, flushed to disk and renamed over ``path``. ``check``,
    if given, is called with the temporary file before the rename (it may raise to keep the old
    file). On any failure the temporary file is removed and an old ``path`` is as it was; an
    OSError becomes one OutputError line naming ``path`` (module docstring). Returns ``path``."""
    payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)

    def fill(fd: int, tmp: Path) -> None:
        view = memoryview(payload)
        while view:
            n = os.write(fd, view)
            if n <= 0:  # pragma: no cover - a regular file takes bytes or raises
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            view = view[n:]

    return _replace(Path(path), fill, check)


def write_atomic_with(
    path: str | os.PathLike[str],
    write: Callable[[Path], None],
    *,
    check: Callable[[Path], None] | None = None,
) -> Path:
    """:func:`write_atomic` for content too large to hold in memory: ``write(tmp)`` writes the
    new file at the temporary path ``tmp`` itself (e.g. polars' ``sink_csv`` streaming a
    dataset), which is then flushed to disk and renamed over ``path``. An exception in
    ``write`` (a KeyboardInterrupt too) removes the temporary file and leaves an old ``path``
    as it was."""
    return _replace(Path(path), lambda fd, tmp: write(tmp), check)


def _replace(
    p: Path, fill: Callable[[int, Path], None], check: Callable[[Path], None] | None
) -> Path:
    """The steps of :func:`write_atomic`: ``fill(fd, tmp)`` writes the temporary file (open
    for writing as ``fd``)."""
    target = target_of(p)
    try:
        st: os.stat_result | None = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as e:
        raise _write_error(p, e, kept=False) from None
    if st is not None and kind_of(st.st_mode) is not None:  # after check_output_file: a race
        raise OutputError(f"{p}: is {kind_of(st.st_mode)}, not a regular file; nothing was written")
    tmp: Path | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp, fd = _create_temp(target)
        try:
            fill(fd, tmp)
            os.fsync(fd)  # the file's data, however ``fill`` wrote it
        finally:
            os.close(fd)
        if st is not None:  # the file keeps its permissions
            os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if check is not None:
            check(tmp)
        os.replace(tmp, target)
        tmp = None
    except OSError as e:
        raise _write_error(p, e, kept=st is not None) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
    fsync_dir(target.parent)
    return p


# ---- helpers ------------------------------------------------------------------------------------


def target_of(p: Path) -> Path:
    """The file a write to ``p`` changes: a symlink's target (followed all the way), else ``p``."""
    return Path(os.path.realpath(p)) if os.path.islink(p) else p


def _same(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether ``a`` and ``b`` name one file (through symlinks, ``..`` or a hard link); either
    may not exist yet."""
    with contextlib.suppress(OSError):
        if os.path.samefile(a, b):
            return True
    return os.path.realpath(a) == os.path.realpath(b)


def _dataset_dir(d: Path) -> bool:
    """Whether ``d`` is a results directory or a sweep directory (by its manifest)."""
    return (d / MANIFEST).is_file() or (d / SWEEP_MANIFEST).is_file()


def _dataset_file(target: Path, results_dirs: list[Path]) -> Path | None:
    """The results (or sweep) directory that keeps ``target`` as one of its own files (its
    manifest, a hidden file, anything in its parts' folder), or None."""
    parent = Path(os.path.realpath(target.parent))

    def is_dataset(d: Path) -> bool:
        return d in results_dirs or _dataset_dir(d)

    if is_dataset(parent) and (
        target.name in (MANIFEST, SWEEP_MANIFEST, PARTS_DIR, TRACE_DIR)
        or target.name.startswith(".")
    ):
        return target.parent
    if parent.name in (PARTS_DIR, TRACE_DIR) and is_dataset(parent.parent):
        return target.parent.parent
    return None


def _read_only(d: Path) -> bool:
    try:
        return bool(os.statvfs(d).f_flag & os.ST_RDONLY)
    except OSError:  # pragma: no cover - statvfs of a directory that exists
        return False


def _create_temp(target: Path) -> tuple[Path, int]:
    """A new file beside ``target``, opened for writing: a fresh random name (never an existing
    file, which could be a FIFO), with the permissions a new file gets (0666 less the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            return tmp, os.open(tmp, flags, 0o666)
        except FileExistsError:  # pragma: no cover - 2**-32
            continue


def _write_error(p: Path, e: OSError, *, kept: bool) -> OutputError:
    strerror = e.strerror or str(e)
    why = _WHY.get(e.errno or 0)
    head = f"{why} ({strerror})" if why else f"cannot write ({strerror})"
    where = ""
    if e.filename is not None and Path(e.filename) not in (p, target_of(p), p.parent):
        name = Path(e.filename)
        if not name.name.startswith(f".{target_of(p).name}."):  # not the temporary file
            where = f" at {e.filename}"
    old = ", the old file is kept" if kept else ""
    return OutputError(f"{p}: {head}{where} while writing; nothing was written{old}")


def fsync_dir(d: Path) -> None:
    """Make the rename in ``d`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
