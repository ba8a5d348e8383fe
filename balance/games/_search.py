"""The search player: information-set Monte Carlo tree search over any game's decision points.

A seat whose policy is ``kind: search`` (balance/search.py) picks at each of its
decisions with single-observer ISMCTS (Cowling, Powley and Whitehouse 2012, "Information Set
Monte Carlo Tree Search", IEEE TCIAIG 4(2)):

- every iteration starts from a **fresh re-deal** of the true state as the seat sees it
  (``knowledge.determinize(tb, st, seat, rng)``, which re-deals everything the seat cannot know
  consistently with what it does, and re-seeds every chance stream of the copy); with
  ``redeal_every`` k > 1, k iterations share one re-dealt world, each with chance re-seeded
  (``knowledge.reseed``);
- it walks down the tree from the root, whose children are the seat's legal options (the same in
  every re-deal: a seat's options depend only on what it knows, which the tests of the decision
  points hold over 10,000 states a game). At every decision of the walk, its seat picks among the
  children that are legal here with UCB1 on *its own* mean reward and the child's **availability**
  count (how often it was legal when its parent was visited, not how often the parent was
  visited: options come and go between re-deals), until a decision has an option not tried yet:
  one of those (uniformly, from the search's stream) is added to the tree;
- the game is then played to its end by the seats' own policies (the **rollout**: a search seat
  plays its ``rollout`` policy there, which is what the game's tables were compiled with), and
  every node of the walk adds each seat's win (1 for a seat of rank 1, else 0) to its sums;
- after the budget (``iterations``, or its side's ``iterations_by_side``, and ``time_ms`` when
  given), the seat plays the most visited child of the root (ties: the higher mean, then the
  earlier created).

The search never reads the true state beyond copying it into the re-deal and its seat's own side
(``side_of``, which the seat knows and every re-deal keeps; the leak test of
tests/test_search.py: the same pick from the true state and from any consistent re-deal of it),
and draws every random number from its own stream (``rng.seed_stream(seed, game,
SEARCH_STREAM + seat)``), never a game's chance stream, so two configs on the same seed deal the
same cards (common random numbers) and a game is the same whatever the thread count.

The functions here are written once against the names ``S``, ``E``, ``P``, ``K`` (the game's
state, engine, policies and knowledge modules), ``block_tables``, ``block_state``,
``block_end`` (how a block of a batch makes its tables and its States) and ``log_hold``,
``log_resume`` (a replay's log kept out of the search's copies); each game's ``search.py`` binds them to its own
modules with :func:`bind`, so each game compiles (and caches) its own copy, and only a config
with a search seat ever compiles one.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np
from numba import njit
from numba.core import cgutils
from numba.core import types as nbtypes
from numba.extending import intrinsic

from balance.rng import below, seed_stream

# Per-seat search settings: float64[players, N_SP] (balance/search.py).
# SP_TIME: cycles per decision, 0 none; SP_SIDES: bit k set = search while on side k (side_of),
# 0 = always; SP_OPP: 0 the other seats decide in the tree too, 1 by their own policies;
# SP_BY_SIDE + k: the iterations of a decision taken on side k (``iterations_by_side``), 0 =
# SP_ITERS'; one column for each of at most MAX_SIDES sides
SP_ON, SP_ITERS, SP_TIME, SP_C, SP_REDEAL, SP_SIDES, SP_OPP, SP_BY_SIDE = range(8)
MAX_SIDES = 2
N_SP = SP_BY_SIDE + MAX_SIDES
SEARCH_STREAM = 1 << 20  # the search's streams: seed_stream(seed, game, SEARCH_STREAM + seat)

# The tree: int64 rows of N_NODE fields and float64 rows of the seats' reward sums.
N_PARENT, N_CHILD, N_NEXT, N_ACTION, N_ACTOR, N_VISITS, N_AVAIL = range(7)
N_NODE = 7


@intrinsic
def _cycles(typingctx):
    """The CPU's cycle counter (LLVM's readcyclecounter): the clock of a ``time_ms`` budget,
    which nopython code cannot read otherwise and stays cacheable."""
    sig = nbtypes.uint64()

    def codegen(context, builder, signature, args):
        fnty = cgutils.ir.FunctionType(cgutils.ir.IntType(64), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.readcyclecounter")
        return builder.call(fn, [])

    return sig, codegen


@njit(cache=True)
def cycles():
    """The cycle counter now (``balance.search`` calibrates cycles per millisecond with it)."""
    return _cycles()


# ---------------------------------------------------------------------------------------------
# The generic functions (plain Python: ``bind`` compiles them against a game's modules)

# What ``bind`` gives these functions as globals, from the game: its state, engine, policies and
# knowledge modules, and how a block of the batch makes its tables and States and ends.
GAME_NAMES = (
    "S",
    "E",
    "P",
    "K",
    "block_tables",
    "block_state",
    "block_end",
    "log_hold",
    "log_resume",
    "side_of",
)
S = E = P = K = None  # the game's modules (bind); the block and log helpers are below


def alloc_tree(cap, players):
    """A tree of ``cap`` nodes for ``players`` seats."""
    return np.zeros((cap, N_NODE), np.int64), np.zeros((cap, players), np.float64)


def _new_node(ti, tv, n, parent, action, actor):
    ti[n, N_PARENT] = parent
    ti[n, N_CHILD] = -1
    ti[n, N_NEXT] = -1
    ti[n, N_ACTION] = action
    ti[n, N_ACTOR] = actor
    ti[n, N_VISITS] = 0
    ti[n, N_AVAIL] = 0
    for p in range(tv.shape[1]):
        tv[n, p] = 0.0


def _index(opts, n, code):
    """Where option ``code`` is among the ``n`` legal ``opts`` (distinct codes); -1 if absent."""
    for i in range(n):
        if opts[i] == code:
            return i
    return -1


def _rewards(tb, st, work, rows, reward):
    """Each seat's ``win`` in the ended game of ``st``, as the dataset counts it: 1/k for a seat
    of rank 1, k the number of teams among the rank-1 seats (each seat its own team unless the
    game deals teams), else 0 (also when no seat has rank 1)."""
    score, rank, turns, end, order, team, role, extra, tele, clipped = rows
    players = reward.shape[0]
    for p in range(players):
        team[0, p] = -1 - p  # a game that deals teams writes its own
    E.record(tb, st, work, 0, score, rank, turns, end, order, team, role, extra, tele, clipped)
    k = 0
    for p in range(players):
        if rank[0, p] == 1:
            first = True
            for q in range(p):
                if rank[0, q] == 1 and team[0, q] == team[0, p]:
                    first = False
            if first:
                k += 1
    for p in range(players):  # no seat of rank 1 (a game that ends with no winner): no wins
        reward[p] = 1.0 / k if k > 0 and rank[0, p] == 1 else 0.0


def alloc_rows(players, n_extra, n_tele):
    """One game's output rows (``E.record``'s arguments) for a rollout's outcome."""
    return (
        np.zeros((1, players), np.int32),
        np.zeros((1, players), np.int32),
        np.zeros(1, np.int32),
        np.zeros(1, np.int32),
        np.zeros((1, players), np.int32),
        np.zeros((1, players), np.int32),
        np.zeros((1, players), np.int32),
        np.zeros((1, players, max(n_extra, 1)), np.int32),
        np.zeros((1, players, max(n_tele, 1)), np.uint8),
        np.zeros(max(n_tele, 1), np.int64),
    )


def iterations_of(tb, st, seat, sp):
    """The iterations of seat ``seat``'s search of the decision pending in ``st``: its side's
    (``iterations_by_side``, read with ``side_of``: the seat knows its own side) when it names
    one, else ``iterations``."""
    iters = np.int64(sp[seat, SP_ITERS])
    side = np.int64(side_of(tb, st, seat))
    if 0 <= side < MAX_SIDES:
        own = np.int64(sp[seat, SP_BY_SIDE + side])
        if own > 0:
            iters = own
    return iters


def most_iterations(sp, seat):
    """The most iterations a search of seat ``seat`` may take, whatever its side: a tree's
    size."""
    most = np.int64(sp[seat, SP_ITERS])
    for k in range(MAX_SIDES):
        most = max(most, np.int64(sp[seat, SP_BY_SIDE + k]))
    return most


def search(tb, st, work, seat, sp, rng, ti, tv, world, scratch, swork, opts, path, reward, rows):
    """The option seat ``seat`` picks at the decision pending in ``st`` (its own), by ISMCTS
    (module docstring). ``st`` is read only by ``copy_state`` and, for the budget, by
    ``side_of`` (the seat's own side, which it knows); the tree's root statistics stay in
    ``ti``/``tv`` (node 0's children) for the caller to show. Returns the option's code."""
    n_root = E.legal(tb, st, work, opts)
    _new_node(ti, tv, 0, -1, -1, seat)
    if n_root <= 1:
        return opts[0]
    iters = iterations_of(tb, st, seat, sp)
    budget = np.uint64(sp[seat, SP_TIME])
    c = sp[seat, SP_C]
    redeal = max(np.int64(sp[seat, SP_REDEAL]), 1)
    own_only = sp[seat, SP_OPP] != 0
    cap = ti.shape[0]
    n_nodes = 1
    seen = np.zeros(opts.shape[0], np.uint8)  # which legal options have a child at a node
    t0 = _cycles()
    for it in range(iters):
        if budget > 0 and it > 0 and _cycles() - t0 >= budget:
            break
        if redeal == 1:
            S.copy_state(st, scratch)
            K.determinize(tb, scratch, seat, rng)
        else:
            if it % redeal == 0:
                S.copy_state(st, world)
                K.determinize(tb, world, seat, rng)
            S.copy_state(world, scratch)
            K.reseed(tb, scratch, rng)
        node = 0
        depth = 0
        path[0] = 0
        while True:  # select and expand
            actor = E.advance(tb, scratch, swork)
            if actor < 0:
                break
            if own_only and actor != seat:  # ``opponents: policy``: not a node of the tree
                E.apply(tb, scratch, swork, P.choose(tb, scratch, swork))
                continue
            n = E.legal(tb, scratch, swork, opts)
            for i in range(n):
                seen[i] = 0
            tried = 0
            best = -1
            best_v = -1e300
            ch = ti[node, N_CHILD]
            while ch >= 0:  # one pass: availability, the tried options, the best legal child
                if ti[ch, N_ACTOR] == actor:
                    i = _index(opts, n, ti[ch, N_ACTION])
                    if i >= 0:
                        seen[i] = 1
                        tried += 1
                        ti[ch, N_AVAIL] += 1
                        v = tv[ch, actor] / ti[ch, N_VISITS] + c * math.sqrt(
                            math.log(ti[ch, N_AVAIL]) / ti[ch, N_VISITS]
                        )
                        if v > best_v:
                            best_v = v
                            best = ch
                ch = ti[ch, N_NEXT]
            untried = n - tried
            if untried > 0 and n_nodes < cap:
                k = below(rng, untried)
                code = opts[0]
                for i in range(n):
                    if seen[i] == 0:
                        if k == 0:
                            code = opts[i]
                            break
                        k -= 1
                _new_node(ti, tv, n_nodes, node, code, actor)
                ti[n_nodes, N_NEXT] = ti[node, N_CHILD]
                ti[node, N_CHILD] = n_nodes
                ti[n_nodes, N_AVAIL] = 1
                node = n_nodes
                n_nodes += 1
                depth += 1
                path[depth] = node
                E.apply(tb, scratch, swork, code)
                break
            if best < 0:  # the tree is full: play on with the policies
                break
            node = best
            depth += 1
            path[depth] = node
            E.apply(tb, scratch, swork, ti[node, N_ACTION])
        while E.advance(tb, scratch, swork) >= 0:  # the rollout
            E.apply(tb, scratch, swork, P.choose(tb, scratch, swork))
        _rewards(tb, scratch, swork, rows, reward)
        for d in range(depth + 1):
            nd = path[d]
            ti[nd, N_VISITS] += 1
            for p in range(reward.shape[0]):
                tv[nd, p] += reward[p]
    best = -1
    ch = ti[0, N_CHILD]
    while ch >= 0:
        if best < 0:
            best = ch
        else:
            vb = ti[best, N_VISITS]
            vc = ti[ch, N_VISITS]
            if vc > vb or (vc == vb and vc > 0 and tv[ch, seat] / vc > tv[best, seat] / vb):
                best = ch
            elif (
                vc == vb and (vc == 0 or tv[ch, seat] / vc == tv[best, seat] / vb) and ch < best
            ):  # the earlier created
                best = ch
        ch = ti[ch, N_NEXT]
    return ti[best, N_ACTION] if best >= 0 else opts[0]


def search_at(tb, st, work, seat, sp, rng, n_extra, n_tele):
    """``search`` from Python (the replay's reasons, the leak test): seat ``seat``'s pick at the
    decision pending in ``st`` with the search stream ``rng`` (uint64[1], advanced), and the
    root's children in the order they were tried: int64[k, 3] (option, visits, availability)
    and float64[k] (mean win). ``n_extra``, ``n_tele``: the dataset's extra and telemetry
    columns (a rollout's outcome is written as a row)."""
    players = sp.shape[0]
    cap = most_iterations(sp, seat) + 2
    keep_w, world = block_state(tb)
    keep_s, scratch = block_state(tb)
    swork = S.alloc_work(tb)
    ti, tv = alloc_tree(cap, players)
    opts = np.zeros(S.MAX_OPTIONS, np.int64)
    path = np.zeros(cap + 1, np.int64)
    reward = np.zeros(players, np.float64)
    rows = alloc_rows(players, n_extra, n_tele)
    n_log, log_cap = log_hold(st)  # a replay's log stays out of the search's States
    code = search(
        tb, st, work, seat, sp, rng, ti, tv, world, scratch, swork, opts, path, reward, rows
    )
    log_resume(st, n_log, log_cap)
    block_end(keep_w)
    block_end(keep_s)
    k = 0
    ch = ti[0, N_CHILD]
    while ch >= 0:
        k += 1
        ch = ti[ch, N_NEXT]
    stats = np.zeros((k, 3), np.int64)
    means = np.zeros(k, np.float64)
    ch = ti[0, N_CHILD]
    i = k - 1  # children are listed newest first: stored in creation order
    while ch >= 0:
        stats[i, 0] = ti[ch, N_ACTION]
        stats[i, 1] = ti[ch, N_VISITS]
        stats[i, 2] = ti[ch, N_AVAIL]
        means[i] = tv[ch, seat] / ti[ch, N_VISITS] if ti[ch, N_VISITS] > 0 else 0.0
        i -= 1
        ch = ti[ch, N_NEXT]
    return code, stats, means


def play_game_search(
    tb,
    st,
    seed,
    game,
    work,
    sp,
    rng,
    ti,
    tv,
    world,
    scratch,
    swork,
    opts,
    path,
    reward,
    rows,
    count,
):
    """One whole game into ``st``: at every decision, a search seat searches, another seat's
    policy chooses (the same points as ``E.play_game``, so a game without a search seat at its
    decisions is the batch kernel's game). ``count`` (int64[2]) gets the searches made (a
    decision with one option is played without one) and their iterations."""
    E.start(tb, st, seed, game, work)
    players = sp.shape[0]
    for p in range(players):
        if sp[p, SP_ON] != 0:
            seed_stream(rng[p], seed, game, SEARCH_STREAM + p)
    while True:
        actor = E.advance(tb, st, work)
        if actor < 0:
            break
        if searching(tb, st, actor, sp):
            code = search(
                tb,
                st,
                work,
                actor,
                sp,
                rng[actor],
                ti,
                tv,
                world,
                scratch,
                swork,
                opts,
                path,
                reward,
                rows,
            )
            if ti[0, N_VISITS] > 0:  # the root counts every iteration of a search
                count[0] += 1
                count[1] += ti[0, N_VISITS]
        else:
            code = P.choose(tb, st, work)
        E.apply(tb, st, work, code)


def play_batch_search(kt, sp, seed, first_game, n_games, out, counts, g0, g1):
    """``E.play_batch`` with search seats: games g0 to g1 - 1 of [first_game, first_game +
    n_games) into row i of ``out`` (kit.Outputs) and of ``counts`` (int64[n_games, 2]: the
    game's searches and their iterations), ``sp`` the seats' search settings
    (balance/search.py). Each game is its own block (``play`` runs them over the threads: a
    search game costs thousands of games, so blocks of the batch's size would leave a thread
    idle on a small chunk): its States and tree are its own, its telemetry clip counts in row i
    of ``out.clipped`` and its trajectory in its own room."""
    score, rank, turns, end, order, team, role, extra, tele, clipped, trace, points = out
    players = sp.shape[0]
    cap = np.int64(2)
    for p in range(players):
        if sp[p, SP_ON] != 0 and most_iterations(sp, p) + 2 > cap:
            cap = most_iterations(sp, p) + 2
    for gi in range(g0, g1):
        tb = block_tables(kt)
        keep, st = block_state(tb)
        keep_w, world = block_state(tb)
        keep_s, scratch = block_state(tb)
        work = S.alloc_work(tb)
        swork = S.alloc_work(tb)
        ti, tv = alloc_tree(cap, players)
        opts = np.zeros(S.MAX_OPTIONS, np.int64)
        path = np.zeros(cap + 1, np.int64)
        reward = np.zeros(players, np.float64)
        rng = np.zeros((players, 1), np.uint64)
        rows = alloc_rows(players, extra.shape[2], tele.shape[2])
        play_game_search(
            tb,
            st,
            seed,
            first_game + gi,
            work,
            sp,
            rng,
            ti,
            tv,
            world,
            scratch,
            swork,
            opts,
            path,
            reward,
            rows,
            counts[gi],
        )
        E.record(
            tb, st, work, gi, score, rank, turns, end, order, team, role, extra, tele, clipped[gi]
        )
        E.record_trace(tb, st, work, gi, trace, points)
        block_end(keep)  # a use of the States' arrays after the game (Five Ravens' records)
        block_end(keep_w)
        block_end(keep_s)


# How a block of the batch makes its tables and States, and a replay's log is held, for a game
# whose State is a NamedTuple of arrays with the log's counters in ``board`` (The Raven Order,
# Raven Manor, Corvids); a game made otherwise (Five Ravens' record) gives its own to ``bind``.
def block_tables(kt):
    """The kernels' tables from the batch's argument (the Compiled's tb itself)."""
    return kt


def block_state(tb):
    """A State for a block of games, and what keeps it alive (itself)."""
    st = S.alloc_state(tb, 0)
    return st, st


def block_end(keep):
    """Nothing to keep alive past a block's games."""
    return None


def log_hold(st):
    """Stop ``st``'s event log (its rows written and its room, returned) while a search copies
    it: a copy then carries no log rows into the search's log-less States."""
    n = st.board[S.G_LOG_N]
    cap = st.board[S.G_LOG_CAP]
    st.board[S.G_LOG_N] = 0
    st.board[S.G_LOG_CAP] = 0
    return n, cap


def log_resume(st, n, cap):
    """The log of ``st`` as ``log_hold`` found it."""
    st.board[S.G_LOG_N] = n
    st.board[S.G_LOG_CAP] = cap


def side_of(tb, st, seat):
    """The side seat ``seat`` is on now, for a search limited to sides (``sides``): a game
    without sides has one, 0."""
    return 0


_DEFAULTS = (block_tables, block_state, block_end, log_hold, log_resume, side_of)


def searching(tb, st, seat, sp):
    """Whether seat ``seat`` searches its decision now: a search seat on a side its ``sides``
    name (any side when they name none); otherwise it plays its rollout policy."""
    if sp[seat, SP_ON] == 0:
        return False
    mask = np.int64(sp[seat, SP_SIDES])
    return mask == 0 or (mask >> side_of(tb, st, seat)) & 1 == 1


# The functions ``bind`` compiles, in dependency order (a callee before its callers).
_JIT = (
    alloc_tree,
    _new_node,
    _index,
    alloc_rows,
    _rewards,
    searching,
    iterations_of,
    most_iterations,
    search,
    search_at,
    play_game_search,
)
_BATCH = (play_batch_search,)  # called from Python threads (kit.in_threads): no GIL


def bind(ns: dict[str, Any], **game: Any) -> None:
    """Compile this module's functions against one game and put them in ``ns`` (the game's
    ``search.py`` globals), with ``play`` (a chunk of games with search seats, from Python).
    ``game`` names the game's modules ``S``, ``E``, ``P``, ``K``, and may give its own
    ``block_tables``, ``block_state``, ``block_end``, ``log_hold`` and ``log_resume`` (compiled
    functions) where this module's do not fit its State. Each function is the same code with
    those as its globals, so numba caches one copy per game (its signature holds the game's
    types)."""
    missing = sorted({"S", "E", "P", "K"} - set(game))
    unknown = sorted(set(game) - set(GAME_NAMES))
    if missing or unknown:
        raise TypeError(f"bind() needs the game's S, E, P, K; missing {missing}, unknown {unknown}")
    glb = dict(globals())
    glb.update(game)
    glb["__name__"] = ns["__name__"]
    own = [fn for fn in _DEFAULTS if fn.__name__ not in game]
    for fn in (*own, *_JIT, *_BATCH):
        # the game's own file as the code's: numba keys its cache files (and balance finds
        # them, balance/_kernels.py) by the source file, so each game's copy is its own
        code = fn.__code__.replace(co_filename=ns["__file__"])
        rebound = types.FunctionType(code, glb, fn.__name__, fn.__defaults__)
        rebound.__module__ = ns["__name__"]
        rebound.__qualname__ = fn.__qualname__
        rebound.__doc__ = fn.__doc__
        jitted = njit(cache=True, nogil=fn in _BATCH)(rebound)
        glb[fn.__name__] = jitted
        ns[fn.__name__] = jitted
    batch_kernel = glb["play_batch_search"]
    engine = game["E"]

    def play(compiled, sp, seed, first_game, n_games, counts=None):
        """Play a chunk of games with search seats (``sp``: the seats' search settings,
        balance/search.py); ``counts`` (int64[n_games, 2]), when given, gets each game's
        searches and their iterations."""
        if counts is None:
            counts = np.zeros((n_games, 2), np.int64)

        def batch(kt, seed, first_game, n_games, out, g0, g1):
            batch_kernel(kt, sp, seed, first_game, n_games, out, counts, g0, g1)

        return engine.play(compiled, seed, first_game, n_games, batch=batch, block=1)

    play.__module__ = ns["__name__"]
    ns["play"] = play
