"""``balance watch``'s plumbing: the config's files watched (watchfiles), the page served on the
loopback interface (starlette on uvicorn, server-sent events), and one worker thread that plays
the latest saved version (balance/live.py) while the watcher and the server stay responsive.

Threads: the main thread watches the files and takes Ctrl-C; the server runs its event loop in
a thread of its own; the worker plays. A save loads the config at once (a bad edit is refused in
one line, on the page and on stderr, and the last good figures stay); a good one becomes the
next version and cancels the session in play between two chunks.

These libraries are the ``live`` extra (``pip install 'balance[live]'``); :func:`missing_extra`
says which one is absent in one line, before anything starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from balance import live
from balance.errors import BalanceError

EXTRA = ("watchfiles", "starlette", "uvicorn")
KEEPALIVE_S = 15.0  # an SSE comment this often, so that proxies and browsers keep the stream
POLL_S = 0.1  # how often a page's stream looks for a new snapshot


def missing_extra() -> str | None:
    """The one-line refusal when a library of the ``live`` extra is not installed."""
    absent = [m for m in EXTRA if importlib.util.find_spec(m) is None]
    if not absent:
        return None
    return f"balance watch needs {', '.join(absent)}: pip install 'balance[live]'"


class Watch:
    """The watched config, its versions and the worker that plays them."""

    def __init__(
        self,
        path: Path,
        *,
        sets: list[str] | None,
        against: Path | None,
        games: int,
        half_width: float,
        seed: int | None,
        threads: int | None,
        say: Callable[[str], None],
    ) -> None:
        self.path, self.sets, self.against_path = path, sets, against
        self.games, self.half_width, self.seed, self.threads = games, half_width, seed, threads
        self.say = say
        self.board = live.Board(
            status="starting", config=_shown(path), against=None if against is None else _shown(against),
            history=[], error=None, message=None, final=False,
        )  # fmt: skip
        self.files: tuple[str, ...] = (str(path),)
        self.against: live.Version | None = None
        self.last: live.Version | None = None  # the last good version: the next one's reference
        self.pending: tuple[live.Version, live.Version | None] | None = None
        self.count = 0
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.lock = threading.Lock()

    # ---------------------------------------------------------------- loading a saved version
    def first_load(self) -> None:
        """The versions to start with; a bad config or BASE is an error here (exit 1)."""
        if self.against_path is not None:
            cfg, _ = self._load(self.against_path)
            self.against = live.Version(0, cfg, _shown(self.against_path), ())
        self._accept(*self._load(self.path))

    def load(self) -> bool:
        """Load the config as saved now; a good load becomes the next version (True), a bad
        one is said in one line and leaves the last figures in place (False)."""
        try:
            self._accept(*self._load(self.path))
        except BalanceError as e:
            self.board.publish(error=str(e), status="error")
            self.say(f"error: {e} (the page keeps the last good figures)")
            return False
        return True

    def _accept(self, cfg: Any, files: tuple[str, ...]) -> None:
        """``cfg`` becomes the next version, paired with the last one (or BASE) when it can be;
        BalanceError when BASE cannot be paired with it."""
        ref = self.against or self.last
        why = None if ref is None else live.pairable(ref.config, cfg)
        if why is not None and self.against is not None:
            raise BalanceError(f"--against {_shown(self.against_path)}: {why}")
        self.files = files
        self.count += 1
        saved = time.strftime("%H:%M:%S")
        version = live.Version(self.count, cfg, f"version {self.count}", files, saved)
        if why is not None:  # a new game or player count: no paired change with the last one
            self.say(f"{version.label}: {why}; shown without a change")
            ref = None
        with self.lock:
            self.pending = (version, ref)
            self.last = version
        self.board.publish(error=None)
        self.wake.set()

    def _load(self, path: Path) -> tuple[Any, tuple[str, ...]]:
        from balance.config import load_config
        from balance.config.loading import load_yaml
        from balance.config.overrides import parse_overrides

        cfg = load_config(path, parse_overrides(self.sets))
        _, provenance = load_yaml(path)
        return cfg, tuple(os.path.realpath(f) for f in provenance.files)

    # ---------------------------------------------------------------------------- the worker
    def work(self) -> None:
        """The worker thread: play the latest version until the watch stops."""
        from balance import runner

        with runner.numba_threads(self.threads), runner.showing_loads(self._loading):
            while not self.stop.is_set():
                self.wake.wait(0.2)
                with self.lock:
                    job, self.pending = self.pending, None
                    self.wake.clear()
                if job is not None:
                    self._play(*job)

    def _play(self, version: live.Version, reference: live.Version | None) -> None:
        against = "" if reference is None else f" against {reference.label}"
        self.say(f"{version.label} (saved {version.saved}): playing{against}")
        self.board.publish(status="playing", final=False, message=None)
        try:
            snap = self.session(version, reference).run(
                self.board, lambda: self.pending is not None or self.stop.is_set()
            )
        except live.Cancelled:
            return
        except BalanceError as e:
            self.board.publish(error=str(e), status="error")
            self.say(f"error: {e}")
            return
        except Exception as e:  # a bug: said on the page and here, and the watch goes on
            text = f"internal error while playing {version.label}: {type(e).__name__}: {e}"
            self.board.publish(error=text, status="error")
            self.say(f"error: {text}")
            return
        history = [*self.board.get()["history"], _history_row(snap)]
        self.board.publish(history=history[-20:])
        self.say(_summary_line(snap))

    def session(self, version: live.Version, reference: live.Version | None) -> live.Session:
        return live.Session(
            version, reference, games=self.games, half_width=self.half_width, seed=self.seed
        )

    def once(self) -> list[str]:
        """``--once``: the loaded version played to its stopping rule here, in words."""
        from balance import runner

        version, reference = self.pending or (None, None)
        assert version is not None  # first_load() loaded it
        with runner.numba_threads(self.threads), runner.showing_loads(self._loading):
            self.session(version, reference).run(self.board, lambda: False)
        return once_lines(self.board.get(), self.half_width)

    @contextlib.contextmanager
    def _loading(self, load: Any) -> Iterator[None]:
        """The first load of a game's kernels in this watch, on the page and the terminal."""
        what = "compiling" if load.cold else "loading"
        text = f"{what} {load.game} kernels" + (
            f" (first run on this machine, expected {load.expected})" if load.cold else ""
        )
        self.say(text)
        self.board.publish(message=text, status="loading")
        try:
            yield
        finally:
            self.board.publish(message=None)


def _history_row(snap: dict[str, Any]) -> dict[str, Any]:
    change = snap.get("change") or {}
    head = next((r for r in change.get("rows", []) if r["headline"]), None)
    return {
        "version": snap["version_label"],
        "games": snap["games"],
        "headline": snap["headline"],
        "change": head,
    }


def _summary_line(snap: dict[str, Any]) -> str:
    """What the terminal says when a version's games stop."""
    from balance.live_page import headline_text, row_text

    line = f"{snap['version_label']}: {headline_text(snap)} over {snap['games']:,} games"
    change = snap.get("change") or {}
    head = next((r for r in change.get("rows", []) if r["headline"]), None)
    if head is not None:
        star = " *" if head["significant"] else ""
        line += f"; change against {change['against']}: {row_text(head)}{star}"
    return line


def once_lines(snap: dict[str, Any], target: float) -> list[str]:
    """What ``--once`` prints: the games, the headline, the verdict and the change."""
    from balance.live_page import headline_text, row_text

    h = snap["headline"]
    unit = " points" if h["label"].startswith("win share") else ""
    scale = 100 if unit else 1
    why = (
        f"the headline's half-width {h['half'] * scale:.2f}{unit} is at most {target * scale:g}{unit}"
        if h["half"] <= target
        else f"the budget of {snap['budget']:,} games"
    )
    lines = [
        f"{snap['config']}: {snap['game']}, {snap['players']} players ({snap['lineup']}), "
        f"seed {snap['seed']}: {snap['games']:,} games, stopped at {why}",
        f"headline: {headline_text(snap)}",
        *(f"verdict: {a['sentence']}" for a in snap["axes"] if a["sentence"]),
    ]
    change = snap.get("change")
    if change:
        head = next((r for r in change["rows"] if r["headline"]), None)
        stars = [r for r in change["rows"] if r["significant"]]
        lines.append(
            f"change against {change['against']} ({change['games']:,} paired games, same seeds): "
            + ("" if head is None else f"{head['label']} {row_text(head)}; ")
            + f"{len(stars)} of {len(change['rows'])} rows changed (q < 0.05"
            + (f": {', '.join(r['label'] for r in stars)})" if stars else ")")
        )
    return lines


def _shown(path: Path) -> str:
    from balance.cli._app import _shown as shown

    return shown(path)


# -------------------------------------------------------------------------------- the server
def bind(port: int) -> socket.socket:
    """A listening socket on the loopback interface (port 0: a free one); BalanceError in one
    line when the port is taken or not allowed."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except OSError as e:
        sock.close()
        raise BalanceError(f"--port {port}: {e.strerror or e}") from None
    return sock


def finite(value: Any) -> Any:
    """``value`` with every NaN or infinite float as None (JSON has neither; the page shows
    n/a), through dicts and lists."""
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def app(watch: Watch) -> Any:
    """The page, its state as JSON, and the stream of new states (server-sent events)."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse, StreamingResponse
    from starlette.routing import Route

    from balance.live_page import page

    async def index(request: Any) -> Any:
        return HTMLResponse(page())

    async def state(request: Any) -> Any:
        return JSONResponse(finite(watch.board.get()))

    async def events(request: Any) -> Any:
        async def stream() -> Any:
            last, quiet = -1, 0.0
            while not watch.stop.is_set():
                snap = watch.board.get()
                if snap["rev"] != last:
                    last, quiet = snap["rev"], 0.0
                    yield f"data: {json.dumps(finite(snap), allow_nan=False, default=str)}\n\n"
                elif quiet >= KEEPALIVE_S:
                    quiet = 0.0
                    yield ": keep-alive\n\n"
                if await request.is_disconnected():
                    return
                await asyncio.sleep(POLL_S)
                quiet += POLL_S

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    return Starlette(routes=[Route("/", index), Route("/state", state), Route("/events", events)])


def serve(watch: Watch, sock: socket.socket) -> tuple[Any, threading.Thread]:
    """Start the server on ``sock`` in a thread of its own: (server, thread)."""
    import uvicorn

    config = uvicorn.Config(
        app(watch), log_level="warning", lifespan="off", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="balance-watch-server", daemon=True
    )
    thread.start()
    return server, thread


def watch_files(watch: Watch) -> None:
    """Reload the config whenever one of its files is saved, until Ctrl-C (KeyboardInterrupt)
    or ``watch.stop``. Directories are watched, not files: editors save by writing a new file
    and renaming it over the old one."""
    import watchfiles

    while not watch.stop.is_set():
        wanted = set(watch.files)
        dirs = sorted({os.path.dirname(f) for f in wanted})
        for changes in watchfiles.watch(
            *dirs, stop_event=watch.stop, recursive=False, debounce=200, raise_interrupt=True
        ):
            hit = {os.path.realpath(p) for _, p in changes} & wanted
            if hit:
                watch.load()
                if set(watch.files) != wanted:  # the extends chain changed: watch it anew
                    break


def open_browser(url: str) -> bool:
    """Open ``url`` when a browser is available (never on a machine without a display)."""
    import webbrowser

    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        return webbrowser.open(url)
    except webbrowser.Error:
        return False


def run(watch: Watch, *, port: int, open_page: bool, echo: Callable[[str], None]) -> None:
    """Serve the page and play every saved version until Ctrl-C (or SIGTERM, SIGHUP)."""
    sock = bind(port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    server, thread = serve(watch, sock)
    worker = threading.Thread(target=watch.work, name="balance-watch-worker", daemon=True)
    worker.start()
    extends = " and the files it extends" if len(watch.files) > 1 else ""
    echo(f"watching {watch.board.get()['config']}{extends}; page: {url} (Ctrl-C stops)")
    if open_page:
        open_browser(url)
    try:
        watch_files(watch)  # until Ctrl-C: its KeyboardInterrupt ends the command (exit 130)
    finally:
        watch.stop.set()
        server.should_exit = True
        thread.join(5)
        worker.join(10)
