"""The results dataset: parquet parts of one row per (game, seat), and a manifest.

Layout of ``results/<run>/``::

    manifest.json             provenance and progress (see ResultsWriter); rewritten after every part
    games/part-00000.parquet  games [0, n0), game-major then seat
    games/part-00001.parquet  games [n0, n0 + n1), ...

Every part is written under a temporary name, flushed to disk and renamed, and the manifest is
replaced the same way after each part, so a killed run (even by a power cut) leaves a readable
dataset: the parts the manifest lists are complete, and ``games_done`` says how many games they
hold (always games ``[0, games_done)``). The manifest records the writing process (pid, host, start
time), so that a reader can tell a run in progress from one whose process died without recording
its end (:func:`read_manifest`, status ``killed``). :func:`open_results` checks each part's footer
before handing out the rows: a truncated or overwritten part is a one-line ResultsError naming it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balance import manifest as manifest_schema
from balance import parquet
from balance.errors import BalanceError
from balance.games.base import Chunk
from balance.outputs import fsync_dir

FORMAT = manifest_schema.FORMAT  # bump when the layout or a column's meaning changes
MANIFEST = "manifest.json"
PARTS_DIR = "games"

# Columns every game has, in file order (a game with roles has a String ``role`` column after
# ``team``); then Chunk.extra (Int32), then telemetry (UInt8).
BASE_SCHEMA: dict[str, pl.DataType] = {
    "game": pl.Int64(),
    "seat": pl.Int8(),
    "policy": pl.String(),
    "team": pl.String(),
    "score": pl.Int32(),
    "rank": pl.Int8(),  # 1 = winner; seats that share a place share a rank
    "win": pl.Float64(),  # 1/k for each rank-1 seat, k = distinct teams among them, else 0
    "shared": pl.Boolean(),  # this seat won and shared the win with another team
    "turns": pl.Int32(),
    "end_reason": pl.String(),
    "order": pl.Int8(),  # place in the opening turn order, 0 = first player
}


class ResultsError(BalanceError):
    """A results directory is missing or unreadable; the message is one line naming the path."""


def part_name(index: int) -> str:
    return f"part-{index:05d}.parquet"


def team_codes(
    chunk: Chunk, teams: Sequence[str], team_names: Sequence[str]
) -> tuple[np.ndarray, list[str]]:
    """Each seat's team in each game as int32[n, P] codes, and the names of the codes.

    From the chunk when the game returns teams (``team_names`` non-empty), else from the config's
    ``teams`` (one name per seat, the same in every game; a broadcast view, no copy)."""
    n, p = chunk.score.shape
    if team_names:
        if chunk.team is None:
            raise ValueError("the game names teams but its Chunk.team is None")
        return chunk.team, list(team_names)
    names = list(dict.fromkeys(teams))
    code = np.array([names.index(t) for t in teams], dtype=np.int32)
    return np.broadcast_to(code, (n, p)), names


def win_values(rank: np.ndarray, team: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``win`` and ``shared`` of each seat: rank-1 seats get 1/k, where k is the number of
    distinct teams among the rank-1 seats of the game, the others 0; ``shared`` when k > 1.

    A Family victory is a full win for every Family seat; a two-way tie between one-seat teams
    is half a win each (DESIGN.md, The game protocol)."""
    won = rank == 1
    p = rank.shape[1]
    first = won.copy()  # a winning seat whose team no earlier winning seat has
    for s in range(1, p):
        for q in range(s):
            first[:, s] &= ~(won[:, q] & (team[:, q] == team[:, s]))
    k = first.sum(axis=1, keepdims=True)
    win = np.where(won, 1.0 / np.maximum(k, 1), 0.0)
    return win, won & (k > 1)


def chunk_columns(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> dict[str, np.ndarray | parquet.Codes | parquet.Block]:
    """The columns of one chunk's rows (game-major, then seat) in file order, as arrays: strings
    as :class:`~balance.parquet.Codes`, and the telemetry as one row-major
    :class:`~balance.parquet.Block` under the key ``"telemetry"`` (its columns are named by
    ``telemetry_columns``). :func:`chunk_frame` is the same rows as a polars DataFrame.

    ``seats`` and ``teams`` are the config's policy and team of each seat; ``team_names`` and
    ``role_names`` the plugin's names of ``Chunk.team`` and ``Chunk.role`` codes (empty when the
    game returns none: the team is the config's, and there is no ``role`` column)."""
    n, p = chunk.n_games, len(seats)
    _check_chunk(chunk, p, len(end_reasons), len(telemetry_columns), team_names, role_names)
    seat = np.tile(np.arange(p, dtype=np.int8), n)
    rank = chunk.rank.astype(np.int8)
    team, names = team_codes(chunk, teams, team_names)
    win, shared = win_values(rank, team)
    policies = list(dict.fromkeys(seats))
    policy_code = np.array([policies.index(s) for s in seats], dtype=np.int8)
    columns: dict[str, np.ndarray | parquet.Codes | parquet.Block] = {
        "game": np.repeat(np.arange(chunk.first_game, chunk.first_game + n, dtype=np.int64), p),
        "seat": seat,
        "policy": parquet.Codes(np.tile(policy_code, n), policies),
        "team": parquet.Codes(team.ravel(), names),
    }
    if role_names:
        columns["role"] = parquet.Codes(chunk.role.ravel(), list(role_names))
    columns |= {
        "score": chunk.score.astype(np.int32, copy=False).ravel(),
        "rank": rank.ravel(),
        "win": win.ravel(),
        "shared": shared.ravel(),
        "turns": np.repeat(chunk.turns.astype(np.int32, copy=False), p),
        "end_reason": parquet.Codes(np.repeat(chunk.end_reason, p), list(end_reasons)),
        "order": chunk.order.astype(np.int8).ravel(),
    }
    for name, values in chunk.extra.items():
        columns[name] = values.astype(np.int32, copy=False).ravel()
    telemetry = chunk.telemetry.astype(np.uint8, copy=False).reshape(n * p, len(telemetry_columns))
    columns["telemetry"] = parquet.Block(telemetry, list(telemetry_columns))
    return columns


def chunk_frame(
    chunk: Chunk,
    *,
    seats: Sequence[str],
    teams: Sequence[str],
    end_reasons: Sequence[str],
    telemetry_columns: Sequence[str],
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> pl.DataFrame:
    """The rows of one chunk, game-major then seat, built from its arrays without a row loop
    (the columns of :func:`chunk_columns`, the same arguments)."""
    columns = chunk_columns(
        chunk,
        seats=seats,
        teams=teams,
        end_reasons=end_reasons,
        telemetry_columns=telemetry_columns,
        team_names=team_names,
        role_names=role_names,
    )
    return columns_frame(columns)


def columns_frame(columns: dict[str, np.ndarray | parquet.Codes | parquet.Block]) -> pl.DataFrame:
    """The polars DataFrame of :func:`chunk_columns`' columns."""
    series = []
    for name, column in columns.items():
        if isinstance(column, parquet.Block):
            series += [pl.Series(c, column.values[:, j]) for j, c in enumerate(column.names)]
        elif isinstance(column, parquet.Codes):
            codes = pl.Series(name, column.codes.astype(np.int32, copy=False))
            series.append(
                codes.replace_strict(
                    range(len(column.names)), list(column.names), return_dtype=pl.String
                )
            )
        else:
            series.append(pl.Series(name, column))
    return pl.DataFrame(series)


def frame_columns(frame: pl.DataFrame) -> dict[str, np.ndarray | parquet.Codes]:
    """A DataFrame's columns as :func:`balance.parquet.write_table` takes them."""
    columns: dict[str, np.ndarray | parquet.Codes] = {}
    for s in frame.iter_columns():
        if s.dtype == pl.String:
            names = s.unique(maintain_order=True)
            codes = s.replace_strict(names, range(len(names)), return_dtype=pl.Int32)
            columns[s.name] = parquet.Codes(codes.to_numpy(), names.to_list())
        else:
            columns[s.name] = s.to_numpy()
    return columns


def _check_chunk(
    chunk: Chunk,
    p: int,
    n_reasons: int,
    n_telemetry: int,
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> None:
    """Shape checks, so a plugin bug fails here with a message instead of as a garbled dataset."""
    n = chunk.n_games
    for what, codes, names in (("team", chunk.team, team_names), ("role", chunk.role, role_names)):
        if names and codes is None:
            raise ValueError(f"the game names {what}s but Chunk.{what} is None")
        if codes is not None and not names:
            raise ValueError(f"Chunk.{what} is given but the game names no {what}s")
        if codes is not None:
            if codes.shape != (n, p):
                raise ValueError(f"Chunk.{what} has shape {codes.shape}, expected {(n, p)}")
            if n and (codes.min() < 0 or codes.max() >= len(names)):
                raise ValueError(f"Chunk.{what} has codes outside 0..{len(names) - 1}")
    shapes = {
        "score": (chunk.score, (n, p)),
        "rank": (chunk.rank, (n, p)),
        "turns": (chunk.turns, (n,)),
        "end_reason": (chunk.end_reason, (n,)),
        "order": (chunk.order, (n, p)),
        "telemetry": (chunk.telemetry, (n, p, n_telemetry)),
        **{f"extra[{name!r}]": (a, (n, p)) for name, a in chunk.extra.items()},
    }
    for name, (array, shape) in shapes.items():
        if array.shape != shape:
            raise ValueError(f"Chunk.{name} has shape {array.shape}, expected {shape}")
    clash = set(chunk.extra) & {*BASE_SCHEMA, "role"}
    if clash:
        raise ValueError(f"Chunk.extra columns {sorted(clash)} clash with the base columns")
    if n and (chunk.end_reason.min() < 0 or chunk.end_reason.max() >= n_reasons):
        raise ValueError(f"Chunk.end_reason has codes outside 0..{n_reasons - 1}")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` atomically: the old or the new content, whatever happens."""
    tmp = path.with_name("." + path.name + ".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(json.dumps(data, indent=2, default=str) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---- who writes a run: is it still running? ---------------------------------------------------


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


def status_text(manifest: dict[str, Any]) -> str:
    """How a run stands, in words: ``complete``, ``interrupted``, ``failed``, ``running``,
    ``running (on host H)`` (a run on another machine: this one cannot tell whether it still
    runs) or ``did not finish: the writing process (pid N on host H, started T) is gone``."""
    status = str(manifest.get("status", "?"))
    detail = manifest.get("status_detail")
    if status == "killed":
        return f"did not finish: {detail}" if detail else "did not finish"
    return f"{status} ({detail})" if detail else status


def status_phrase(manifest: dict[str, Any]) -> tuple[str, str]:
    """(the words to stress, the rest) of "This run ..." for a page: ("is interrupted", ""),
    ("is running", " (on host H)"), ("did not finish", ", its process (pid N on host H, started
    T) is gone")."""
    status = str(manifest.get("status", "?"))
    if status == "killed":
        process = manifest.get("process")
        gone = f", its process {_process_words(process)} is gone" if process else ""
        return "did not finish", gone
    detail = manifest.get("status_detail")
    return f"is {status}", f" ({detail})" if detail else ""


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


RUN_ID_KEY = "balance.run_id"  # a part's footer metadata: the run it belongs to
FIRST_GAME_KEY = "balance.first_game"  # and the first game it holds


def run_id(manifest: dict[str, Any]) -> str:
    """The id of the run a manifest describes: a hash of what decides its games (format, version,
    config hash, seed, games, chunk size). Two runs with the same id write the same parts byte
    for byte (here or on Ray, interrupted or not), so a part with another id is from a run that
    played other games: it is refused, whatever its manifest entry says."""
    key = [FORMAT, *(manifest.get(k) for k in ("version", "config_hash", "seed"))]
    key += [manifest.get("games_requested"), manifest.get("chunk_size")]
    return hashlib.sha256(json.dumps(key, default=str).encode()).hexdigest()[:16]


class ResultsWriter:
    """Writes parts into ``out/games/`` and keeps ``out/manifest.json`` current.

    ``manifest`` holds the run's provenance (the runner fills: version, game, config_path, config,
    config_hash, seed, games_requested, chunk_size, players, seats, teams, threads, end_reasons,
    telemetry_columns, versions, compile_time_s); the writer adds and maintains: format, status,
    process (the writing process: pid, host, started, and on Linux start_ticks and boot_id),
    started, finished, games_done, parts, extra_columns, wall_time_s, games_per_s.
    Not thread-safe: use it from one thread at a time.
    """

    def __init__(self, out: Path, manifest: dict[str, Any]) -> None:
        self.out = Path(out)
        self._t0 = time.perf_counter()
        self._version = manifest.get("version", "")
        self.manifest: dict[str, Any] = {
            "format": FORMAT,
            "run_id": run_id(manifest),
            **manifest,
            "status": "running",
            "process": process_identity(),
            "started": _now(),
            "finished": None,
            "wall_time_s": 0.0,
            "games_per_s": 0.0,
            "games_done": 0,
            "extra_columns": None,
            "parts": [],
        }
        (self.out / PARTS_DIR).mkdir(parents=True, exist_ok=True)
        self._save()

    @property
    def games_done(self) -> int:
        return int(self.manifest["games_done"])

    def write_part(
        self,
        rows: pl.DataFrame | dict[str, np.ndarray | parquet.Codes | parquet.Block],
        *,
        first_game: int,
        n_games: int,
    ) -> Path:
        """Append games [first_game, first_game + n_games); they must follow the games written.

        ``rows`` is a chunk's :func:`chunk_columns` (what the runner passes: no DataFrame is built)
        or the same rows as a DataFrame (:func:`chunk_frame`)."""
        if first_game != self.games_done:
            raise ValueError(f"part starts at game {first_game}, expected {self.games_done}")
        columns = frame_columns(rows) if isinstance(rows, pl.DataFrame) else rows
        name = part_name(len(self.manifest["parts"]))
        path = self.out / PARTS_DIR / name
        tmp = path.with_name("." + name + ".tmp")
        try:
            sha256 = parquet.write_table(
                tmp,
                columns,
                created_by=f"balance {self._version}",
                metadata={RUN_ID_KEY: self.manifest["run_id"], FIRST_GAME_KEY: str(first_game)},
            )
            _fsync(tmp)  # on disk before the manifest lists it, even across a power cut
            os.replace(tmp, path)  # a part is complete or absent
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        extra = [
            c
            for c, v in columns.items()
            if c not in BASE_SCHEMA and isinstance(v, np.ndarray) and v.dtype == np.int32
        ]
        self.manifest["extra_columns"] = extra
        self.manifest["parts"].append(
            {"file": name, "first_game": first_game, "games": n_games, "sha256": sha256}
        )
        self.manifest["games_done"] = first_game + n_games
        self._save()
        return path

    def finish(self, status: str) -> dict[str, Any]:
        """Record how the run ended: ``complete``, ``interrupted`` or ``failed``."""
        self.manifest["status"] = status
        self.manifest["finished"] = _now()
        self._save()
        return self.manifest

    def _save(self) -> None:
        wall = time.perf_counter() - self._t0
        self.manifest["wall_time_s"] = round(wall, 6)
        self.manifest["games_per_s"] = round(self.games_done / wall, 1) if wall > 0 else 0.0
        _write_json(self.out / MANIFEST, seal(self.manifest))


def manifest_checksum(manifest: dict[str, Any]) -> str:
    """The SHA-256 of a manifest's content (canonical JSON, without its ``checksum`` key)."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(manifest: dict[str, Any]) -> dict[str, Any]:
    """``manifest`` with its ``checksum`` set to :func:`manifest_checksum` (what the writer saves;
    a reader refuses a manifest whose content no longer matches it)."""
    manifest["checksum"] = manifest_checksum(json.loads(json.dumps(manifest, default=str)))
    return manifest


# Polars numbers rows with its index type: UInt32 in the default build (a frame holds at most
# 2**32 - 1 rows), UInt64 with polars' big-index build; the ``game`` column is Int64.
ROW_LIMIT_TEXT = (
    "polars indexes at most 2**32 - 1 rows"
    if pl.get_index_type() == pl.UInt32()
    else "the game column is an int64"
)


def max_games(players: int) -> int:
    """The most games a results dataset of ``players`` seats can hold and be read back: rows
    (games x players) within polars' row index, and game numbers within the Int64 game column
    (which the kernels' RNG also takes as its 64-bit game index)."""
    rows = 2**32 - 1 if pl.get_index_type() == pl.UInt32() else 2**63 - 1
    return min(rows // max(players, 1), 2**63 - 1)


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of results directory ``path``; ResultsError if it is not one.

    Its ``status`` is the run's effective status: a run recorded as ``running`` whose writing
    process is gone (same host, and no process with its pid and start time) is ``killed``, with
    ``recorded_status`` and ``status_detail`` (see :func:`status_text`)."""
    path = Path(path)
    if not path.is_dir():
        raise ResultsError(f"{path}: no such results directory")
    file = path / MANIFEST
    try:
        manifest = json.loads(file.read_text())
    except FileNotFoundError:
        raise ResultsError(f"{path}: not a results directory (no {MANIFEST})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{file}: cannot read: {e}") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{file}: invalid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise ResultsError(f"{file}: not a balance manifest (nested too deeply)") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("parts"), list):
        raise ResultsError(f"{file}: not a balance manifest (no list of parts)")
    if manifest.get("format") == FORMAT and manifest.get("checksum") != manifest_checksum(manifest):
        raise ResultsError(
            f"{file}: changed since balance wrote it (its checksum does not match its content: "
            f"damaged, or edited by hand); {_rerun(path, manifest)}"
        )
    try:
        manifest_schema.check(manifest, file)
    except manifest_schema.ManifestError as e:
        raise ResultsError(str(e)) from None
    if manifest["games_requested"] > (limit := max_games(manifest["players"])):
        raise ResultsError(
            f"{file}: games_requested: {manifest['games_requested']:,} is more than a results "
            f"dataset of {manifest['players']} players holds ({limit:,})"
        )
    if manifest["run_id"] != run_id(manifest):
        raise ResultsError(
            f"{file}: run_id: {manifest['run_id']} is not the id of the run it describes "
            f"({run_id(manifest)}): its version, config_hash, seed, games_requested or chunk_size "
            f"was edited. {_rerun(path, manifest)}"
        )
    _effective_status(manifest)
    return manifest


def check_config(manifest: dict[str, Any], path: str | os.PathLike[str]) -> Any:
    """The resolved config manifest of results directory ``path`` recorded, after checking that
    it is the config the run played: its hash, recomputed, is the recorded ``config_hash`` (a
    config edited by hand with its hash kept is refused, one line)."""
    from balance.config import config_from_dict, config_hash

    file = Path(path) / MANIFEST
    config = config_from_dict(manifest["config"], str(file))
    if config_hash(config) != manifest["config_hash"]:
        raise ResultsError(
            f"{file}: config: edited after the run (its hash is {config_hash(config)}, the run "
            f"played {manifest['config_hash']}); {_rerun(Path(path), manifest)}"
        )
    return config


def empty_schema(manifest: dict[str, Any]) -> dict[str, pl.DataType]:
    """The dataset's schema as far as the manifest knows it (extra columns once a part exists)."""
    base = dict(BASE_SCHEMA)
    if manifest.get("role_names"):
        at = list(base).index("team") + 1
        items = list(base.items())
        base = dict([*items[:at], ("role", pl.String()), *items[at:]])
    return {
        **base,
        **dict.fromkeys(manifest.get("extra_columns") or [], pl.Int32()),
        **dict.fromkeys(manifest.get("telemetry_columns") or [], pl.UInt8()),
    }


def open_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], pl.LazyFrame]:
    """(manifest, rows) of results directory ``path``; only the parts the manifest lists are read.

    The dataset may be incomplete: check ``manifest["status"]`` (``complete``, ``running`` for a
    run in progress, ``killed`` for one whose process died, ``interrupted``, ``failed``; see
    :func:`read_manifest`) and ``manifest["games_done"]``. Each part's footer is checked first
    (:func:`check_part`), so a truncated part is a ResultsError naming it, not a polars error at
    collect time; a page damaged inside a part surfaces when the rows are collected, and
    :func:`find_damaged` then names the file.
    """
    path = Path(path)
    manifest = read_manifest(path)
    check_config(manifest, path)
    files = []
    columns: list[str] | None = None
    for i, part in enumerate(manifest["parts"]):
        if not isinstance(part, dict) or not isinstance(part.get("file"), str):
            raise ResultsError(f"{path / MANIFEST}: parts[{i}] is not a part (no file name)")
        file = path / PARTS_DIR / part["file"]
        if not file.is_file():
            raise ResultsError(f"{file}: listed in {MANIFEST} but missing")
        footer = check_part(file, manifest, part)
        if columns is None:
            columns = footer.columns
        elif footer.columns != columns:
            raise ResultsError(
                f"{file}: its columns differ from those of {manifest['parts'][0]['file']}; "
                f"it is not a part of this run. {_rerun(path, manifest)}"
            )
        files.append(file)
    _remember(path, manifest, files)
    if not files:
        return manifest, pl.LazyFrame(schema=empty_schema(manifest))
    return manifest, pl.scan_parquet(files)


def check_part(file: Path, manifest: dict[str, Any], part: dict[str, Any]) -> parquet.Footer:
    """Part ``file``'s footer, after checking the part against its manifest entry: its SHA-256
    (every byte as written), the run id in its footer, its row count. ResultsError (one line
    naming the part and the command that rewrites it) if it is damaged, truncated, not parquet,
    or a part of another run."""
    try:
        with open(file, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        footer = parquet.read_footer(file)
    except parquet.DamagedFile as e:
        raise ResultsError(damaged(file, str(e), manifest)) from None
    except OSError as e:
        raise ResultsError(f"{file}: cannot read: {e.strerror or e}") from None
    theirs = footer.metadata.get(RUN_ID_KEY)
    if theirs != manifest["run_id"]:
        whose = f"run id {theirs}" if theirs else "no run id"
        raise ResultsError(
            f"{file}: a part of another run ({whose}; this run is {manifest['run_id']}); "
            f"{_rerun(file.parent.parent, manifest)}"
        )
    if digest != part["sha256"]:
        raise ResultsError(
            damaged(file, "its SHA-256 is not the one recorded when written", manifest)
        )
    players, games = manifest["players"], part["games"]
    if footer.rows != games * players:
        raise ResultsError(
            damaged(
                file,
                f"it holds {footer.rows:,} rows, {MANIFEST} says {games:,} games of {players} "
                f"players",
                manifest,
            )
        )
    return footer


def verify(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[str]]:
    """Check results directory ``path`` as every reader does, in full: its manifest (schema,
    run id, recorded config), then every part (:func:`check_part`). Returns (manifest, one line
    per bad part); a manifest that cannot be trusted raises ResultsError."""
    path = Path(path)
    manifest = read_manifest(path)
    check_config(manifest, path)
    problems = []
    for part in manifest["parts"]:
        file = path / PARTS_DIR / part["file"]
        try:
            if not file.is_file():
                raise ResultsError(
                    f"{file}: listed in {MANIFEST} but missing; {_rerun(path, manifest)}"
                )
            check_part(file, manifest, part)
        except ResultsError as e:
            problems.append(str(e))
    return manifest, problems


def damaged(file: Path, reason: str, manifest: dict[str, Any]) -> str:
    """The one-line message for a damaged part."""
    return f"{file}: damaged or truncated parquet file ({reason}); {_rerun(file.parent.parent, manifest)}"


def _rerun(path: Path, manifest: dict[str, Any]) -> str:
    config = manifest.get("config_path")
    if not config:
        return "re-run the simulation that wrote it, with --force"
    games, seed = manifest.get("games_requested"), manifest.get("seed")
    options = "".join(f" --{k} {v}" for k, v in (("games", games), ("seed", seed)) if v is not None)
    return f"re-run `balance simulate {config}{options} --out {path} --force`"


# The parts open_results handed out, newest last: a page damaged inside a part makes polars fail
# only when the rows are collected, far from here and without the file's name; find_damaged
# decodes these parts one by one to name it.
_OPENED: dict[Path, tuple[dict[str, Any], list[Path]]] = {}
_OPENED_MAX = 32


def _remember(path: Path, manifest: dict[str, Any], files: list[Path]) -> None:
    _OPENED.pop(path, None)
    _OPENED[path] = (manifest, files)
    while len(_OPENED) > _OPENED_MAX:
        del _OPENED[next(iter(_OPENED))]


def find_damaged() -> ResultsError | None:
    """The ResultsError naming the first part, among those :func:`open_results` opened in this
    process (newest first), that polars cannot decode; None if every part decodes. For a reader
    whose collect failed with a polars error: it reads the parts in full, once, on that error
    path only."""
    for manifest, files in reversed(list(_OPENED.values())):
        for file in files:
            reason = _decode_error(file)
            if reason is not None:
                return ResultsError(damaged(file, reason, manifest))
    return None


def _decode_error(file: Path) -> str | None:
    try:
        pl.read_parquet(file)
    except FileNotFoundError:
        return "it was removed while being read"
    except OSError as e:
        return e.strerror or str(e)
    except pl.exceptions.PolarsError as e:
        return _polars_reason(e)
    except BaseException as e:  # polars' PanicException derives from BaseException
        if type(e).__name__ != "PanicException":
            raise
        return _polars_reason(e)
    return None


def _polars_reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return text.split("File out of specification: ")[-1]
