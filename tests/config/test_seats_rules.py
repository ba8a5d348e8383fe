"""Line-ups that fit any player count (balance/config/lineup.py, ``resolve_lineup``): ``seats:`` and
``teams:`` as one name, a list or a rule (``cycle``, ``rest``, ``first``, ``last``, seat
numbers), resolved per player count; the errors of a bad rule, one line each; what the config
and the manifest record; the shipped configs use the one-name form where they mean it."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from kit.configs import write
from typer.testing import CliRunner

from balance import runner
from balance.cli import app
from balance.config import ConfigError, config_hash, load_config
from balance.config.lineup import resolve_lineup
from balance.config.overrides import parse_override

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        ("g", {2: "gg", 3: "ggg", 5: "ggggg"}),
        ({"rest": "g"}, {2: "gg", 4: "gggg"}),
        ({"cycle": ["g", "r"]}, {2: "gr", 3: "grg", 4: "grgr", 5: "grgrg"}),
        ({"cycle": ["a", "b", "c"]}, {2: "ab", 4: "abca", 7: "abcabca"}),
        ({"first": "r", "rest": "g"}, {2: "rg", 3: "rgg", 4: "rggg"}),
        ({"last": "r", "rest": "g"}, {2: "gr", 3: "ggr", 4: "gggr"}),
        ({1: "r", "rest": "g"}, {2: "gr", 3: "grg", 4: "grgg"}),
        ({"first": "a", "last": "b", "rest": "g"}, {2: "ab", 3: "agb", 5: "agggb"}),
        # a cycle counts seat numbers, pinned seats included: seat i gets item i mod its length
        ({"first": "x", "cycle": ["a", "b"]}, {2: "xb", 3: "xba", 4: "xbab"}),
        ({0: "x", 2: "y", "rest": "g"}, {3: "xgy", 4: "xgyg"}),
    ],
)
def test_rules_at_several_player_counts(rule, expected):
    for players, names in expected.items():
        assert resolve_lineup(rule, players) == list(names), (rule, players)


_name = st.sampled_from(["a", "b", "c"])


@st.composite
def _rules(draw):
    rule: dict = {}
    if draw(st.booleans()):
        rule["cycle"] = draw(st.lists(_name, min_size=1, max_size=4))
    else:
        rule["rest"] = draw(_name)
    for key in draw(st.lists(st.sampled_from(["first", "last", 1, 2, 3]), unique=True)):
        rule[key] = draw(st.sampled_from(["x", "y"]))
    return rule


@given(rule=_rules(), players=st.integers(1, 12))
def test_a_rule_names_every_seat(rule, players):
    pins = {0 if k == "first" else players - 1 if k == "last" else k: v for k, v in rule.items()}
    pins.pop("cycle", None), pins.pop("rest", None)
    try:
        seats = resolve_lineup(rule, players)
    except ValueError as e:  # a pinned seat the count lacks, or two pins on one seat
        seats_named = [0 if k == "first" else players - 1 if k == "last" else k for k in rule]
        seats_named = [s for s in seats_named if isinstance(s, int)]
        assert max(seats_named) >= players or len(set(seats_named)) < len(seats_named), e
        return
    assert len(seats) == players
    for seat, name in enumerate(seats):
        if seat in pins:
            assert name == pins[seat]
        elif "cycle" in rule:
            assert name == rule["cycle"][seat % len(rule["cycle"])]
        else:
            assert name == rule["rest"]


# ------------------------------------------------------------------------ configs that use them


def fake_rule(tmp_path: Path, seats: str, players: int = 3, extra: str = "") -> Path:
    return write(tmp_path, "rule.yaml", f"game: fake\nplayers: {players}\nseats: {seats}\n{extra}")


def test_one_config_fits_every_player_count(fake_game, tmp_path):
    path = fake_rule(tmp_path, "{first: skilled, rest: plain}")
    for players, seats in ((2, ["skilled", "plain"]), (4, ["skilled", "plain", "plain", "plain"])):
        cfg = load_config(path, [parse_override(f"players={players}")])
        assert cfg.seats == seats
        assert cfg.lineup_rules == {"seats": {"first": "skilled", "rest": "plain"}}


def test_a_rule_is_the_same_config_as_its_list(fake_game, tmp_path):
    rule = load_config(fake_rule(tmp_path, "{cycle: [plain, skilled]}", players=4))
    listed = load_config(
        write(
            tmp_path, "list.yaml", "game: fake\nplayers: 4\nseats: [plain, skilled, plain, skilled]"
        )
    )
    assert rule.resolved_dict() == listed.resolved_dict()
    assert config_hash(rule) == config_hash(listed)
    assert listed.lineup_rules == {}


def test_teams_take_a_rule_too(fake_game, tmp_path):
    path = fake_rule(tmp_path, "plain", players=4, extra="teams: {cycle: [red, blue]}\n")
    cfg = load_config(path)
    assert cfg.teams == ["red", "blue", "red", "blue"]
    assert cfg.lineup_rules == {"seats": "plain", "teams": {"cycle": ["red", "blue"]}}
    assert load_config(path, [parse_override("players=2")]).teams == ["red", "blue"]
    assert load_config(path, [parse_override("teams[3]=green")]).teams == [
        "red",
        "blue",
        "red",
        "green",
    ]


def test_the_manifest_records_the_rule_and_the_list(fake_game, tmp_path):
    path = fake_rule(tmp_path, "{last: skilled, rest: plain}")
    summary = runner.run(load_config(path), config_path=path, out=tmp_path / "run", games=20)
    manifest = json.loads((summary.out / "manifest.json").read_text())
    assert manifest["seats"] == ["plain", "plain", "skilled"]
    assert manifest["config"]["seats"] == ["plain", "plain", "skilled"]
    assert manifest["lineup_rules"] == {"seats": {"last": "skilled", "rest": "plain"}}
    assert manifest["overrides"] == []


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ("{cycl: [plain]}", "seats.cycl: unknown key in a rule (did you mean 'cycle'?)"),
        (
            "{every: plain}",
            "seats.every: unknown key in a rule (expected cycle, rest, first, last or a seat "
            "number)",
        ),
        (
            "{rest: plain, cycle: [plain]}",
            "seats: a rule has both cycle and rest: give exactly one, for the seats it does not "
            "pin (e.g. {first: random, rest: greedy})",
        ),
        ("{first: plain}", "seats: a rule names no cycle or rest: give exactly one"),
        ("{}", "seats: an empty rule: expected one name for every seat, a list"),
        ("{cycle: []}", "seats.cycle: expected a non-empty list of policy names, got a list"),
        ("{cycle: plain}", "seats.cycle: expected a non-empty list of policy names, got 'plain'"),
        ("{cycle: [plain, 3]}", "seats.cycle[1]: expected a policy name, got 3"),
        ("{rest: [plain]}", "seats.rest: expected a policy name, got a list"),
        ("{-1: plain, rest: plain}", "seats.-1: seats are numbered from 0 (write last: for the"),
        (
            "{true: plain, rest: plain}",
            "seats: bad key true in a rule: expected cycle, rest, first, last",
        ),
        ("{3: skilled, rest: plain}", "seats.3: no seat 3 with 3 players (seats 0-2)"),
        ("{first: skilled, 0: plain, rest: plain}", "seats.0: seat 0 is also set by seats.first"),
        (
            "{2: skilled, last: plain, rest: plain}",
            "seats.last: seat 2 (the last of 3) is also set by seats.2",
        ),
        ("{rest: plane}", "seats.rest: no policy named 'plane' (defined: plain, skilled)"),
        ("{cycle: [plain, skiled]}", "seats.cycle[1]: no policy named 'skiled'"),
        ("{1: skiled, rest: plain}", "seats.1: no policy named 'skiled'"),
        ("3", "seats: expected one name for every seat, a list of one name per seat, or a rule"),
        ("[plain, 3, plain]", "seats[1]: expected a string, got 3"),
    ],
)
def test_bad_rules_are_one_line(fake_game, tmp_path, seats, message):
    path = fake_rule(tmp_path, seats)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert str(e.value).startswith(f"{path}: {message}"), str(e.value)
    assert "\n" not in str(e.value)


def test_bad_teams_rule(fake_game, tmp_path):
    path = fake_rule(tmp_path, "plain", extra="teams: {cycle: [red, 1]}\n")
    with pytest.raises(ConfigError, match=r"teams\.cycle\[1\]: expected a team name, got 1$"):
        load_config(path)


def test_a_pinned_seat_the_player_count_lacks_names_both_files(fake_game, tmp_path):
    write(tmp_path, "base.yaml", "game: fake\nplayers: 4\nseats: {3: skilled, rest: plain}\n")
    child = write(tmp_path, "two.yaml", "extends: base.yaml\nplayers: 2\n")
    with pytest.raises(ConfigError) as e:
        load_config(child)
    assert str(e.value) == (
        f"{child}: players: 2 players have no seat 3 (seats.3 set in {tmp_path / 'base.yaml'})"
    )
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "base.yaml", [parse_override("players=2")])
    assert str(e.value) == (
        "--set players=2: players: 2 players have no seat 3 "
        f"(seats.3 set in {tmp_path / 'base.yaml'})"
    )


def test_validate_prints_the_resolved_seats(fake_game, tmp_path):
    path = fake_rule(tmp_path, "{cycle: [skilled, plain]}", players=4)
    r = CliRunner().invoke(app, ["validate", str(path), "--set", "players=3"])
    assert r.exit_code == 0, r.output
    assert r.output == f"ok: {path} (fake, 3 players, seats: skilled, plain, skilled)\n"


# ---------------------------------------------------------------------------- shipped configs


def _shipped() -> list[str]:
    return sorted(glob.glob(str(ROOT / "configs" / "**" / "*.yaml"), recursive=True))


@pytest.mark.parametrize("path", _shipped(), ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_shipped_configs_write_one_policy_for_all_as_one_name(path):
    """A list naming the same policy for every seat would break ``--set players=N``."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    for key in ("seats", "teams"):
        value = data.get(key) if isinstance(data, dict) else None
        if isinstance(value, list):
            assert len(set(value)) > 1, f"{key}: {value} is one name for every seat: write it once"
