"""Who writes a results directory, and one writer at a time.

The writing process as a manifest records it, whether that process still runs (a ``running`` run
whose writer is gone reads as ``killed``), and the lock that lets one process at a time write a
directory (:func:`one_writer`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from balance.results.layout import ResultsError, _now


def process_identity() -> dict[str, Any]:
    """This process as a manifest records it: pid, host name and start time, and on Linux the
    start in clock ticks since boot and the boot id, which tell a live writer from a later
    process that got the same pid."""
    pid = os.getpid()
    ident: dict[str, Any] = {"pid": pid, "host": socket.gethostname(), "started": _now()}
    ticks = _start_ticks(pid)
    if ticks is not None:
        ident["start_ticks"] = ticks
        ident["boot_id"] = _boot_id()
        started = _boot_time()
        if started is not None:
            at = started + ticks / os.sysconf("SC_CLK_TCK")
            ident["started"] = datetime.fromtimestamp(at, UTC).isoformat(timespec="seconds")
    return ident


def _proc_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first); None without one."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    return text[text.rfind(")") + 2 :].split()


def _start_ticks(pid: int) -> int | None:
    fields = _proc_stat(pid)
    return int(fields[19]) if fields is not None and len(fields) > 19 else None


def _boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


def _boot_time() -> float | None:
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                return float(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _process_alive(process: dict[str, Any]) -> bool | None:
    """Whether the process a manifest names still runs; None when this machine cannot tell (it
    ran on another host)."""
    if process.get("host") != socket.gethostname():
        return None
    pid = process.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return None
    if process.get("boot_id") and _boot_id() and process["boot_id"] != _boot_id():
        return False  # the machine rebooted since
    if Path("/proc/self/stat").exists():  # Linux: /proc says whether it lives, and since when
        fields = _proc_stat(pid)
        if fields is None or fields[0] in ("Z", "X"):  # gone, or dead and not yet reaped
            return False
        recorded = process.get("start_ticks")
        return recorded is None or recorded == _start_ticks(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: another user's live process
        return True
    return True


def _effective_status(manifest: dict[str, Any]) -> None:
    """A ``running`` manifest whose writer is gone is ``killed`` (the file's status is kept as
    ``recorded_status``); ``status_detail`` says why, or on which host a run is running."""
    if manifest.get("status") != "running" or not isinstance(manifest.get("process"), dict):
        return
    process = manifest["process"]
    alive = _process_alive(process)
    if alive is None:
        manifest["status_detail"] = f"on host {process.get('host', '?')}"
    elif not alive:
        manifest["recorded_status"] = manifest["status"]
        manifest["status"] = "killed"
        manifest["status_detail"] = f"the writing process {_process_words(process)} is gone"


def _process_words(process: dict[str, Any]) -> str:
    return (
        f"(pid {process.get('pid', '?')} on host {process.get('host', '?')}, started "
        f"{process.get('started', '?')})"
    )


# ---- one writer per results directory ---------------------------------------------------------

LOCK = ".lock"  # held (flock) by the process writing the directory; names it for the others


class Busy(ResultsError):
    """Another live process writes the directory (:func:`one_writer`)."""


@contextlib.contextmanager
def one_writer(out: str | os.PathLike[str], *, what: str = "run") -> Iterator[None]:
    """Hold the directory ``out``'s writer lock for the block (``out`` is created if missing).

    An OS lock (``flock``) on ``out/.lock``, which records the holder (pid, host, start): a
    second writer, ``--force`` over a live run or a second ``--resume`` fail at once with
    :class:`Busy` naming that process, and write nothing. The kernel drops the lock when its
    process ends however it ends, so a lock left by a killed process never blocks; the file is
    removed when the block ends. Where ``flock`` is unavailable (not Linux or macOS) the block
    runs unlocked. A directory this call created is removed again if the block leaves it empty
    but for the lock (a run that failed before writing anything)."""
    out = Path(out)
    created = False
    if not out.exists():
        try:
            out.mkdir(parents=True)
            created = True
        except FileExistsError:
            pass
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    path = out / LOCK
    fd = _take_lock(path, out, what, fcntl)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(process_identity()) + "\n").encode(), 0)
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()
        os.close(fd)
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()  # only if empty: nothing was written


def check_not_busy(out: str | os.PathLike[str], *, what: str = "run") -> None:
    """:class:`Busy` if a live process holds ``out``'s writer lock; creates nothing. (A
    command says this first: "exists and is not empty" would be the wrong reason, and its advice,
    --force, would not help.)"""
    path = Path(out) / LOCK
    try:
        import fcntl

        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except (ImportError, OSError):  # no lock file: nobody writes there
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # a probe, released at once
        except BlockingIOError:
            raise Busy(_busy_text(Path(out), what, _lock_holder(fd))) from None
        except OSError:
            return
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _busy_text(out: Path, what: str, holder: str) -> str:
    return (
        f"{out}: another balance process is writing this {what} ({holder}); wait for it to "
        "finish, or stop it (Ctrl-C) and then --resume"
    )


def _take_lock(path: Path, out: Path, what: str, fcntl: Any) -> int:
    for _ in range(100):  # the holder may remove the file between our open and our flock
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise ResultsError(f"{out}: cannot write there: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            os.close(fd)
            raise Busy(_busy_text(out, what, holder)) from None
        except OSError:  # a filesystem without locks (some network mounts): unlocked, as before
            return fd
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # we locked a file its holder had just removed: take the new one
    raise ResultsError(f"{out}: cannot take its writer lock {path}")


def _lock_holder(fd: int) -> str:
    try:
        holder = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
    except (OSError, ValueError):
        holder = {}
    if not isinstance(holder, dict) or "pid" not in holder:
        return "a process that is starting"
    return _process_words(holder).strip("()")


def entries(out: Path) -> list[Path]:
    """What directory ``out`` holds, but for its writer lock."""
    return [p for p in out.iterdir() if p.name != LOCK]


def clear(out: Path) -> None:
    """Empty directory ``out`` (``--force`` over an earlier run), keeping the writer lock the
    caller holds in it."""
    for path in entries(out):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
