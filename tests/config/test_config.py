"""Run configs: extends, policy resolution and the exact one-line error for every bad config."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from kit.configs import write

from balance.config import (
    ConfigError,
    RunConfig,
    config_from_dict,
    config_hash,
    load_config,
    recorded_hashes,
)
from balance.config.loading import load_yaml
from balance.games.five_ravens.schema import GreedyPolicy, Rules

DATA = Path(__file__).parent / "data" / "configs"
SHIPPED = Path(__file__).parent.parent.parent / "configs" / "five_ravens"
VALID = "game: five_ravens\nplayers: 4\nseats: greedy\n"


def error(path: Path | str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message


# Each case: the YAML of a config and the message after "<file>: ".
BAD = {
    "unknown top-level key": (VALID + "seeds: 3", "seeds: unknown key (did you mean 'seed'?)"),
    "unknown key, no close match": (
        VALID + "colour: red",
        "colour: unknown key (expected one of: game, players, seats, teams, games, seed,"
        " description, rules, policies, report, extends)",
    ),
    "unknown nested key": (
        VALID + "rules: {scoring: {gem_tabel: [1]}}",
        "rules.scoring.gem_tabel: unknown key (did you mean 'gem_table'?)",
    ),
    "unknown key in a relic": (
        VALID + "rules: {relics: {gem: {kind: gem, cuont: 2}}}",
        "rules.relics.gem.cuont: unknown key (did you mean 'count'?)",
    ),
    "unknown key in a policy": (
        VALID + "policies: {greedy: {thief_rnk: 2}}",
        "policies.greedy.thief_rnk: unknown key (did you mean 'thief_rank'?)",
    ),
    "word for a number": (
        "game: five_ravens\nplayers: four\nseats: greedy",
        "players: expected an integer, got 'four'",
    ),
    "quoted number": (
        "game: five_ravens\nplayers: '4'\nseats: greedy",
        "players: expected an integer, got '4'",
    ),
    "yes for a number": (VALID + "games: yes", "games: expected an integer, got true"),
    "float for an integer": (VALID + "games: 2.5", "games: expected an integer, got 2.5"),
    # YAML 1.1 reads an exponent without a sign as text
    "exponent for an integer": (VALID + "games: 1e5", "games: expected an integer, got '1e5'"),
    "string for a bool": (
        VALID + "rules: {ravens: {six: {action: maybe}}}",
        "rules.ravens.six.action: expected true or false, got 'maybe'",
    ),
    "scalar for a section": (VALID + "rules: 5", "rules: expected a mapping, got 5"),
    "scalar for a relic": (
        VALID + "rules: {relics: {gem: 4}}",
        "rules.relics.gem: expected a mapping, got 4",
    ),
    "negative count": (
        VALID + "rules: {relics: {gem: {kind: gem, count: -1}}}",
        "rules.relics.gem.count: must be >= 0, got -1",
    ),
    "count too high": (
        VALID + "rules: {relics: {gem: {kind: gem, count: 61}}}",
        "rules.relics.gem.count: must be <= 60, got 61",
    ),
    "unknown relic kind": (
        VALID + "rules: {relics: {gem: {kind: jewel, count: 4}}}",
        "rules.relics.gem.kind: must be one of 'chest', 'gem', 'hollow' or 'cursed', got 'jewel'",
    ),
    "relic without kind": (
        VALID + "rules: {relics: {crown: {count: 1}}}",
        "rules.relics.crown.kind: required key is missing",
    ),
    "value on a gem": (
        VALID + "rules: {relics: {gem: {kind: gem, count: 4, value: 2}}}",
        "rules.relics.gem.value: only a chest has a value; a gem must leave it at 0",
    ),
    "relic name not an identifier": (
        VALID + "rules: {relics: {Crown: {kind: chest, count: 1, value: 6}}}",
        "rules.relics.Crown: a relic name must be a lowercase identifier ([a-z][a-z0-9_]*)",
    ),
    "relic named like a Raven": (
        VALID + "rules: {relics: {six: {kind: chest, count: 1, value: 6}}}",
        "rules.relics.six: 'six' is a Raven's name; choose another",
    ),
    "empty relic deck": (
        VALID + "rules: {relics: {gem: {kind: gem, count: 0}}}",
        "rules.relics: the deck must hold 1-200 relics, got 0",
    ),
    "empty gem table": (
        VALID + "rules: {scoring: {gem_table: []}}",
        "rules.scoring.gem_table: must have at least 1 item, got 0",
    ),
    "zero rounds": (VALID + "rules: {rounds: 0}", "rules.rounds: must be >= 1, got 0"),
    "thief relic missing": (
        VALID + "rules: {thief_relics: [gem, crown]}",
        "rules.thief_relics[1]: no relic named 'crown' in relics",
    ),
    "removed relics >= total": (
        VALID + "rules: {removed_relics: {2: 22}}",
        "rules.removed_relics.2: must be less than the 22 relics in the deck, got 22",
    ),
    "default removed relics >= a small deck": (
        VALID + "rules: {relics: {gem: {kind: gem, count: 3}}}",
        "rules.removed_relics.2: must be less than the 3 relics in the deck, got 8",
    ),
    "removed relics for 5 players": (
        VALID + "rules: {removed_relics: {5: 1}}",
        "rules.removed_relics.5: player counts are 2-4, got 5",
    ),
    "removed relics key not a number": (
        VALID + "rules: {removed_relics: {two: 8}}",
        "rules.removed_relics.two: bad key: expected an integer, got 'two'",
    ),
    "negative removed relics": (
        VALID + "rules: {removed_relics: {2: -1}}",
        "rules.removed_relics.2: must be >= 0, got -1",
    ),
    "five players": (
        "game: five_ravens\nplayers: 5\nseats: greedy",
        "players: five_ravens is for 2-4 players, got 5",
    ),
    "seats of wrong length": (
        "game: five_ravens\nplayers: 4\nseats: [greedy, greedy, random]",
        "seats: expected 4 seats (one per player), got 3",
    ),
    "unknown policy in seats": (
        "game: five_ravens\nplayers: 4\nseats: [greedy, greddy, greedy, greedy]",
        "seats[1]: no policy named 'greddy' (defined: random, greedy)",
    ),
    "unknown policy for every seat": (
        "game: five_ravens\nplayers: 4\nseats: greddy",
        "seats: no policy named 'greddy' (defined: random, greedy)",
    ),
    "seat not a string": (
        "game: five_ravens\nplayers: 2\nseats: [greedy, 3]",
        "seats[1]: expected a string, got 3",
    ),
    "new policy without kind": (
        VALID + "policies: {smart: {thief_rank: 2.0}}",
        "policies.smart.kind: a new policy needs a kind (one of: random, greedy, search)",
    ),
    "unknown policy kind": (
        VALID + "policies: {smart: {kind: clever}}",
        "policies.smart.kind: unknown policy kind 'clever' (one of: random, greedy, search)",
    ),
    "bad weight type": (
        VALID + "policies: {greedy: {thief_rank: high}}",
        "policies.greedy.thief_rank: expected a number, got 'high'",
    ),
    "infinite weight": (
        VALID + "policies: {smart: {kind: greedy, draw_value: .inf}}",
        "policies.smart.draw_value: must be a finite number, got inf",
    ),
    "weight on a random policy": (
        VALID + "policies: {random: {draw_value: 1.0}}",
        "policies.random.draw_value: unknown key (expected one of: kind)",
    ),
    "policy settings not a mapping": (
        VALID + "policies: {greedy: fast}",
        "policies.greedy: expected a mapping, got 'fast'",
    ),
    "policy name with a space": (
        VALID + "policies: {'my policy': {kind: random}}",
        "policies: policy name 'my policy' must start with a letter and hold only letters,"
        " digits, _ and -",
    ),
    "unknown game": (
        "game: chess\nplayers: 2\nseats: greedy",
        "game: unknown game 'chess' (one of: five_ravens, raven_order, raven_manor, corvids)",
    ),
    "missing game": ("players: 2\nseats: greedy", "game: required key is missing"),
    "missing seats": ("game: five_ravens\nplayers: 2", "seats: required key is missing"),
    "teams of wrong length": (
        VALID + "teams: [a, b]",
        "teams: expected 4 teams (one per seat), got 2",
    ),
    "zero games": (VALID + "games: 0", "games: must be > 0, got 0"),
    "negative seed": (VALID + "seed: -1", "seed: must be >= 0, got -1"),
    "seed too large": (
        VALID + f"seed: {2**63}",
        f"seed: must be < {2**63}, got {2**63}",
    ),
    "description not text": (
        VALID + "description: [a]",
        "description: expected a string, got a list",
    ),
    "extends not a file name": (VALID + "extends: 3", "extends: expected a file name, got 3"),
    "duplicate key": (
        VALID + "players: 3",
        "invalid YAML at line 4, column 1: duplicate key 'players'",
    ),
    "python tag": (
        VALID + "description: !!python/object:os.system x",
        "invalid YAML at line 4, column 14: could not determine a constructor for the tag"
        " 'tag:yaml.org,2002:python/object:os.system'",
    ),
    "top level a list": ("- game: five_ravens", "top level must be a mapping, got a list"),
    "empty file": ("# nothing yet\n", "top level must be a mapping, got an empty file"),
}


@pytest.mark.parametrize(("text", "expected"), BAD.values(), ids=BAD.keys())
def test_bad_config_message(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "x.yaml", text)
    assert error(path) == f"{path}: {expected}"


def test_missing_file(tmp_path: Path) -> None:
    assert error(tmp_path / "nope.yaml") == f"{tmp_path / 'nope.yaml'}: file not found"


def test_directory_is_not_a_config(tmp_path: Path) -> None:
    assert error(tmp_path) == f"{tmp_path}: is a directory, not a YAML file"


def test_malformed_yaml_names_line_and_column() -> None:
    path = DATA / "malformed.yaml"
    assert (
        error(path)
        == f"{path}: invalid YAML at line 4, column 8: mapping values are not allowed here"
    )


def test_extends_cycle_names_the_cycle() -> None:
    a, b = DATA / "cycle_a.yaml", DATA / "cycle_b.yaml"
    assert error(a) == f"{b}: extends cycle: {a} -> {b} -> {a}"


def test_extends_itself(tmp_path: Path) -> None:
    path = write(tmp_path, "self.yaml", VALID + "extends: self.yaml")
    assert error(path) == f"{path}: extends cycle: {path} -> {path}"


def test_extends_missing_file_names_the_file_that_extends() -> None:
    path = DATA / "extends_missing.yaml"
    assert error(path) == f"{path}: extends: file not found: {DATA / 'no_such_parent.yaml'}"


def test_error_in_parent_names_the_parent() -> None:
    assert error(DATA / "child_of_bad.yaml") == (
        f"{DATA / 'parent_bad.yaml'}: rules.scoring.gem_tabel: unknown key (did you mean 'gem_table'?)"
    )


@pytest.mark.parametrize(
    ("parent", "child", "culprit"),
    [
        # a bad value written in the parent, a child that changes something else
        ("rules: {relics: {gem: {kind: gem, count: -1}}}", "rules: {rounds: 3}", "parent"),
        # the child overrides the bad value's mapping key by key: the count is still the parent's
        (
            "rules: {relics: {gem: {kind: gem, count: -1}}}",
            "rules: {relics: {gem: {kind: gem}}}",
            "parent",
        ),
        # the child writes the bad value
        (
            "rules: {relics: {gem: {kind: gem, count: 4}}}",
            "rules: {relics: {gem: {count: -1}}}",
            "child",
        ),
    ],
)
def test_error_names_the_file_that_wrote_the_key(
    tmp_path: Path, parent: str, child: str, culprit: str
) -> None:
    write(tmp_path, "parent.yaml", VALID + parent)
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\n" + child)
    assert error(path) == f"{tmp_path / culprit}.yaml: rules.relics.gem.count: must be >= 0, got -1"


def test_error_for_a_seat_names_the_file_that_set_seats(tmp_path: Path) -> None:
    write(tmp_path, "parent.yaml", "game: five_ravens\nplayers: 2\nseats: [greedy, smart]")
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\ndescription: x")
    assert error(path) == (
        f"{tmp_path / 'parent.yaml'}: seats[1]: no policy named 'smart' (defined: random, greedy)"
    )


def test_paths_are_shown_as_the_user_gave_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA.parent.parent)
    assert error("data/configs/child_of_bad.yaml") == (
        "data/configs/parent_bad.yaml: rules.scoring.gem_tabel: unknown key (did you mean 'gem_table'?)"
    )
    assert error(Path("data/configs/nope.yaml")) == "data/configs/nope.yaml: file not found"


def test_config_error_has_parts(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", VALID + "games: 0")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert (info.value.file, info.value.key, info.value.problem) == (
        str(path),
        "games",
        "must be > 0, got 0",
    )


# ------------------------------------------------------------------------------------- extends


def test_extends_chain_of_three_with_relative_paths() -> None:
    cfg = load_config(DATA / "chain" / "sub" / "child.yaml")
    assert (cfg.players, cfg.seats, cfg.games, cfg.seed) == (
        3,
        ["greedy", "random", "greedy"],
        1000,
        9,
    )
    assert cfg.rules.rounds == 3  # parent over grand
    assert cfg.rules.hand_size == 4  # grand
    assert cfg.rules.scoring.hollow == 2  # mappings merge key by key: parent's hollow ...
    assert cfg.rules.scoring.gem_table == [2, 4]  # ... beside the child's table, which replaced
    assert cfg.rules.thief_relics == ["gem"]  # lists replace, never append
    assert cfg.policies["greedy"]["thief_rank"] == 2.0  # grand
    assert cfg.policies["greedy"]["draw_value"] == 0.1  # child
    assert cfg.policies["cautious"] == GreedyPolicy(penalty_aversion=3.0).model_dump()


def test_load_yaml_provenance() -> None:
    child = str(DATA / "chain" / "sub" / "child.yaml")
    parent = str(DATA / "chain" / "sub" / "parent.yaml")
    grand = str(DATA / "chain" / "grand.yaml")
    data, prov = load_yaml(child)
    assert "extends" not in data
    assert data["rules"]["scoring"] == {"gem_table": [2, 4], "hollow": 2}
    assert prov[("seed",)] == child
    assert prov[("games",)] == grand
    assert prov[("rules", "rounds")] == parent
    assert prov[("rules", "hand_size")] == grand
    assert prov[("rules", "scoring", "gem_table")] == child
    assert prov[("rules", "scoring", "gem_table", 1)] == child
    assert prov[("rules", "thief_relics")] == parent
    assert ("rules", "thief_relics", 1) not in prov  # the grandparent's longer list is gone
    assert prov[("seats", 1)] == parent


def test_extends_replaces_a_mapping_by_a_scalar(tmp_path: Path) -> None:
    write(tmp_path, "parent.yaml", VALID + "rules: {rounds: 3}")
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\nrules: null")
    assert load_yaml(path)[0]["rules"] is None
    assert load_config(path).rules == Rules()  # no rules section: every default


def test_extends_parent_in_another_folder(tmp_path: Path) -> None:
    write(tmp_path, "shared/base.yaml", VALID + "seed: 5")
    path = write(tmp_path, "mine/x.yaml", "extends: ../shared/base.yaml\nplayers: 2")
    cfg = load_config(path)
    assert (cfg.seed, cfg.players, cfg.seats) == (5, 2, ["greedy", "greedy"])


# ------------------------------------------------------------------------ seats, teams, policies


def test_defaults(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "x.yaml", VALID))
    assert (cfg.games, cfg.seed, cfg.description) == (100_000, 0, "")
    assert cfg.seats == ["greedy"] * 4
    assert cfg.teams == ["0", "1", "2", "3"]
    assert cfg.rules == Rules()
    assert cfg.policies == {"random": {"kind": "random"}, "greedy": GreedyPolicy().model_dump()}


def test_teams_given(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "x.yaml", VALID + "teams: [a, b, a, b]"))
    assert cfg.teams == ["a", "b", "a", "b"]


def test_policy_override_inherits_kind_and_new_policy_gives_it(tmp_path: Path) -> None:
    text = VALID + "policies: {greedy: {draw_value: 1.5}, wild: {kind: random}, empty:}"
    with pytest.raises(ConfigError, match=r"policies\.empty\.kind: a new policy needs a kind"):
        load_config(write(tmp_path, "x.yaml", text))
    cfg = load_config(write(tmp_path, "y.yaml", text.replace(", empty:", "")))
    assert cfg.policies["greedy"] == GreedyPolicy(draw_value=1.5).model_dump()
    assert cfg.policies["wild"] == {"kind": "random"}
    assert list(cfg.policies) == ["random", "greedy", "wild"]


def test_policy_may_change_kind(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "x.yaml", VALID + "policies: {greedy: {kind: random}}"))
    assert cfg.policies["greedy"] == {"kind": "random"}


def test_resolved_dict_is_json_and_validates_again() -> None:
    cfg = load_config(SHIPPED / "random_vs_greedy.yaml")
    data = json.loads(json.dumps(cfg.resolved_dict()))
    assert data["rules"]["removed_relics"] == {"2": 8}
    assert data["policies"]["random"] == {"kind": "random"}
    again = RunConfig.model_validate(data)
    assert again == cfg
    assert config_hash(again) == config_hash(cfg)


def test_config_hash(tmp_path: Path) -> None:
    base = load_config(SHIPPED / "base.yaml")
    same = load_config(write(tmp_path, "same.yaml", f"extends: {SHIPPED / 'base.yaml'}\n"))
    other = load_config(write(tmp_path, "other.yaml", f"extends: {SHIPPED / 'base.yaml'}\nseed: 2"))
    assert re.fullmatch(r"[0-9a-f]{16}", config_hash(base))
    assert config_hash(same) == config_hash(base)
    assert config_hash(other) != config_hash(base)


def test_config_hash_covers_the_policies_played_and_no_other(tmp_path: Path) -> None:
    """A policy no seat plays changes no game, so not the hash: a release that adds a default
    policy (Raven Manor's ``reasoning``) keeps its runs' hashes, and old results still resume.
    The policies the seats play, and a search player's rollout, are hashed."""
    rm = SHIPPED.parent / "raven_manor" / "search_vs_basic.yaml"
    base = load_config(rm)

    def variant(name: str, text: str) -> str:
        return config_hash(load_config(write(tmp_path, name, f"extends: {rm}\n{text}")))

    assert variant("spare.yaml", "policies:\n  spare: {kind: random}\n") == config_hash(base)
    assert variant("unplayed.yaml", "policies:\n  reasoning: {suspect: 0.1}\n") == config_hash(base)
    assert variant("played.yaml", "policies:\n  basic: {kill: 0.1}\n") != config_hash(base)
    assert variant("budget.yaml", "policies:\n  mcts: {iterations: 10}\n") != config_hash(base)
    rollout = "policies:\n  mcts: {rollout: fast}\n  fast: {kind: random}\n"
    assert variant("rollout.yaml", rollout) != config_hash(base)
    assert variant("seats.yaml", "seats: [mcts, basic, basic, basic, random]\n") != config_hash(
        base
    )


def test_recorded_hashes_accept_a_hash_over_every_policy() -> None:
    """Results written before the hash left unplayed policies out stored a hash over all of
    them; both are accepted (and nothing else: results.check_config refuses an edited config)."""
    data = load_config(SHIPPED / "base.yaml").resolved_dict()
    now, every = recorded_hashes(data)
    assert now == config_hash(RunConfig.model_validate(data))
    assert every != now
    data["policies"]["spare"] = {"kind": "random"}
    assert recorded_hashes(data)[0] == now and recorded_hashes(data)[1] != every


def test_config_from_dict_names_the_given_source() -> None:
    with pytest.raises(ConfigError) as info:
        config_from_dict({"game": "five_ravens", "players": 9, "seats": "greedy"}, "--set")
    assert str(info.value) == "--set: players: five_ravens is for 2-4 players, got 9"


# -------------------------------------------------------------------------------- shipped configs


@pytest.mark.parametrize(
    ("name", "players", "seats"),
    [
        ("base", 4, ["greedy"] * 4),
        ("two_players", 2, ["greedy"] * 2),
        ("three_players", 3, ["greedy"] * 3),
        ("random_vs_greedy", 4, ["greedy", "random", "greedy", "random"]),
    ],
)
def test_shipped_configs_load(name: str, players: int, seats: list[str]) -> None:
    cfg = load_config(SHIPPED / f"{name}.yaml")
    assert (cfg.game, cfg.players, cfg.seats) == ("five_ravens", players, seats)
    assert cfg.description
    # base.yaml writes every default out; it must not drift from the RULINGS.md numbers.
    assert cfg.rules == Rules()
    assert cfg.policies["greedy"] == GreedyPolicy().model_dump()


def test_base_yaml_writes_every_knob_out() -> None:
    data, _ = load_yaml(SHIPPED / "base.yaml")
    rules = Rules()
    # every field, except a relic's value where it must stay 0 (non-chests)
    assert data["rules"] == {
        **rules.model_dump(),
        "relics": {k: r.model_dump(exclude_defaults=True) for k, r in rules.relics.items()},
    }
    assert data["policies"]["greedy"] == GreedyPolicy().model_dump()
    assert (data["games"], data["seed"]) == (100_000, 1)
