"""Raven Manor's table talk (ENGINE-15, ``rules.talk``): claims as decision points, heard as
cheap talk by the reasoning players (beliefs.hear), said by policy.

- With talk off no claim is ever asked (the shipped configs' games are those of the release
  before talk: benchmarks/dataset_hash.py).
- With talk on, each turn's player is asked for one claim before its action: say nothing,
  "I am Family", "I saw a Feather in x's hand" or "x is evil" about each other living seat;
  the claim is logged, narrated, public (PL_SAID, in every seat's observation).
- A claim moves each reasoning listener's belief about the target by the fitted rate at which
  a speaker of each side makes it, averaged over the listener's belief about the speaker: a
  believed Family member's accusation raises suspicion of the target, a believed evil player's
  lowers it; said again, it tells nothing new.
- The reasoning Family tells what it knows; an evil seat counter-accuses one who saw its side.
"""

from __future__ import annotations

import numpy as np
import pytest

from balance import games
from balance.games.position import Position
from balance.games.raven_manor import beliefs as B
from balance.games.raven_manor import engine, knowledge, narrate, policies, state
from balance.games.raven_manor import tables as T

from .test_beliefs import belief, compiled, reasoning


def _first(c: T.Compiled, kind: int, seed: int = 1, want=lambda st: True):
    """(state, work) at the first decision of kind ``kind`` (of a game from ``seed`` on) that
    ``want`` accepts."""
    tb = c.tb
    work = state.alloc_work(tb)
    for g in range(50):
        st = state.alloc_state(tb, 1 << 12)
        engine.start(tb, st, seed, g, work)
        while engine.advance(tb, st, work) >= 0:
            if st.board[state.G_KIND] == kind and want(st):
                return st, work
            engine.apply(tb, st, work, policies.choose(tb, st, work))
    raise AssertionError("no such decision")


def test_without_talk_no_claim_is_ever_asked():
    c = reasoning("base", 5)
    assert c.tb.params[T.P_TALK] == 0
    plugin = games.get("raven_manor")
    for g in range(20):
        pos = Position(plugin, c, 3, g)
        while not pos.done:
            assert pos.kind != "claim"
            pos.play_policy()


def test_each_turn_begins_with_a_claim_whose_options_are_every_claim_about_every_living_seat():
    """ENGINE-15: with talk on, the turn's player is asked for its claim before its action."""
    c = compiled("reasoning", "rules.talk=true")
    tb = c.tb
    st, work = _first(c, state.D_CLAIM)
    a = int(st.board[state.G_ACTOR])
    assert a == st.board[state.G_ACTIVE]
    opts = np.zeros(state.MAX_OPTIONS, np.int64)
    k = engine.legal(tb, st, work, opts)
    others = [x for x in range(5) if x != a and st.pl[x, state.PL_ALIVE]]
    expected = [state.CLAIM_NONE, state.CLAIM_FAMILY]
    expected += [state.CLAIM_FEATHER + x for x in others] + [state.CLAIM_EVIL + x for x in others]
    assert list(opts[:k]) == expected
    assert st.board[state.G_NOPT] == k == state.claim_count(st, a)
    words = [narrate.option_words(c, st, int(code)) for code in opts[:k]]
    assert words[:2] == ["say nothing", 'say "I am Family"']
    assert f'say "I saw a Feather in seat {others[0]}\'s hand"' in words
    assert f'say "seat {others[-1]} is evil"' in words


def test_a_claim_is_logged_narrated_public_and_then_the_action_is_asked():
    c = compiled("base", "rules.talk=true")
    tb = c.tb
    st, work = _first(c, state.D_CLAIM)
    a = int(st.board[state.G_ACTOR])
    target = next(x for x in range(5) if x != a)
    code = state.CLAIM_FEATHER + target
    engine.apply(tb, st, work, code)
    assert engine.advance(tb, st, work) == a
    assert st.board[state.G_KIND] == state.D_ACTION
    assert st.pl[a, state.PL_SAID] == 1 << (code - 1)
    obs = np.zeros(knowledge.obs_size(tb), np.int32)
    for seat in range(5):
        knowledge.observe(tb, st, seat, obs)
        assert obs[knowledge.O_SEAT + knowledge.N_SEAT_OBS * a + 18 + 3 * T.NC] == 1 << (code - 1)
    lines = narrate.event_lines(c, state.log_rows(st))
    assert any(f'says "I saw a Feather in seat {target}\'s hand"' in line for line in lines)


def _listener_setup(speaker_family: float):
    """A reasoning game at its first claim: listener q, speaker a, target t, with q's cached
    belief that a is Family set to ``speaker_family`` (the rest on the Raven) and the claim
    rates set by hand: the Family accuses a seat of another side at 0.2 and its own at 0.02,
    the evil side accuses the Family at 0.1 and its own at 0.01."""
    c = compiled("reasoning", "rules.talk=true")
    tb = c.tb
    st, _work = _first(c, state.D_CLAIM)
    a = int(st.board[state.G_ACTOR])
    q, t = [x for x in range(5) if x != a][:2]
    rates = {
        (0, B.REL_OTHER): 0.2,
        (0, B.REL_SAME): 0.02,
        (1, B.REL_OTHER): 0.1,
        (1, B.REL_SAME): 0.01,
    }
    for (ev, rel), r in rates.items():
        i = T.BEL_LIK + (B.C_SAY_EVIL * 2 + ev) * T.N_REL + rel
        tb.values[T.MAXP + i // T.NC, i % T.NC] = r
    m = belief(st)[q, a, B.NB : 2 * B.NB]
    m[:] = 0.0
    m[B.B_FAM] = speaker_family
    m[B.B_RAVEN] = 1.0 - speaker_family
    return tb, st, a, q, t


@pytest.mark.parametrize("speaker_family", [1.0, 0.5, 0.0])
def test_an_accusation_moves_the_target_by_the_rates_averaged_over_the_speaker(speaker_family):
    tb, st, a, q, t = _listener_setup(speaker_family)
    st.pl[q, state.PL_REASON] = 1
    before = belief(st)[q, t, : B.NB].copy()
    B.hear(tb, st, a, state.CLAIM_EVIL + t)
    moved = belief(st)[q, t, : B.NB] - before
    f = speaker_family
    fam = f * 0.02 + (1 - f) * 0.1  # a Family target: the Family speaker's own side
    evil = f * 0.2 + (1 - f) * 0.01  # a target on the Raven's side
    top = max(fam, evil)
    expect_fam = np.log(max(fam / top, 1 / B.CLIP))
    expect_evil = np.log(max(evil / top, 1 / B.CLIP))
    np.testing.assert_allclose(moved[B.B_FAM], expect_fam)
    for s in (B.B_POSS_R, B.B_RAVEN):
        np.testing.assert_allclose(moved[s], expect_evil)
    if speaker_family == 1.0:  # a trusted accuser: the target looks evil
        assert moved[B.B_RAVEN] > moved[B.B_FAM]
    if speaker_family == 0.0:  # an accuser believed evil: the target looks like Family
        assert moved[B.B_FAM] > moved[B.B_RAVEN]


def test_a_claim_said_again_tells_nothing_new():
    tb, st, a, q, t = _listener_setup(1.0)
    st.pl[q, state.PL_REASON] = 1
    code = state.CLAIM_EVIL + t
    engine.say(tb, st, a, code)
    once = belief(st)[q, t, : B.NB].copy()
    assert not np.allclose(once, 0.0)
    engine.say(tb, st, a, code)
    np.testing.assert_array_equal(belief(st)[q, t, : B.NB], once)


def test_the_reasoning_family_tells_the_feather_it_saw():
    c = compiled("reasoning", "rules.talk=true")
    tb = c.tb
    st, work = _first(
        c, state.D_CLAIM, want=lambda st: st.pl[st.board[state.G_ACTOR], state.PL_SIDE] == T.FAMILY
    )
    a = int(st.board[state.G_ACTOR])
    x = next(p for p in range(5) if p != a and st.pl[p, state.PL_ALIVE])
    st.kn[a, x, state.KN_FEATHER] = int(st.board[state.G_TURN]) + 1
    assert policies.choose(tb, st, work) == state.CLAIM_FEATHER + x
    st.pl[a, state.PL_SAID] |= 1 << (state.CLAIM_FEATHER + x - 1)  # said: not again
    assert policies.choose(tb, st, work) != state.CLAIM_FEATHER + x
    basic = compiled("base", "rules.talk=true")
    st2, work2 = _first(basic, state.D_CLAIM)
    assert policies.choose(basic.tb, st2, work2) == state.CLAIM_NONE  # basic never talks


def test_an_evil_seat_counter_accuses_the_player_who_saw_its_side():
    c = compiled("reasoning", "rules.talk=true", "policies.reasoning.hide=0")  # the rule alone
    tb = c.tb
    st, work = _first(
        c, state.D_CLAIM, want=lambda st: st.pl[st.board[state.G_ACTOR], state.PL_SIDE] != T.FAMILY
    )
    a = int(st.board[state.G_ACTOR])
    x = next(
        p for p in range(5)
        if p != a and st.pl[p, state.PL_ALIVE] and st.pl[p, state.PL_SIDE] == T.FAMILY
    )  # fmt: skip
    B.refresh(tb, st, a)
    if belief(st)[a, x, B.BE_OTHER] < 0.5:
        pytest.skip("the evil seat believes its witness is on its side")
    belief(st)[a, x, B.BE_EXPOSED] = 1.0
    assert policies.choose(tb, st, work) == state.CLAIM_FEATHER + x


def test_a_game_with_talk_is_an_environment_that_passes_pettingzoos_api_test():
    """Claims are decision points like any other: PettingZoo's api_test on a talking table."""
    pettingzoo_test = pytest.importorskip("pettingzoo.test")
    import balance
    from balance.config import load_config
    from balance.config.overrides import parse_overrides

    from .test_beliefs import CONFIGS

    config = load_config(CONFIGS / "reasoning.yaml", parse_overrides(["players=4"]))
    assert config.rules.talk
    pettingzoo_test.api_test(balance.env(config, seed=2), num_cycles=200)


def test_a_reasoning_shark_bouncer_dies_for_its_possessor_or_for_a_trusted_witness():
    """RM-21 where it pays: a possessed Shark Bouncer dies in its Raven's place (it knows its
    Raven by the Feather it received); on the Family's side, for a player it trusts who has told
    the table whom it saw, and not for one who has said nothing."""
    c = compiled("reasoning", "rules.talk=true")
    st, _work = _first(c, state.D_CLAIM)
    shark, raven, witness = 0, 1, 2
    st.kn[shark, :, state.KN_GAVE_F] = 0
    st.pl[shark, state.PL_CHAR] = T.SHARK
    st.pl[raven, state.PL_CHAR] = T.RAVEN
    st.pl[shark, state.PL_SIDE] = T.S_RAVEN
    st.pl[shark, state.PL_POSSESSED] = T.S_RAVEN
    st.kn[shark, raven, state.KN_CHAR] = T.RAVEN  # learned with the Feather (RM-11)
    assert not policies._reasoning_sacrifice(st, shark, raven)  # not yet known as its master
    st.kn[shark, raven, state.KN_GAVE_F] = 1
    assert policies._reasoning_sacrifice(st, shark, raven)
    assert not policies._reasoning_sacrifice(st, shark, witness)
    st.pl[shark, state.PL_SIDE] = T.FAMILY
    st.pl[shark, state.PL_POSSESSED] = -1
    st.kn[shark, witness, state.KN_CHAR] = -1
    st.kn[shark, witness, state.KN_FEATHER] = 0
    st.kn[shark, witness, state.KN_SUSPECT] = -1  # trusted
    st.pl[witness, state.PL_SAID] = 1 << (state.CLAIM_FAMILY - 1)
    assert not policies._reasoning_sacrifice(st, shark, witness)
    st.pl[witness, state.PL_SAID] |= 1 << (state.CLAIM_EVIL + 3 - 1)
    assert policies._reasoning_sacrifice(st, shark, witness)
    st.kn[shark, witness, state.KN_SUSPECT] = 0  # no longer trusted
    assert not policies._reasoning_sacrifice(st, shark, witness)
