"""Raven Manor policies: every choice RM-18 leaves to a player, made from what its seat knows.

The engine enumerates the legal choices and asks; a policy answers from its own seat's row of
``State.pl`` (its character, side, hand and Backpack), its row of ``State.kn`` (what it has seen:
RM-11, RM-13, RM-26, RM-29) and the public state (who is alive, revealed characters, stuns, the
ring, cards in play, the discard pile, hand sizes). It never reads another seat's hand, character
or side, nor the deck order (``tests/games/raven_manor/test_policies.py`` re-deals all of them and
checks that no choice changes).

- ``random``: uniform over the legal choices at every decision, reactions and yes/no questions
  included.
- ``basic``: plays from hard facts only. The Family kills and stuns a player it *knows* is on
  another side (an evil character revealed or looked at, a Feather seen in a hand, a Feather
  received from it), answers kills and stuns on itself and on players it trusts (a Family
  character it has seen, with no Feather seen), looks at hands and characters it does not know,
  and otherwise searches for the cards it wants. The Raven and the Headless Horseman pass Feathers
  in exchanges to living players they have not possessed yet and kill the rest; possessed players
  shield their possessor, whom they know (RM-11), and kill the Family they know. Cthulhu Gentleman
  kills whoever he can. Weights and card values come from the config's ``policies:`` section
  (Tables.weights, Tables.values).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from balance.games.raven_manor import beliefs as B
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T
from balance.rng import below, uniform

# Action kinds (the engine's candidates: kind, card, target, option). K_FREE: a card an effect
# plays (Manor Plan's Room, Groguś's card from the discard pile), only its target and option asked.
K_PLAY, K_USE, K_CYCLE, K_EAGLE, K_BREAK, K_PASS, K_FREE = range(7)

# What a yes/no question is about (choose_yes).
(
    Y_MULLIGAN,  # q: -1
    Y_BLUFF,  # the Raven discards a drawn Feather (the bluff: RM-3, RM-18); q: -1
    Y_PILLOW,  # reveal the Pillow just passed to q
    Y_FOREST,  # consent to the kill of q (Forest)
    Y_INN,  # accept a face-down card from q (The Inn)
    Y_SACRIFICE,  # Shark Bouncer dies in q's place
    Y_EEL_STUN,  # Eel Fella: be stunned (yes) or discard the hand (no)
    Y_VOTE_KILL,  # Mayor Groundhog: vote to kill q (yes) or to stun (no)
    Y_BP_TAKE,  # take a card from the Backpack instead of drawing
    Y_MOUNTAIN_EVADE,  # Mountains: Evade back, so that both die (RM-28); q the target
    Y_ANGLER_LOOK,  # Angler Photographer: look at q's character (yes) or at its hand (no)
) = range(11)

# What a pick is for (choose_pick); the options are card ids.
PK_HAND, PK_TOP, PK_MINE, PK_GROGUS, PK_STORE, PK_TAKE, PK_DRINK = range(7)

# Targets a death ability or effect asks for (choose_target).
T_KILL, T_STUN, T_LOOK_CHAR, T_LOOK_HAND, T_SWAP, T_WHALE, T_REVEAL_HAND, T_STUN_SWAP = range(8)

NEG = -1e18


@njit(cache=True, _nrt=False, forceinline=False)
def is_random(tb, st, p):
    """Does seat ``p`` play ``random`` (by_side: the policy of the side it is on now, which it
    knows: a possessed Family seat plays for the Raven's side, RM-6)?"""
    k = tb.seat[p, T.SP_KIND]
    if k == T.POL_BY_SIDE:
        k = (
            tb.seat[p, T.SP_FAMILY_KIND]
            if st.pl[p, S.PL_SIDE] == T.FAMILY
            else tb.seat[p, T.SP_EVIL_KIND]
        )
    return k == T.POL_RANDOM


@njit(cache=True, _nrt=False, forceinline=False)
def scripted(tb, st, p, k):
    """Does seat ``p`` have ``k`` scripted values left (tables.with_script; tests)?"""
    return (
        tb.seat[p, T.SP_KIND] == T.POL_SCRIPT
        and st.pl[p, S.PL_SCRIPT] + k <= tb.seat[p, T.SP_SCRIPT_N]
    )


@njit(cache=True, _nrt=False, forceinline=False)
def next_scripted(tb, st, p):
    i = st.pl[p, S.PL_SCRIPT]
    st.pl[p, S.PL_SCRIPT] = i + 1
    return np.int64(tb.script[p, i])


@njit(cache=True, _nrt=False, forceinline=False)
def coin(st, p):
    return below(st.rng[2 + p], 2) == 1


@njit(cache=True, _nrt=False, forceinline=False)
def noise(st, p):
    return uniform(st.rng[2 + p]) * 1e-6


# ---------------------------------------------------------------- what a seat knows


@njit(cache=True, _nrt=False, forceinline=False)
def my_master(st, p):
    """The seat ``p`` knows possessed it (RM-11), -1 none: the last seat that gave it a Feather."""
    if st.pl[p, S.PL_POSSESSED] < 0:
        return -1
    for q in range(S.n_players(st)):
        if q != p and st.kn[p, q, S.KN_GAVE_F] > 0 and S.possessor(st.kn[p, q, S.KN_CHAR]):
            return q
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def gave_feather(st, p, q):
    """``p`` has passed ``q`` a Feather in an exchange (so ``q`` is possessed unless immune)."""
    return st.kn[p, q, S.KN_GAVE + T.FEATHER] > 0


@njit(cache=True, _nrt=False, forceinline=False)
def known_char(st, p, q):
    return st.kn[p, q, S.KN_CHAR]


@njit(cache=True, _nrt=False, forceinline=False)
def feather_seen(st, p, q):
    """Hard evidence: ``p`` saw a Feather in ``q``'s hand, or received one from ``q``."""
    return st.kn[p, q, S.KN_FEATHER] > 0 or st.kn[p, q, S.KN_GAVE_F] > 0


@njit(cache=True, _nrt=False, forceinline=False)
def enemy(st, p, q):
    """Does ``p`` know for a fact that ``q`` is on another side?"""
    if q == p:
        return False
    me = st.pl[p, S.PL_CHAR]
    ch = known_char(st, p, q)
    if me == T.CTHULHU:
        return True  # RM-22 (c): he wins as the last one standing
    if S.possessor(me):
        if ch >= 0 and S.immune(ch):
            return True
        return not gave_feather(st, p, q)
    if st.pl[p, S.PL_POSSESSED] >= 0:  # serving a possessor (RM-6)
        if q == my_master(st, p):
            return False
        if ch >= 0 and (S.immune(ch) or S.own_side(ch) == T.FAMILY) and not feather_seen(st, p, q):
            return True
        return False
    # The Family (Doc included): an evil card seen, or a Feather held by someone not the Doc.
    if ch >= 0 and S.evil(ch):
        return True
    if ch == T.DOC:
        return False
    # or, reasoning, its belief has passed its suspicion threshold (beliefs.refresh)
    return feather_seen(st, p, q) or st.kn[p, q, S.KN_SUSPECT] > 0


@njit(cache=True, _nrt=False, forceinline=False)
def trusted(st, p, q):
    """Does ``p`` know ``q`` is on its side?"""
    if q == p:
        return True
    me = st.pl[p, S.PL_CHAR]
    if me == T.CTHULHU:
        return False
    if S.possessor(me):
        ch = known_char(st, p, q)
        return gave_feather(st, p, q) and not (ch >= 0 and S.immune(ch))
    if st.pl[p, S.PL_POSSESSED] >= 0:
        return q == my_master(st, p)
    ch = known_char(st, p, q)
    if ch >= 0:
        return S.own_side(ch) == T.FAMILY and not feather_seen(st, p, q)
    # reasoning: its belief that q is Family has reached its trust (beliefs.refresh)
    return st.kn[p, q, S.KN_SUSPECT] < 0 and not feather_seen(st, p, q)


@njit(cache=True, _nrt=False, forceinline=False)
def card_value(tb, st, p, c):
    """How much ``p`` wants card ``c`` in hand."""
    v = tb.values[p, c]
    if c == T.FEATHER:
        return 9.0 if S.possessor(st.pl[p, S.PL_CHAR]) else 0.0
    if c == T.EXCHANGE and S.possessor(st.pl[p, S.PL_CHAR]):
        return v + 3.0
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def knows_enemy(st, p):
    """How many living players ``p`` knows are enemies."""
    n = np.int64(0)
    for q in range(S.n_players(st)):
        if q != p and S.alive(st, q) and enemy(st, p, q):
            n += 1
    return n


# ---------------------------------------------------------------- the action


@njit(cache=True, _nrt=False, forceinline=False)
def _kill_value(tb, st, p, t):
    if not S.alive(st, t):
        return NEG
    w = tb.weights[p, T.W_KILL]
    me = st.pl[p, S.PL_CHAR]
    if trusted(st, p, t):
        return -w
    if enemy(st, p, t):
        if st.pl[p, S.PL_REASON] != 0 and st.pl[p, S.PL_SIDE] == T.FAMILY:
            return w * (0.5 + 0.5 * B.bel(st)[p, t, S.KN_BEL + B.BE_OTHER])  # its top suspect first
        if S.possessor(me):  # the known immune at full weight; the others at half while it
            ch = known_char(st, p, t)  # still has Feathers to win them with
            if (ch >= 0 and S.immune(ch)) or st.pl[p, S.PL_HAND + T.FEATHER] == 0:
                return w
            return 0.5 * w
        return w
    if st.pl[p, S.PL_POSSESSED] >= 0:  # RM-10: for its possessor a dead player is as good as a
        return 0.5 * w  # possessed one, so any player but its master is worth killing
    return -0.2 * w


@njit(cache=True, _nrt=False, forceinline=False)
def _stun_value(tb, st, p, t):
    if trusted(st, p, t) or st.pl[t, S.PL_STUNNED] != 0:
        return -tb.weights[p, T.W_STUN]
    if enemy(st, p, t):
        return tb.weights[p, T.W_STUN] * (1.0 if S.alive(st, t) else 0.3)
    return -0.1


@njit(cache=True, _nrt=False, forceinline=False)
def _look_value(tb, st, p, t):
    """A look at ``t``'s hand: worth the weight for a hand never seen, less the more recently it
    was seen (in rounds of the table), little for a player already known either way."""
    w = tb.weights[p, T.W_LOOK]
    if S.possessor(st.pl[p, S.PL_CHAR]):
        w *= 0.3
    seen = st.kn[p, t, S.KN_SEEN]
    if seen > 0:
        rounds = (st.board[S.G_TURN] + 1 - seen) / (4.0 * S.n_players(st))
        w *= min(1.0, rounds)
    if not S.alive(st, t):
        w *= 0.3
    if st.pl[p, S.PL_REASON] != 0 and st.pl[p, S.PL_SIDE] == T.FAMILY:
        # reasoning: the hand whose contents would move its belief most, the one it is least
        # sure of (4 x(1 - x) of its belief that t is on another side: 1 at an even chance)
        x = B.bel(st)[p, t, S.KN_BEL + B.BE_OTHER]
        return w * max(4.0 * x * (1.0 - x), 0.05)
    if enemy(st, p, t) or (t != p and trusted(st, p, t)):
        w *= 0.2
    elif st.pl[p, S.PL_KE] > 0:
        w *= 0.5
    return w


@njit(cache=True, _nrt=False, forceinline=False)
def may_find(tb, st, p, c, discard_too):
    """Could a search by ``p`` find card ``c``, from what is public and its own hand? (Copies
    in the config, less those in play, in the discard pile and in its hand; a search of the deck
    that found none since the last reshuffle is public, RM-9.)"""
    out = tb.params[T.P_COUNT + c] - st.board[S.B_INPLAY + c] - st.pl[p, S.PL_HAND + c]
    if discard_too and st.board[S.B_DISC + c] > 0:
        return out > 0
    out -= st.board[S.B_DISC + c]
    if st.board[S.B_MISS + c] == st.board[S.G_GEN] + 1:
        return False
    return out > 0


@njit(cache=True, _nrt=False, forceinline=False)
def is_weapon(c):
    return c == T.AXE or c == T.KNIFE or c == T.BROKEN_BOTTLE or c == T.RIFLE or c == T.HARPOON


@njit(cache=True, _nrt=False, forceinline=False)
def _want(tb, st, p, c, discard_too):
    """The search weight times how much ``p`` wants card ``c`` (values are on a 0-10 scale),
    0 when it knows the search cannot find it; weapons count double once it knows an enemy."""
    if not may_find(tb, st, p, c, discard_too):
        return -0.01
    v = tb.weights[p, T.W_SEARCH] * card_value(tb, st, p, c) / 10.0
    if is_weapon(c) and st.pl[p, S.PL_KE] > 0:
        v *= 2.0
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def holds_adjacent_weapon(st, p):
    return (
        st.pl[p, S.PL_HAND + T.AXE] > 0
        or st.pl[p, S.PL_HAND + T.KNIFE] > 0
        or st.pl[p, S.PL_HAND + T.BROKEN_BOTTLE] > 0
    )


@njit(cache=True, _nrt=False, forceinline=False)
def _swap_value(tb, st, p, t):
    """A swap with ``t`` that brings ``p`` next to a living enemy while it holds a weapon for
    adjacent kills."""
    if not S.alive(st, p) or not holds_adjacent_weapon(st, p):
        return -0.05
    n = S.n_players(st)
    pos = st.pl[t, S.PL_POS]
    for d in (-1, 1):
        q = np.int64(st.board[S.B_RING + ((pos + d) % n + n) % n])
        if q == p:
            q = t
        if q != p and S.alive(st, q) and enemy(st, p, q):
            return 0.6 * tb.weights[p, T.W_KILL]
    return -0.05


@njit(cache=True, _nrt=False, forceinline=False)
def _give_value(tb, st, p, t):
    """A card passed to ``t`` (Exchange, The Inn): the possessor's Feather."""
    me = st.pl[p, S.PL_CHAR]
    if S.possessor(me) and st.pl[p, S.PL_HAND + T.FEATHER] > 0 and S.alive(st, t):
        ch = known_char(st, p, t)
        if not gave_feather(st, p, t) and not (ch >= 0 and S.immune(ch)):
            return tb.weights[p, T.W_POSSESS]
    if st.pl[p, S.PL_HAND + T.PILLOW] > 0 and enemy(st, p, t) and S.alive(st, t):
        return tb.weights[p, T.W_KILL] * tb.weights[p, T.W_PILLOW] * 0.9
    return 0.02 if trusted(st, p, t) else -0.05


@njit(cache=True, _nrt=False, forceinline=False)
def score_action(tb, st, p, kind, c, t, o):
    """The ``basic`` policy's value of one candidate action."""
    if kind == K_PASS:
        return -1.0
    if kind == K_CYCLE:
        if st.pl[p, S.PL_KE] > 0 and not holds_adjacent_weapon(st, p):
            return 2.0 * tb.weights[p, T.W_CYCLE]
        return tb.weights[p, T.W_CYCLE]
    if kind == K_EAGLE:
        return -0.5
    if kind == K_BREAK:
        fam = st.pl[p, S.PL_SIDE] == T.FAMILY
        return tb.weights[p, T.W_SEARCH] * 0.5 if fam else -0.3
    entering = kind == K_PLAY or kind == K_FREE
    bonus = 0.05 if entering and (T.ROOM0 <= c < T.ROOM1 or c >= T.ABANDONED_MINE) else 0.0
    if c == T.AXE or c == T.KNIFE or c == T.BROKEN_BOTTLE or c == T.RIFLE:
        return _kill_value(tb, st, p, t)
    if c == T.HARPOON:
        return _kill_value(tb, st, p, t) + 0.1
    if c == T.MOUNTAINS:
        return bonus + 0.9 * _kill_value(tb, st, p, t)
    if c == T.FOREST:
        return bonus + 0.8 * _kill_value(tb, st, p, t)
    if c == T.VASE or c == T.HAYMAKER:
        return _stun_value(tb, st, p, t)
    if c == T.BOTTLE:
        return _stun_value(tb, st, p, t) + _want(tb, st, p, np.int64(T.BROKEN_BOTTLE), np.int64(0))
    if c == T.LIBRARY:
        return bonus + _look_value(tb, st, p, t)
    if c == T.GET_OVER_HERE:
        return _look_value(tb, st, p, t) if o == 1 else _swap_value(tb, st, p, t)
    if c == T.ZAKUS_CAMERA or c == T.DRINK:
        if c == T.ZAKUS_CAMERA and o == 0:
            if known_char(st, p, t) >= 0:
                return -0.1
            return 1.2 * tb.weights[p, T.W_LOOK] * (1.0 if S.alive(st, t) else 0.4)
        return _look_value(tb, st, p, t) + (0.2 if enemy(st, p, t) else -0.1)
    if c == T.EXCHANGE:
        return _give_value(tb, st, p, t)
    if c == T.THE_INN:
        return bonus + 0.9 * _give_value(tb, st, p, t)
    if c == T.DINING_ROOM:
        return bonus + (_give_value(tb, st, p, t) if o == 0 else _swap_value(tb, st, p, t))
    if c == T.CAVE:
        return bonus + (0.5 * tb.weights[p, T.W_LOOK] if enemy(st, p, t) else -0.02)
    if c == T.BARRICADE:
        return tb.weights[p, T.W_BARRICADE] if st.pl[p, S.PL_SIDE] != T.FAMILY else -0.5
    if c == T.TREASURE_MAP:
        return _want(tb, st, p, o, np.int64(1))
    if c == T.CANDLE or c == T.TORCH:
        return 0.8 * tb.weights[p, T.W_SEARCH]
    if c == T.ABANDONED_MINE:
        return bonus + 1.2 * tb.weights[p, T.W_SEARCH]
    if c == T.MANOR_PLAN or c == T.COMPASS:
        return 0.6 * tb.weights[p, T.W_SEARCH]
    if c == T.COAST:
        return bonus + _want(tb, st, p, np.int64(T.TREASURE_MAP), np.int64(0))
    if c == T.BATHROOM:
        return bonus + 0.7 * tb.weights[p, T.W_CYCLE]
    if c == T.GUESTROOM:
        return bonus + (
            _want(tb, st, p, np.int64(T.PILLOW), np.int64(0))
            if o == 0
            else 0.5 * tb.weights[p, T.W_CYCLE]
        )
    if c == T.CABIN:
        return bonus + _want(tb, st, p, o, np.int64(1))
    if T.ROOM0 <= c < T.ROOM1:  # the search Rooms: o is the card
        return bonus + _want(tb, st, p, o, np.int64(0))
    return 0.05  # Backpack


@njit(cache=True, _nrt=False, forceinline=False)
def _evil_reasoning(tb, st, p, kind, c, t, o):
    """A reasoning evil seat's change to basic's score of an action: less the rise of the
    table's suspicion of it, in ``hide`` units (beliefs.exposure_cost); more, for a kill of a
    player who saw its side (``silence``)."""
    cls = B.action_class(kind, c, t, o)
    v = -tb.weights[p, T.W_HIDE] * B.exposure_cost_if(tb, st, p, cls, t)
    if (
        c == T.BACKPACK
        and kind == K_PLAY
        and S.possessor(st.pl[p, S.PL_CHAR])
        and st.pl[p, S.PL_HAND + T.FEATHER] > 0
    ):  # its Feathers stored where no look finds them (RM-25; choose_pick stores them)
        v += 0.5 * tb.weights[p, T.W_HIDE]
    if (
        cls == B.C_KILL
        and t >= 0
        and B.bel(st)[p, t, S.KN_BEL + B.BE_EXPOSED] > 0.0
        and S.alive(st, t)
    ):
        v += tb.weights[p, T.W_SILENCE] * tb.weights[p, T.W_KILL]
    return v


@njit(cache=True, _nrt=False, forceinline=False)
def choose_claim(tb, st, p, n):
    """The claim ``p`` makes at the table (ENGINE-15; state.CLAIM_* codes): ``random`` one of
    the ``n`` uniformly; ``basic`` none (it acts on hard facts and hears none); ``reasoning``
    the claim worth most, if any is worth more than silence (:func:`_claim_value`)."""
    if scripted(tb, st, p, np.int64(1)):
        c = next_scripted(tb, st, p)
        for i in range(n):
            if S.claim_at(st, p, i) == c:
                return c
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        return S.claim_at(st, p, below(st.rng[2 + p], n))
    if st.pl[p, S.PL_REASON] == 0:
        return np.int64(S.CLAIM_NONE)
    best, best_v = np.int64(S.CLAIM_NONE), 0.0
    for i in range(1, n):
        code = S.claim_at(st, p, i)
        v = _claim_value(tb, st, p, code)
        if v > best_v:
            best, best_v = code, v
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def _claim_value(tb, st, p, code):
    """A reasoning seat's value of claim ``code`` (silence is 0; a claim it said before is worth
    nothing: the table heard it). The Family tells what it knows (``tell`` times its belief: a
    Feather it saw in or received from a hand, an evil character it knows) and accuses an enemy
    by belief (``accuse`` times it); it never lies. An evil side accuses a player not on its side
    (``lie``: in full for one who saw its side, naming the Feather; a quarter, times its belief,
    for any other), says it is Family (``vouch``), and pays ``hide`` for what the claim tells the
    table of itself (beliefs.exposure_cost)."""
    if st.pl[p, S.PL_SAID] & (np.int64(1) << (code - 1)) != 0:
        return 0.0
    cls = B.claim_class(code)
    t = B.claim_target(code)
    w = tb.weights[p]
    if st.pl[p, S.PL_SIDE] == T.FAMILY:
        if cls == B.C_SAY_FAMILY:
            return w[T.W_VOUCH]
        other = B.bel(st)[p, t, S.KN_BEL + B.BE_OTHER]
        if cls == B.C_SAY_FEATHER:
            return w[T.W_TELL] * other if feather_seen(st, p, t) else 0.0
        ch = S.known_char(st, p, t)
        if ch >= 0 and S.evil(ch):
            return w[T.W_TELL] * other
        return w[T.W_ACCUSE] * other if st.kn[p, t, S.KN_SUSPECT] == 1 else 0.0
    v = -w[T.W_HIDE] * B.exposure_cost_if(tb, st, p, cls, t)
    if cls == B.C_SAY_FAMILY:
        return v + w[T.W_VOUCH]
    other = B.bel(st)[p, t, S.KN_BEL + B.BE_OTHER]
    if other < 0.5:
        return 0.0  # on its side, as far as it knows: never accused
    exposed = B.bel(st)[p, t, S.KN_BEL + B.BE_EXPOSED] > 0.0
    if exposed:  # a counter-accusation: it names the evidence the other could name
        return v + (w[T.W_LIE] if cls == B.C_SAY_FEATHER else 0.5 * w[T.W_LIE])
    return v + (0.25 * w[T.W_LIE] * other if cls == B.C_SAY_EVIL else 0.0)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_action(tb, st, p, n):
    """Index of the chosen candidate among the ``n`` in ``g[B_CAND:]``."""
    if scripted(tb, st, p, np.int64(4)):
        w0 = next_scripted(tb, st, p)
        w1 = next_scripted(tb, st, p)
        w2 = next_scripted(tb, st, p)
        w3 = next_scripted(tb, st, p)
        for i in range(n):
            b = S.B_CAND + 4 * i
            if (
                st.board[b] == w0
                and st.board[b + 1] == w1
                and st.board[b + 2] == w2
                and st.board[b + 3] == w3
            ):
                return i
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        return below(st.rng[2 + p], n)
    st.pl[p, S.PL_KE] = knows_enemy(st, p)  # read by the scores below, computed once
    # a reasoning seat on an evil side weighs what each action tells the table (beliefs.py)
    hides = st.pl[p, S.PL_REASON] != 0 and st.pl[p, S.PL_SIDE] != T.FAMILY
    best, best_v = 0, NEG
    for i in range(n):
        b = S.B_CAND + 4 * i
        v = score_action(tb, st, p, st.board[b], st.board[b + 1], st.board[b + 2], st.board[b + 3])
        if hides and v > NEG:
            v += _evil_reasoning(
                tb, st, p, st.board[b], st.board[b + 1], st.board[b + 2], st.board[b + 3]
            )
        v += noise(st, p)
        if v > best_v:
            best, best_v = i, v
    return best


# ---------------------------------------------------------------- cards to part with


@njit(cache=True, _nrt=False, forceinline=False)
def lowest_card(tb, st, p):
    """The free card of ``p``'s hand it values least (-1 none)."""
    best, best_v = -1, NEG
    for c in range(T.NC):
        if S.can_part(st, p, c):
            v = -card_value(tb, st, p, c) + noise(st, p)
            if v > best_v:
                best, best_v = c, v
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def random_free_card(st, p):
    n = np.int64(0)
    for c in range(T.NC):
        if S.can_part(st, p, c):
            n += st.pl[p, S.PL_HAND + c]
    if n == 0:
        return -1
    k = below(st.rng[2 + p], n)
    for c in range(T.NC):
        if S.can_part(st, p, c):
            k -= st.pl[p, S.PL_HAND + c]
            if k < 0:
                return c
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def choose_discard(tb, st, p):
    """A card ``p`` discards (to 4, to cycle, for Guestroom); ``p`` has a free card."""
    if scripted(tb, st, p, np.int64(1)):
        c = next_scripted(tb, st, p)
        if c < 0 or S.can_part(st, p, c):
            return c
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        return random_free_card(st, p)
    return lowest_card(tb, st, p)


@njit(cache=True, _nrt=False, forceinline=False)
def choose_bathroom(tb, st, p, done):
    """Bathroom: the next card to discard, or -1 to stop (``done`` discarded so far)."""
    if scripted(tb, st, p, np.int64(1)):
        c = next_scripted(tb, st, p)
        if c < 0 or S.can_part(st, p, c):
            return c
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        if coin(st, p):
            return -1
        return random_free_card(st, p)
    c = lowest_card(tb, st, p)
    if c >= 0 and card_value(tb, st, p, c) < 3.0:
        return c
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def choose_give(tb, st, p, q):
    """The card ``p`` passes to ``q`` in an exchange (RM-16: before seeing ``q``'s)."""
    if scripted(tb, st, p, np.int64(1)):
        c = next_scripted(tb, st, p)
        if c < 0 or S.can_part(st, p, c):
            return c
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        return random_free_card(st, p)
    me = st.pl[p, S.PL_CHAR]
    if S.possessor(me) and st.pl[p, S.PL_HAND + T.FEATHER] > 0 and S.alive(st, q):
        ch = known_char(st, p, q)
        if not gave_feather(st, p, q) and not (ch >= 0 and S.immune(ch)):
            if tb.weights[p, T.W_POSSESS] > 0:
                return T.FEATHER
    if st.pl[p, S.PL_HAND + T.PILLOW] > 0 and S.alive(st, q) and enemy(st, p, q):
        return T.PILLOW
    c = lowest_card(tb, st, p)
    if (
        c == T.FEATHER
        and S.possessor(me)
        and st.pl[p, S.PL_HAND + T.FEATHER] == 1
        and S.hand_n(st, p) > 1
    ):
        # keep the last Feather for a player it wants, unless it has nothing else
        best, best_v = -1, NEG
        for k in range(T.NC):
            if k != T.FEATHER and S.can_part(st, p, k):
                v = -card_value(tb, st, p, k)
                if v > best_v:
                    best, best_v = k, v
        if best >= 0:
            return best
    return c


@njit(cache=True, _nrt=False, forceinline=False)
def choose_pick(tb, st, p, n, purpose):
    """Index of the card ``p`` picks among the ``n`` of the pick list ``board[B_PICK:]``
    (Torch, Candle, Abandoned Mine, the Backpack, Drink), -1 for none where allowed (PK_STORE,
    PK_TAKE)."""
    cards = st.board[S.B_PICK : S.B_PICK + S.MAX_PICK]
    optional = purpose == PK_STORE or purpose == PK_TAKE
    if scripted(tb, st, p, np.int64(1)):  # the card to pick, -1 none
        c = next_scripted(tb, st, p)
        if c < 0 and optional:
            return -1
        for i in range(n):
            if cards[i] == c:
                return i
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        k = below(st.rng[2 + p], n + 1 if optional else n)
        return -1 if k == n else k
    best, best_v = -1, NEG
    for i in range(n):
        c = cards[i]
        v = card_value(tb, st, p, c)
        if purpose == PK_STORE:
            v = 1.0 if c == T.FEATHER and S.possessor(st.pl[p, S.PL_CHAR]) else -1.0
        elif purpose == PK_TAKE:
            v = 1.0 if c == T.FEATHER and st.pl[p, S.PL_HAND + T.FEATHER] == 0 else v - 5.0
        elif purpose == PK_DRINK:  # the target's card to throw away: its best
            v = card_value(tb, st, p, c)
        v += noise(st, p)
        if v > best_v:
            best, best_v = i, v
    if optional and best_v < 0:
        return -1
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def _reasoning_sacrifice(st, p, q):
    """Does a reasoning Shark Bouncer ``p`` die in ``q``'s place (RM-21)? Where it pays: on an
    evil side, for the possessor its side cannot lose (the one it knows possessed it, RM-11); on
    the Family's, for a player it trusts who has told the table whom it saw (a witness is worth
    more than the Shark)."""
    if st.pl[p, S.PL_SIDE] != T.FAMILY:
        return q == my_master(st, p)
    told = st.pl[q, S.PL_SAID] >> (S.CLAIM_FEATHER - 1) != 0  # a claim about another seat
    return trusted(st, p, q) and told


@njit(cache=True, _nrt=False, forceinline=False)
def choose_yes(tb, st, p, q, what):
    """A yes/no choice of ``p`` about ``q`` (Y_*)."""
    if scripted(tb, st, p, np.int64(1)):
        return next_scripted(tb, st, p) != 0
    if is_random(tb, st, p):
        return coin(st, p)
    rng = st.rng[2 + p]
    if what == Y_MULLIGAN:
        good = 0
        for c in range(T.NC):
            if card_value(tb, st, p, c) >= 5.0:
                good += st.pl[p, S.PL_HAND + c]
        return good < tb.seat[p, T.SP_MULLIGAN]
    if what == Y_BLUFF:
        return uniform(rng) < tb.weights[p, T.W_BLUFF]
    if what == Y_PILLOW:
        if trusted(st, p, q) or not S.alive(st, q):
            return False
        if enemy(st, p, q):
            return uniform(rng) < tb.weights[p, T.W_PILLOW]
        return uniform(rng) < tb.weights[p, T.W_PILLOW_UNKNOWN]
    if what == Y_FOREST:
        return enemy(st, p, q)
    if what == Y_INN:
        return trusted(st, p, q) or S.possessor(st.pl[p, S.PL_CHAR])
    if what == Y_SACRIFICE:
        if st.pl[p, S.PL_REASON] != 0:  # a reasoning Shark Bouncer (RM-21)
            return _reasoning_sacrifice(st, p, q)
        return trusted(st, p, q) and uniform(rng) < tb.weights[p, T.W_SACRIFICE]
    if what == Y_EEL_STUN:
        v = 0.0
        for c in range(T.NC):
            v += st.pl[p, S.PL_HAND + c] * card_value(tb, st, p, c)
        return v >= 4.0 * S.hand_n(st, p)
    if what == Y_VOTE_KILL:
        return enemy(st, p, q)
    if what == Y_BP_TAKE:
        return False
    if what == Y_MOUNTAIN_EVADE:
        return enemy(st, p, q)
    if what == Y_ANGLER_LOOK:
        return known_char(st, p, q) < 0 or S.hand_n(st, q) == 0
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def choose_target(tb, st, p, purpose, n):
    """The seat ``p`` chooses (``board[B_MASK + q]`` = 1 for the legal ones) for a death
    ability."""
    mask = st.board[S.B_MASK : S.B_MASK + T.MAXP]
    if scripted(tb, st, p, np.int64(1)):
        q = next_scripted(tb, st, p)
        if 0 <= q < n and mask[q]:
            return q
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, p):
        m = np.int64(0)
        for q in range(n):
            m += mask[q]
        k = below(st.rng[2 + p], m)
        for q in range(n):
            if mask[q]:
                if k == 0:
                    return q
                k -= 1
        return -1
    st.pl[p, S.PL_KE] = knows_enemy(st, p)
    best, best_v = -1, NEG
    for q in range(n):
        if not mask[q]:
            continue
        if purpose == T_KILL:
            v = _kill_value(tb, st, p, q)
        elif purpose == T_STUN or purpose == T_STUN_SWAP:
            v = _stun_value(tb, st, p, q)
        elif purpose == T_LOOK_CHAR:
            v = 1.0 if known_char(st, p, q) < 0 else 0.0
            v += 0.5 if S.alive(st, q) else 0.0
        elif purpose == T_WHALE:  # take a living enemy's place, never an evil card's
            ch = known_char(st, p, q)
            v = 1.0 if enemy(st, p, q) and S.alive(st, q) and not (ch >= 0 and S.evil(ch)) else 0.0
            if not S.alive(st, q):
                v = 0.5
        else:  # looks and reveals: the least known living player
            v = _look_value(tb, st, p, q) + (0.3 if enemy(st, p, q) else 0.0)
        v += noise(st, p)
        if v > best_v:
            best, best_v = q, v
    return best


# ---------------------------------------------------------------- reactions


@njit(cache=True, _nrt=False, forceinline=False)
def choose_reaction(tb, st, r, n_opts, lvl, protects):
    """The reaction ``r`` plays in the window of stack level ``lvl`` (``board[B_OPTS:]``, the
    ``n_opts`` fitting cards), -1 for none. Level ``lvl`` of the window stack
    (``board[B_STACK + 5 lvl:]``) is (card, player, cursor, cancelled, target) of the card
    answered; ``protects`` is the player a protective answer would save (or -1)."""
    opts = st.board[S.B_OPTS : S.B_OPTS + S.MAX_REACT]
    b = S.B_STACK + 5 * lvl
    if scripted(tb, st, r, np.int64(1)):  # the reaction card, -1 none
        c = next_scripted(tb, st, r)
        if c < 0:
            return -1
        for i in range(n_opts):
            if opts[i] == c:
                return c
        st.board[S.G_BAD_SCRIPT] = 1
    if is_random(tb, st, r):
        k = below(st.rng[2 + r], n_opts + 1)
        return -1 if k == n_opts else opts[k]
    card = st.board[b]
    owner = st.board[b + 1]
    target = st.board[b + 4]
    best, best_v = -1, 0.0
    for i in range(n_opts):
        c = opts[i]
        v = NEG
        if c == T.EVADE or c == T.DODGE or c == T.AVOID:
            v = tb.weights[r, T.W_SHIELD]
            if c == T.AVOID and not enemy(st, r, owner) and trusted(st, r, owner):
                v = -1.0
            if c == T.AVOID and S.possessor(st.pl[r, S.PL_CHAR]) and not enemy(st, r, owner):
                v = -1.0
        elif c == T.LIFEBUOY:
            v = tb.weights[r, T.W_SHIELD] if trusted(st, r, protects) else -1.0
        else:  # Rod, Rat Treachery: cancel the card answered
            v = _cancel_value(tb, st, r, card, owner, target, lvl)
            if c == T.RAT_TREACHERY:
                v = v + 0.05 if v > 0 else v
        if v > best_v:
            best, best_v = c, v
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def _cancel_value(tb, st, r, card, owner, target, lvl):
    """What cancelling ``card`` (played by ``owner`` at ``target``) is worth to ``r``."""
    w = tb.weights[r, T.W_CANCEL]
    if lvl > 0:
        # A reaction: it protects ``target`` (Evade, Dodge, Avoid, Lifebuoy) or cancels
        # ``target``'s card (Rod, Rat Treachery).
        if card == T.ROD or card == T.RAT_TREACHERY:
            return w if trusted(st, r, target) and target != owner else -1.0
        return w if enemy(st, r, target) else -1.0
    harmful = (
        card == T.AXE
        or card == T.KNIFE
        or card == T.BROKEN_BOTTLE
        or card == T.RIFLE
        or card == T.HARPOON
        or card == T.VASE
        or card == T.HAYMAKER
        or card == T.BOTTLE
        or card == T.MOUNTAINS
        or card == T.FOREST
    )
    if harmful and target >= 0 and trusted(st, r, target):
        return w
    if enemy(st, r, owner) and target >= 0 and trusted(st, r, target):
        return 0.8 * w
    return -1.0


# ---------------------------------------------------------------- the decision points

# The yes/no kinds' questions (choose_yes), the picks' purposes (choose_pick) and the targets'
# (choose_target), indexed by the D_* kind.
_YES = np.full(len(S.DECISIONS), -1, np.int64)
_YES[S.D_MOUNTAINS_BACK] = Y_MOUNTAIN_EVADE
_YES[S.D_MULLIGAN] = Y_MULLIGAN
_YES[S.D_BLUFF] = Y_BLUFF
_YES[S.D_SACRIFICE] = Y_SACRIFICE
_YES[S.D_PILLOW] = Y_PILLOW
_YES[S.D_FOREST] = Y_FOREST
_YES[S.D_INN] = Y_INN
_YES[S.D_ANGLER_LOOK] = Y_ANGLER_LOOK
_YES[S.D_EEL] = Y_EEL_STUN
_YES[S.D_VOTE] = Y_VOTE_KILL
_YES[S.D_CANDLE_KEEP] = PK_HAND
_YES[S.D_CANDLE_TOP] = PK_TOP
_YES[S.D_TORCH] = PK_HAND
_YES[S.D_MINE] = PK_MINE
_YES[S.D_STORE] = PK_STORE
_YES[S.D_TAKE] = PK_TAKE
_YES[S.D_DRINK] = PK_DRINK
_YES[S.D_KILL_TARGET] = T_KILL
_YES[S.D_LOOK_TARGET] = T_LOOK_CHAR
_YES[S.D_SWAP_TARGET] = T_SWAP
_YES[S.D_REVEAL_TARGET] = T_REVEAL_HAND
_YES[S.D_STUN_SWAP_TARGET] = T_STUN_SWAP
_YES[S.D_WHALE_TARGET] = T_WHALE
SUB_OF_KIND = _YES  # the Y_*, PK_* or T_* of a D_* kind (-1: none)


@njit(cache=True, _nrt=False, forceinline=True)
def choose(tb, st, work):
    """The code the acting seat's policy picks for the pending decision (engine.legal's codes)."""
    bd = st.board
    p = bd[S.G_ACTOR]
    kind = bd[S.G_KIND]
    q = bd[S.G_Q]
    n = bd[S.G_NOPT]
    if bd[S.G_BELIEFS] != 0:  # a reasoning seat decides from its belief now (beliefs.py)
        reasons = B.kind_now(tb, st, p) == T.POL_REASONING
        st.pl[p, S.PL_REASON] = 1 if reasons else 0
        if reasons:
            B.refresh_if(tb, st, p)
    if kind == S.D_ACTION or kind == S.D_USE or kind == S.D_GROGUS:
        return np.int64(choose_action(tb, st, p, n))
    if kind == S.D_REACT:
        c = choose_reaction(tb, st, p, n, bd[S.G_WIN_LVL], q)
        return np.int64(S.NO_CARD if c < 0 else c)
    if kind == S.D_MOUNTAINS_EVADE:
        c = choose_reaction(tb, st, p, np.int64(1), np.int64(1), p)
        return np.int64(S.NO_CARD if c < 0 else c)
    sub = SUB_OF_KIND[kind]
    if kind <= S.D_VOTE:
        return np.int64(1 if choose_yes(tb, st, p, q, sub) else 0)
    if kind == S.D_DISCARD:
        c = choose_discard(tb, st, p)
        return np.int64(S.NO_CARD if c < 0 else c)
    if kind == S.D_BATHROOM:
        c = choose_bathroom(tb, st, p, bd[S.G_SUB])
        return np.int64(S.NO_CARD if c < 0 else c)
    if kind == S.D_GIVE:
        c = choose_give(tb, st, p, q)
        return np.int64(S.NO_CARD if c < 0 else c)
    if kind <= S.D_DRINK:
        i = choose_pick(tb, st, p, n, sub)
        return np.int64(n if i < 0 else i)
    if kind == S.D_CLAIM:
        return np.int64(choose_claim(tb, st, p, n))
    return np.int64(choose_target(tb, st, p, sub, S.n_players(st)))
