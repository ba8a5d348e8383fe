"""Scripted Corvids scenarios with known outcomes, one or more for every ruling (RULINGS.md CV-1..CV-12)
and every reading of the engine (engine.py's ENGINE-1..ENGINE-8): scoring (CV-3), abilities (CV-4,
ENGINE-3, ENGINE-5), the turn (CV-5, CV-9, ENGINE-1, ENGINE-2), stealing (CV-11, ENGINE-6), nests
(CV-6, ENGINE-7), the end (CV-7) and set-up (CV-1, CV-2, CV-8, CV-10, ENGINE-8); knowledge (CV-12)
is test_policies.py's, the handicap (CV-7) test_rules_handicap.py's.

Scenes are laid by hand (helpers.py): pieces in the middle of the mat, each seat's nest covered by
two cards of its own at the mat's end. The usual pile (``plain``)::

    card 2 (-40, 0) h12   card 1 (40, 0) h11     both lying on card 0 (0, 0) h10, not on each other

is pecked at card 2 (``PECK2``; nothing rests on it, and with the steady rules it is set back where
it lay) and card 1 is picked. Coordinates are millimetres from the mat's centre; a card is 63 mm
along x and 88 mm along y (angle 0), a feather a disc of radius 9 mm.
"""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from balance import games
from balance.config import load_config
from balance.games.corvids import engine, narrate, physics, state, tables
from balance.games.corvids import physics as ph
from balance.games.corvids import policies as pol
from balance.games.corvids.schema import BIRD_NAMES, ITEM_NAMES, score_cards
from balance.games.corvids.state import (
    CC_OWNER,
    CC_TAKEN_FACE,
    CC_USED,
    E_ABILITY,
    E_BIRD,
    E_END,
    E_ISOLATED,
    E_NEST,
    E_NUT,
    E_OFF,
    E_PECK,
    E_PICK,
    E_SCORE,
    E_START,
    E_STEAL,
    E_TICKET,
    E_TURN,
    G_CARDS_ISOLATED,
    G_F_REMOVED,
    G_FEATHERS_OFF,
    G_FIRST,
    G_FIRST_NEST,
    G_ISOLATED,
    G_N,
    G_OFF_MAT,
    G_PECKS,
    G_RETRIES,
    G_SCRIPT_BAD,
    G_TURN,
    OWN_PILE,
    OWN_REMOVED,
    PL_BIRD,
    PL_CARDS,
    PL_FEATHERS,
    PL_HELD,
    PL_REVEALED,
    PL_SCRIPT,
    PL_STEALS,
    TAKE_EARRING,
    TAKE_PAPERCLIP,
    TAKE_PICK,
)
from balance.games.corvids.tables import (
    ACORN,
    BLANK,
    BUTTON,
    COIN,
    EARRING,
    KEY,
    MAXP,
    NUT,
    PAPERCLIP,
    STRING,
    TICKET,
)

from .helpers import (
    CONFIGS,
    SEED,
    STEADY_RULES,
    TURN,
    Card,
    Feather,
    Held,
    Scene,
    build,
    check_places,
    clone,
    compiled,
    config,
    steady,
)

PECK2 = [2, -40.0, 0.0]  # peck card 2 of ``plain`` at its centre
I0 = np.int64(0)


def plain(**over: Card) -> dict[int, Card]:
    """The usual pile (module docstring); ``c1=Card(...)`` etc. replace a card."""
    cards = {
        0: Card(0.0, 0.0, 10.0, KEY, NUT),
        1: Card(40.0, 0.0, 11.0, BUTTON, NUT),
        2: Card(-40.0, 0.0, 12.0, KEY, BUTTON),
    }
    for k, v in over.items():
        cards[int(k[1:])] = v
    return cards


def rows_of(s: Scene, code: int) -> list[tuple[int, ...]]:
    return s.events(code)


def ranks_of(s: Scene) -> tuple[list[int], list[int]]:
    sc = np.zeros(MAXP, np.int64)
    rk = np.zeros(MAXP, np.int64)
    engine.ranks(s.tb, s.st, sc, rk)
    n = int(s.st.board[G_N])
    return sc[:n].tolist(), rk[:n].tolist()


def touches_a_card(s: Scene, f: int) -> bool:
    nc = s.nc
    return any(
        s.pile.cst[c, ph.CS_ON] == 1
        and ph.card_feather_overlap(s.tb.physics, s.pile.cards, np.int64(c), s.pile.feathers, f)
        for c in range(nc)
    )


# ---------------------------------------------------------------- scoring (CV-3)


def held_scene(c, cards_of: dict[int, dict[int, Held]], **kw) -> Scene:
    return build(c, held=cards_of, **kw)


def python_score(cfg, s: Scene, p: int) -> int:
    """schema.score_cards over seat ``p``'s cards as this test reads them (CV-3)."""
    st = s.st
    cards = []
    for k in range(s.nc):
        if int(st.cc[k, CC_OWNER]) != p:
            continue
        front, back = int(st.item[k, 0]), int(st.item[k, 1])
        face = int(st.cc[k, CC_TAKEN_FACE])
        item = front if (back == BLANK or face == 1) else back
        cards.append((ITEM_NAMES[item], face == 0))
    bird = s.c.bird_names[int(st.pl[p, PL_BIRD])]
    return score_cards(cfg.rules, cards, bird)


def test_cv3_rulebook_example_two_tickets_three_keys_a_face_down_coin_score_10():
    """CV-3, the rulebook's example: 2 tickets (1 each) + 3 keys (a set: 5) + 1 face-down coin
    (3) = 10 points; engine.score says so (set bonus 5 - 3 = 2, no bird bonus for the magpie) and
    schema.score_cards agrees. The raven (favourite key) would add 3."""
    c = steady()
    cfg = config(2, STEADY_RULES)
    gabe = {
        0: Held(TICKET, face=0),
        1: Held(TICKET, face=1),
        2: Held(KEY, NUT),
        3: Held(KEY, BUTTON),
        4: Held(NUT, KEY, face=0),  # taken face down: its up side is the key
        5: Held(COIN, face=0),
    }
    s = held_scene(c, {0: gabe}, birds={0: "magpie", 1: "jay"})
    assert s.score(0) == (10, 0, 2)
    assert python_score(cfg, s, 0) == 10
    cards = [("ticket", True), ("ticket", False), ("key", False), ("key", False)]
    cards += [("key", True), ("coin", True)]
    assert score_cards(cfg.rules, cards) == 10
    s = held_scene(c, {0: gabe}, birds={0: "raven", 1: "jay"})
    assert s.score(0) == (13, 3, 2) and python_score(cfg, s, 0) == 13
    s.check()


@pytest.mark.parametrize(("keys", "points"), [(2, 4), (3, 5), (4, 7), (6, 10), (7, 12)])
def test_cv3_set_points_replace_the_cards_values(keys, points):
    """CV-3: a set's points are what its cards score in all, in place of their values: with keys
    worth 2 each, 3 keys score 5 (not 6 + 5), 4 keys 5 + 2, 6 keys two sets."""
    rules = {**STEADY_RULES, "scoring": {"values": {"key": 2}}}
    c = steady(rules={"scoring": {"values": {"key": 2}}})
    cfg = config(2, rules)
    s = held_scene(c, {0: {k: Held(KEY, NUT) for k in range(keys)}}, birds={0: "magpie", 1: "jay"})
    total, bird, sets = s.score(0)
    assert (total, bird) == (points, 0)
    assert sets == (keys // 3) * (5 - 3 * 2)
    assert python_score(cfg, s, 0) == points
    s.check()


def test_cv3_a_face_down_coin_scores_3_a_face_up_coin_1():
    """CV-3: a coin collected face down is worth 3 (config: coin_two.yaml makes it 2), face up 1;
    it keeps the orientation it was taken in."""
    coins = {0: Held(COIN, face=0), 1: Held(COIN, face=1)}
    for c, down in ((steady(), 3), (compiled(2, STEADY_RULES, path=CONFIGS / "coin_two.yaml"), 2)):
        s = held_scene(c, {0: coins}, birds={0: "magpie", 1: "jay"})
        assert s.score(0) == (down + 1, 0, 0)
        s.check()


@pytest.mark.parametrize(("up", "score"), [(1, (8, 0, 1)), (4, (9, 0, -1))])
def test_cv3_a_coin_set_replaces_its_lowest_valued_coins(up, score):
    """CV-3 (schema.score_cards): a set of coins scores in place of its lowest-valued coins: 1
    face-up + 2 face-down coins = 1 + 3 + 3 = 7; a set of 2 for 5 replaces the face-up coin and
    a face-down one (4 points): 8. With a face-up coin worth 4 (4 + 3 + 3 = 10) the set replaces
    the two face-down ones (6): 9. The engine and score_cards agree."""
    extra = {"scoring": {"sets": {"coin": {"size": 2, "points": 5}}, "values": {"coin": up}}}
    c = steady(rules=extra)
    cfg = config(2, {**STEADY_RULES, **extra})
    coins = {0: Held(COIN, face=1), 1: Held(COIN, face=0), 2: Held(COIN, face=0)}
    s = held_scene(c, {0: coins}, birds={0: "magpie", 1: "jay"})
    assert s.score(0) == score
    assert python_score(cfg, s, 0) == score[0]
    s.check()


def test_cv3_cv10_a_bird_scores_a_bonus_for_each_card_of_its_favourite():
    """CV-3, CV-10: the raven (favourite key) scores +1 per key: 2 keys and 2 nuts = 4 + 2;
    with strong_birds.yaml +2 per key. A key/nut card taken face down counts as a nut (no
    bonus)."""
    mine = {0: Held(KEY, NUT), 1: Held(KEY, BUTTON), 2: Held(NUT, KEY), 3: Held(KEY, NUT, face=0)}
    s = held_scene(steady(), {0: mine}, birds={0: "raven", 1: "jay"})
    assert s.score(0) == (6, 2, 0)
    strong = compiled(2, STEADY_RULES, path=CONFIGS / "strong_birds.yaml")
    s = held_scene(strong, {0: mine}, birds={0: "raven", 1: "jay"})
    assert s.score(0) == (8, 4, 0)
    s.check()


def test_cv3_a_card_keeps_the_orientation_it_was_taken_in():
    """CV-3: card 1 (button / nut) lies face down, showing the nut: picked, it counts as a nut
    (E_PICK: item nut, face 0) and keeps counting so; the button side never counts."""
    s = build(
        steady(), plain(c1=Card(40.0, 0.0, 11.0, BUTTON, NUT, face=0)), scripts={0: [*PECK2, 1]}
    )
    s.turn(0)
    assert rows_of(s, E_PICK) == [(E_PICK, 0, 1, NUT, 0, 0, TAKE_PICK, 0)]
    assert s.st.cc[1, CC_TAKEN_FACE] == 0 and state.counts_as(s.st, 1) == NUT
    assert s.st.pl[0, PL_HELD + NUT] == 1 and s.st.pl[0, PL_HELD + BUTTON] == 0
    s.check()


# ---------------------------------------------------------------- the pick (CV-5, ENGINE-1, ENGINE-2)


def pick_scene_cards() -> tuple[dict[int, Card], dict[int, Feather]]:
    """Card 0 with card 4 hovering 0.5 mm beside it (higher, not touching); card 1 under card 5;
    card 2 under feather 0."""
    cards = {
        0: Card(0.0, 0.0, 10.0, KEY, NUT),
        4: Card(63.5, 0.0, 20.0, BUTTON, KEY),
        1: Card(0.0, 100.0, 10.0, KEY, NUT),
        5: Card(30.0, 100.0, 11.0, NUT, KEY),
        2: Card(0.0, -100.0, 10.0, KEY, BUTTON),
    }
    return cards, {0: Feather(0.0, -100.0, 11.0)}


def card_poly(pile, k: int) -> shapely.Polygon:
    """Card ``k``'s outline built with shapely's own rotation (not the engine's geometry)."""
    w, h = 63.0, 88.0
    box = shapely.box(-w / 2, -h / 2, w / 2, h / 2)
    box = shapely.affinity.rotate(box, pile.cards[k, ph.CD_A], origin=(0, 0), use_radians=True)
    return shapely.affinity.translate(box, pile.cards[k, ph.CD_X], pile.cards[k, ph.CD_Y])


def card_on_top(pile, k: int) -> bool:
    """CV-5, read with shapely: some higher card of the pile touches card ``k``."""
    mine = card_poly(pile, k)
    return any(
        pile.cst[j, ph.CS_ON] == 1
        and pile.cards[j, ph.CD_H] > pile.cards[k, ph.CD_H]
        and mine.distance(card_poly(pile, j)) <= 1e-6
        for j in range(pile.cards.shape[0])
        if j != k
    )


def touching_feathers(pile, k: int) -> set[int]:
    """The feathers of the pile touching card ``k``, above or below (shapely)."""
    mine = card_poly(pile, k)
    return {
        f
        for f in range(pile.feathers.shape[0])
        if pile.fst[f, ph.FS_ON] == 1
        and mine.distance(shapely.Point(pile.feathers[f, ph.FT_X], pile.feathers[f, ph.FT_Y]))
        <= 9.0 + 1e-6
    }


def test_cv5_only_a_card_on_top_blocks_the_pick():
    """CV-5 (amended): a card under another card (1) cannot be picked (the scripted choice is
    illegal); a card under a feather (2) can ("a feather on it does not block") and comes with
    it; a card with a higher card hovering beside it, not touching (0), can ("hovering above is
    okay if they aren't touching"), as can every card on top. Checked for every card of the pile
    against shapely: legal exactly when no higher card touches it."""
    cards, feathers = pick_scene_cards()
    first = build(steady(), cards, feathers)
    legal = set()
    for k in range(first.nc):
        if first.pile.cst[k, ph.CS_ON] == 0:
            continue
        s = build(steady(), cards, feathers, scripts={0: [k]})
        blocked = card_on_top(s.pile, k)
        gains = touching_feathers(s.pile, k)
        got = engine.pick(s.tb, s.st, I0, s.work)
        assert bool(s.st.board[G_SCRIPT_BAD]) == blocked, k
        if not blocked:
            legal.add(k)
            assert got == k and s.owner(k) == 0 and s.feathers(0) == len(gains)
            assert not any(s.feather_on(f) for f in gains)
            s.check()
    assert {0, 2, 4, 5} <= legal and 1 not in legal
    assert legal == {0, 2, 4, 5} | {b for _, b in first.covers.values()}
    s = build(steady(), cards, feathers, scripts={0: [2]})
    engine.pick(s.tb, s.st, I0, s.work)
    assert rows_of(s, E_PICK) == [(E_PICK, 0, 2, KEY, 1, 1, TAKE_PICK, 0)]
    assert not s.feather_on(0) and s.feathers(0) == 1


def test_engine1_feathers_on_every_card_block_no_pick():
    """ENGINE-1, CV-5: every card of the pile has a feather on it (the nest covers too): the
    pickable cards are exactly those with no *card* on top (card 1 and the upper covers, not
    card 0 under card 1), and a pick takes the feathers on it (feather 1; feather 0 lies on card
    0 only)."""
    cards = {0: Card(0.0, 0.0, 10.0, KEY, NUT), 1: Card(30.0, 0.0, 11.0, NUT, KEY)}
    feathers = {0: Feather(-20.0, 0.0, 12.0), 1: Feather(40.0, 0.0, 12.0)}
    s = build(steady(), cards, feathers, feathered_covers=True, scripts={0: [1]})
    assert all(s.pile.cov[k, physics.COV_ANY] > 0 for k in range(s.nc) if s.on(k))
    assert engine.pick(s.tb, s.st, I0, s.work) == 1
    assert rows_of(s, E_PICK) == [(E_PICK, 0, 1, NUT, 1, 1, TAKE_PICK, 0)]
    assert not s.feather_on(1) and s.feather_on(0) and s.feathers(0) == 1
    s.check()
    covers = {b for _, b in s.covers.values()}
    for k in covers:  # an upper cover, a feather on it
        t = build(steady(), cards, feathers, feathered_covers=True, scripts={0: [k]})
        assert engine.pick(t.tb, t.st, I0, t.work) == k and t.st.board[G_SCRIPT_BAD] == 0
        assert t.feathers(0) == 1
    s = build(steady(), cards, feathers, feathered_covers=True, scripts={0: [0]})
    engine.pick(s.tb, s.st, I0, s.work)
    assert s.st.board[G_SCRIPT_BAD] == 1  # card 0 has card 1 on top


@pytest.mark.parametrize("seats", ["greedy", "random"])
def test_cv5_engine2_on_real_piles_no_feather_blocks_a_pick_and_every_touching_one_goes(seats):
    """CV-5 (amended), ENGINE-2 on the piles of real games: before some turns of 6 games, a
    scripted pick of each card of the pile is legal exactly when no higher card touches it
    (shapely), however many feathers lie on it; a card picked comes with exactly the feathers
    touching it, above or below (shapely), and the rest stay. Cards with a feather and no card
    on them are many: the ruling is exercised."""
    c = compiled(4, seats=seats)
    tb = c.tb
    feathered = 0
    tried = 0
    for game in range(6):
        st = state.alloc_state(tb, 4096)
        work = state.alloc_work(tb)
        ib = work.ib
        assert engine.setup(tb, st, np.int64(SEED), np.int64(game), ib)
        a = int(st.board[G_FIRST])
        for turn in range(40):
            if state.pile_cards(st) == 0:
                break
            if turn % 4 == 0:
                pile = st.pile
                for k in range(pile.cards.shape[0]):
                    if pile.cst[k, ph.CS_ON] == 0:
                        continue
                    blocked = card_on_top(pile, k)
                    gains = touching_feathers(pile, k)
                    higher = {
                        f for f in gains if pile.feathers[f, ph.FT_H] > pile.cards[k, ph.CD_H]
                    }
                    feathered += bool(higher) and not blocked
                    cs = tables.with_script(c, {a: [k]})
                    other = clone(st)
                    held = int(other.pl[a, PL_FEATHERS])
                    engine.pick(cs.tb, other, np.int64(a), work)
                    assert bool(other.board[G_SCRIPT_BAD]) == blocked, (game, turn, k)
                    if not blocked:
                        assert int(other.cc[k, CC_OWNER]) == a
                        assert int(other.pl[a, PL_FEATHERS]) == held + len(gains)
                        left = {
                            f for f in range(pile.feathers.shape[0]) if other.pile.fst[f, ph.FS_ON]
                        }
                        was = {f for f in range(pile.feathers.shape[0]) if pile.fst[f, ph.FS_ON]}
                        assert left == was - gains
                    tried += 1
            engine.play_turn(tb, st, np.int64(a), work)
            st.board[G_TURN] += 1
            a = (a + 1) % 4
    assert tried > 300 and feathered >= 10


def test_cv5_engine2_the_pick_gains_every_feather_touching_the_card():
    """CV-5, ENGINE-2: card 0 lies on feather 0 (below it, touching): picked, it comes with that
    feather; feather 1, lying on card 1 that card 0 does not touch, stays in the pile."""
    cards = {0: Card(0.0, 0.0, 12.0, KEY, NUT), 1: Card(80.0, 0.0, 10.0, BUTTON, KEY)}
    feathers = {0: Feather(-20.0, 0.0, 11.0), 1: Feather(80.0, 0.0, 13.0)}
    s = build(steady(), cards, feathers, scripts={0: [1, 80.0, 0.0, 0]})
    s.turn(0)
    assert rows_of(s, E_PECK)[0][:6] == (E_PECK, 0, 1, KEY, 1, 0)  # feather 1 rested on it
    assert rows_of(s, E_PICK) == [(E_PICK, 0, 0, KEY, 1, 1, TAKE_PICK, 0)]
    assert s.feathers(0) == 1 and not s.feather_on(0) and s.feather_on(1)
    assert s.tele(0, "gained__feathers") == 1 and s.tele(0, "picked__key") == 1
    s.check()


# ---------------------------------------------------------------- the peck (CV-5, CV-9)


def test_cv9_phys6_a_peck_flips_the_card_and_sets_it_down_where_it_lay():
    """CV-5, CV-9, PHYS-6 (no offset, no turn, clumsiness 0): pecking card 0 turns it over (it
    shows its nut), sets it back on top of what it overlaps, and what rested on it (cards 1, 2)
    lands on top again, in place: card 0 is still under them."""
    s = build(steady(), plain(), scripts={0: [0, 0.0, 0.0, 1]})
    before = s.pile.cards.copy()
    s.turn(0)
    peck = rows_of(s, E_PECK)[0]
    assert peck == (E_PECK, 0, 0, NUT, 2, 0, 0, 0)
    assert s.pile.cst[0, ph.CS_FACE] == 0 and s.st.board[G_PECKS] == 1
    cards = s.pile.cards
    assert np.allclose(cards[[0, 2], :3], before[[0, 2], :3])
    assert cards[2, ph.CD_H] > cards[0, ph.CD_H] > before[2, ph.CD_H]
    assert s.pile.cov[0, physics.COV_CARDS] == 1  # card 2 (card 1 was picked)
    s.check()


def test_cv9_phys6_a_clumsy_peck_moves_the_resting_pieces_away_from_the_aim():
    """CV-9, PHYS-6: pecked at its centre by a slightly clumsy seat, card 0 sheds cards 1 and 2
    straight away from the aim (direction spread 0): card 1 to the right, card 2 to the left, on
    top; feather 0, lying on card 1 only, stays where it was."""
    rules = {"physics": {"displacement_direction_sd": 0.0, "displacement_turn_sd": 0.0}}
    c = steady(rules=rules, seats=["nudge", "steady"])
    s = build(c, plain(), {0: Feather(65.0, 0.0, 13.0)}, scripts={0: [0, 0.0, 0.0, 2]})
    before = s.pile.cards.copy()
    fx = s.pile.feathers[0, ph.FT_X]
    s.turn(0)
    cards = s.pile.cards
    assert rows_of(s, E_PECK)[0][:6] == (E_PECK, 0, 0, NUT, 2, 0)
    d1 = cards[1, :2] - before[1, :2]
    d2 = cards[2, :2] - before[2, :2]
    assert d1[0] > 0 and d2[0] < 0 and abs(d1[1]) < 1e-9 and abs(d2[1]) < 1e-9
    assert cards[1, ph.CD_A] == before[1, ph.CD_A]
    assert s.pile.feathers[0, ph.FT_X] == fx
    s.check()


def test_cv5_a_peck_of_a_card_with_no_part_visible_is_not_legal():
    """CV-5: the peck flips a card of which some part is visible; card 0 lies exactly under
    card 1, so a scripted peck of card 0 is not legal (G_SCRIPT_BAD)."""
    cards = {0: Card(0.0, 0.0, 10.0, KEY, NUT), 1: Card(0.0, 0.0, 11.0, BUTTON, NUT)}
    s = build(steady(), cards, scripts={0: [0, 0.0, 0.0, 1]})
    assert not ph.any_part_visible(s.tb.physics, s.pile.cards, s.pile.cst, np.int64(s.nc), I0)
    s.turn(0)
    assert s.st.board[G_SCRIPT_BAD] == 1


def off_the_mat_rules() -> dict:
    """Pieces resting on a pecked card fly straight away from the aim, far (wild seat)."""
    return {"physics": {"displacement_sd": 1000.0, "displacement_direction_sd": 0.0}}


def off_the_mat_cards(**more: Card) -> dict[int, Card]:
    """Card 1 (an acorn) rests on card 0 at the mat's top edge (6 mm from it): pecking card 0
    aimed below card 1 sends it over the edge. Cards 2, 3 lie elsewhere."""
    cards = {
        0: Card(0.0, 120.0, 10.0, KEY, NUT),
        1: Card(0.0, 140.0, 11.0, ACORN, KEY),
        2: Card(0.0, -60.0, 10.0, KEY, BUTTON),
        3: Card(30.0, -60.0, 11.0, ACORN, ACORN),
    }
    for k, v in more.items():
        cards[int(k[1:])] = v
    return cards


@pytest.mark.parametrize(
    ("card", "shown", "lost"),
    [
        (Card(0.0, 140.0, 11.0, ACORN, KEY), ACORN, "lost__acorn"),
        (Card(0.0, 140.0, 11.0, COIN, face=0), BLANK, "lost__coin"),  # its blank back up
    ],
)
def test_cv5_cv9_a_piece_knocked_off_the_mat_ends_the_turn(card, shown, lost):
    """CV-5, CV-9, PHYS-7: the peck knocks card 1 off the mat: it is removed from play, the turn
    ends at once (no pick, no steal, though seat 1's nest is open and seat 0 has the feathers: the
    scripted pick and steal are never asked), and seat 0's telemetry counts the lost card by its
    item (lost__acorn; a coin face down, lost__coin)."""
    c = steady(rules=off_the_mat_rules(), seats=["wild", "steady"])
    s = build(
        c,
        off_the_mat_cards(**{"c1": card}),
        held={1: {10: Held(KEY, NUT)}},
        seat_feathers={0: 2},
        open_nests=(1,),
        scripts={0: [0, 0.0, 100.0, 3, 10]},
    )
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 3  # the peck only
    peck = rows_of(s, E_PECK)[0]
    assert peck[:3] == (E_PECK, 0, 0) and peck[5] == 1  # one piece off the mat
    assert rows_of(s, E_OFF) == [(E_OFF, 0, 1, shown, 0, 0, 0, 0)]
    assert not rows_of(s, E_PICK) and not rows_of(s, E_STEAL)
    assert s.owner(1) == OWN_REMOVED and s.st.board[G_OFF_MAT] == 1
    assert s.tele(0, lost) == 1 and sum(s.tele(0, f"lost__{i}") for i in ITEM_NAMES) == 1
    assert s.tele(0, "picked__acorn") == 0
    assert s.feathers(0) == 2 and s.owner(10) == 1
    # card 0 is left touching nothing: removed at the end of the turn (CV-5)
    assert rows_of(s, E_ISOLATED) == [(E_ISOLATED, 1, 0, 0, 0, 0, 0, 0)]
    s.scripts[0] = s.scripts[0][:3]
    s.check()


def test_cv5_a_feather_knocked_off_the_mat_ends_the_turn_too():
    """CV-5 ("any cards/feathers"), PHYS-7: the peck sends feather 0, resting on card 0, over the
    mat's edge: it is removed from play (G_FEATHERS_OFF, counted among the removed feathers) and
    the turn ends with no pick."""
    c = steady(rules=off_the_mat_rules(), seats=["wild", "steady"])
    cards = {k: v for k, v in off_the_mat_cards().items() if k != 1}
    s = build(c, cards, {0: Feather(0.0, 160.0, 11.0)}, scripts={0: [0, 0.0, 120.0, 3]})
    removed = int(s.st.board[G_F_REMOVED])
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 3 and not rows_of(s, E_PICK)
    assert rows_of(s, E_OFF) == [(E_OFF, 1, 0, 0, 0, 0, 0, 0)]
    assert not s.feather_on(0) and s.st.board[G_FEATHERS_OFF] == 1 and s.st.board[G_OFF_MAT] == 0
    assert s.st.board[G_F_REMOVED] == removed + 1
    assert sum(s.tele(0, f"lost__{i}") for i in ITEM_NAMES) == 0
    s.scripts[0] = s.scripts[0][:3]
    s.check()


def test_engine3_an_acorns_peck_that_knocks_a_piece_off_ends_the_turn_with_no_steal():
    """CV-4, ENGINE-3: the acorn (card 3) is picked; its peck knocks card 1 off the mat, which
    ends the turn at once: no steal (the scripted steal is never asked)."""
    c = steady(rules=off_the_mat_rules(), seats=["wild", "steady"])
    s = build(
        c,
        off_the_mat_cards(),
        held={1: {10: Held(KEY, NUT)}},
        seat_feathers={0: 2},
        open_nests=(1,),
        scripts={0: [3, 30.0, -60.0, 3, 1, 0, 0.0, 100.0, 10]},
    )
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 8
    assert [r[1:4] for r in rows_of(s, E_PECK)] == [(0, 3, ACORN), (0, 0, NUT)]
    assert rows_of(s, E_ABILITY) == [(E_ABILITY, 0, ACORN, 3, 0, 0, 0, 0)]
    assert rows_of(s, E_OFF)[0][:4] == (E_OFF, 0, 1, ACORN)
    assert not rows_of(s, E_STEAL) and s.owner(10) == 1 and s.owner(3) == 0
    s.scripts[0] = s.scripts[0][:8]
    s.check()


# ---------------------------------------------------------------- abilities (CV-4, ENGINE-3)


@pytest.mark.parametrize(
    ("card", "ability"),
    [
        (Card(40.0, 0.0, 11.0, ACORN, KEY, face=1), True),
        (Card(40.0, 0.0, 11.0, KEY, ACORN, face=0), True),  # its up side is the acorn
        (Card(40.0, 0.0, 11.0, KEY, ACORN, face=1), False),  # the acorn side is down
    ],
)
def test_cv4_an_acorn_pecks_again(card, ability):
    """CV-4: an acorn picked from the pile pecks again (a second E_PECK, of the seat's choice:
    yes, then which card); only the up side counts ("double-sided cards only work as their
    face-up side")."""
    extra = [1, *PECK2] if ability else []
    s = build(steady(), plain(c1=card), scripts={0: [*PECK2, 1, *extra]})
    s.turn(0)
    pecks = rows_of(s, E_PECK)
    assert len(pecks) == (2 if ability else 1) == s.st.board[G_PECKS]
    if ability:
        assert rows_of(s, E_ABILITY) == [(E_ABILITY, 0, ACORN, 1, 0, 0, 0, 0)]
        assert s.codes().index(E_ABILITY) < s.codes().index(E_PECK, 2)
        assert s.pile.cst[2, ph.CS_FACE] == 1  # flipped twice
        assert s.tele(0, "ability__acorn") == 1
    else:
        assert not rows_of(s, E_ABILITY)
    s.check()


def test_cv5_engine3_an_acorns_peck_may_be_declined_and_the_steal_follows():
    """CV-5 ("Resolve ... (optional)", the acorn's second peck included), ENGINE-3: the seat picks
    the acorn (card 1) and declines its peck (0): one E_PECK, no E_ABILITY, no acorn telemetry;
    its steal from seat 1 (nest open) still follows."""
    s = build(
        steady(),
        plain(c1=Card(40.0, 0.0, 11.0, ACORN, ACORN)),
        held={1: {10: Held(KEY, NUT)}},
        seat_feathers={0: 2},
        open_nests=(1,),
        scripts={0: [*PECK2, 1, 0, 10]},
    )
    s.turn(0)
    assert len(rows_of(s, E_PECK)) == 1 == s.st.board[G_PECKS]
    assert not rows_of(s, E_ABILITY) and s.tele(0, "ability__acorn") == 0
    assert rows_of(s, E_STEAL)[0][1:4] == (0, 1, 10) and s.owner(10) == 0
    s.check()


def acorn_choice(s: Scene, p: int = 0) -> tuple[int, float, float]:
    q = np.int64(p)
    c = int(pol.choose_acorn(s.tb, s.st, q, s.ib, s.st.memo))
    if c == state.C_NO:
        return -1, 0.0, 0.0
    s.st.board[state.G_PECK_CARD] = c
    ax, ay = narrate.aim_xy(s.c, s.st, c, int(pol.choose_aim(s.tb, s.st, q)))
    return c, float(ax), float(ay)


def test_engine3_the_greedy_seat_pecks_with_an_acorn_only_to_uncover_a_nest():
    """ENGINE-3 (greedy): with nothing a peck could uncover, the greedy seat declines the acorn's
    peck (no pick follows it: it would only risk its turn); when card 8 alone covers seat 1's
    nest (its bird hidden: a rival's nest to seat 0 with chance 1/7) and rests on card 9, it
    pecks card 9, aiming outward of its centre."""
    s = build(steady(), plain())
    assert acorn_choice(s)[0] == -1
    x, y = ph.nest_centres(s.tb.physics)[3]  # seat 1, the jackdaw's nest
    cards = {**plain(), 8: Card(x, y, 21.0, KEY, NUT), 9: Card(x + 60.0, y, 20.0, KEY, NUT)}
    s = build(steady(), cards, open_nests=(1,))
    assert s.pile.ncount[3] == 1 and s.st.pl[1, PL_REVEALED] == 0
    c, ax, ay = acorn_choice(s)
    assert c == 9
    cx, cy = s.pile.cards[9, ph.CD_X], s.pile.cards[9, ph.CD_Y]
    assert np.hypot(ax, ay) > np.hypot(cx, cy)  # outward
    assert np.isclose(ax * cy - ay * cx, 0.0)  # along the line from the mat's centre


def test_cv5_the_random_seat_decides_an_acorns_peck_from_its_own_stream():
    """CV-5 (optional), CV-12: the random seat pecks with an acorn on an even draw of its own
    stream (st.rng[2 + seat]) and then pecks a visible card; the set-up and the pile's streams
    are left alone. Over 400 decisions it declines about half of the time."""
    c = compiled(2, rules=STEADY_RULES, seats="random")
    s = build(c, plain())
    before = s.st.rng.copy()
    outcomes = [acorn_choice(s)[0] for _ in range(400)]
    assert (s.st.rng[:2] == before[:2]).all() and (s.st.rng[3:] == before[3:]).all()
    assert (s.st.rng[2] != before[2]).all()
    pecked = [k for k in outcomes if k >= 0]
    assert 150 < len(pecked) < 250
    assert set(pecked) <= {
        k for k in range(s.nc) if s.on(k) and ph.visible(s.tb.physics, s.pile, np.int64(k))
    }
    s2 = build(c, plain())
    assert [acorn_choice(s2)[0] for _ in range(400)] == outcomes  # its stream alone decides


def earring_scene(script: list[float]) -> Scene:
    """Earring 1 (picked) and earring 2, completely uncovered, lying on feather 0; earring 3
    under feather 1 (no card on it); card 4 an earring face down (showing a key) on feather 2;
    earring 5, uncovered, on feather 3; earring 6 under card 7. Card 3 is pecked (showing its
    other earring side)."""
    cards = {
        0: Card(0.0, 0.0, 10.0, KEY, NUT),
        1: Card(-40.0, 0.0, 12.0, EARRING, KEY),
        2: Card(40.0, 0.0, 13.0, EARRING, NUT),
        3: Card(0.0, 100.0, 10.0, EARRING, EARRING),
        4: Card(-100.0, -100.0, 10.0, EARRING, KEY, face=0),
        5: Card(90.0, -100.0, 10.0, EARRING, KEY),
        6: Card(0.0, -100.0, 10.0, EARRING, EARRING),
        7: Card(0.0, -130.0, 11.0, KEY, NUT),
    }
    feathers = {
        0: Feather(60.0, 0.0, 11.0),
        1: Feather(0.0, 100.0, 11.0),
        2: Feather(-100.0, -100.0, 9.0),
        3: Feather(90.0, -100.0, 9.0),
    }
    return build(steady(), cards, feathers, scripts={0: [3, 0.0, 100.0, 1, *script]})


def test_cv4_engine2_an_earring_takes_another_completely_uncovered_earring_with_its_feathers():
    """CV-4, ENGINE-2: the earring picked (card 1) takes earring 2, completely uncovered, with the
    feather it lies on (E_PICK how TAKE_EARRING, 1 feather)."""
    s = earring_scene([2])
    s.turn(0)
    assert rows_of(s, E_PICK) == [
        (E_PICK, 0, 1, EARRING, 1, 0, TAKE_PICK, 0),
        (E_PICK, 0, 2, EARRING, 1, 1, TAKE_EARRING, 0),
    ]
    assert rows_of(s, E_ABILITY) == [(E_ABILITY, 0, EARRING, 1, 0, 0, 0, 0)]
    assert s.owner(2) == 0 and s.feathers(0) == 1 and not s.feather_on(0)
    assert s.tele(0, "ability__earring") == 1 and s.tele(0, "picked__earring") == 2
    s.check()


@pytest.mark.parametrize("other", [6, 4, 0])
def test_cv4_an_earring_cannot_take_a_covered_earring_or_one_showing_another_item(other):
    """CV-4: earring 6 has card 7 on it (not completely uncovered), card 4 shows its key side,
    card 0 is no earring at all: none is the earring's to take (the scripted choice is
    illegal)."""
    s = earring_scene([other])
    s.turn(0)
    assert s.st.board[G_SCRIPT_BAD] == 1
    assert s.owner(other) != 0


def test_cv4_cv5_an_earring_takes_an_earring_under_a_feather_with_the_feather():
    """CV-4, CV-5 (only a card on top blocks), ENGINE-1, ENGINE-2: earring 3 has feather 1 on it
    and no card: it is completely uncovered, and the earring takes it "including feathers"."""
    s = earring_scene([3])
    s.turn(0)
    # face down after the peck, its other side an earring too
    assert rows_of(s, E_PICK)[1] == (E_PICK, 0, 3, EARRING, 0, 1, TAKE_EARRING, 0)
    assert s.st.board[G_SCRIPT_BAD] == 0 and not s.feather_on(1) and s.owner(3) == 0
    s.check()


def test_engine3_an_earring_taken_by_an_earring_takes_no_other():
    """ENGINE-3: only a paperclip chains: earring 2, taken by earring 1, takes nothing although
    earring 5 still lies completely uncovered (the third scripted value is never asked)."""
    s = earring_scene([2, 5])
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 5 and s.on(5)
    assert len(rows_of(s, E_PICK)) == 2 and len(rows_of(s, E_ABILITY)) == 1
    assert s.st.board[G_SCRIPT_BAD] == 0


def test_engine3_abilities_may_be_declined():
    """ENGINE-3 ("Resolve ... (optional)"): the seat declines the earring's second earring (-1)
    and, in another turn, the nut's feathers (-1): nothing is taken, no E_ABILITY."""
    s = earring_scene([-1])
    s.turn(0)
    assert len(rows_of(s, E_PICK)) == 1 and not rows_of(s, E_ABILITY) and s.on(2)
    s.check()
    s = build(
        steady(),
        plain(c1=Card(40.0, 0.0, 11.0, NUT, NUT)),
        {0: Feather(-40.0, 0.0, 13.0)},
        scripts={0: [*PECK2, 1, -1]},
    )
    s.turn(0)
    assert not rows_of(s, E_ABILITY) and not rows_of(s, E_NUT) and s.feathers(0) == 0
    s.check()


def nut_scene(script: list[float]) -> Scene:
    """Card 1 is a nut; feathers 0, 1, 2 lie on card 2 (not touching card 1)."""
    feathers = {
        0: Feather(-40.0, 0.0, 13.0),
        1: Feather(-40.0, 20.0, 14.0),
        2: Feather(-40.0, -20.0, 15.0),
    }
    cards = plain(c1=Card(40.0, 0.0, 11.0, NUT, NUT))
    return build(steady(), cards, feathers, scripts={0: [*PECK2, 1, *script]})


def test_cv4_a_nut_takes_up_to_two_feathers_from_the_pile():
    """CV-4: the nut takes two feathers of the seat's choice from anywhere in the pile (feathers 0
    and 2) and is not asked for a third."""
    s = nut_scene([0, 2, 1])
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 6  # the third feather is never asked
    assert rows_of(s, E_NUT) == [(E_NUT, 0, 2, 0, 0, 0, 0, 0)]
    assert rows_of(s, E_ABILITY) == [(E_ABILITY, 0, NUT, 1, 0, 0, 0, 0)]
    assert s.feathers(0) == 2 and not s.feather_on(0) and not s.feather_on(2) and s.feather_on(1)
    assert s.tele(0, "gained__feathers") == 2 and s.tele(0, "ability__nut") == 1
    s.scripts[0] = s.scripts[0][:6]
    s.check()


def test_cv4_a_nut_may_take_one_feather_only():
    """CV-4 ("up to two"): one feather, then no more (-1)."""
    s = nut_scene([1, -1])
    s.turn(0)
    assert rows_of(s, E_NUT) == [(E_NUT, 0, 1, 0, 0, 0, 0, 0)] and s.feathers(0) == 1
    s.check()


def test_cv4_a_paperclip_takes_a_card_touching_it_even_a_covered_one():
    """CV-4, ENGINE-3: the paperclip picked (card 1) takes card 0, which it touched where it lay,
    although card 0 is covered (by card 2)."""
    s = build(
        steady(), plain(c1=Card(40.0, 0.0, 11.0, PAPERCLIP, PAPERCLIP)), scripts={0: [*PECK2, 1, 0]}
    )
    s.turn(0)
    assert rows_of(s, E_PICK)[1:] == [(E_PICK, 0, 0, KEY, 1, 0, TAKE_PAPERCLIP, 0)]
    assert rows_of(s, E_ABILITY) == [(E_ABILITY, 0, PAPERCLIP, 1, 0, 0, 0, 0)]
    s.check()


def test_cv4_engine3_a_paperclip_chain_into_an_acorn_pecks_again():
    """CV-4, ENGINE-2, ENGINE-3: paperclip 1 (picked) takes paperclip 0 (covered, touching it),
    whose ability is triggered in turn: it takes acorn 2 (touching it where paperclip 0 lay) with
    the feather under it, and the acorn's ability pecks again (card 3). Three cards taken, two
    paperclip abilities, one acorn peck."""
    cards = {
        1: Card(-40.0, 0.0, 12.0, PAPERCLIP, PAPERCLIP),
        0: Card(0.0, 0.0, 10.0, PAPERCLIP, PAPERCLIP),
        2: Card(40.0, 0.0, 11.0, ACORN, ACORN),
        3: Card(0.0, 100.0, 10.0, KEY, BUTTON),
    }
    s = build(
        steady(),
        cards,
        {0: Feather(0.0, 100.0, 11.0), 1: Feather(60.0, 0.0, 9.0)},
        scripts={0: [3, 0.0, 100.0, 1, 0, 2, 1, 3, 0.0, 100.0]},
    )
    s.turn(0)
    assert [(r[2], r[5], r[6]) for r in rows_of(s, E_PICK)] == [
        (1, 0, TAKE_PICK),
        (0, 0, TAKE_PAPERCLIP),
        (2, 1, TAKE_PAPERCLIP),
    ]
    assert [r[2:4] for r in rows_of(s, E_ABILITY)] == [(PAPERCLIP, 1), (PAPERCLIP, 0), (ACORN, 2)]
    assert len(rows_of(s, E_PECK)) == 2 == s.st.board[G_PECKS]
    assert s.tele(0, "ability__paperclip") == 2 and s.tele(0, "ability__acorn") == 1
    s.check()


@pytest.mark.parametrize("choice", [3, -1])
def test_engine3_a_paperclip_takes_only_a_card_it_touched_and_may_take_none(choice):
    """CV-4, ENGINE-3: paperclip 1 touched card 0 only: card 3, elsewhere in the pile, is not its
    to take (an illegal choice); the seat may also take nothing (-1)."""
    cards = plain(
        c1=Card(40.0, 0.0, 11.0, PAPERCLIP, PAPERCLIP), c3=Card(0.0, 100.0, 10.0, KEY, NUT)
    )
    s = build(steady(), cards, {0: Feather(0.0, 100.0, 11.0)}, scripts={0: [*PECK2, 1, choice]})
    s.turn(0)
    assert s.owner(3) != 0 and len(rows_of(s, E_PICK)) == (2 if choice == 3 else 1)
    assert s.st.board[G_SCRIPT_BAD] == (1 if choice == 3 else 0)
    if choice == 3:
        assert rows_of(s, E_PICK)[1][2] == 0  # the first legal one instead
    else:
        assert not rows_of(s, E_ABILITY)
        s.check()


def test_engine5_a_face_down_string_taken_by_a_paperclip_keeps_its_use():
    """ENGINE-5, CV-4: seat 0's paperclip takes a face-down string it touched (no ability now:
    it is face down); next turn seat 1 steals the paperclip from seat 0, whose nest is open, and
    seat 0 flips the string to keep it."""
    cards = plain(
        c1=Card(40.0, 0.0, 11.0, PAPERCLIP, PAPERCLIP), c3=Card(90.0, 0.0, 9.0, STRING, face=0)
    )
    s = build(
        steady(),
        cards,
        seat_feathers={1: 2},
        open_nests=(0,),
        scripts={0: [*PECK2, 1, 3, 1], 1: [*PECK2, 2, 1]},
    )
    s.turn(0)
    assert [(r[2], r[3], r[4], r[6]) for r in rows_of(s, E_PICK)] == [
        (1, PAPERCLIP, 1, TAKE_PICK),
        (3, STRING, 0, TAKE_PAPERCLIP),
    ]
    assert len(rows_of(s, E_ABILITY)) == 1 and s.st.cc[3, CC_TAKEN_FACE] == 0
    s.next_turn()
    s.clear_log()
    s.turn(1)
    assert rows_of(s, E_STEAL) == [(E_STEAL, 1, 0, 1, 3, 2, PAPERCLIP, 0)]
    assert s.owner(1) == 0 and s.st.cc[3, CC_USED] == 1 and s.feathers(1) == 0
    s.check()


# ---------------------------------------------------------------- strings and tickets (CV-4)


def steal_scene(victim: dict[int, Held], thief_feathers: int, scripts, **kw) -> Scene:
    """The usual pile; seat 1's nest is open and it holds ``victim``."""
    return build(
        steady(),
        plain(**kw.pop("over", {})),
        held={1: victim, **kw.pop("held", {})},
        seat_feathers={0: thief_feathers},
        open_nests=(1,),
        scripts=scripts,
        **kw,
    )


def test_cv4_cv11_a_string_keeps_the_card_and_the_thief_still_pays():
    """CV-4, CV-11, ENGINE-6: seat 0 steals seat 1's key; seat 1 flips its face-down string face
    up to keep it. Seat 0 still pays its 2 feathers (dropped onto the pile, touching cards) and
    its steal is used up; the string, now face up, still scores as a string (CV-3)."""
    victim = {10: Held(STRING, face=0), 11: Held(KEY, NUT)}
    s = steal_scene(victim, 2, {0: [*PECK2, 1, 11], 1: [1]})
    s.turn(0)
    assert rows_of(s, E_STEAL) == [(E_STEAL, 0, 1, 11, 10, 2, KEY, 0)]
    assert s.owner(11) == 1 and s.feathers(0) == 0 and s.pile_feathers() == 2
    assert all(touches_a_card(s, f) for f in range(15) if s.feather_on(f))
    assert s.st.cc[10, CC_USED] == 1 and s.st.cc[10, CC_TAKEN_FACE] == 1
    assert state.counts_as(s.st, 10) == STRING and s.st.pl[0, PL_STEALS] == 0
    assert s.tele(1, "ability__string") == 1 and s.tele(0, "paid__feathers") == 2
    assert s.tele(0, "stole__key") == 0 and s.tele(1, "stolen__key") == 0
    assert s.score(1) == (2, 0, 0)  # the string and the key (the jackdaw likes paperclips)
    s.check()


def test_cv4_a_victim_may_leave_its_string_unused():
    """CV-4: seat 1 lets the key go (string choice 0): the card changes hands, the string stays
    face down and usable."""
    victim = {10: Held(STRING, face=0), 11: Held(KEY, NUT)}
    s = steal_scene(victim, 2, {0: [*PECK2, 1, 11], 1: [0]})
    s.turn(0)
    assert rows_of(s, E_STEAL) == [(E_STEAL, 0, 1, 11, -1, 2, KEY, 0)]
    assert s.owner(11) == 0 and s.st.cc[10, CC_USED] == 0 and s.st.cc[10, CC_TAKEN_FACE] == 0
    assert s.tele(0, "stole__key") == 1 and s.tele(1, "stolen__key") == 1
    s.check()


def test_cv4_engine5_a_ticket_flipped_at_the_start_of_a_later_turn_gives_a_second_steal():
    """CV-4, ENGINE-5: seat 0 holds a face-down ticket collected last turn; at the start of this
    turn it flips it face up (E_TICKET first) and steals twice, paying 2 feathers each time. The
    ticket, face up for good, still scores 1 as a ticket."""
    victim = {10: Held(KEY, NUT), 11: Held(BUTTON, NUT)}
    s = steal_scene(
        victim, 4, {0: [1, *PECK2, 1, 10, 11]}, held={0: {12: Held(TICKET, face=0, turn=TURN - 1)}}
    )
    s.turn(0)
    codes = s.codes()
    assert codes[:3] == [E_TURN, E_TICKET, E_PECK]
    assert rows_of(s, E_TICKET) == [(E_TICKET, 0, 12, 0, 0, 0, 0, 0)]
    assert [r[:4] for r in rows_of(s, E_STEAL)] == [(E_STEAL, 0, 1, 10), (E_STEAL, 0, 1, 11)]
    assert s.owner(10) == s.owner(11) == 0 and s.feathers(0) == 0 and s.pile_feathers() == 4
    assert s.st.cc[12, CC_USED] == 1 and s.st.cc[12, CC_TAKEN_FACE] == 1
    assert s.st.pl[0, PL_HELD + TICKET] == 1 and s.tele(0, "ability__ticket") == 1
    # ticket 1 + button (picked) + key + button (stolen), and the raven's key bonus
    assert s.score(0) == (5, 1, 0)
    s.check()


def test_cv4_engine5_a_ticket_collected_this_turn_waits_for_a_later_turn():
    """CV-4, ENGINE-5: seat 0 picks a face-down ticket: it gives no steal this turn (one steal
    only; the second scripted steal is never asked) and is no ability now (no E_ABILITY); at the
    start of its next turn it may flip it for one more steal."""
    victim = {10: Held(KEY, NUT), 11: Held(BUTTON, NUT)}
    s = steal_scene(
        victim, 4, {0: [*PECK2, 1, 10, 11]}, over={"c1": Card(40.0, 0.0, 11.0, TICKET, face=0)}
    )
    s.turn(0)
    assert rows_of(s, E_PICK) == [(E_PICK, 0, 1, TICKET, 0, 0, TAKE_PICK, 0)]
    assert len(rows_of(s, E_STEAL)) == 1 and s.st.pl[0, PL_SCRIPT] == 5
    assert not rows_of(s, E_ABILITY) and not rows_of(s, E_TICKET)
    s.next_turn()
    s.clear_log()
    s.rescript({0: [1]})
    engine.use_tickets(s.tb, s.st, I0, s.work)
    assert rows_of(s, E_TICKET) == [(E_TICKET, 0, 1, 0, 0, 0, 0, 0)]
    assert s.st.pl[0, PL_STEALS] == 2
    s.check()


def test_cv4_a_ticket_taken_face_up_has_no_use():
    """CV-4: a ticket taken face up has no ability: at the start of the turn there is nothing to
    flip (the scripted ticket count is never asked) and the seat has one steal."""
    s = build(steady(), held={0: {12: Held(TICKET, face=1)}}, scripts={0: [1]})
    engine.use_tickets(s.tb, s.st, I0, s.work)
    assert s.st.pl[0, PL_STEALS] == 1 and s.st.pl[0, PL_SCRIPT] == 0 and not s.events()


def test_cv4_cv11_stolen_cards_abilities_are_not_triggered():
    """CV-4, CV-11: with a ticket, seat 0 steals seat 1's acorn and nut: neither pecks nor takes
    feathers (no E_ABILITY, one peck in the turn); stolen cards keep their orientation and still
    score (and count for sets and birds)."""
    victim = {10: Held(ACORN, KEY), 11: Held(KEY, NUT, face=0)}  # the second shows the nut
    s = steal_scene(victim, 4, {0: [1, *PECK2, 1, 10, 11]}, held={0: {12: Held(TICKET, face=0)}})
    s.turn(0)
    assert len(rows_of(s, E_STEAL)) == 2
    assert not rows_of(s, E_ABILITY) and not rows_of(s, E_NUT) and s.st.board[G_PECKS] == 1
    assert s.st.cc[11, CC_TAKEN_FACE] == 0 and state.counts_as(s.st, 11) == NUT
    assert s.st.pl[0, PL_HELD + NUT] == 1 and s.st.pl[0, PL_HELD + ACORN] == 1
    s.check()


def test_engine5_a_ticket_stolen_face_down_keeps_its_use():
    """ENGINE-5: seat 0 steals seat 1's face-down ticket; at the start of seat 0's next turn it
    may flip it for one more steal (E_TICKET)."""
    victim = {10: Held(TICKET, face=0, turn=TURN - 2)}
    s = steal_scene(victim, 2, {0: [*PECK2, 1, 10]})
    s.turn(0)
    assert s.owner(10) == 0 and s.st.cc[10, CC_TAKEN_FACE] == 0
    s.next_turn()
    s.clear_log()
    s.rescript({0: [1]})
    engine.use_tickets(s.tb, s.st, I0, s.work)
    assert rows_of(s, E_TICKET) == [(E_TICKET, 0, 10, 0, 0, 0, 0, 0)]
    assert s.st.pl[0, PL_STEALS] == 2
    s.check()


# ---------------------------------------------------------------- stealing (CV-5, CV-11, ENGINE-6)


def test_cv5_cv11_one_steal_a_turn_paying_two_feathers_dropped_onto_cards():
    """CV-5, CV-11: seat 0 (5 feathers, no ticket) steals once: it pays 2 feathers, each dropped
    on top of the pile onto a card; the card (a key/nut taken face down, counting as a nut) keeps
    its orientation. A second steal is never asked."""
    victim = {10: Held(KEY, NUT, face=0), 11: Held(KEY, BUTTON)}
    s = steal_scene(victim, 5, {0: [*PECK2, 1, 10, 11]})
    top = max(s.pile.cards[:, ph.CD_H].max(), s.pile.feathers[:, ph.FT_H].max())
    s.turn(0)
    assert rows_of(s, E_STEAL) == [(E_STEAL, 0, 1, 10, -1, 2, NUT, 0)]
    assert s.st.pl[0, PL_SCRIPT] == 5
    assert s.feathers(0) == 3 and s.pile_feathers() == 2
    for f in range(15):
        if s.feather_on(f):
            assert touches_a_card(s, f) and s.pile.feathers[f, ph.FT_H] > top
            assert not ph.feather_outside_mat(s.tb.physics, s.pile.feathers, np.int64(f))
    assert s.st.cc[10, CC_TAKEN_FACE] == 0 and s.st.pl[0, PL_HELD + NUT] == 1
    assert s.st.pl[1, PL_HELD + NUT] == 0 and s.st.pl[1, PL_CARDS] == 1
    assert s.tele(0, "stole__nut") == 1 and s.tele(1, "stolen__nut") == 1
    s.scripts[0] = s.scripts[0][:5]
    s.check()


@pytest.mark.parametrize(
    ("cost", "feathers", "steals"), [(2, 1, False), (2, 2, True), (3, 2, False), (3, 3, True)]
)
def test_cv11_a_seat_with_fewer_feathers_than_the_cost_cannot_steal(cost, feathers, steals):
    """CV-11, ENGINE-6: a steal pays steal.cost feathers (2; config 3): with fewer the steal is
    never asked."""
    c = steady(rules={"steal": {"cost": cost}})
    s = build(
        c,
        plain(),
        held={1: {10: Held(KEY, NUT)}},
        seat_feathers={0: feathers},
        open_nests=(1,),
        scripts={0: [*PECK2, 1, 10]},
    )
    s.turn(0)
    assert bool(rows_of(s, E_STEAL)) == steals
    assert s.st.pl[0, PL_SCRIPT] == (5 if steals else 4)
    assert s.feathers(0) == (feathers - cost if steals else feathers)
    if steals:
        s.check()


def test_cv11_no_steal_from_a_seat_whose_nest_is_covered():
    """CV-5, CV-11: seat 1's nest is open, seat 2's covered: seat 2's card cannot be stolen (the
    scripted choice is illegal), seat 1's can."""
    c = steady(3)
    held = {1: {10: Held(KEY, NUT)}, 2: {11: Held(KEY, NUT)}}
    s = build(
        c, plain(), held=held, seat_feathers={0: 2}, open_nests=(1,), scripts={0: [*PECK2, 1, 11]}
    )
    s.turn(0)
    assert s.st.board[G_SCRIPT_BAD] == 1 and s.owner(11) == 2
    s = build(
        c, plain(), held=held, seat_feathers={0: 2}, open_nests=(1,), scripts={0: [*PECK2, 1, 10]}
    )
    s.turn(0)
    assert s.owner(10) == 0
    s.check()


def test_engine6_a_seat_with_an_open_nest_and_no_card_offers_nothing():
    """ENGINE-6: the only seat with an open nest holds no card: no steal is asked."""
    c = steady(3)
    s = build(
        c,
        plain(),
        held={2: {11: Held(KEY, NUT)}},
        seat_feathers={0: 2},
        open_nests=(1,),
        scripts={0: [*PECK2, 1, 11]},
    )
    s.turn(0)
    assert s.st.pl[0, PL_SCRIPT] == 4 and not rows_of(s, E_STEAL)


def nest_card_scene(scripts, **kw) -> Scene:
    """Seat 1's nest (nest 3, the jackdaw's) is covered by card 5 alone, which seat 0 may pick."""
    centre = ph.nest_centres(steady().tb.physics)[3]
    cards = plain(c5=Card(float(centre[0]), float(centre[1]), 10.0, KEY, NUT))
    return build(steady(), cards, open_nests=(1,), scripts=scripts, **kw)


def test_cv6_engine6_a_nest_uncovered_by_the_pick_can_be_stolen_from_at_once():
    """CV-6, ENGINE-6: picking card 5 uncovers seat 1's nest: its bird is revealed at once
    (E_NEST right after E_PICK) and seat 0 steals from it in the same turn."""
    s = nest_card_scene({0: [*PECK2, 5, 10]}, held={1: {10: Held(KEY, NUT)}}, seat_feathers={0: 2})
    assert s.st.pl[1, PL_REVEALED] == 0
    s.turn(0)
    codes = s.codes()
    assert codes.index(E_NEST) == codes.index(E_PICK) + 1 < codes.index(E_STEAL)
    jackdaw = list(s.c.bird_names).index("jackdaw")
    assert rows_of(s, E_NEST) == [(E_NEST, 1, 3, jackdaw, 0, 0, 0, 0)]
    assert s.owner(10) == 0 and s.st.pl[1, PL_REVEALED] == TURN + 1
    s.check()


def test_cv6_engine7_a_bird_revealed_stays_revealed_when_its_nest_is_covered_again():
    """CV-6: seat 1's bird is revealed when its nest is uncovered, for the rest of the game: a
    card laid on the nest again does not hide it (no new E_NEST when it is uncovered again), but
    a covered nest cannot be stolen from. ENGINE-7: the first nest uncovered (G_FIRST_NEST) is
    this seat's; the nests of the birds left in the box, bare from the start, count for no one."""
    s = nest_card_scene({0: [*PECK2, 5]})
    tb, st, pile = s.tb, s.st, s.pile
    own = {int(tb.params[tables.P_BIRD_NEST + st.pl[p, PL_BIRD]]) for p in range(2)}
    assert own == {0, 3}
    assert all(pile.ncount[k] == 0 for k in set(range(8)) - own)  # bare, and no one revealed
    assert st.board[G_FIRST_NEST] == 0 and not any(st.pl[:2, PL_REVEALED])
    s.turn(0)
    assert st.pl[1, PL_REVEALED] == TURN + 1 == st.board[G_FIRST_NEST]
    # lay card 2 on the nest again
    centre = ph.nest_centres(tb.physics)[3]
    ph.detach(pile, np.int64(2))
    pile.cards[2, ph.CD_X], pile.cards[2, ph.CD_Y] = centre
    pile.cards[2, ph.CD_H] = ph.new_height(pile.cards, np.int64(s.nc), pile.feathers, np.int64(15))
    ph.attach(tb.physics, pile, np.int64(2))
    s.next_turn()
    s.clear_log()
    engine.check_nests(tb, st)
    assert pile.ncount[3] == 1 and st.pl[1, PL_REVEALED] == TURN + 1 and not s.events()
    assert not engine.nest_open(tb, st, np.int64(1))
    # a steal now finds no victim, though seat 1 holds a card and seat 0 has the feathers
    st.cc[20, CC_OWNER] = 1
    st.item[20] = (KEY, NUT)
    st.cc[20, CC_TAKEN_FACE] = 1
    st.pl[1, PL_HELD + KEY] += 1
    st.pl[1, PL_CARDS] += 1
    st.pl[0, PL_FEATHERS] = 2
    st.board[G_F_REMOVED] -= 2
    s.rescript({0: [20]})
    st.pl[0, PL_STEALS] = 1
    engine.steals(tb, st, I0, s.work)
    assert st.pl[0, PL_SCRIPT] == 0 and s.owner(20) == 1
    # and uncovered once more: no second E_NEST
    ph.take_out(pile, np.int64(2))
    st.cc[2, CC_OWNER] = OWN_REMOVED
    engine.check_nests(tb, st)
    assert not s.events() and st.pl[1, PL_REVEALED] == TURN + 1
    check_places(s.c, st)


def test_engine7_a_seats_nest_is_the_nest_of_its_bird():
    """ENGINE-7, CV-10: nests follow the config's birds: with the raven's nest moved to 5 (and
    the jay's to 0), the raven's seat is revealed when nest 5 is uncovered, nest 0 bare matters to
    no one."""
    rules = {"birds": {"raven": {"nest": 5}, "jay": {"nest": 0}}}
    s = build(steady(rules=rules), birds={0: "raven", 1: "jackdaw"})
    tb, st, pile = s.tb, s.st, s.pile
    a, b = s.covers[0]
    assert pile.nest[5, a] == 1 and pile.nest[5, b] == 1 and pile.ncount[0] == 0
    assert st.pl[0, PL_REVEALED] == 0
    ph.take_out(pile, np.int64(a))
    ph.take_out(pile, np.int64(b))
    st.cc[a, CC_OWNER] = st.cc[b, CC_OWNER] = OWN_REMOVED
    engine.check_nests(tb, st)
    raven = list(s.c.bird_names).index("raven")
    assert s.events() == [(E_NEST, 0, 5, raven, 0, 0, 0, 0)]
    check_places(s.c, st)


# ---------------------------------------------------------------- end of turn (CV-5, PHYS-8)


def test_cv5_phys8_the_end_of_turn_removes_every_piece_touching_nothing():
    """CV-5, PHYS-8: card 0 and feather 0 touch nothing: both removed, judged together (E_ISOLATED
    1 card, 1 feather); card 1 with the feather on it and cards 2 and 3 overlapping stay; a second
    end of turn removes nothing more."""
    cards = {
        0: Card(0.0, 100.0, 10.0, KEY, NUT),
        1: Card(0.0, -60.0, 10.0, KEY, NUT),
        2: Card(100.0, 0.0, 10.0, KEY, NUT),
        3: Card(100.0, 30.0, 11.0, KEY, NUT),
    }
    feathers = {0: Feather(-100.0, -100.0, 1.0), 1: Feather(0.0, -60.0, 11.0)}
    s = build(steady(), cards, feathers)
    removed = int(s.st.board[G_F_REMOVED])
    engine.end_of_turn(s.tb, s.st)
    assert s.events() == [(E_ISOLATED, 1, 1, 0, 0, 0, 0, 0)]
    assert s.owner(0) == OWN_REMOVED and not s.on(0) and not s.feather_on(0)
    assert all(s.on(k) for k in (1, 2, 3)) and s.feather_on(1)
    assert s.st.board[G_F_REMOVED] == removed + 1
    assert s.st.board[G_ISOLATED] == 2 and s.st.board[G_CARDS_ISOLATED] == 1
    s.clear_log()
    engine.end_of_turn(s.tb, s.st)
    assert not s.events()
    s.check()


def test_cv5_cv6_a_card_left_alone_by_the_pick_is_removed_and_uncovers_a_nest():
    """CV-5, CV-6: seat 1's nest is covered by card 5 alone, which touches only card 6; seat 0
    picks card 6: at the end of the turn card 5 touches nothing and is removed, which uncovers the
    nest and reveals seat 1's bird (E_ISOLATED, then E_NEST)."""
    centre = ph.nest_centres(steady().tb.physics)[3]
    x, y = float(centre[0]), float(centre[1])
    cards = plain(c5=Card(x, y, 10.0, KEY, NUT), c6=Card(x + 51.0, y, 11.0, KEY, BUTTON))
    s = build(steady(), cards, open_nests=(1,), scripts={0: [*PECK2, 6]})
    assert s.pile.ov[5, 6] == 1 and s.st.pl[1, PL_REVEALED] == 0
    s.turn(0)
    codes = s.codes()
    assert codes[-2:] == [E_ISOLATED, E_NEST]
    assert rows_of(s, E_ISOLATED) == [(E_ISOLATED, 1, 0, 0, 0, 0, 0, 0)]
    assert s.owner(5) == OWN_REMOVED and s.st.pl[1, PL_REVEALED] == TURN + 1
    s.check()


# ---------------------------------------------------------------- the end (CV-7)


def test_cv7_engine6_the_turn_that_empties_the_pile_finishes_then_the_game_ends():
    """CV-7: seat 0 picks the pile's last card, a nut: its turn goes on (the nut takes feather 3
    from the pile, ENGINE-6: no steal without a card to drop the feathers on, though seat 1's
    nest is open) and ends as every turn does (feather 2, touching nothing, is removed; feathers 0
    and 1 touch each other and stay); then the game is over (play_game's loop ends) and every
    seat scores."""
    feathers = {
        0: Feather(100.0, 0.0, 1.0),
        1: Feather(110.0, 0.0, 2.0),
        2: Feather(-100.0, 0.0, 3.0),
        3: Feather(-100.0, 100.0, 4.0),
    }
    s = build(
        steady(),
        {0: Card(0.0, 0.0, 10.0, NUT, NUT)},
        feathers,
        held={1: {10: Held(KEY, NUT)}},
        seat_feathers={0: 2},
        open_nests=(0, 1),
        scripts={0: [0, 0.0, 0.0, 0, 3, -1, 10]},
    )
    turns = 0
    a = 0
    while s.pile.att[: s.nc].sum() > 0:  # play_game's loop
        s.turn(a)
        s.next_turn()
        a = (a + 1) % 2
        turns += 1
    assert turns == 1 and state.pile_cards(s.st) == 0
    assert rows_of(s, E_NUT) == [(E_NUT, 0, 1, 0, 0, 0, 0, 0)]
    assert not rows_of(s, E_STEAL) and s.st.pl[0, PL_SCRIPT] == 6
    assert rows_of(s, E_ISOLATED) == [(E_ISOLATED, 0, 1, 0, 0, 0, 0, 0)]
    assert s.feather_on(0) and s.feather_on(1) and not s.feather_on(2)
    assert s.feathers(0) == 3
    assert ranks_of(s) == ([1, 1], [1, 2])  # a nut against a key: seat 0 has the feathers
    s.scripts[0] = s.scripts[0][:6]
    s.check()


@pytest.mark.parametrize(
    ("buttons", "feathers", "ranks"),
    [
        (2, (3, 3, 1), [1, 1, 3]),  # equal points: most feathers, then shared
        (2, (3, 1, 3), [1, 3, 1]),
        (2, (2, 2, 2), [1, 1, 1]),
        (3, (5, 5, 0), [2, 2, 1]),  # points first: 5 beats 2 whatever the feathers
    ],
)
def test_cv7_ties_are_broken_by_feathers_then_shared(buttons, feathers, ranks):
    """CV-7: the highest score wins; ties by most feathers; then shared (a shared place shares its
    rank, the next seat's rank counts the seats ahead of it). engine.finish logs the scores and
    the winners (E_SCORE, E_END)."""
    held = {
        0: {0: Held(KEY, NUT), 1: Held(KEY, BUTTON)},
        1: {2: Held(KEY, NUT), 3: Held(KEY, BUTTON)},
        2: {4 + k: Held(BUTTON, KEY) for k in range(buttons)},
    }
    s = build(
        steady(3),
        held=held,
        seat_feathers=dict(enumerate(feathers)),
        birds={0: "magpie", 1: "jackdaw", 2: "jay"},
    )
    sc, rk = ranks_of(s)
    assert sc == [2, 2, 2 if buttons == 2 else 5] and rk == ranks
    engine.finish(s.tb, s.st, state.alloc_work(s.tb))
    assert [r[7] for r in rows_of(s, E_SCORE)] == ranks
    assert rows_of(s, E_END)[0][3] == ranks.count(1)
    s.check()


# ---------------------------------------------------------------- set-up (CV-1, CV-2, CV-8, CV-10)


def set_up(c, seed: int, game: int):
    tb = c.tb
    st = state.alloc_state(tb, 256)
    ib = state.alloc_work(tb).ib
    ok = engine.setup(tb, st, np.int64(seed), np.int64(game), ib)
    return ok, st


@pytest.mark.parametrize("players", range(2, 9))
def test_cv1_cv2_cv8_cv10_set_up(players):
    """CV-1: every feather (15) is dropped onto the pile, touching a card and on the mat; no seat
    holds any. CV-2: 28 double-sided cards with sides from the six items, 4 string, 4 ticket, 4
    coin single-sided (a blank back). CV-8: every card lies fully on the mat and every one of the
    eight nests is completely covered (shapely: no point of its circle bare), after one scatter
    and the pushes (PHYS-4). CV-10: one bird each, all different, hidden. The first player is a
    seat; the log starts with E_START and one E_BIRD per seat."""
    c = compiled(players, seats="greedy")
    tb = c.tb
    prm = tb.physics
    for game in range(3):
        ok, st = set_up(c, SEED, game)
        assert ok and st.board[G_RETRIES] >= 0
        pile = st.pile
        nc, nf = pile.cards.shape[0], pile.feathers.shape[0]
        assert (nc, nf) == (40, 15)
        assert state.places(st) == (40, 0, 0, 15, 0, 0)
        assert (st.cc[:, CC_OWNER] == OWN_PILE).all()
        assert all(not ph.card_outside_mat(prm, pile.cards, np.int64(k)) for k in range(nc))
        assert len(set(pile.cards[:, ph.CD_H].tolist())) == nc
        # CV-8 (amended): every nest completely covered, no point of its circle bare (shapely)
        union = shapely.union_all([card_poly(pile, k) for k in range(nc)])
        for x, y in ph.nest_centres(prm):
            assert shapely.Point(x, y).buffer(22.0, quad_segs=64).difference(union).is_empty
        assert st.board[G_RETRIES] == 0 and 0 <= st.board[state.G_PUSHES] <= 8
        for f in range(nf):
            assert any(
                ph.card_feather_overlap(prm, pile.cards, np.int64(k), pile.feathers, np.int64(f))
                for k in range(nc)
            )
            assert not ph.feather_outside_mat(prm, pile.feathers, np.int64(f))
            assert pile.feathers[f, ph.FT_H] > pile.cards[:, ph.CD_H].max()
        single = st.item[:, 1] == BLANK
        assert sorted(st.item[single, 0].tolist()) == [STRING] * 4 + [TICKET] * 4 + [COIN] * 4
        assert np.isin(st.item[~single], [ACORN, EARRING, NUT, PAPERCLIP, KEY, BUTTON]).all()
        assert (~single).sum() == 28
        birds = st.pl[:players, PL_BIRD].tolist()
        assert len(set(birds)) == players and all(0 <= b < 8 for b in birds)
        assert not st.pl[:players, PL_REVEALED].any() and not st.pl[:players, PL_FEATHERS].any()
        assert (
            0 <= st.board[G_FIRST] < players and st.board[G_N] == players and st.board[G_TURN] == 0
        )
        log = state.log_rows(st)
        assert tuple(log[0, :5]) == (E_START, players, st.board[G_FIRST], 40, 15)
        assert tuple(log[0, 5:]) == (0, st.board[state.G_REDRAWS], st.board[state.G_PUSHES])
        assert [tuple(r[1:4]) for r in log[1:]] == [
            (p, b, tb.params[tables.P_BIRD_NEST + b]) for p, b in enumerate(birds)
        ]
        assert (log[1:, 0] == E_BIRD).all()


def test_cv1_cv2_the_deck_and_the_feathers_are_config():
    """CV-1, CV-2 (config): 7 feathers, 10 double-sided cards all key/key, 6 coins and no string
    or ticket: the pile is set up with those."""
    rules = {
        "feathers": 7,
        "cards": {
            "double_sided": {"count": 10, "items": ["key"]},
            "single_sided": {"string": 0, "ticket": 0, "coin": 6},
        },
    }
    c = compiled(3, rules, seats="greedy")
    ok, st = set_up(c, SEED, 1)
    assert ok and state.places(st) == (16, 0, 0, 7, 0, 0)
    single = st.item[:, 1] == BLANK
    assert (st.item[single, 0] == COIN).sum() == 6 and (st.item[~single] == KEY).all()


def test_cv8_cv10_common_random_numbers_configs_differing_in_scoring_deal_the_same_game():
    """CV-8, CV-10 (common random numbers): configs that differ only in scoring (no_sets,
    coin_two, strong_birds) or in their seats' policies (random_vs_greedy) set up the same game
    for the same seed and game: the same sides, pile, feathers, birds and first player."""
    names = ("base.yaml", "no_sets.yaml", "coin_two.yaml", "strong_birds.yaml")
    names += ("random_vs_greedy.yaml",)
    for seed, game in ((1, 0), (7, 3), (2**40 + 5, 12)):
        sets = []
        for name in names:
            c = games.get("corvids").compile(config_from(name))
            ok, st = set_up(c, seed, game)
            assert ok
            sets.append(st)
        a = sets[0]
        for b in sets[1:]:
            assert (a.item == b.item).all()
            assert np.array_equal(a.pile.cards, b.pile.cards)
            assert np.array_equal(a.pile.cst, b.pile.cst)
            assert np.array_equal(a.pile.feathers, b.pile.feathers)
            assert (a.pl[:, PL_BIRD] == b.pl[:, PL_BIRD]).all() and a.board[G_FIRST] == b.board[
                G_FIRST
            ]
    # and another seed does deal another game
    ok, other = set_up(games.get("corvids").compile(config_from("base.yaml")), 8, 3)
    assert not np.array_equal(other.pile.cards, sets[0].pile.cards)


def config_from(name: str):
    return load_config(CONFIGS / name)


def test_cv10_birds_are_dealt_from_the_configs_birds():
    """CV-10: eight players are dealt all eight birds; two players over many games are dealt
    every bird and are each the first player sometimes; a config keeping only the raven and the
    crow deals those two."""
    _, st = set_up(compiled(8, seats="greedy"), SEED, 0)
    assert sorted(st.pl[:8, PL_BIRD].tolist()) == list(range(8))
    c = compiled(2, seats="greedy")
    dealt, firsts = set(), set()
    for game in range(60):
        _, st = set_up(c, SEED, game)
        dealt |= set(st.pl[:2, PL_BIRD].tolist())
        firsts.add(int(st.board[G_FIRST]))
    assert dealt == set(range(8)) and firsts == {0, 1}
    gone = {b: None for b in BIRD_NAMES if b not in ("raven", "crow")}
    c = compiled(2, {"birds": gone}, seats="greedy")
    assert c.bird_names == ("raven", "crow")
    for game in range(5):
        _, st = set_up(c, SEED, game)
        assert sorted(st.pl[:2, PL_BIRD].tolist()) == [0, 1]


SMALL_DECK = {
    "double_sided": {"count": 5},
    "single_sided": {"string": 0, "ticket": 0, "coin": 0},
}


@pytest.mark.parametrize(
    "rules",
    [
        # the looser reading: a heap at the very centre (spread 0) overlaps no nest
        {
            "physics": {
                "scatter_sd_x": 0.0,
                "scatter_sd_y": 0.0,
                "setup_retries": 3,
                "nest_cover": "overlap",
            }
        },
        # every nest completely covered: five cards cannot cover eight nests
        {"physics": {"setup_retries": 3}, "cards": SMALL_DECK},
    ],
    ids=["overlap", "complete"],
)
def test_engine8_a_set_up_that_cannot_cover_every_nest_is_not_played(rules):
    """ENGINE-8: a pile that cannot cover every nest (CV-8) in setup_retries scatters: the game
    ends as setup_failed before its first turn, every seat scoring 0 and sharing the win (rank
    1)."""
    c = compiled(4, rules, seats="greedy")
    ok, st = set_up(c, SEED, 0)
    assert not ok and st.board[G_RETRIES] == -1
    plugin = games.get("corvids")
    chunk = plugin.play(c, SEED, 0, 5)
    assert plugin.end_reasons[1] == "setup_failed"
    assert (chunk.end_reason == 1).all() and (chunk.turns == 0).all()
    assert (chunk.score == 0).all() and (chunk.rank == 1).all()
    logged = narrate.play_logged(c, SEED, 2)
    assert logged.turns == 0 and logged.end_reason == 1
    rows = [tuple(int(v) for v in r) for r in logged.log]
    assert rows[0][5] == -1 and rows[-1][:4] == (E_END, 0, state.END_SETUP, 4)
    assert sum(r[0] == E_TURN for r in rows) == 0


def test_engine4_every_turn_takes_a_card_or_knocks_a_piece_off_so_games_are_short():
    """ENGINE-4: a game lasts at most cards + feathers turns (55): base and clumsy seats, 200
    games each (the invariants test checks it turn by turn)."""
    plugin = games.get("corvids")
    for name in ("base.yaml", "clumsy_players.yaml", "small_mat.yaml"):
        chunk = plugin.play(plugin.compile(config_from(name)), SEED, 0, 200)
        assert (chunk.end_reason == 0).all()
        assert chunk.turns.max() <= 55 and chunk.turns.min() >= 1
