"""No policy reads what its seat cannot know (RM-11, RM-18; policies.py docstring): "a test
re-deals every hidden card a seat cannot know and checks its choices do not change".

Mid-game positions come from real games (a shipped config played turn by turn, as
``engine.play_game`` plays it, to a turn drawn by hypothesis). In each, a seat ``q`` (the active
one, or another) is asked every kind of decision twice, in the position and in a copy in which
everything ``q`` cannot know was dealt again (``redeal``):

- the other seats' hand cards ``q`` has not seen (``kn[q, p, KN_HAND + c]``, the cards it saw
  in ``p``'s hand or gave it, are kept where ``p`` still holds them) are shuffled together with
  the draw deck and the other seats' Backpack contents (RM-25: face down), each hand and Backpack
  keeping its size (hand sizes are public) and the deck its size; the deck order changes with it;
- the characters of the seats whose character ``q`` does not know (``kn[q, p, KN_CHAR] < 0``) are
  permuted among them; ``PL_SIDE`` follows the card for the unpossessed, and a possessed seat gets
  a possessed seat's card (so no immune card is possessed and a possessed seat keeps its
  Feathers);
- the random streams of the other seats, of the deck and of the deal are seeded again, ``q``'s
  own stream is kept (the same bits in both before every question).

With ``scramble`` on, the copy also gets values a policy must never read of another seat, however
inconsistent: random sides and possession, dealt characters, telemetry, and random rows of what
the other seats know (``kn[p]``, p != q); every unseen card of another hand is re-dealt (not even
a Feather of a possessed seat is kept).

The decisions: the action (``engine.enum_actions``: the candidates themselves must be the same,
then ``policies.choose_action``), the card given in an exchange to every other seat
(``choose_give``), discards (``choose_discard``, ``choose_bathroom``), every yes/no question about
every seat (``choose_yes``, each Y_*), death-ability targets (``choose_target``, each T_*, with
several masks), picks among cards (``choose_pick``, each PK_*) and reactions in made-up windows
(``choose_reaction``: a card of another seat at ``q`` or at a third seat, and a reaction on it).
Each answer, and how much of ``q``'s stream it used, must be the same in both positions.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

from balance import games
from balance.config import config_from_dict
from balance.config.loading import load_yaml
from balance.games.raven_manor import engine, policies, state
from balance.games.raven_manor.state import (
    B_CAND,
    G_DECK_N,
    G_END,
    G_FIRST,
    G_N,
    G_NEXT,
    G_TURN,
    KN_CHAR,
    KN_HAND,
    MAX_STACK,
    N_KN,
    PL_ALIVE,
    PL_BP,
    PL_BP_N,
    PL_CHAR,
    PL_DEALT,
    PL_HAND,
    PL_HAND_N,
    PL_POSS_TURN,
    PL_POSSESSED,
    PL_SIDE,
    PL_TELE,
    State,
)
from balance.games.raven_manor.tables import (
    AXE,
    BOTTLE,
    DINING_ROOM,
    EXCHANGE,
    FEATHER,
    FOREST,
    GET_OVER_HERE,
    HARPOON,
    HAYMAKER,
    KNIFE,
    LIBRARY,
    LIFEBUOY,
    MAXP,
    MOUNTAINS,
    N_TELE,
    NC,
    NCH,
    P_TURN_CAP,
    RAT_TREACHERY,
    REACT0,
    REACT1,
    RIFLE,
    ROD,
    VASE,
    ZAKUS_CAMERA,
    Compiled,
)

ROOT = Path(__file__).resolve().parents[3]
CONFIGS = ROOT / "configs" / "raven_manor"
MIXED8 = ("basic", "random", "basic", "basic_family", "random", "basic_evil", "basic", "random")
LINEUPS: tuple[tuple[str, tuple[str, ...] | None], ...] = (
    ("base.yaml", None),  # five basic seats, the starter game
    ("random.yaml", None),
    ("random_vs_basic.yaml", None),
    ("all_cards.yaml", None),  # every card and character, eight basic seats
    ("all_cards.yaml", MIXED8),
    ("all_cards.yaml", ("random",) * 8),
    ("gore.yaml", None),
    ("dont_trust_anyone.yaml", None),
    ("basic_family_vs_random_evil.yaml", None),
    ("two_players.yaml", None),
    ("twelve_players.yaml", None),
)
Y_ALL = range(11)  # policies.Y_MULLIGAN .. Y_ANGLER_LOOK
T_ALL = range(8)  # policies.T_KILL .. T_STUN_SWAP
PK_ALL = range(7)  # policies.PK_HAND .. PK_DRINK
ANSWERED = (AXE, KNIFE, RIFLE, HARPOON, VASE, HAYMAKER, BOTTLE, EXCHANGE, DINING_ROOM)
ANSWERED += (GET_OVER_HERE, MOUNTAINS, FOREST, LIBRARY, ZAKUS_CAMERA, -1)  # -1: a death ability
REACTIONS = tuple(range(REACT0, REACT1))


@functools.cache
def compiled(name: str, seats: tuple[str, ...] | None = None) -> Compiled:
    data, _ = load_yaml(CONFIGS / name)
    data = copy.deepcopy(data)
    if seats is not None:
        data["seats"] = list(seats)
    return games.get("raven_manor").compile(config_from_dict(data, f"test:{name}"))


def copy_of(st: State) -> State:
    return State(*(a.copy() for a in st))


def position(c: Compiled, seed: int, game: int, turn: int) -> tuple[State, int]:
    """Game ``game`` of run ``seed`` played as ``engine.play_game`` plays it up to the start of
    turn ``turn`` (or of its last turn if it ends sooner): the state and the seat to play."""
    tb = c.tb
    st = state.alloc_state(tb, 0)
    work = state.alloc_work(tb)
    stack, opts, pick, mask = work.stack, work.opts, work.pick, work.mask
    engine.setup(tb, st, seed, game, pick)
    a = int(st.board[G_FIRST])
    cap = int(tb.params[P_TURN_CAP])
    engine.check_end(st)
    assert st.board[G_END] == 0
    last = (copy_of(st), a)
    while st.board[G_TURN] < turn:
        last = (copy_of(st), a)
        engine.play_turn(tb, st, a, stack, opts, pick, mask)
        st.board[G_TURN] += 1
        if st.board[G_END] != 0 or st.board[G_TURN] >= cap:
            return last
        nxt = int(st.board[G_NEXT])
        a = nxt if nxt >= 0 else int(state.left(st, a))
    return st, a


# ---------------------------------------------------------------- the re-deal


def redeal(st: State, q: int, rng: np.random.Generator, scramble: bool) -> State:
    """A copy of ``st`` in which everything ``q`` cannot know is dealt again (module
    docstring)."""
    alt = copy_of(st)
    n = int(st.board[G_N])
    others = [p for p in range(n) if p != q]
    # characters q does not know, permuted among their seats
    unknown = [p for p in others if st.kn[q, p, KN_CHAR] < 0]
    if scramble:
        groups = [unknown]
    else:  # a possessed seat (never immune) gets a possessed seat's card
        groups = [
            [p for p in unknown if st.pl[p, PL_POSSESSED] >= 0],
            [p for p in unknown if st.pl[p, PL_POSSESSED] < 0],
        ]
    for group in groups:
        perm = [int(x) for x in rng.permutation(group)]
        for p, src in zip(group, perm, strict=True):
            ch = int(st.pl[src, PL_CHAR])
            alt.pl[p, PL_CHAR] = ch
            alt.pl[p, PL_DEALT] = st.pl[src, PL_DEALT]
            alt.kn[p, p, KN_CHAR] = ch
            if st.pl[p, PL_POSSESSED] < 0:
                alt.pl[p, PL_SIDE] = state.own_side(ch)
            for x in others:  # what a third seat knew of the card it now knows of this seat
                if x != p and st.kn[x, p, KN_CHAR] >= 0:
                    alt.kn[x, p, KN_CHAR] = ch
    # unseen hand cards, the deck and other Backpacks, shuffled together and dealt again
    pool: list[int] = []
    kept: dict[int, np.ndarray] = {}
    for p in others:
        hand = st.pl[p, PL_HAND : PL_HAND + NC].copy()
        seen = np.clip(st.kn[q, p, KN_HAND : KN_HAND + NC], 0, None)
        keep = np.zeros(NC, np.int64) if scramble else np.minimum(hand, seen)
        if not scramble and state.keeps_feathers(st, p):  # RM-6: it holds them
            keep[FEATHER] = hand[FEATHER]
        kept[p] = keep
        pool += np.repeat(np.arange(NC), hand - keep).tolist()
        pool += np.repeat(np.arange(NC), st.pl[p, PL_BP : PL_BP + NC]).tolist()
    deck_n = int(st.board[G_DECK_N])
    pool += st.deck[:deck_n].tolist()
    order = [int(x) for x in rng.permutation(len(pool))]
    pool = [pool[i] for i in order]
    for p in others:
        k = int(st.pl[p, PL_HAND_N] - kept[p].sum())
        hand = kept[p] + np.bincount(pool[:k], minlength=NC).astype(np.int64)
        del pool[:k]
        alt.pl[p, PL_HAND : PL_HAND + NC] = hand
        b = int(st.pl[p, PL_BP_N])
        alt.pl[p, PL_BP : PL_BP + NC] = np.bincount(pool[:b], minlength=NC)
        del pool[:b]
    assert len(pool) == deck_n
    alt.deck[:deck_n] = pool
    # every stream but q's
    for s in range(alt.rng.shape[0]):
        if s != 2 + q:
            alt.rng[s, 0] = np.uint64(rng.integers(1, 2**63))
    if scramble:
        for p in others:
            alt.pl[p, PL_POSSESSED] = rng.integers(-1, 3)
            alt.pl[p, PL_SIDE] = rng.integers(0, 4)
            alt.pl[p, PL_POSS_TURN] = rng.integers(-1, 50)
            alt.pl[p, PL_DEALT] = rng.integers(0, NCH)
            alt.pl[p, PL_TELE : PL_TELE + N_TELE] = rng.integers(0, 5, N_TELE)
            alt.kn[p] = rng.integers(0, 3, (MAXP, N_KN))
            alt.kn[p, :, KN_CHAR] = rng.integers(-1, NCH, MAXP)
    assert int(state.cards_total(alt)) == int(state.cards_total(st))
    return alt


# ---------------------------------------------------------------- the questions


Question = tuple[str, Callable[[Any, State], Any]]


def _put(s: State, at: int, values: np.ndarray) -> State:
    """``s`` with ``values`` written into its board from ``at`` (a decision's list: the pick,
    the targets' mask, the reactions, the window stack, as the engine leaves them)."""
    s.board[at : at + len(values)] = values
    return s


def questions(c: Compiled, st: State, q: int, rng: np.random.Generator) -> list[Question]:
    """Every decision ``q`` could be asked in ``st`` (module docstring), as (label, ask(tb, st))
    pairs; the made-up arguments are drawn once, so both positions get the same."""
    n = int(st.board[G_N])
    others = [p for p in range(n) if p != q]
    out: list[Question] = []

    def action(tb: Any, s: State) -> Any:
        k = int(engine.enum_actions(tb, s, q))
        cands = s.board[B_CAND : B_CAND + 4 * k].tolist()
        return cands, int(policies.choose_action(tb, s, q, k))

    out.append(("action", action))
    if state.free_cards(st, q) > 0:  # the engine asks for a card only then (ENGINE-12)
        for t in others:
            out.append((f"give to {t}", lambda tb, s, t=t: int(policies.choose_give(tb, s, q, t))))
        out.append(("discard", lambda tb, s: int(policies.choose_discard(tb, s, q))))
        for done in range(3):
            out.append(
                (
                    f"bathroom {done}",
                    lambda tb, s, d=done: int(policies.choose_bathroom(tb, s, q, d)),
                )
            )
    for what in Y_ALL:
        for t in [-1, *others]:
            out.append(
                (
                    f"yes {what} about {t}",
                    lambda tb, s, w=what, t=t: bool(policies.choose_yes(tb, s, q, t, w)),
                )
            )
    masks = []
    living = np.array([1 if p in others and st.pl[p, PL_ALIVE] else 0 for p in range(MAXP)])
    anyone = np.array([1 if p in others else 0 for p in range(MAXP)])
    for m in (living, anyone):
        if m.any():
            masks.append(m.astype(np.int64))
    for _ in range(2):
        m = anyone * rng.integers(0, 2, MAXP)
        if m.any():
            masks.append(m.astype(np.int64))
    for purpose in T_ALL:
        for i, m in enumerate(masks):
            out.append(
                (
                    f"target {purpose} mask {i}",
                    lambda tb, s, p=purpose, m=m: int(
                        policies.choose_target(tb, _put(s, state.B_MASK, m), q, p, n)
                    ),
                )
            )
    for purpose in PK_ALL:
        for i in range(2):
            cards = np.zeros(512, np.int64)
            k = int(rng.integers(1, 6))
            cards[:k] = rng.integers(0, NC, k)
            out.append(
                (
                    f"pick {purpose} #{i} of {cards[:k].tolist()}",
                    lambda tb, s, p=purpose, cards=cards, k=k: int(
                        policies.choose_pick(tb, _put(s, state.B_PICK, cards[:k]), q, k, p)
                    ),
                )
            )
    for i in range(6):
        card = int(rng.choice(ANSWERED))
        owner = int(rng.choice(others))
        target = q if i % 2 == 0 else int(rng.choice([-1, *others]))
        stack = np.zeros((MAX_STACK, 5), np.int64)
        stack[0] = (card, owner, 0, 0, target)
        lvl = 0 if i < 4 else 1
        if lvl == 1:  # a reaction on the card: q may answer the reaction
            r = int(rng.choice(REACTIONS))
            player = int(rng.choice(others))
            # what it protects or cancels, as engine.window records it
            stack[1] = (r, player, 0, 0, target if r == LIFEBUOY else player)
            if r in (ROD, RAT_TREACHERY):  # cancelling the card: against its owner
                stack[1, 4] = owner
        opts = np.zeros(8, np.int64)
        k = int(rng.integers(1, len(REACTIONS) + 1))
        opts[:k] = rng.permutation(REACTIONS)[:k]
        protects = int(target if lvl == 0 else stack[lvl, 4])
        out.append(
            (
                f"reaction {opts[:k].tolist()} to {stack[: lvl + 1].tolist()} level {lvl}",
                lambda tb, s, o=opts, k=k, st_=stack, lvl=lvl, pr=protects: int(
                    policies.choose_reaction(
                        tb,
                        _put(_put(s, state.B_OPTS, o), state.B_STACK, st_.ravel()),
                        q,
                        k,
                        lvl,
                        pr,
                    )
                ),
            )
        )
    return out


def leaks(c: Compiled, st: State, alt: State, q: int, rng: np.random.Generator) -> list[str]:
    """The questions ``q`` answers differently in ``st`` and ``alt`` (or answers after using
    its stream differently)."""
    assert st.rng[2 + q, 0] == alt.rng[2 + q, 0]
    bad = []
    for label, ask in questions(c, st, q, rng):
        a, b = copy_of(st), copy_of(alt)
        got_a, got_b = ask(c.tb, a), ask(c.tb, b)
        if got_a != got_b or a.rng[2 + q, 0] != b.rng[2 + q, 0]:
            bad.append(f"{label}: {got_a} / re-dealt {got_b}")
    return bad


# ---------------------------------------------------------------- the tests


@settings(max_examples=600, deadline=None)
@given(
    lineup=hs.sampled_from(LINEUPS),
    seed=hs.integers(0, 2**63 - 1),
    game=hs.integers(0, 10**6),
    turn=hs.integers(0, 80),
    offset=hs.one_of(hs.just(0), hs.integers(0, 11)),
    scramble=hs.booleans(),
    deal=hs.integers(0, 2**32 - 1),
)
def test_no_choice_depends_on_what_the_seat_cannot_know(
    lineup, seed, game, turn, offset, scramble, deal
):
    c = compiled(*lineup)
    st, a = position(c, seed, game, turn)
    n = int(st.board[G_N])
    q = int(state.seat_at(st, int(st.pl[a, state.PL_POS]) + offset)) if offset else a
    rng = np.random.default_rng(deal)
    alt = redeal(st, q, rng, scramble)
    bad = leaks(c, st, alt, q, np.random.default_rng(deal + 1))
    assert not bad, (
        f"seat {q} of {n} ({c.seat_policies[q]}, character {int(st.pl[q, PL_CHAR])}) at turn "
        f"{int(st.board[G_TURN])} decides on what it cannot know:\n" + "\n".join(bad[:20])
    )


def test_the_redeal_changes_what_the_seat_cannot_know():
    """The test above has teeth: in most positions the re-deal moves other seats' hand cards and
    the deck, often characters (so a choice that read them would change); the seat's own row,
    its knowledge and the public state never change, and the re-dealt position is one the game
    could hold (sides follow cards, the possessed hold their Feathers)."""
    moved_hand = moved_char = moved_deck = 0
    total = 0
    for lineup in LINEUPS[:6]:
        c = compiled(*lineup)
        for game in range(6):
            st, a = position(c, 17, game, 4 + 7 * game)
            n = int(st.board[G_N])
            alt = redeal(st, a, np.random.default_rng(game), scramble=False)
            total += 1
            others = [p for p in range(n) if p != a]
            hands = [
                (st.pl[p, PL_HAND : PL_HAND + NC] != alt.pl[p, PL_HAND : PL_HAND + NC]).any()
                for p in others
            ]
            moved_hand += any(hands)
            moved_char += (st.pl[:n, PL_CHAR] != alt.pl[:n, PL_CHAR]).any()
            deck_n = int(st.board[G_DECK_N])
            moved_deck += (st.deck[:deck_n] != alt.deck[:deck_n]).any()
            # what the seat knows and the public state are the same
            np.testing.assert_array_equal(st.pl[a], alt.pl[a])
            np.testing.assert_array_equal(st.kn[a], alt.kn[a])
            np.testing.assert_array_equal(st.board, alt.board)
            np.testing.assert_array_equal(st.pl[:n, PL_HAND_N], alt.pl[:n, PL_HAND_N])
            np.testing.assert_array_equal(st.pl[:n, PL_BP_N], alt.pl[:n, PL_BP_N])
            np.testing.assert_array_equal(st.pl[:n, PL_ALIVE], alt.pl[:n, PL_ALIVE])
            assert st.rng[2 + a, 0] == alt.rng[2 + a, 0]
            for p in others:  # a card q saw in p's hand and p still holds stays
                seen = np.minimum(
                    st.kn[a, p, KN_HAND : KN_HAND + NC], st.pl[p, PL_HAND : PL_HAND + NC]
                )
                assert (alt.pl[p, PL_HAND : PL_HAND + NC] >= seen).all()
                if st.kn[a, p, KN_CHAR] >= 0:
                    assert alt.pl[p, PL_CHAR] == st.pl[p, PL_CHAR]
            for p in range(n):  # sides stay consistent with cards and possession
                if alt.pl[p, PL_POSSESSED] < 0:
                    assert alt.pl[p, PL_SIDE] == state.own_side(int(alt.pl[p, PL_CHAR]))
                else:
                    assert not state.immune(int(alt.pl[p, PL_CHAR]))
                    assert alt.pl[p, PL_HAND + FEATHER] > 0
    assert moved_hand >= 0.8 * total and moved_deck >= 0.8 * total
    assert moved_char >= 0.5 * total
