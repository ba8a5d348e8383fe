"""The Raven Manor replay (narrate.py): the replayed game is the dataset's game, every event code is
told, the narrator's shadow of the hands agrees with the engine all game long, and the lines name
the characters, the answers to each window, the possessions and the end.

Under ``NUMBA_DISABLE_JIT=1`` (pure Python, a few games a second) the random streams' uint64
arithmetic wraps with NumPy's overflow RuntimeWarning, by design (balance/rng.py), which the
project's ``filterwarnings = error`` would turn into a failure: it is ignored here.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from balance.cli import app
from balance.config import config_from_dict, load_config
from balance.config.loading import load_yaml
from balance.games import get as get_game
from balance.games._kit import Logged
from balance.games.raven_manor import PLUGIN, narrate, state
from balance.games.raven_manor.narrate_words import card, char
from balance.games.raven_manor.policies import K_PLAY
from balance.games.raven_manor.state import END_REASONS
from balance.games.raven_manor.tables import (
    AUNT_CAT,
    AUNT_OWL,
    AXE,
    BOTTLE,
    BROTHER_BADGER,
    CANDLE,
    DEATH_CAUSES,
    DODGE,
    DOG_FATHER,
    EEL,
    EVADE,
    FEATHER,
    HAYMAKER,
    KNIFE,
    LIBRARY,
    LIFEBUOY,
    MOUNTAINS,
    NC,
    P_OPEN_HAND,
    RAVEN,
    RIFLE,
    TEAM_NAMES,
    VASE,
)

pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "configs" / "raven_manor" / "base.yaml"
ALL = ROOT / "configs" / "raven_manor" / "all_cards.yaml"
SEED = 5
CODES = {getattr(state, n): n for n in dir(state) if n.startswith("E_")}
END_LINE = re.compile(r"^End after (\d+) turns: .* \(end reason (\w+)\)\.$")


@pytest.fixture(scope="module")
def base():
    """Five basic players, the starter deck and characters."""
    return PLUGIN.compile(load_config(BASE))


@pytest.fixture(scope="module")
def every():
    """Eight basic players, every card and every character in the pool."""
    return PLUGIN.compile(load_config(ALL))


@pytest.fixture(scope="module")
def every_random():
    """all_cards.yaml with random seats: they play what the basic policy never does (a Backpack,
    a Shark Bouncer's sacrifice) and, with table talk on (ENGINE-15), make claims."""
    data, _ = load_yaml(ALL)
    data["seats"] = "random"
    data.setdefault("rules", {})["talk"] = True
    return PLUGIN.compile(config_from_dict(data, str(ALL)))


def warnings_of(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("WARNING")]


def final_block(lines: list[str]) -> list[str]:
    i = lines.index("Final standing (turns numbered as above):")
    return [line for line in lines[i + 1 :] if line.startswith("  Seat ")]


def test_replay_is_the_dataset_game(base, every):
    """Replay ``i`` is row ``i`` of a chunk that starts elsewhere than game 0."""
    for compiled, games in ((base, (5, 6, 9, 12)), (every, (5, 8, 12))):
        chunk = PLUGIN.play(compiled, SEED, 5, 8)
        for game in games:
            rep = get_game("raven_manor").replay(compiled, SEED, game)
            row = game - chunk.first_game
            assert rep.score.tolist() == chunk.score[row].tolist(), game
            assert rep.rank.tolist() == chunk.rank[row].tolist(), game
            assert rep.turns == int(chunk.turns[row]), game
            assert rep.end_reason == int(chunk.end_reason[row]), game
            assert rep.lines[0].startswith(f"Game {game} of seed {SEED}: {compiled.players} ")
            assert not warnings_of(rep.lines), (game, warnings_of(rep.lines))


def test_every_event_code_is_told_and_the_shadow_holds(every, every_random):
    """Forty games of every card with basic seats and thirty with random ones tell every event
    code the engine has; the narrator's hands, sides, stuns and seats agree with each turn's event
    and with the final state (no WARNING line)."""
    seen: set[int] = set()
    for compiled, n in ((every, 40), (every_random, 30)):
        for game in range(n):
            logged = narrate.play_logged(compiled, SEED, game)
            seen |= {int(code) for code in logged.log[:, 0]}
            lines = narrate.tell(compiled, logged, SEED, game).lines
            assert not warnings_of(lines), (game, warnings_of(lines))
            # every card of every hand is named (E_PICK names a Candle's, Torch's or Mine's)
            assert not [line for line in lines if "?" in line and "hand" in line], game
    assert {CODES[c] for c in seen} == set(CODES.values())


def test_an_unknown_event_code_raises(base):
    logged = narrate.play_logged(base, SEED, 0)
    bad = np.vstack([logged.log, np.array([[len(CODES) + 7, 0, 0, 0, 0, 0, 0, 0]], np.int32)])
    with pytest.raises(ValueError, match="unknown event code"):
        narrate.tell(base, logged._replace(log=bad), SEED, 0)


def test_a_damaged_log_is_told_with_problems(base):
    """A log row removed (a card drawn) or altered (a seat's death turned into another's) puts
    the narrator's shadow out of step with the events or the final state: problems, which the
    replay prints as WARNING lines, instead of another game told as if nothing were wrong."""
    game = next(
        g for g in range(20) if state.E_DEATH in narrate.play_logged(base, SEED, g).log[:, 0]
    )
    logged = narrate.play_logged(base, SEED, game)
    assert narrate.tell(base, logged, SEED, game).problems == []
    draw = int(np.flatnonzero(logged.log[:, 0] == state.E_DRAW)[0])
    removed = logged._replace(log=np.delete(logged.log, draw, axis=0))
    problems = narrate.tell(base, removed, SEED, game).problems
    assert problems and all(p.startswith(("row ", "seat ")) for p in problems), problems
    death = int(np.flatnonzero(logged.log[:, 0] == state.E_DEATH)[0])
    altered = logged.log.copy()
    altered[death, 1] = (altered[death, 1] + 1) % base.players
    assert narrate.tell(base, logged._replace(log=altered), SEED, game).problems
    assert warnings_of(get_game("raven_manor").replay(base, SEED, game).lines) == []


def test_opening_hands_are_the_engines(base):
    """The opening hands dealt again hold the opening's cards, no Feather outside the Raven's
    (RM-3), and are the hands the first turns start from (checked by the shadow)."""
    for game in range(5):
        hands = narrate.opening_hands(base, SEED, game)
        logged = narrate.play_logged(base, SEED, game)
        st = logged.state
        assert hands.shape == (base.players, NC)
        assert (hands.sum(axis=1) == base.tb.params[P_OPEN_HAND]).all()
        for p in range(base.players):
            if st.pl[p, state.PL_DEALT] != RAVEN:
                assert hands[p, FEATHER] == 0


def test_lines_name_the_characters_the_turns_and_the_end(base, every):
    for compiled, games in ((base, range(12)), (every, range(6))):
        for game in games:
            logged = narrate.play_logged(compiled, SEED, game)
            lines = narrate.tell(compiled, logged, SEED, game).lines
            st = logged.state
            n = compiled.players
            i = lines.index("Characters:")
            for p in range(n):  # the characters dealt, each with its side
                dealt = int(st.pl[p, state.PL_DEALT])
                side = TEAM_NAMES[int(state.own_side(dealt))]
                assert lines[i + 1 + p] == f"  Seat {p}: {char(dealt)} ({side})"
            turns = [line for line in lines if line.startswith("Turn ")]
            assert len(turns) == logged.turns
            assert turns[0].startswith(f"Turn 1: seat {int(st.board[state.G_FIRST])} (")
            ends = [m for line in lines if (m := END_LINE.match(line))]
            assert len(ends) == 1
            assert int(ends[0][1]) == logged.turns
            assert ends[0][2] == END_REASONS[logged.end_reason]
            final = final_block(lines)
            assert len(final) == n
            for p, line in enumerate(final):
                pl = st.pl[p]
                assert line.startswith(f"  Seat {p} ({compiled.seat_policies[p]}): dealt ")
                assert char(int(pl[state.PL_DEALT])) in line
                assert f"side {TEAM_NAMES[int(pl[state.PL_SIDE])]}" in line
                assert line.endswith(f"score {int(logged.score[p])}, rank {int(logged.rank[p])}"), (
                    line
                )
                if pl[state.PL_ALIVE]:
                    assert "; alive;" in line
                else:
                    cause = DEATH_CAUSES[int(pl[state.PL_CAUSE]) - 1]
                    turn = int(pl[state.PL_DEATH_TURN]) + 1
                    assert f"dead since turn {turn} ({cause})" in line
                    if cause != "whale":  # Lady Whale's victim dies without a death event
                        assert any(f"✝ seat {p} (" in x for x in lines), p


def test_windows_possessions_and_exchanges_in_words(base):
    """Spot checks over a few starter games: an Evade answers a kill, which then fails; a Feather
    from the Raven possesses its receiver, naming the Raven's seat; every exchange names both
    cards."""
    texts = []
    for game in range(25):
        logged = narrate.play_logged(base, SEED, game)
        lines = narrate.tell(base, logged, SEED, game).lines
        raven = int(np.flatnonzero(logged.state.pl[: base.players, state.PL_DEALT] == RAVEN)[0])
        for k, line in enumerate(lines):
            if line.endswith("answers with Evade.") and "Mountains" not in lines[k - 1]:
                assert "cannot be killed this turn" in lines[k + 1], lines[k - 1 : k + 2]
            m = re.search(r"is possessed by the Raven \(seat (\d+) gave the Feather\)", line)
            if m:
                assert int(m[1]) == raven
                assert re.search(r"(gives|receives) Feather", lines[k - 1]), lines[k - 1 : k + 1]
            if "exchange with seat" in line or "exchanges with seat" in line:
                assert re.search(r": gives [^,]+, receives [^.]+\.$", line), line
        texts.append("\n".join(lines))
    text = "\n".join(texts)
    for phrase in (
        "answers with Evade.",
        "cannot be killed this turn",
        "is possessed by the Raven (seat",
        "End-of-turn exchange with seat",
        "reveals the Pillow it passed to",
        "Stunned: the turn is skipped",
        "sees seat",
        "searches for",
        " draws ",
    ):
        assert phrase in text, phrase
    assert card(FEATHER) == "Feather" and card(9) == "Get Over Here!"


def test_cli_replay():
    result = CliRunner().invoke(app, ["replay", str(BASE), "--game", "3"])
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[0].startswith("Game 3 of seed 1: 5 players (all basic); seat ")
    assert "Final standing (turns numbered as above):" in out
    assert any(END_LINE.match(line) for line in out)
    assert not warnings_of(out)


# ---------------------------------------------------------------- scripted scenes, told


def told(s, act) -> list[str]:
    """The replay lines of a hand-built scene (helpers.scene): ``act(s)`` plays it, and its log,
    after one deal event per seat, is told from the scene's starting hands, lives, stuns and
    possessions; the narrator's shadow must agree with the final state (no WARNING)."""
    n = s.n
    hands = np.array(s.pl[:n, state.PL_HAND : state.PL_HAND + NC], np.int64)
    start = [(p, s.char(p), s.pos(p), s.alive(p), s.stunned(p), s.possessed(p)) for p in range(n)]
    act(s)
    deal = [[state.E_DEAL, p, ch, pos, 0, 0, 0, 0] for p, ch, pos, *_ in start]
    log = np.array(deal + [list(r) for r in s.rows()], np.int32)
    logged = Logged(log, s.st, np.zeros(n, np.int32), np.zeros(n, np.int32), 0, -1)
    teller = narrate._Narrator(s.c, logged, 0, 0, hands)
    for p, _, _, alive, stunned, possessed in start:
        teller.alive[p], teller.stunned[p] = alive, stunned
        if possessed >= 0:
            teller.possessed[p] = teller.side[p] = possessed
    teller.run()
    assert not teller.problems, teller.problems
    return teller.lines


FIVE = [AUNT_CAT, AUNT_OWL, BROTHER_BADGER, DOG_FATHER, RAVEN]


def test_a_lifebuoy_against_mountains_is_told_as_a_lifebuoy_not_a_double_death(build):
    """RM-28, RM-19: the player of the Mountains protects its own target with a Lifebuoy: the
    replay says so and that the kill fails; nobody 'Evades back' and nobody dies."""
    s = build(FIVE, hands={0: [MOUNTAINS, LIFEBUOY], 1: [EVADE]}, scripts={0: [LIFEBUOY]})
    lines = told(s, lambda s: s.play(0, MOUNTAINS, 1))
    text = "\n".join(lines)
    assert s.alive(0) and s.alive(1)
    assert "    Seat 0 (Aunt Cat) plays Lifebuoy to protect seat 1 (Aunt Owl)." in lines
    assert "    Seat 1 (Aunt Owl) cannot be killed this turn: the kill fails." in lines
    assert "both die" not in text and "✝" not in text


def test_the_mountains_double_evade_is_still_told_as_both_dying(build):
    """RM-28: the target Evades, the player of the Mountains Evades back: both die."""
    s = build(FIVE, hands={0: [MOUNTAINS, EVADE], 1: [EVADE]}, scripts={0: [1], 1: [EVADE]})
    text = "\n".join(told(s, lambda s: s.play(0, MOUNTAINS, 1)))
    assert "Seat 0 (Aunt Cat) Evades back: both die (RM-28)." in text
    assert text.count("✝") == 2


def test_a_pass_shows_the_hand_once_and_the_impossible_exchange_says_so(build):
    """RM-29: seat 0 can only pass (one reaction in hand): it shows its hand to seat 1; seat 1
    holds no card, so the end-of-turn exchange is impossible and seat 0 shows its hand again,
    told as that, not as the pass's show a second time."""
    s = build(FIVE, hands={0: [EVADE]}, deck=[CANDLE, VASE, KNIFE])
    lines = told(s, lambda s: s.turn(0))
    assert [x for x in lines if "shows its hand" in x] == [
        "    It shows its hand to seat 1 (Aunt Owl): Evade.",
        "    No exchange is possible: seat 0 (Aunt Cat) shows its hand to seat 1 (Aunt Owl): "
        "Evade.",
    ]


def test_a_failed_eel_fella_stun_is_told_as_failed(build):
    """Eel Fella, ENGINE-4: seat 2 cannot be stunned this turn (it dodged earlier in it) and
    chooses the stun: the stun does not take, and the replay says it failed; seat 3's stun took."""
    s = build(
        [AUNT_CAT, EEL, AUNT_OWL, BROTHER_BADGER, RAVEN],
        hands={0: [KNIFE], 2: [CANDLE], 3: [VASE], 4: [RIFLE]},
        scripts={2: [1], 3: [1], 4: [0], 0: [0]},
    )
    s.pl[2, state.PL_SAFE_STUN] = int(s.board[state.G_TURN]) + 1
    lines = told(s, lambda s: s.play(0, KNIFE, 1))
    assert not s.stunned(2) and s.stunned(3)
    i = lines.index("      Seat 2 (Aunt Owl) chooses to be stunned.")
    assert lines[i + 1] == "      The stun fails: seat 2 (Aunt Owl) cannot be stunned this turn."
    j = lines.index("      Seat 3 (Brother Badger) chooses to be stunned.")
    assert "fails" not in lines[j + 1]


def test_a_player_stunned_in_its_own_turn_is_told_making_no_exchange(build):
    """RM-4: seat 0 kills Eel Fella and chooses the stun: the turn says there is no end-of-turn
    exchange, and there is none."""
    s = build(
        [AUNT_CAT, EEL, AUNT_OWL, BROTHER_BADGER, RAVEN],
        hands={0: [KNIFE, CANDLE], 1: [AXE], 2: [DODGE], 3: [EVADE], 4: [RIFLE]},
        deck=[BOTTLE, HAYMAKER, LIBRARY],
        scripts={0: [K_PLAY, KNIFE, 1, 0, 1], 2: [0], 3: [0], 4: [0]},
    )
    lines = told(s, lambda s: s.turn(0))
    assert "  Stunned during its own turn: no end-of-turn exchange (RM-4)." in lines
    assert not [x for x in lines if "exchange with" in x or "shows its hand" in x]
