"""The search player in a config: its settings model, its checks, and its compiled form.

A policy of ``kind: search`` is the information-set MCTS of ``balance/games/_search.py``::

    policies:
      mcts: {kind: search, iterations: 1000, rollout: greedy}
    seats: [mcts, greedy, greedy, greedy]

Its ``rollout`` names another policy of the config (not a search), which plays the search seat's
moves in the search's rollouts and is the game's own policy for everything the search does not
decide. The game's tables are therefore compiled with every search seat playing its rollout
policy, and the search settings ride beside them (:class:`SearchTables`): a config without a
search seat compiles, and plays, exactly as before (no search code is imported or compiled).
"""

from __future__ import annotations

import time
from functools import cache
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_serializer

_STRICT = ConfigDict(extra="forbid", strict=True)
MAX_ITERATIONS = 1_000_000


def search_policy(default_rollout: str, sides: tuple[str, ...] = ()) -> type[BaseModel]:
    """The settings model of a game's search player, whose rollout policy defaults to
    ``default_rollout`` (the game's heuristic). ``sides``: the game's side names, bit k of the
    kernels' mask for its search.py's ``side_of`` = k (Raven Manor: family, evil), when a search
    may be limited to a side (a Family of search players against a heuristic Raven) or given a
    budget for each side (``iterations_by_side``)."""

    names = sides  # the class body below has a field of that name

    class SearchPolicy(BaseModel):
        """Information-set Monte Carlo tree search (Cowling, Powley and Whitehouse 2012): at each
        of its decisions it re-deals what its seat cannot know, plays the game out many times
        with the config's policies, and picks the option that won most often for it. Stronger
        with more iterations; it reads only what its seat may know."""

        model_config = _STRICT

        kind: Literal["search"] = Field("search", description="information-set MCTS")
        iterations: int = Field(
            1000,
            ge=1,
            le=MAX_ITERATIONS,
            description="iterations (a re-deal, a walk down the tree, a rollout) per decision",
        )
        time_ms: float | None = Field(
            None,
            gt=0,
            le=600_000,
            allow_inf_nan=False,
            description="also stop a decision's search after this many milliseconds; games then"
            " depend on the machine's speed, so datasets are not reproducible (use iterations)",
        )
        exploration: float = Field(
            0.7,
            ge=0,
            le=100,
            allow_inf_nan=False,
            description="UCB1's exploration constant c (rewards are wins, 0 or 1)",
        )
        rollout: str = Field(
            default_rollout,
            description="the config's policy (not a search) that plays this seat in the "
            "rollouts; the other seats play their own",
        )
        redeal_every: int = Field(
            1,
            ge=1,
            le=MAX_ITERATIONS,
            description="iterations per re-deal of the hidden cards: 1 re-deals every iteration"
            " (ISMCTS); k > 1 plays k iterations in one re-dealt world, chance re-seeded each",
        )
        opponents: Literal["tree", "policy"] = Field(
            "tree",
            description="how the other seats decide inside the search's tree: tree, by UCB on"
            " their own wins in the re-dealt world (single-observer ISMCTS: they play as if"
            " they saw it); policy, by their own policies, which read only what they know",
        )
        side_names: ClassVar[tuple[str, ...]] = names
        if names:
            sides: list[Literal[names]] | None = Field(  # type: ignore[valid-type]
                None,
                min_length=1,
                description="search only while the seat is on one of these sides (it knows its"
                " own); on another it plays its rollout policy. None: always",
            )
            iterations_by_side: (
                dict[
                    Literal[names],  # type: ignore[valid-type]
                    Annotated[int, Field(ge=1, le=MAX_ITERATIONS)],
                ]
                | None
            ) = Field(
                None,
                min_length=1,
                description="iterations per decision while the seat is on a side named here"
                " (e.g. {family: 8, evil: 32}); on another side, iterations",
            )

            @model_serializer(mode="wrap")
            def _resolved(self, handler: Any) -> dict[str, Any]:
                """Without ``iterations_by_side`` when it is not given: a config without it
                resolves, and hashes, as it did before the key existed (its runs' manifests
                still check)."""
                out = handler(self)
                if out.get("iterations_by_side") is None:
                    out.pop("iterations_by_side", None)
                return out

    return SearchPolicy


def check_rollouts(policies: dict[str, dict[str, Any]]) -> None:
    """Every search policy's ``rollout`` names a policy of the config that is not a search:
    ValueError("policies.<name>.rollout: ...") otherwise."""
    for name, entry in policies.items():
        if entry.get("kind") != "search":
            continue
        target = entry["rollout"]
        if target not in policies:
            raise ValueError(
                f"policies.{name}.rollout: no policy named {target!r}"
                f" (defined: {', '.join(policies)})"
            )
        if policies[target].get("kind") == "search":
            raise ValueError(
                f"policies.{name}.rollout: {target!r} is a search policy; a rollout is played by"
                " a policy that does not search"
            )


def search_seats(config: Any) -> list[int]:
    """The seats of ``config`` whose policy is a search."""
    return [i for i, name in enumerate(config.seats) if config.policies[name]["kind"] == "search"]


def rollout_config(config: Any) -> Any:
    """``config`` with every search policy replaced by its rollout policy's settings: what the
    game's tables are compiled from (a search seat's own moves outside the search's)."""
    policies = {
        name: (config.policies[entry["rollout"]] if entry["kind"] == "search" else entry)
        for name, entry in config.policies.items()
    }
    return config.model_copy(update={"policies": policies})


class SearchTables:
    """A game's compiled tables with search seats: the tables compiled from ``rollout_config``
    (every attribute of them reads through, so narrators and replays find what they expect) and
    the seats' search settings, ``search`` (float64[players, _search.N_SP])."""

    def __init__(self, inner: Any, search: np.ndarray, policies: tuple[str, ...]) -> None:
        self.inner = inner
        self.search = search
        self.policies = policies  # each seat's policy name, as the config names it

    def __getattr__(self, name: str) -> Any:
        if name in ("inner", "search", "policies") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def search_seats(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.search[:, 0])]


def compile_search(plugin: Any, config: Any) -> SearchTables | None:
    """The compiled form of a config with search seats; None when it has none."""
    seats = search_seats(config)
    if not seats:
        return None
    from balance.games import _search  # numba: only when a config has a search seat

    search_module(plugin)  # its kernels' cache is found (the "compiling"/"loading" line)
    inner = plugin.module("tables").compile_tables(rollout_config(config))
    sp = np.zeros((config.players, _search.N_SP), np.float64)
    for i in seats:
        entry = config.policies[config.seats[i]]
        sp[i, _search.SP_ON] = 1
        sp[i, _search.SP_ITERS] = entry["iterations"]
        sp[i, _search.SP_TIME] = entry["time_ms"] or 0.0  # milliseconds until play()
        sp[i, _search.SP_C] = entry["exploration"]
        sp[i, _search.SP_REDEAL] = entry["redeal_every"]
        sp[i, _search.SP_OPP] = 1.0 if entry["opponents"] == "policy" else 0.0
        names = plugin.policy_kinds["search"].side_names
        if len(names) > _search.MAX_SIDES:
            raise ValueError(f"{len(names)} sides: the search kernels hold {_search.MAX_SIDES}")
        sp[i, _search.SP_SIDES] = sum(1 << names.index(x) for x in entry.get("sides") or ())
        for side, n in (entry.get("iterations_by_side") or {}).items():
            sp[i, _search.SP_BY_SIDE + names.index(side)] = n
    return SearchTables(inner, sp, tuple(config.seats))


@cache
def cycles_per_ms() -> float:
    """The cycle counter's rate, measured once per process (the clock of ``time_ms``)."""
    from balance.games import _search

    _search.cycles()
    t0, c0 = time.perf_counter(), _search.cycles()
    while time.perf_counter() - t0 < 0.02:
        pass
    t1, c1 = time.perf_counter(), _search.cycles()
    return float(c1 - c0) / ((t1 - t0) * 1000.0)


def play_params(tables: SearchTables) -> np.ndarray:
    """The search settings as the kernels take them: ``time_ms`` in cycles of this machine."""
    from balance.games import _search

    sp = tables.search.copy()
    ms = sp[:, _search.SP_TIME]
    if np.any(ms > 0):
        sp[:, _search.SP_TIME] = np.where(ms > 0, ms * cycles_per_ms(), 0.0)
    return sp


def play_counted(
    plugin: Any, tables: SearchTables, seed: int, first_game: int, n_games: int
) -> tuple[Any, np.ndarray]:
    """A chunk of games with search seats, as ``plugin.play`` plays it, and per game the
    searches made and their iterations (int64[n_games, 2]): what ``balance bench`` counts."""
    counts = np.zeros((n_games, 2), np.int64)
    chunk = search_module(plugin).play(
        tables.inner, play_params(tables), seed, first_game, n_games, counts
    )
    return chunk, counts


def search_module(plugin: Any) -> Any:
    """The game's search module (its ``search.py``: the ISMCTS compiled against its engine)."""
    return plugin.module("search")


def search_stream(seed: int, game: int, seat: int) -> np.ndarray:
    """Seat ``seat``'s search stream in game ``game`` of run ``seed``, as the batch seeds it."""
    from balance.games import _search
    from balance.rng import seed_stream

    rng = np.zeros(1, np.uint64)
    seed_stream(rng, np.int64(seed), np.int64(game), np.int64(_search.SEARCH_STREAM + seat))
    return rng


def decide(
    position: Any, tables: SearchTables, rng: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray]:
    """The search seat's pick at ``position``'s pending decision (a Position of
    ``tables.inner``), with the root's children: (code, int64[k, 3] option/visits/availability,
    float64[k] mean win). ``rng`` is the seat's search stream, advanced."""
    mod = search_module(position.game)
    sh = position.shape
    code, stats, means = mod.search_at(
        position._tb,
        position.state,
        position.work,
        np.int64(position.actor),
        play_params(tables),
        rng,
        np.int64(len(sh.extra_names)),
        np.int64(sh.n_tele),
    )
    return int(code), stats, means


def searching(position: Any, tables: SearchTables) -> bool:
    """Whether the acting seat at ``position`` searches its decision (the batch's test: a search
    seat, on a side its ``sides`` name)."""
    mod = search_module(position.game)
    return bool(
        mod.searching(position._tb, position.state, np.int64(position.actor), play_params(tables))
    )


def search_streams(
    tables: SearchTables, seed: int, game: int, skip: Any = ()
) -> dict[int, np.ndarray]:
    """The search stream of every search seat of ``tables`` (but ``skip``) in a game."""
    return {s: search_stream(seed, game, s) for s in tables.search_seats if s not in skip}


def play_move(position: Any, tables: SearchTables, streams: dict[int, np.ndarray]) -> int:
    """Play the acting seat's move as the batch kernel does: a seat in ``streams`` searches with
    its stream (when its ``sides`` let it), any other plays its policy. Returns the code
    played."""
    if position.actor in streams and searching(position, tables):
        code = decide(position, tables, streams[position.actor])[0]
        position.apply(code)
        return code
    return position.play_policy()


class SearchedGame(NamedTuple):
    """One game with search seats played again with its log (``logged``, as a game's
    ``narrate.play_logged`` returns it) and, for every decision a search seat made, what it
    weighed (``reasons``: lines for the replay)."""

    logged: Any
    reasons: list[str]


def play_logged(plugin: Any, tables: SearchTables, seed: int, game: int) -> SearchedGame:
    """Game ``game`` of run ``seed`` played one decision at a time (``Position``), each search
    seat searching with its keyed stream as the batch does, so it is the dataset's game (a test
    holds the rows equal), with its event log and the search seats' reasons."""
    from balance.games import _kit as kit
    from balance.games.position import Position

    state = plugin.module("state")
    reasons: list[str] = []

    def play(cap: int) -> Any:
        pos = Position(plugin, tables.inner, seed, game, log_cap=cap, replay=True)
        streams = search_streams(tables, seed, game)
        reasons.clear()
        k = 0
        while not pos.done:
            seat = pos.actor
            if seat not in streams or not searching(pos, tables):
                pos.play_policy()
                continue
            code, stats, means = decide(pos, tables, streams[seat])
            if len(stats) > 1:  # a forced move is played without a search
                k += 1
                reasons.extend(_reason(pos, k, seat, pos.kind, code, stats, means, tables))
            pos.apply(code)
        row = pos.row()
        return kit.Logged(
            state.log_rows(pos.state),
            pos.state,
            row.score[0],
            row.rank[0],
            int(row.turns[0]),
            int(row.end_reason[0]),
            None if row.trace is None else row.trace[0, : row.points[0]].copy(),
        )

    logged = kit.play_logged(play, seed, game, kit.LOG_CAP)
    return SearchedGame(logged, list(reasons))


TOP_OPTIONS = 4  # options a reason names, the most visited first


def _reason(
    pos: Any,
    k: int,
    seat: int,
    kind: str,
    code: int,
    stats: np.ndarray,
    means: np.ndarray,
    tables: SearchTables,
) -> list[str]:
    """The lines of one search decision: what was chosen, and the most visited options with how
    often each won for the seat in the search's games."""
    policy = tables.policies[seat]
    total = int(stats[:, 1].sum())
    order = sorted(range(len(stats)), key=lambda i: (-int(stats[i, 1]), i))
    head = (
        f"  {k}. seat {seat} ({policy}), {kind}: chose {pos.words(code)}"
        f" after {total:,} searched games over {len(stats)} options:"
    )
    out = [head]
    for i in order[:TOP_OPTIONS]:
        mark = "*" if int(stats[i, 0]) == code else " "
        out.append(
            f"     {mark} {pos.words(int(stats[i, 0]))}: won {means[i]:.0%} of"
            f" {int(stats[i, 1]):,} games"
        )
    if len(order) > TOP_OPTIONS:
        rest = sum(int(stats[i, 1]) for i in order[TOP_OPTIONS:])
        out.append(f"       {len(order) - TOP_OPTIONS} more options: {rest:,} games")
    return out


def reason_lines(searched: SearchedGame, tables: SearchTables) -> list[str]:
    """The replay's closing section on the search seats' decisions."""
    seats = ", ".join(f"seat {s} ({tables.policies[s]})" for s in tables.search_seats)
    return [
        "",
        f"How the search decided ({seats}; its decisions with a choice, in order: each"
        " option's wins are the search's own games, played from re-deals of what the seat"
        " knew, not predictions):",
        *searched.reasons,
    ]
