"""Raven Manor game state: array layout, event codes and the card moves shared by the engine,
the policies and narrate.

Cards of one type are interchangeable, so every place holds *counts per card type*: a hand is
``pl[p, PL_HAND + c]``, the discard pile ``board[B_DISC + c]``, the Rooms and Locations in play
``board[B_INPLAY + c]`` (shared by every player), Barricades ``board[B_BARR + c]`` on them, a
Backpack's stored cards ``pl[p, PL_BP + c]``, the removed cards ``board[B_REMOVED + c]``; only the
draw deck has an order (``deck[:board[G_DECK_N]]``, top last). A stunned player's stunning card
lies in front of them (``PL_STUN_CARD``) and a played Backpack in front of its owner
(``PL_BACKPACKS``), so that every card is in exactly one place (the conservation invariant test
counts them).

::

    pl    int64[MAXP, N_PL]          per seat: character, life, side, stun, ring position,
                                     counts, then hand[NC], backpack[NC], telemetry[N_TELE]
    board int64[N_BOARD]             game scalars G_*, then the pieces B_*: discard[NC],
                                     in play[NC], barricades[NC], removed[NC], misses[NC],
                                     ring[MAXP] (seat at each position), the death stack, scratch
    deck  int64[deck size]           card ids, top = deck[board[G_DECK_N] - 1]
    kn    int64[MAXP, MAXP, N_KN]    kn[q, p]: what seat q knows of seat p (RM-11): its
                                     character (-1 unknown), hard evidence, the cards q saw in
                                     p's hand (and when), what q gave p and received from p
    rng   uint64[2 + MAXP, 1]        0 characters and first player, 1 the deck, 2 + p seat p
    log   int32[rows, 8]             the event log of a replay (0 rows in the batch kernel)

Every integer of the state (and of ``Work``, the scratch of ``engine.play_game`` that
``alloc_work`` allocates once per block of ``BLOCK_GAMES`` games) is int64, like numba's integer
literals and loop counters, so that each kernel function is compiled for one signature only (a
helper called with an int32 from an array at one site and an int64 at another would be compiled
twice); only the event log is int32 (``_kit.LOG_WIDTH`` columns, as every game's).

``END_REASONS`` (with the ``END_*`` codes the kernels write) and ``EXTRA_COLUMNS`` name the
values of ``Chunk.end_reason`` and the columns of ``Chunk.extra``.

Policies read only ``pl[p]`` of their own seat, ``kn[p]``, and the public parts of the state
(who is alive, revealed characters, stuns, the ring, cards in play, the discard pile, hand sizes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from balance.games import _kit as kit
from balance.games.raven_manor import tables as T

# State.pl[p, PL_*]
_pl = kit.Offsets()
PL_CHAR = _pl(1)  # character card held now (RM-15: Lady Whale swaps them)
PL_DEALT = _pl(1)  # character dealt (Chunk.role)
PL_ALIVE = _pl(1)
PL_REVEALED = _pl(1)  # character revealed to everyone
PL_SIDE = _pl(1)  # FAMILY, S_RAVEN, S_HORSEMAN, S_CTHULHU (RM-22)
PL_POSSESSED = _pl(1)  # side of the possessor serving, -1 none (RM-6)
PL_POSS_TURN = _pl(1)  # turn first possessed, -1 never
PL_DEATH_TURN = _pl(1)  # turn of death, -1 alive
PL_CAUSE = _pl(1)  # tables.D_* of the death, 0 alive
PL_KILLS = _pl(1)
PL_STUNS = _pl(1)
PL_STUNNED = _pl(1)  # 1 while stunned (skips its next turn, RM-4)
PL_STUN_CARD = _pl(1)  # the card that stunned it, lying in front of it; -1 none
PL_SKIP = _pl(1)  # Forest: the consenting player skips its next turn
PL_SAFE_KILL = _pl(1)  # turn + 1 during which it cannot be killed (Evade, Lifebuoy)
PL_SAFE_STUN = _pl(1)  # turn + 1 during which it cannot be stunned (Dodge, Lifebuoy)
PL_POS = _pl(1)  # its position on the ring (order tokens, RM-12)
PL_HAND_N = _pl(1)
PL_BP_N = _pl(1)  # cards stored in its Backpacks
PL_BACKPACKS = _pl(1)  # Backpacks in front of it
PL_FEATHER_DISC = _pl(1)  # Feathers it discarded publicly on drawing (RM-13)
PL_KE = _pl(1)  # policy scratch: living players it knows are enemies (policies.knows_enemy)
PL_SCRIPT = _pl(1)  # POL_SCRIPT: scripted values used so far
PL_EVIL_LOST = _pl(1)  # 1: an evil character that died (RM-22: joins the Family, cannot win)
PL_REASON = _pl(1)  # 1 while it plays a reasoning policy (it keeps beliefs: beliefs.py)
PL_SAID = _pl(1)  # the claims it made at the table (ENGINE-15): bit (code - 1) of each code said
PL_HAND = _pl(T.NC)  # + card: copies in hand
PL_BP = _pl(T.NC)  # + card: copies stored in its Backpacks (RM-25)
PL_TELE = _pl(T.N_TELE)  # + telemetry column (tables.TE_*)
N_PL = _pl.end

# kn[q, p, KN_BEL:]: what q believes of p (beliefs.py), float64 bits in int64 cells (read and
# written through ``kn.view(np.float64)``: a seventh array in the State would make every call
# that passes it slower, and a config without a reasoning seat never reads them)
N_BEL = 26  # beliefs.N_BEL: evidence, marginals, the policy's reading, scratch

# State.kn[q, p, KN_*]: what q knows of p.
_k = kit.Offsets()
KN_CHAR = _k(1)  # p's character card as q last saw it, -1 unknown
KN_FEATHER = _k(1)  # turn + 1 when q last saw a Feather in p's hand, 0 never
KN_GAVE_F = _k(1)  # p gave q a Feather in an exchange (p possesses: RM-6)
KN_SEEN = _k(1)  # turn + 1 when q last saw p's whole hand, 0 never
KN_HAND = _k(T.NC)  # + card: copies q saw in p's hand then (and gave p since)
KN_RECV = _k(T.NC)  # + card: copies q received from p in exchanges
KN_GAVE = _k(T.NC)  # + card: copies q gave p in exchanges
KN_SUSPECT = _k(
    1
)  # a reasoning q's reading of its belief (beliefs.refresh): 1 an enemy, -1 trusted
KN_BEL = _k(N_BEL)  # + i: q's belief about p (beliefs.py), float64 bits
N_KN = _k.end

MAX_CAND = 512  # candidate actions a decision can have (B_CAND)
MAX_STACK = 16  # window stack levels (engine.s_window)
MAX_REACT = 8  # reactions one responder may have at once (6 reaction cards)
MAX_PICK = 64  # cards of one pick (Torch and the Mine reveal at most 20, a hand's types 42)
MAX_CALL = 24  # nested procedures (the deepest chain is 7)
N_TMP = 64  # cells of small scratch (B_TMP)

# State.board: the game's scalars G_*, then its pieces B_* (the card places, the ring) and scratch.
_b = kit.Offsets()
G_N = _b(1)  # players
G_TURN = _b(1)  # turns played so far
G_ACTIVE = _b(1)
G_FIRST = _b(1)
G_END = _b(1)  # END_* (0: playing)
G_DECK_N = _b(1)
G_DISC_N = _b(1)
G_LOG_N = _b(1)
G_OVER = _b(1)  # 1: the active player's turn ends now (RM-20)
G_NEXT = _b(1)  # the player who takes the next turn (Rat Treachery), -1: the ring decides
G_DEATHS_N = _b(1)  # seats on the death stack
G_DEPTH = _b(1)  # death abilities resolved so far (the queue's head)
G_BAD_SCRIPT = _b(1)  # a scripted action that was not legal (tests assert 0)
G_HOLD = _b(1)  # 1 while simultaneous deaths or a random Feather move resolve (end judged after)
G_GEN = _b(1)  # reshuffles of the discard pile into the deck so far
G_BELIEFS = _b(1)  # 1: the game keeps beliefs (tables.P_BELIEFS) in kn[:, :, KN_BEL:]
# The continuation (engine.py, "Decision points"): the pending decision, the call stack of the
# engine's procedures and each procedure's registers (no procedure is ever active twice at once,
# so each has one fixed block: its program counter G_<PROC>_PC and its locals).
G_ACTOR = _b(1)  # the seat that must decide, -1 none
G_KIND = _b(1)  # the pending decision's D_* kind, -1 none
G_Q = _b(1)  # the other seat the question is about (or the seat a reaction protects), -1 none
G_NOPT = _b(1)  # the size of the decision's list (candidates, picks, reactions)
G_SUB = _b(1)  # a detail of the question (D_DISCARD: why; D_BATHROOM: cards discarded so far)
G_ANS = _b(1)  # the code applied to the last decision (read when the engine resumes)
G_SP = _b(1)  # procedures on the call stack (B_CALL); 0: nothing to run (game over)
G_RV = _b(1)  # the last procedure's return value
G_RV2 = _b(1)  # its second return value (P_USE: the option)
G_GAME_PC, G_GAME_A = _b(1), _b(1)
G_OPEN_PC, G_OPEN_I, G_OPEN_P, G_OPEN_K, G_OPEN_M = _b(1), _b(1), _b(1), _b(1), _b(1)
G_FIX_PC, G_FIX_P, G_FIX_K, G_FIX_IT = _b(1), _b(1), _b(1), _b(1)
G_DRAW_PC, G_DRAW_P, G_DRAW_IT, G_DRAW_C = _b(1), _b(1), _b(1), _b(1)
G_REFILL_PC, G_REFILL_P = _b(1), _b(1)
G_WIN_PC, G_WIN_A, G_WIN_CARD, G_WIN_FH, G_WIN_EFF = _b(1), _b(1), _b(1), _b(1), _b(1)
G_WIN_T, G_WIN_K, G_WIN_LVL, G_WIN_TURN1 = _b(1), _b(1), _b(1), _b(1)
G_KILL_PC, G_KILL_KILLER, G_KILL_T, G_KILL_CAUSE, G_KILL_S = _b(1), _b(1), _b(1), _b(1), _b(1)
G_TRADE_PC, G_TRADE_A, G_TRADE_B, G_TRADE_KIND = _b(1), _b(1), _b(1), _b(1)
G_TRADE_CA, G_TRADE_CB = _b(1), _b(1)
G_PILLOW_PC, G_PILLOW_GIVER, G_PILLOW_RECV = _b(1), _b(1), _b(1)
G_DRINK_PC, G_DRINK_A, G_DRINK_T = _b(1), _b(1), _b(1)
G_USE_PC, G_USE_P, G_USE_C, G_USE_LIVING = _b(1), _b(1), _b(1), _b(1)
G_MNT_PC, G_MNT_A, G_MNT_T = _b(1), _b(1), _b(1)
G_CARD_PC, G_CARD_A, G_CARD_C, G_CARD_T, G_CARD_O = _b(1), _b(1), _b(1), _b(1), _b(1)
G_CARD_FH, G_CARD_ENT, G_CARD_LIVING, G_CARD_STATUS = _b(1), _b(1), _b(1), _b(1)
G_CARD_K, G_CARD_J, G_CARD_X, G_CARD_NXT = _b(1), _b(1), _b(1), _b(1)
G_CHAIN_PC, G_CHAIN_IT, G_CHAIN_A, G_CHAIN_C, G_CHAIN_T = _b(1), _b(1), _b(1), _b(1), _b(1)
G_CHAIN_O, G_CHAIN_FH, G_CHAIN_ENT, G_CHAIN_LIVING = _b(1), _b(1), _b(1), _b(1)
G_WEAP_PC, G_WEAP_V, G_WEAP_CH, G_WEAP_CARD, G_WEAP_T = _b(1), _b(1), _b(1), _b(1), _b(1)
G_DEATH_PC, G_DEATH_V, G_DEATH_CH, G_DEATH_T, G_DEATH_I = _b(1), _b(1), _b(1), _b(1), _b(1)
G_DEATH_KILLS, G_DEATH_MINE = _b(1), _b(1)
G_DEATHS_PC = _b(1)
G_ACT_PC, G_ACT_A, G_ACT_KIND, G_ACT_C, G_ACT_T = _b(1), _b(1), _b(1), _b(1), _b(1)
G_ACT_O, G_ACT_LIVING, G_ACT_J = _b(1), _b(1), _b(1)
G_EXCH_PC, G_EXCH_A = _b(1), _b(1)
G_TURN_PC, G_TURN_A = _b(1), _b(1)
G_TURN_LOOP = _b(1)  # 1: P_TURN plays the following turns too (the game), 0: one turn
G_PLAN = _b(1)  # a policy's plan for the pending compound choice (unused: none is planned)
N_G_RESET = _b.end  # board[:N_G_RESET] is cleared for every game
G_LOG_CAP = _b(1)
G_LOG0 = _b(1)
B_DISC = _b(T.NC)  # + card
B_INPLAY = _b(T.NC)  # + room or location
B_BARR = _b(T.NC)  # + room: Barricades on it (RM-17)
B_REMOVED = _b(T.NC)  # + card: removed from the game (Abandoned Mine)
B_MISS = _b(T.NC)  # + card: G_GEN + 1 when a search of the deck found none (public: RM-9)
B_RING = _b(T.MAXP)  # + position: seat there
B_DEATHS = _b(T.MAXP * 4)  # the death stack (seats whose death ability is pending)
B_RESP = _b(T.MAXP)  # a window's responders in the order they are asked
B_STACK = _b(5 * MAX_STACK)  # + 5 level: the window stack (card, player, cursor, status, target)
B_OPTS = _b(MAX_REACT)  # + i: the reactions the pending D_REACT offers (engine.fitting's order)
B_PICK = _b(MAX_PICK)  # + i: the cards of the pending pick (revealed, looked at, stored, ...)
B_MASK = _b(T.MAXP)  # + seat: 1 for the seats the pending target decision may choose
B_CALL = _b(MAX_CALL)  # + i: the call stack of the engine's procedures (P_* ids)
B_CAND = _b(4 * MAX_CAND)  # + 4 i: candidate actions (kind, card, target, option)
B_TMP = _b(N_TMP)  # + i: small scratch (revealed cards, votes, ...)
N_BOARD = _b.end

BLOCK_GAMES = 64  # games per block of the batch kernel (state allocated once per block)

# End reasons (Chunk.end_reason indexes END_REASONS; board[G_END] holds index + 1, 0 = still
# playing) and the int32 per-seat columns of Chunk.extra.
END_REASONS: tuple[str, ...] = ("family", "raven", "horseman", "cthulhu", "turn_cap")
END_FAMILY, END_RAVEN, END_HORSEMAN, END_CTHULHU, END_CAP = range(1, len(END_REASONS) + 1)
EXTRA_COLUMNS: tuple[str, ...] = ("alive", "death_turn", "possessed_turn", "kills", "stuns")


# The trajectory a game records (kit.Outputs' ``trace``; docs/rules/raven_manor.md "How a game
# went: the trajectory"): each seat's measures at point 0 (after the opening), at the end of each
# round (``players`` turns, every seat's, skipped and dead seats' included: the turns G_TURN
# counts) and at the game's end. The first is the seat's standing: 1 alive, 0 dead (the score
# column at the end); then its side now (PL_SIDE, the index into TEAM_NAMES that Chunk.team holds
# at the end) and 1 while it holds an evil character card (the Raven, the Headless Horseman,
# Cthulhu Gentleman: the card whose holder's death takes its side out of the game, RM-22).
TRACE_MEASURES: tuple[str, ...] = ("alive", "team", "evil_character")
N_TRACE = len(TRACE_MEASURES)
TR_ALIVE, TR_TEAM, TR_EVIL = range(N_TRACE)


def trace_cap(tb) -> int:
    """The most trajectory points a game of these tables records: point 0, then one a round of
    ``players`` turns begun, and a game plays at most ``turn_cap`` turns (RM-10), so
    1 + ceil(turn_cap / players) (``alloc_work`` sizes ``Work.trace`` the same)."""
    n = int(tb.params[T.P_PLAYERS])
    return 1 + -(-int(tb.params[T.P_TURN_CAP]) // n)


# Decision points (engine.py "Decision points", docs/rules/raven_manor.md "## Decisions"): the
# kind of the pending decision (board[G_KIND]) indexes DECISIONS.
DECISIONS: tuple[str, ...] = (
    "action",  # the turn's action (RM-4): an index into the candidates B_CAND
    "use",  # target and option of a card an effect plays (Manor Plan, Compass, Coast, Eagle, ...)
    "grogus",  # Grogus's death ability: a card of the discard pile and its use
    "react",  # a reaction in a window (RM-19): a fitting card, or none
    "mountains_evade",  # the Mountains' target: Evade, or none (RM-28)
    "mountains_back",  # the Mountains' attacker: Evade back so that both die (RM-28)
    "mulligan",  # RM-3: take a mulligan
    "bluff",  # RM-3, RM-6, RM-18: the Raven discards a Feather it drew
    "sacrifice",  # Shark Bouncer dies in the target's place
    "pillow",  # RM-8: reveal the Pillow just passed
    "forest",  # RM-24: consent to the Forest's kill
    "inn",  # The Inn: accept a face-down card
    "angler_look",  # Angler Photographer: look at the character (yes) or the hand (no)
    "eel",  # Eel Fella: be stunned (yes) or discard the hand (no)
    "vote",  # Mayor Groundhog: vote to kill (yes) or to stun (no), RM-24
    "discard",  # a card to discard (to the hand size, to cycle, Guestroom)
    "bathroom",  # Bathroom: the next card to discard, or stop
    "give",  # the card given in an exchange or at The Inn (RM-16)
    "candle_keep",  # Candle: the card into hand (an index into B_PICK)
    "candle_top",  # Candle: the card back on top of the deck
    "torch",  # Torch: the card into hand
    "mine",  # Abandoned Mine: the next card into hand
    "store",  # Backpack: the next card to store, or stop (RM-25)
    "take",  # a card from the Backpack instead of the draw, or draw (RM-25)
    "drink",  # Drink, Zaku's Camera, Angler: the target's card it discards (RM-26)
    "kill_target",  # a death ability's kill (Boar, Doc, Pike, Lumbearjack, Wolf, Mayor's vote)
    "look_target",  # a death ability's look at a character (Angler, Squirrel)
    "swap_target",  # Bunny: whom to swap seats with
    "reveal_target",  # Catfish: whose hand is shown to everyone
    "stun_swap_target",  # Crayfish Docker: whom to stun and swap hands with
    "whale_target",  # Lady Whale: whom to swap characters with (RM-15)
    "claim",  # table talk (ENGINE-15, rules.talk): a public claim before the turn's action
)
(
    D_ACTION,
    D_USE,
    D_GROGUS,
    D_REACT,
    D_MOUNTAINS_EVADE,
    D_MOUNTAINS_BACK,
    D_MULLIGAN,
    D_BLUFF,
    D_SACRIFICE,
    D_PILLOW,
    D_FOREST,
    D_INN,
    D_ANGLER_LOOK,
    D_EEL,
    D_VOTE,
    D_DISCARD,
    D_BATHROOM,
    D_GIVE,
    D_CANDLE_KEEP,
    D_CANDLE_TOP,
    D_TORCH,
    D_MINE,
    D_STORE,
    D_TAKE,
    D_DRINK,
    D_KILL_TARGET,
    D_LOOK_TARGET,
    D_SWAP_TARGET,
    D_REVEAL_TARGET,
    D_STUN_SWAP_TARGET,
    D_WHALE_TARGET,
    D_CLAIM,
) = range(len(DECISIONS))
# The most options a decision point has: the candidate lists (D_ACTION, D_USE, D_GROGUS) are
# capped at MAX_CAND by engine.add_cand; every other list is shorter (a card type each, 42 + 1
# for "none"; a pick of at most MAX_PICK cards + 1; a seat each, 12; yes/no, 2).
MAX_OPTIONS = MAX_CAND
NO_CARD = T.NC  # the code of "no card" (no reaction, stop the Bathroom)
# Table talk's claims (D_CLAIM codes, ENGINE-15): say nothing; "I am Family"; "I saw a Feather in
# seat x's hand" (CLAIM_FEATHER + x); "seat x is evil" (CLAIM_EVIL + x: the Raven, the Horseman,
# Cthulhu or one of their possessed).
CLAIM_NONE = 0
CLAIM_FAMILY = 1
CLAIM_FEATHER = 2
CLAIM_EVIL = 2 + T.MAXP
N_CLAIM_CODES = 2 + 2 * T.MAXP

# Log events (narrate.py): code, then up to seven integers.
(
    E_START,  # players, first, deck size
    E_DEAL,  # p, character, position
    E_OPEN,  # p, feathers redrawn, mulligan (1 if taken)
    E_TURN,  # p, turn, hand size, alive, side, stunned
    E_SKIP,  # p, why (0 stunned, 1 Forest consent: the turn; 2 stunned in its turn: the exchange)
    E_ACTION,  # p, kind, card, target, option
    E_REACT,  # p, reaction card, level, answering card, against player
    E_CANCEL,  # p (whose card), card, by card
    E_KILL_SAVED,  # target, why (0 safe this turn, 1 already dead)
    E_DEATH,  # p, character, cause, killer (-1), turn
    E_SACRIFICE,  # shark, saved target
    E_STUN,  # p, by, card
    E_SWAP,  # a, b, new position of a, new position of b
    E_XCHG,  # a, b, card a gave, card b gave, kind (0 end-of-turn, 1 card, 2 inn, 3 hand swap)
    E_SHOW,  # p (hand shown), to (-1 everyone), cards in hand
    E_LOOK_CHAR,  # q, p, character
    E_POSSESS,  # p, by side, giver
    E_FREED,  # p (lost its last Feather: no longer possessed)
    E_PILLOW,  # giver, receiver
    E_DRAW,  # p, card (the card drawn; Feathers discarded on draw logged as E_FEATHER)
    E_FEATHER,  # p (discarded a drawn Feather), bluff (1: a possessor's choice)
    E_DISCARD,  # p, card, why (0 refill, 1 cycle, 2 effect)
    E_SEARCH,  # p, card searched for, found (1/0), where (0 deck, 1 discard)
    E_TAKE,  # p, from, card (a random take)
    E_INPLAY,  # p, room or location, 1 entering play / 0 removed
    E_BARRICADE,  # p, room, 1 placed / 0 broken
    E_ABILITY,  # p (dead), character, target, option
    E_VOTE,  # mayor, target, kills votes, stuns votes, result (0 kill, 1 stun)
    E_EEL,  # p, choice (0 stunned, 1 discarded hand)
    E_CONSENT,  # asker, asked, yes, kind (0 Forest, 1 Inn)
    E_BACKPACK,  # p, card, 1 stored / 0 taken
    E_WHALE,  # whale seat, other seat, character it takes
    E_SIDE,  # p, new side (RM-22: a dead possessor's possessed move)
    E_END,  # reason, turns
    E_PICK,  # p, card, source card (a card a Candle, Torch or Abandoned Mine puts into hand)
    E_CLAIM,  # p, claim code (CLAIM_*: what it said at the table, ENGINE-15)
) = range(36)


class State(NamedTuple):
    """One game in progress (see the layout above)."""

    pl: np.ndarray
    board: np.ndarray
    deck: np.ndarray
    kn: np.ndarray
    rng: np.ndarray
    log: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_state(tb, log_cap):
    board = np.zeros(N_BOARD, np.int64)
    board[G_LOG_CAP] = log_cap
    board[G_LOG0] = 0
    return State(
        np.zeros((T.MAXP, N_PL), np.int64),
        board,
        np.zeros(max(1, tb.params[T.P_DECK_N]), np.int64),
        np.zeros((T.MAXP, T.MAXP, N_KN), np.int64),
        np.zeros((2 + T.MAXP, 1), np.uint64),
        np.zeros((max(1, log_cap), 8), np.int32),
    )


class Work(NamedTuple):
    """The scratch of ``engine.play_game`` (``alloc_work``), allocated once per block of games."""

    stack: np.ndarray  # int64[MAX_STACK, 5]: window stack rows (card, player, cursor, cancelled,
    #                    target), engine.window
    opts: np.ndarray  # int64[8]: the reactions a responder may answer with (engine.window)
    pick: np.ndarray  # int64[512]: a pick list (cards dealt, revealed or chosen among)
    mask: np.ndarray  # int64[MAXP]: the seats a death ability may target (engine.target_mask)
    # int64[trace_cap(tb), MAXP, N_TRACE]: the game's trajectory so far, point k in
    # row k (engine.trace_point; engine.record_trace copies it out). Here, not in the State, so
    # that copy_state (a search copies States thousands of times a decision) never copies it.
    trace: np.ndarray


@njit(cache=True, forceinline=False)
def alloc_work(tb):
    """A ``Work`` for games of the tables ``tb`` (its sizes are the layout's, not the config's,
    but for the trajectory's rows: ``trace_cap(tb)``)."""
    n = tb.params[T.P_PLAYERS]
    rows = 1 + (tb.params[T.P_TURN_CAP] + n - 1) // n
    return Work(
        np.zeros((MAX_STACK, 5), np.int64),
        np.zeros(8, np.int64),
        np.zeros(512, np.int64),
        np.zeros(T.MAXP, np.int64),
        np.zeros((rows, T.MAXP, N_TRACE), np.int64),
    )


@njit(cache=True, forceinline=False)
def copy_state(src, dst):
    """Copy the game ``src`` into the same-shaped ``dst`` in place (the continuation, the random
    streams and the log rows in use included). ``dst`` keeps its own log room (the smaller of
    the two): a search's scratch State has none, and a copy of a logged game must not write its
    events past the end of a log it does not have."""
    cap = dst.board[G_LOG_CAP]
    n = src.board[G_N]
    if dst.board[G_N] == n:
        # ``dst`` holds a game of as many seats, so past them both hold what the deal wrote
        # there (nothing but the deal and the re-deal, which writes the same, touches a seat
        # row or a knowledge pair past the players): only the seats in play are copied, a
        # fifth of the whole in a five-player game (the search copies a State every iteration)
        dst.pl[:n, :] = src.pl[:n, :]
        dst.kn[:n, :n, :] = src.kn[:n, :n, :]
    else:
        dst.pl[:, :] = src.pl
        dst.kn[:, :, :] = src.kn
    dst.board[:] = src.board
    dst.board[G_LOG_CAP] = min(cap, src.board[G_LOG_CAP])
    dst.deck[:] = src.deck
    dst.rng[:, :] = src.rng
    for i in range(min(src.board[G_LOG_N], dst.log.shape[0])):
        for j in range(src.log.shape[1]):
            dst.log[i, j] = src.log[i, j]


@njit(cache=True, _nrt=False, forceinline=False)
def pending(st):
    """(actor, D_* kind) of the pending decision; (-1, -1) when none is pending."""
    k = st.board[G_KIND]
    if k < 0:
        return np.int64(-1), np.int64(-1)
    return np.int64(st.board[G_ACTOR]), np.int64(k)


@njit(cache=True, _nrt=False, inline="always")
def emit(st, code, a, b, c, d, e, f, h):
    """Log event ``code`` (E_*) with seven integers. Its 73 call sites pass literal constants, so
    it casts them and calls ``log_row`` (compiled once, inlined by LLVM): numba compiles a function
    again for every combination of literal values it is called with, and copying the log's branch
    into each site (as ``inline="always"`` would) costs seconds of cold compile."""
    log_row(st, np.int64(code), np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e),
            np.int64(f), np.int64(h))  # fmt: skip


@njit(cache=True, _nrt=False, forceinline=True)
def log_row(st, code, a, b, c, d, e, f, h):
    """``emit``'s row, all int64."""
    kit.log_event(st.board, st.log, G_LOG_N, G_LOG_CAP, G_LOG0, code, a, b, c, d, e, f, h)


def log_rows(st: State) -> np.ndarray:
    return kit.copy_log(st.log, 0, int(st.board[G_LOG_N]))


# ---------------------------------------------------------------- small facts


@njit(cache=True, _nrt=False, inline="always")
def tele(st, p, col, n):
    st.pl[p, PL_TELE + col] += n


@njit(cache=True, _nrt=False, forceinline=False)
def n_players(st):
    return np.int64(st.board[G_N])


@njit(cache=True, _nrt=False, forceinline=False)
def known_char(st, q, p):
    """The character ``q`` knows ``p`` holds (its own, a revealed one, or its memory, RM-11), -1
    unknown."""
    if p == q or st.pl[p, PL_REVEALED] != 0:
        return st.pl[p, PL_CHAR]
    return st.kn[q, p, KN_CHAR]


@njit(cache=True, _nrt=False, forceinline=False)
def claim_count(st, a):
    """How many claims ``a`` may make (ENGINE-15; engine.claims lists them): say nothing, "I am
    Family", and two about each other living seat."""
    k = np.int64(2)
    for x in range(n_players(st)):
        if x != a and st.pl[x, PL_ALIVE] != 0:
            k += 2
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def claim_at(st, a, i):
    """The code of ``a``'s claim number ``i`` in engine.claims' order."""
    if i < 2:
        return np.int64(i)
    j = i - 2
    for base in (CLAIM_FEATHER, CLAIM_EVIL):
        for x in range(n_players(st)):
            if x != a and st.pl[x, PL_ALIVE] != 0:
                if j == 0:
                    return np.int64(base + x)
                j -= 1
    return np.int64(CLAIM_NONE)


@njit(cache=True, _nrt=False, forceinline=False)
def alive(st, p):
    return st.pl[p, PL_ALIVE] != 0


@njit(cache=True, _nrt=False, forceinline=False)
def immune(ch):
    """RM-22: characters a Feather cannot possess."""
    return ch == T.RAVEN or ch == T.HORSEMAN or ch == T.CTHULHU or ch == T.DOC


@njit(cache=True, _nrt=False, forceinline=False)
def possessor(ch):
    """RM-6: characters whose Feathers possess (the Raven, the Headless Horseman)."""
    return ch == T.RAVEN or ch == T.HORSEMAN


@njit(cache=True, _nrt=False, forceinline=False)
def evil(ch):
    """RM-22: the evil characters (the Family wins when all of them are dead)."""
    return ch == T.RAVEN or ch == T.HORSEMAN or ch == T.CTHULHU


@njit(cache=True, _nrt=False, forceinline=False)
def own_side(ch):
    """The side a character card is on before any possession."""
    if ch == T.RAVEN:
        return T.S_RAVEN
    if ch == T.HORSEMAN:
        return T.S_HORSEMAN
    if ch == T.CTHULHU:
        return T.S_CTHULHU
    return T.FAMILY


@njit(cache=True, _nrt=False, forceinline=False)
def seat_at(st, pos):
    n = n_players(st)
    return np.int64(st.board[B_RING + (pos % n + n) % n])


@njit(cache=True, _nrt=False, forceinline=False)
def left(st, p):
    """The next seat clockwise (the next in turn order)."""
    return seat_at(st, st.pl[p, PL_POS] + 1)


@njit(cache=True, _nrt=False, forceinline=False)
def right(st, p):
    return seat_at(st, st.pl[p, PL_POS] - 1)


@njit(cache=True, _nrt=False, forceinline=False)
def adjacent(st, p, q):
    """RM-12: the seats immediately left and right of ``p`` (dead ones included)."""
    return q != p and (left(st, p) == q or right(st, p) == q)


@njit(cache=True, _nrt=False, forceinline=False)
def hand_n(st, p):
    return np.int64(st.pl[p, PL_HAND_N])


@njit(cache=True, _nrt=False, inline="always")
def has(st, p, c):
    return st.pl[p, PL_HAND + c] > 0


@njit(cache=True, _nrt=False, forceinline=False)
def keeps_feathers(st, p):
    """RM-6: a possessed, non-immune player cannot give away or discard a Feather."""
    return st.pl[p, PL_POSSESSED] >= 0 and not immune(st.pl[p, PL_CHAR])


@njit(cache=True, _nrt=False, forceinline=False)
def can_part(st, p, c):
    """May ``p`` choose to give or discard card ``c`` from hand?"""
    if st.pl[p, PL_HAND + c] <= 0:
        return False
    return c != T.FEATHER or not keeps_feathers(st, p)


@njit(cache=True, _nrt=False, forceinline=False)
def free_cards(st, p):
    """Cards of ``p``'s hand it may choose to give or discard."""
    n = hand_n(st, p)
    if keeps_feathers(st, p):
        n -= st.pl[p, PL_HAND + T.FEATHER]
    return n


@njit(cache=True, _nrt=False, inline="always")
def add_hand(st, p, c):
    st.pl[p, PL_HAND + c] += 1
    st.pl[p, PL_HAND_N] += 1


@njit(cache=True, _nrt=False, inline="always")
def take_hand(st, p, c):
    st.pl[p, PL_HAND + c] -= 1
    st.pl[p, PL_HAND_N] -= 1


@njit(cache=True, _nrt=False, inline="always")
def discard_card(st, c):
    st.board[B_DISC + c] += 1
    st.board[G_DISC_N] += 1


@njit(cache=True, _nrt=False, forceinline=False)
def show_hand(st, q, p):
    """RM-11: ``q`` sees ``p``'s whole hand (a look, or a hand shown to it)."""
    if q == p:
        return
    turn1 = st.board[G_TURN] + 1
    st.kn[q, p, KN_SEEN] = turn1
    for c in range(T.NC):
        st.kn[q, p, KN_HAND + c] = st.pl[p, PL_HAND + c]
    if st.pl[p, PL_HAND + T.FEATHER] > 0:
        st.kn[q, p, KN_FEATHER] = turn1


@njit(cache=True, _nrt=False, forceinline=False)
def reveal_hand(st, p):
    """RM-11: ``p``'s hand is shown to everyone."""
    for q in range(n_players(st)):
        show_hand(st, q, p)


@njit(cache=True, _nrt=False, forceinline=False)
def reveal_char(st, p):
    """RM-5, RM-11: ``p``'s character card is turned face up for everyone."""
    st.pl[p, PL_REVEALED] = 1
    ch = st.pl[p, PL_CHAR]
    for q in range(n_players(st)):
        st.kn[q, p, KN_CHAR] = ch


@njit(cache=True, _nrt=False, forceinline=False)
def living_possessor(st, side):
    """The living seat holding the possessor card of ``side`` (S_RAVEN, S_HORSEMAN), -1 none."""
    ch = T.RAVEN if side == T.S_RAVEN else T.HORSEMAN
    for p in range(n_players(st)):
        if st.pl[p, PL_CHAR] == ch and alive(st, p):
            return p
    return -1


@njit(cache=True, _nrt=False, forceinline=False)
def cards_total(st):
    """Every card of the game, counted over all its places (the conservation invariant)."""
    n = np.int64(st.board[G_DECK_N]) + st.board[G_DISC_N]
    for c in range(T.NC):
        n += st.board[B_INPLAY + c] + st.board[B_BARR + c] + st.board[B_REMOVED + c]
    for p in range(n_players(st)):
        n += st.pl[p, PL_HAND_N] + st.pl[p, PL_BP_N] + st.pl[p, PL_BACKPACKS]
        if st.pl[p, PL_STUN_CARD] >= 0:
            n += 1
    return n


def card_counts(st: State) -> np.ndarray:
    """Copies of each card type in every place together (int64[NC]; tests)."""
    n = int(st.board[G_N])
    out = np.zeros(T.NC, np.int64)
    for c in st.deck[: int(st.board[G_DECK_N])]:
        out[c] += 1
    out += st.board[B_DISC : B_DISC + T.NC]
    out += st.board[B_INPLAY : B_INPLAY + T.NC]
    out += st.board[B_BARR : B_BARR + T.NC]
    out += st.board[B_REMOVED : B_REMOVED + T.NC]
    for p in range(n):
        out += st.pl[p, PL_HAND : PL_HAND + T.NC]
        out += st.pl[p, PL_BP : PL_BP + T.NC]
    for p in range(n):
        out[T.BACKPACK] += st.pl[p, PL_BACKPACKS]
        if st.pl[p, PL_STUN_CARD] >= 0:
            out[st.pl[p, PL_STUN_CARD]] += 1
    # Barricades lie on Rooms: B_BARR counts them under the Room's id, not the Barricade's.
    barr = int(st.board[B_BARR : B_BARR + T.NC].sum())
    out[T.BARRICADE] += barr
    out -= np.bincount(
        np.repeat(np.arange(T.NC), st.board[B_BARR : B_BARR + T.NC]), minlength=T.NC
    ).astype(np.int64)
    return out


def new_state(tb, log_cap: int = 0) -> State:
    """A State for the config, from Python (the kernels use ``alloc_state``): the Python entry
    every game's state.py has (balance/games/position.py)."""
    return alloc_state(tb, np.int64(log_cap))
