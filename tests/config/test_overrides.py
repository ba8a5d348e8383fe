"""``--set KEY=VALUE`` (balance/config/overrides.py): the parser, applying to a config's merged
YAML, every error path as one line naming the override and the key, ``--set`` against editing
the file (same config, same hash, same games), the manifest's record, and each command's
option."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kit import fake_game as fake
from typer.testing import CliRunner

from balance import runner
from balance.cli import app
from balance.config import ConfigError, config_hash, load_config
from balance.config.overrides import Override, apply_overrides, override, parse_override
from balance.results import open_results

ROOT = Path(__file__).resolve().parent.parent.parent
FIVE_RAVENS = ROOT / "configs" / "five_ravens" / "base.yaml"


def sets(*texts: str) -> list[Override]:
    return [parse_override(t) for t in texts]


# ------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("players=3", ("players",), 3),
        ("rules.relics.gem.count=3", ("rules", "relics", "gem", "count"), 3),
        ("seats[1]=random", ("seats", 1), "random"),
        ("policies.greedy.action_threshold=0.5", ("policies", "greedy", "action_threshold"), 0.5),
        ("rules.ravens.seven.action=false", ("rules", "ravens", "seven", "action"), False),
        ("a=true", ("a",), True),
        ("a=-2", ("a",), -2),
        ("a=1.0e+3", ("a",), 1000.0),
        ("a='3'", ("a",), "3"),
        ("a=null", ("a",), None),
        ("seats=[greedy, random]", ("seats",), ["greedy", "random"]),
        ("seats={first: random, rest: greedy}", ("seats",), {"first": "random", "rest": "greedy"}),
        ("description=x=y", ("description",), "x=y"),  # the key ends at the first '='
        ("  players =  3 ", ("players",), 3),  # spaces around key and value dropped
        ("a.b[0][2].c=1", ("a", "b", 0, 2, "c"), 1),
        ("rules.removed_relics.2=8", ("rules", "removed_relics", "2"), 8),
    ],
)
def test_parse(text, path, value):
    o = parse_override(text)
    assert o.path == path
    assert o.value == value and type(o.value) is type(value)
    assert o.source == "--set"
    assert o.key == text.split("=", 1)[0].strip()
    assert o.text == f"{o.key}={text.split('=', 1)[1].strip()}"


def test_override_of_numpy_values_is_plain_python():
    o = override("rules.bonus", np.int64(3), source="--param")
    assert (o.text, o.value, type(o.value)) == ("rules.bonus=3", 3, int)
    o = override("policies.greedy.action_threshold", np.float64(0.25), source="--param")
    assert (o.text, type(o.value)) == ("policies.greedy.action_threshold=0.25", float)


def test_parse_source_names_the_option():
    o = parse_override("players=3", source="--over")
    assert o.source == "--over" and o.label == "--over players=3"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("players", "--set players: expected KEY=VALUE (e.g. players=3"),
        ("=3", "--set =3: no key before '='"),
        ("players=", "--set players=: no value after '=' (write null for a null)"),
        ("players=  ", "--set players=: no value after '='"),
        ("rules..x=1", "--set rules..x=1: bad key 'rules..x'"),
        ("seats[-1]=a", "--set seats[-1]=a: bad key 'seats[-1]'"),
        ("seats[x]=a", "--set seats[x]=a: bad key 'seats[x]'"),
        ("[0]=a", "--set [0]=a: bad key '[0]'"),
        ("a b=1", "--set a b=1: bad key 'a b': a key may not hold ' '"),
        ("seats=[greedy", "--set seats=[greedy: invalid YAML value:"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(ConfigError) as e:
        parse_override(text)
    assert str(e.value).startswith(message), str(e.value)
    assert "\n" not in str(e.value)


_names = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
_segments = st.lists(st.one_of(_names, st.integers(0, 20)), max_size=3)
_scalars = st.one_of(
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
)
_values = st.one_of(_scalars, st.lists(_scalars, max_size=3), st.dictionaries(_names, _scalars))


@settings(max_examples=300, deadline=None)
@given(first=_names, rest=_segments, value=_values)
def test_override_text_reads_back(first, rest, value):
    """override() writes a text that parse_override() reads back as the same key and value."""
    key = first + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in rest)
    o = override(key, value, source="--param")
    back = parse_override(o.text, source="--param")
    assert back == o
    assert back.path == (first, *rest)
    if isinstance(value, float) and math.isinf(value):
        assert back.value == value
    assert "\n" not in o.text


# ------------------------------------------------------------------------------------- applying


def test_apply_leaves_the_input_alone():
    data = {"players": 4, "seats": ["a", "b"], "rules": {"x": {"y": 1}}}
    before = json.dumps(data)
    out = apply_overrides(data, sets("rules.x.y=2", "seats[1]=c", "rules.z.w=3", "players=5"))
    assert json.dumps(data) == before
    assert out == {"players": 5, "seats": ["a", "c"], "rules": {"x": {"y": 2}, "z": {"w": 3}}}


def test_later_override_wins():
    out = apply_overrides({"players": 4}, sets("players=2", "players=3"))
    assert out["players"] == 3


def test_index_into_a_one_name_or_rule_lineup_resolves_it_first():
    out = apply_overrides({"players": 3, "seats": "greedy"}, sets("seats[1]=random"))
    assert out["seats"] == ["greedy", "random", "greedy"]
    rule = {"players": 4, "seats": {"first": "random", "rest": "greedy"}}
    assert apply_overrides(rule, sets("seats[3]=x"))["seats"] == ["random", "greedy", "greedy", "x"]
    # at the player count the overrides make, whatever their order
    out = apply_overrides({"players": 2, "seats": "g"}, sets("seats[2]=r", "players=3"))
    assert out["seats"] == ["g", "g", "r"]


def test_yaml_number_key_matches_its_text():
    out = apply_overrides({"rules": {"removed_relics": {2: 8}}}, sets("rules.removed_relics.2=6"))
    assert out["rules"]["removed_relics"] == {2: 6}


# ------------------------------------------------------------------------ errors through the loader


def _error(*texts: str, path: Path = FIVE_RAVENS) -> str:
    with pytest.raises(ConfigError) as e:
        load_config(path, sets(*texts))
    message = str(e.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (
            ["players=99"],
            "--set players=99: players: five_ravens is for 2-4 players, got 99 "
            "(game set in configs/five_ravens/base.yaml)",
        ),
        (
            ["rules.relics.gem.cuont=3"],
            "--set rules.relics.gem.cuont=3: rules.relics.gem.cuont: unknown key "
            "(did you mean 'count'?)",
        ),
        (
            ["policies.greedy.action_treshold=0.5"],
            "--set policies.greedy.action_treshold=0.5: policies.greedy.action_treshold: "
            "unknown key (did you mean 'action_threshold'?)",
        ),
        (["plyers=3"], "--set plyers=3: plyers: unknown key (did you mean 'players'?)"),
        (
            ["rules.relics.gem.count=-1"],
            "--set rules.relics.gem.count=-1: rules.relics.gem.count: must be >= 0, got -1",
        ),
        (
            ["rules.relics.gem.count=many"],
            "--set rules.relics.gem.count=many: rules.relics.gem.count: expected an integer, "
            "got 'many'",
        ),
        (
            ["seats[4]=random"],
            "--set seats[4]=random: seats[4]: seats has items 0-3, so [4] does not exist",
        ),
        (
            ["players.x=3"],
            "--set players.x=3: players.x: players is 4, not a mapping: it has no key 'x'",
        ),
        (
            ["rules.rounds.x=3"],
            "--set rules.rounds.x=3: rules.rounds.x: rules.rounds is 5, not a mapping",
        ),
        (
            ["seats.x=greedy"],
            "--set seats.x=greedy: seats.x: seats is 'greedy', not a mapping: it has no key 'x'",
        ),
        (
            ["rules[0]=1"],
            "--set rules[0]=1: rules[0]: rules is a mapping, not a list: it has no item [0]",
        ),
        (
            ["seats[1]=gredy"],
            "--set seats[1]=gredy: seats[1]: no policy named 'gredy' (defined: random, greedy)",
        ),
    ],
)
def test_errors_name_the_override_and_the_key(texts, message, monkeypatch):
    monkeypatch.chdir(ROOT)
    got = _error(*texts, path=Path("configs/five_ravens/base.yaml"))
    assert got.startswith(message), got


def test_errors_with_a_list_of_seats(monkeypatch):
    monkeypatch.chdir(ROOT)
    path = Path("configs/five_ravens/random_vs_greedy.yaml")
    assert _error("players=3", path=path) == (
        "--set players=3: players: 3 does not match the 4 seats "
        "(seats set in configs/five_ravens/random_vs_greedy.yaml)"
    )
    assert _error("seats.x=greedy", path=path) == (
        "--set seats.x=greedy: seats.x: seats is a list of 4, not a mapping: it has no key 'x'; "
        "write seats[N] for an item"
    )
    assert load_config(path, sets("players=3", "seats={cycle: [greedy, random]}")).seats == [
        "greedy",
        "random",
        "greedy",
    ]


def test_an_error_names_the_file_when_the_override_is_not_at_fault(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"extends: {FIVE_RAVENS}\nrules:\n  rounds: -1\n")
    assert _error("players=3", "seats=greedy", path=bad).startswith(f"{bad}: rules.rounds:")


def test_error_through_a_parent_names_the_override(tmp_path):
    child = tmp_path / "child.yaml"
    child.write_text(f"extends: {FIVE_RAVENS}\ndescription: x\n")
    got = _error("rules.hand_size=0", path=child)
    assert got.startswith("--set rules.hand_size=0: rules.hand_size: must be >= "), got


# ------------------------------------------------------------------- --set is editing the file


def test_set_equals_editing_the_file(tmp_path):
    edited = tmp_path / "edited.yaml"
    text = FIVE_RAVENS.read_text()
    text = re.sub(r"(?m)^seats: .*$", "seats: [greedy, random, greedy]", text)
    text = text.replace("players: 4", "players: 3")
    text = text.replace("gem:     {kind: gem, count: 4}", "gem:     {kind: gem, count: 3}")
    text = text.replace("action_threshold: -1.0", "action_threshold: 0.5")
    edited.write_text(text)
    by_file = load_config(edited)
    by_set = load_config(
        FIVE_RAVENS,
        sets(
            "seats[1]=random",  # base.yaml's `seats: greedy` at the 3 players set next
            "players=3",
            "rules.relics.gem.count=3",
            "policies.greedy.action_threshold=0.5",
        ),
    )
    assert by_set.resolved_dict() == by_file.resolved_dict()
    assert config_hash(by_set) == config_hash(by_file)
    assert by_set.overrides == (
        "seats[1]=random",
        "players=3",
        "rules.relics.gem.count=3",
        "policies.greedy.action_threshold=0.5",
    )
    assert by_file.overrides == ()


def test_set_plays_the_games_of_the_edited_file_and_the_manifest_records_it(fake_config, tmp_path):
    edited = fake.write_config(tmp_path / "edited.yaml", rules="{bonus: 2}")
    a = runner.run(load_config(edited), config_path=edited, out=tmp_path / "a", games=40)
    cfg = load_config(fake_config, sets("rules.bonus=2"))
    b = runner.run(cfg, config_path=fake_config, out=tmp_path / "b", games=40)
    ma = json.loads((a.out / "manifest.json").read_text())
    mb = json.loads((b.out / "manifest.json").read_text())
    assert ma["config_hash"] == mb["config_hash"]
    assert ma["overrides"] == [] and mb["overrides"] == ["rules.bonus=2"]
    assert mb["config"]["rules"]["bonus"] == 2
    rows = [open_results(r.out)[1].collect().sort("game", "seat") for r in (a, b)]
    assert rows[0].equals(rows[1]) and rows[0].height == 40 * 3
    plain = runner.run(load_config(fake_config), config_path=fake_config, out=tmp_path / "c")
    assert json.loads((plain.out / "manifest.json").read_text())["config_hash"] != ma["config_hash"]


# ---------------------------------------------------------------------------------------- CLI


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def test_cli_validate_with_set():
    r = cli("validate", str(FIVE_RAVENS), "--set", "players=2", "--set", "seats=greedy")
    assert r.exit_code == 0, r.output
    assert "(five_ravens, 2 players, seats: greedy, greedy)" in r.output


def test_cli_bad_set_is_one_line():
    r = cli("validate", str(FIVE_RAVENS), str(FIVE_RAVENS), "--set", "players")
    assert r.exit_code == 1
    assert r.output.strip().splitlines() == [
        "error: --set players: expected KEY=VALUE (e.g. players=3, rules.relics.gem.count=3 or "
        "seats[1]=random)"
    ]


def test_cli_simulate_with_set_records_it(fake_config, tmp_path):
    out = tmp_path / "run"
    r = cli(
        "simulate", str(fake_config), "--set", "rules.bonus=3", "--set", "players=2",
        "--set", "seats=plain", "--games", "30", "--out", str(out),
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["overrides"] == ["rules.bonus=3", "players=2", "seats=plain"]
    assert manifest["seats"] == ["plain", "plain"]
    assert manifest["lineup_rules"] == {"seats": "plain"}
    assert manifest["config"]["rules"]["bonus"] == 3


def test_cli_simulate_bad_value_writes_nothing(fake_config, tmp_path):
    out = tmp_path / "run"
    r = cli("simulate", str(fake_config), "--set", "rules.bonus=9", "--out", str(out))
    assert r.exit_code == 1
    assert r.output.strip() == "error: --set rules.bonus=9: rules.bonus: must be <= 5, got 9"
    assert not out.exists()


def test_cli_replay_with_set_is_the_edited_files_game(fake_config, tmp_path):
    edited = fake.write_config(tmp_path / "edited.yaml", rules="{bonus: 2}")
    by_set = cli("replay", str(fake_config), "--game", "3", "--set", "rules.bonus=2")
    by_file = cli("replay", str(edited), "--game", "3")
    plain = cli("replay", str(fake_config), "--game", "3")
    assert by_set.exit_code == by_file.exit_code == 0, by_set.output
    assert by_set.output == by_file.output != plain.output


def test_cli_replay_of_a_results_directory_refuses_set(fake_config, tmp_path):
    out = tmp_path / "run"
    runner.run(load_config(fake_config), config_path=fake_config, out=out, games=10)
    r = cli("replay", str(out), "--game", "1", "--set", "rules.bonus=2")
    assert r.exit_code == 1
    assert r.output.strip() == (
        f"error: --set rules.bonus=2: {out} is a results directory, whose games were played "
        "with its recorded config; give a CONFIG file to replay a changed one"
    )


def test_cli_compare_sets_both_configs(fake_config, tmp_path):
    """B adds 2 points to the first player; --set rules.bonus=2 on both leaves no difference."""
    bonus = fake.write_config(tmp_path / "bonus.yaml", rules="{bonus: 2}")
    r = cli("compare", str(fake_config), str(bonus), "--games", "60", "--set", "rules.bonus=2")
    assert r.exit_code == 0, r.output
    assert ", both with --set rules.bonus=2: 60 paired games" in r.output
    first = next(line for line in r.output.splitlines() if "mean score   1st player" in line)
    assert "+0.000   [+0.000, +0.000]" in first
    r = cli("compare", str(fake_config), str(bonus), "--games", "60")
    first = next(line for line in r.output.splitlines() if "mean score   1st player" in line)
    assert "+2.000   [+2.000, +2.000]" in first
    # the comparison page's provenance says which overrides each side was loaded with
    page = tmp_path / "compare.html"
    args = ["compare", str(fake_config), str(bonus), "--games", "60", "--set", "rules.bonus=2"]
    r = cli(*args, "--report", str(page))
    assert r.exit_code == 0, r.output
    assert page.read_text().count("with rules.bonus=2</dd>") == 2


def test_cli_impact_with_set(fake_config, tmp_path):
    """The variant takes the bonus away: -2 points for the first player only with --set."""
    variants = tmp_path / "v.yaml"
    variants.write_text("- {name: no_bonus, patch: {rules: {bonus: 0}}}\n")
    out = tmp_path / "impact.json"
    args = ["impact", str(fake_config), "--variants", str(variants), "--games", "60"]
    r = cli(*args, "--set", "rules.bonus=2", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert ", with --set rules.bonus=2: variant - base, 60 paired games" in r.output
    row = next(line for line in r.output.splitlines() if line.strip().startswith("no_bonus"))
    assert "*" in row  # the first player's share drops
    plain = cli(*args)
    row = next(line for line in plain.output.splitlines() if line.strip().startswith("no_bonus"))
    assert "*" not in row and "+0.00±0.00" in row  # bonus 0 already: the variant changes nothing
    # the impact file records the overrides beside the overridden config
    written = json.loads(out.read_text())
    assert written["overrides"] == ["rules.bonus=2"] and written["config"]["rules"]["bonus"] == 2


FAKE_SPEC = """\
batch: 100
max_games: 400
checks:
  - config: fake.yaml
    assertions:
      - {metric: mean_score_shift, order: 0, within: [0, 0.5], baseline: bonus.yaml}
"""


def test_cli_check_sets_every_config_of_the_spec(fake_config, tmp_path):
    """Against a baseline whose first player scores 2 more the shift is -2; with the bonus set
    on both (the config and its baseline) it is 0."""
    fake.write_config(tmp_path / "bonus.yaml", rules="{bonus: 2}")
    spec = tmp_path / "spec.yaml"
    spec.write_text(FAKE_SPEC)
    failed = cli("check", str(spec))
    assert failed.exit_code == 1 and failed.stdout.startswith("FAIL "), failed.output
    passed = cli("check", str(spec), "--set", "rules.bonus=2")
    assert passed.exit_code == 0, passed.output
    assert passed.stdout.startswith("PASS ") and ": 0.0000 [0.0000, 0.0000]" in passed.stdout
    bad = cli("check", str(spec), "--set", "rules.bonsu=2")
    assert bad.exit_code == 2
    assert bad.output.strip() == (
        "error: --set rules.bonsu=2: rules.bonsu: unknown key (did you mean 'bonus'?)"
    )
