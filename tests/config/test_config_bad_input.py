"""Bad input never hangs or crashes the config loader (issue 13): alias bombs, recursive and deep
documents, huge numbers, odd names; and an error of keys that a config and its parent wrote
together names both files."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from kit.configs import write
from test_config import VALID, error
from typer.testing import CliRunner

from balance.cli import app
from balance.config import ConfigError, load_config, loading
from balance.config.loading import MAX_BYTES, MAX_DEPTH, MAX_VALUES, load_yaml, read_yaml
from balance.config.translate import validation_error


def bomb(levels: int = 9, width: int = 9) -> str:
    """The "billion laughs": each anchor is a list of ``width`` aliases of the one before."""
    lines = [f"a: &a [{', '.join(['lol'] * width)}]"]
    for prev, name in zip("abcdefghijklmnop", "bcdefghijklmnop"[: levels - 1], strict=False):
        lines.append(f"{name}: &{name} [{', '.join([f'*{prev}'] * width)}]")
    return "\n".join(lines) + "\n"


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


# ------------------------------------------------------------------------------- alias bombs


def test_alias_bomb_fails_fast_naming_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "bomb.yaml", VALID + bomb())  # 9**9 = 387,420,489 strings
    start = time.perf_counter()
    message = error(path)
    assert time.perf_counter() - start < 1.0
    assert message == (
        f"{path}: invalid YAML at line 9, column 8: alias *e makes the document more than"
        f" {MAX_VALUES:,} values (a config needs far fewer)"
    )


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_alias_bomb_through_the_cli(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, "bomb.yaml", VALID + bomb())
    out = tmp_path / "out"
    extra = ["--out", out, "--games", 10] if command == "simulate" else []
    import balance.runner  # noqa: F401  (simulate imports it first: time the config, not imports)

    start = time.perf_counter()
    result = run(command, path, *extra)
    assert time.perf_counter() - start < 1.0
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}: invalid YAML at line 9")
    assert result.stderr.count("\n") == 1 and not out.exists()


def test_alias_bomb_in_a_parent_names_the_parent(tmp_path: Path) -> None:
    parent = write(tmp_path, "parent.yaml", VALID + "description: x\n" + bomb())
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\nseed: 2\n")
    assert error(path).startswith(f"{parent}: invalid YAML at line 10, column 8: alias *e")


def test_alias_bomb_in_a_read_yaml_document(tmp_path: Path) -> None:
    """read_yaml serves the variants and check-spec loaders: they are bounded too."""
    path = write(tmp_path, "v.yaml", "- " + bomb().replace("\n", "\n  "))
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=r"alias \*e makes the document more than"):
        read_yaml(path)
    with pytest.raises(ConfigError, match=r"alias \*e makes the document more than"):
        load_yaml(path)
    assert time.perf_counter() - start < 1.0


def test_aliases_under_the_bound_still_load(tmp_path: Path) -> None:
    # 9**4 = 6,561 strings from aliases: a lot more than any config, and fine
    path = write(tmp_path, "x.yaml", "x:\n  " + bomb(levels=4).replace("\n", "\n  "))
    data = read_yaml(path)
    assert len(data["x"]["d"]) == 9 and data["x"]["d"][8][8][8] == ["lol"] * 9


def test_wide_alias_fan_out_is_counted(tmp_path: Path) -> None:
    """Many aliases of one mid-sized anchor add up, though none alone crosses the bound."""
    items = ", ".join(str(i) for i in range(1000))
    text = f"a: &a [{items}]\nb: [{', '.join(['*a'] * 150)}]\n"
    message = error(write(tmp_path, "x.yaml", text))
    assert "alias *a makes the document more than 100,000 values" in message


def test_recursive_alias(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", VALID + "rules: &r {scoring: *r}\n")
    assert error(path) == (
        f"{path}: invalid YAML at line 4, column 21: alias *r is inside the value it names"
        " (a recursive value)"
    )
    path = write(tmp_path, "y.yaml", "game: five_ravens\nplayers: 2\nseats: &s [greedy, *s]\n")
    assert "alias *s is inside the value it names" in error(path)


@pytest.mark.parametrize(
    "value",
    [
        "[" * 5000 + "]" * 5000,  # deep as written
        "{a: " * 200 + "1" + "}" * 200,
    ],
    ids=["lists", "mappings"],
)
def test_deeply_nested_document(tmp_path: Path, value: str) -> None:
    path = write(tmp_path, "x.yaml", VALID + "description: " + value + "\n")
    start = time.perf_counter()
    message = error(path)
    # PyYAML's scanner looks up to 1,024 characters ahead for a key, quadratic in the brackets
    # it meets there: a second or so on a slow machine, however long the file
    assert time.perf_counter() - start < 5.0
    assert message.startswith(f"{path}: invalid YAML at line 4, column ")
    assert message.endswith(f"the document is nested more than {MAX_DEPTH} levels deep")


def test_deep_through_aliases(tmp_path: Path) -> None:
    """A chain of anchors, each a list holding the one before, is deep once expanded."""
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 100)]
    message = error(write(tmp_path, "x.yaml", "\n".join(lines)))
    assert f"alias *a{MAX_DEPTH - 3} makes the document nested more than {MAX_DEPTH}" in message


def test_too_many_values_without_aliases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loading, "MAX_VALUES", 1000)  # 100,000 plain values take seconds to read
    path = write(tmp_path, "x.yaml", VALID + "teams: [" + ",".join(["a"] * 1000) + "]\n")
    assert error(path) == (
        f"{path}: invalid YAML at line 4, column 1991: the document is more than 1,000 values"
        " (a config needs far fewer)"
    )
    assert MAX_VALUES == 100_000


def merge_steps(base: dict, over: dict) -> int:
    """The work of merging ``over`` onto ``base`` as load_yaml does, counted without a clock:
    every line of balance/config/loading.py that runs (a loop in Python, a comprehension) and
    every key of the provenance that is visited (a scan of it in C: ``list(prov)``,
    ``dict(prov)``)."""
    steps = 0

    class Counted(loading.Provenance):
        def __iter__(self):
            nonlocal steps
            for key in super().__iter__():
                steps += 1
                yield key

        def keys(self):
            return list(iter(self))

        def items(self):
            return [(k, self[k]) for k in self]

        def values(self):
            return [self[k] for k in self]

    def count_lines(frame, event, arg):
        nonlocal steps
        steps += event == "line"
        return count_lines

    def in_config(frame, event, arg):
        return count_lines if frame.f_code.co_filename == loading.__file__ else None

    prov = Counted()
    previous = sys.gettrace()  # a coverage run's tracer, given back after
    sys.settrace(in_config)
    try:
        merged = loading._merge({}, base, "base.yaml", (), prov)
        merged = loading._merge(merged, over, "child.yaml", (), prov)
    finally:
        sys.settrace(previous)
    assert merged == over  # every key of over replaces (or, in a mapping, extends) the base
    return steps


@pytest.mark.parametrize("shape", ["replace every key", "merge a large mapping"])
def test_merging_is_linear_in_the_size_of_the_configs(shape: str) -> None:
    """A child replacing every key of a large parent: merging used to scan every recorded path
    for each key replaced (20,000 keys: minutes). Four times the keys must cost about four
    times the work (16 times if it were quadratic): measured in steps, not seconds, so that a
    loaded machine cannot fail it."""

    def configs(n: int) -> tuple[dict, dict]:
        if shape == "replace every key":
            return {f"k{i}": [1, {"a": 1}] for i in range(n)}, {f"k{i}": 2 for i in range(n)}
        return {"m": {f"k{i}": {"a": [1, 2]} for i in range(n)}}, {
            "m": {f"k{i}": {"a": 3, "b": 4} for i in range(n)}
        }

    small, large = merge_steps(*configs(500)), merge_steps(*configs(2000))
    assert 3 < large / small < 6, (small, large)


def test_merging_records_the_file_of_each_key() -> None:
    base = {f"k{i}": [1, {"a": 1}] for i in range(100)}
    over = {f"k{i}": 2 for i in range(100)}
    prov: dict = {}
    merged = loading._merge(
        loading._merge({}, base, "base.yaml", (), prov), over, "child.yaml", (), prov
    )
    assert merged == over and prov == {(k,): "child.yaml" for k in over}


def test_file_too_large(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", VALID + "description: " + "x" * MAX_BYTES + "\n")
    assert error(path) == f"{path}: larger than 64 KiB; a config is a few kB"


# --------------------------------------------------------------- anchors and merge keys still work

ANCHORED = """\
game: five_ravens
players: 4
seats: &four [greedy, greedy, random, random]
teams: [a, b, a, b]
rules:
  relics:
    chest_1: &chest {kind: chest, count: 1, value: 1}
    chest_2: {<<: *chest, value: 2}
    chest_3: {<<: *chest, value: 3}
    gem: &gem {kind: gem, count: 4}
    hollow: {<<: *gem, kind: hollow}
  scoring: {gem_table: &table [1, 6, 9, 15]}
policies:
  base: &weights {kind: greedy, thief_rank: 2.0, draw_value: 0.5}
  bold: {<<: *weights, thief_rank: 3.0}
  both: {<<: [*weights, {penalty_aversion: 4.0}], info_value: 0.1}
description: anchors and merge keys
"""

WRITTEN_OUT = """\
game: five_ravens
players: 4
seats: [greedy, greedy, random, random]
teams: [a, b, a, b]
rules:
  relics:
    chest_1: {kind: chest, count: 1, value: 1}
    chest_2: {kind: chest, count: 1, value: 2}
    chest_3: {kind: chest, count: 1, value: 3}
    gem: {kind: gem, count: 4}
    hollow: {kind: hollow, count: 4}
  scoring: {gem_table: [1, 6, 9, 15]}
policies:
  base: {kind: greedy, thief_rank: 2.0, draw_value: 0.5}
  bold: {kind: greedy, thief_rank: 3.0, draw_value: 0.5}
  both: {kind: greedy, thief_rank: 2.0, draw_value: 0.5, penalty_aversion: 4.0, info_value: 0.1}
description: anchors and merge keys
"""


def test_anchors_and_merge_keys_load_as_if_written_out(tmp_path: Path) -> None:
    anchored = load_config(write(tmp_path, "anchored.yaml", ANCHORED))
    written = load_config(write(tmp_path, "written.yaml", WRITTEN_OUT))
    assert anchored == written
    assert anchored.rules.relics["chest_3"].value == 3
    assert anchored.policies["bold"]["thief_rank"] == 3.0
    assert anchored.policies["both"]["penalty_aversion"] == 4.0


def test_merged_mapping_that_overrides_a_key_is_no_duplicate(tmp_path: Path) -> None:
    """A mapping that merges another and overrides one of its keys, merged in turn by a mapping
    written before it is constructed, used to read as "duplicate key"."""
    text = "base: &base {a: 1}\nx: {y: &mid {<<: *base, a: 2}}\ntop: {<<: *mid, b: 3}\n"
    assert read_yaml(write(tmp_path, "x.yaml", text)) == {
        "base": {"a": 1},
        "x": {"y": {"a": 2}},
        "top": {"a": 2, "b": 3},
    }
    text = "a: &a {k: 1}\nb: {<<: *a, k: 2, k: 3}\n"  # a key written twice is still one
    message = error(write(tmp_path, "y.yaml", VALID + text))
    assert message.endswith("duplicate key 'k'")


# ------------------------------------------------------------------------ numbers, names, files


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("9" * 5000, "an integer of more than 4300 digits"),
        ("0x" + "f" * 4000, "an integer of more than 4300 digits"),
        ("0b" + "1" * 5000, "an integer of more than 4300 digits"),
        ("0b" + "1" * 15000, "an integer of more than 4300 digits"),
        (":".join(["1"] * 3000), "an integer of more than 4300 digits"),
    ],
    ids=["decimal", "hex", "binary", "long binary", "sexagesimal"],
)
def test_huge_integers(tmp_path: Path, value: str, expected: str) -> None:
    path = write(tmp_path, "x.yaml", VALID + f"seed: {value}\n")
    assert error(path) == f"{path}: invalid YAML at line 4, column 7: {expected}"


def test_long_integer_is_shown_short(tmp_path: Path) -> None:
    path = write(tmp_path, "x.yaml", VALID + f"seed: 0x{'f' * 100}\n")
    assert error(path) == f"{path}: seed: must be < {2**63}, got a 121-digit integer"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"a\\nb": 1', "a\\nb: unknown key (expected one of: "),
        ('"\\ud800": 1', "invalid YAML at line 4, column 1: \\ud800 is not a character"),
        ("? !!null\n: 1", "null: bad key: expected a string, got null"),
        (".nan: 1", "nan: bad key: expected a string, got nan"),
        ("rules: {relics: {true: {kind: gem, count: 1}}}", "rules.relics.true: bad key: expected"),
    ],
    ids=["newline", "surrogate", "null", "nan", "bool"],
)
def test_odd_keys_are_one_printable_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, "x.yaml", VALID + text + "\n")
    message = error(path)
    assert message.startswith(f"{path}: {expected}")
    assert message.isprintable()
    result = run("validate", path)
    assert result.exit_code == 1 and result.stderr == f"error: {message}\n"


@pytest.mark.parametrize(
    ("extends", "expected"),
    [
        ('"a\\0b"', "extends: expected a file name, got 'a\\x00b'"),
        (".", "is a directory, not a YAML file"),
        ("x" * 300, ": File name too long"),
    ],
    ids=["nul", "directory", "long name"],
)
def test_bad_extends_names(tmp_path: Path, extends: str, expected: str) -> None:
    path = write(tmp_path, "x.yaml", f"extends: {extends}\n")
    assert expected in error(path)


def test_long_extends_chain(tmp_path: Path) -> None:
    write(tmp_path, "c0.yaml", VALID)
    for i in range(1, 40):
        write(tmp_path, f"c{i}.yaml", f"extends: c{i - 1}.yaml\n")
    assert load_config(tmp_path / "c30.yaml").players == 4
    assert error(tmp_path / "c39.yaml") == (
        f"{tmp_path / 'c8.yaml'}: extends: a chain of more than 32 files"
    )


def test_nul_in_the_path_given() -> None:
    with pytest.raises(ConfigError, match=r"a\\x00b: cannot read: .*null byte"):
        load_config("a\0b")


# ------------------------------------------------------------- keys written in different files


def test_players_against_the_parents_seats_names_both_files(tmp_path: Path) -> None:
    base = write(
        tmp_path,
        "base.yaml",
        "game: five_ravens\nplayers: 4\nseats: [greedy, greedy, greedy, greedy]\n",
    )
    three = write(tmp_path, "three.yaml", "extends: base.yaml\nplayers: 3\n")
    assert error(three) == f"{three}: players: 3 does not match the 4 seats (seats set in {base})"
    result = run("validate", three)
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"error: {three}: players: 3 does not match the 4 seats (seats set in {base})\n"
    )


def test_seats_against_the_parents_players_names_both_files(tmp_path: Path) -> None:
    base = write(tmp_path, "base.yaml", VALID)
    two = write(tmp_path, "two.yaml", "extends: base.yaml\nseats: [greedy, random]\n")
    assert error(two) == (
        f"{two}: seats: expected 4 seats (one per player), got 2 (players set in {base})"
    )


def test_teams_and_game_against_the_parent(tmp_path: Path) -> None:
    base = write(tmp_path, "base.yaml", VALID)
    teams = write(tmp_path, "teams.yaml", "extends: base.yaml\nteams: [a, b]\n")
    assert error(teams) == (
        f"{teams}: teams: expected 4 teams (one per seat), got 2 (players set in {base})"
    )
    other = write(tmp_path, "other.yaml", "extends: base.yaml\ngame: raven_order\nseats: random\n")
    assert (
        error(other)
        == f"{other}: game: raven_order is for 2-2 players, not 4 (players set in {base})"
    )
    five = write(tmp_path, "five.yaml", "extends: base.yaml\nplayers: 5\n")
    assert (
        error(five)
        == f"{five}: players: five_ravens is for 2-4 players, got 5 (game set in {base})"
    )


def test_conflict_between_parent_and_grandparent_names_both(tmp_path: Path) -> None:
    grand = write(tmp_path, "grand.yaml", VALID)
    parent = write(tmp_path, "parent.yaml", "extends: grand.yaml\nseats: [greedy]\n")
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\nseed: 3\n")
    assert error(path) == (
        f"{parent}: seats: expected 4 seats (one per player), got 1 (players set in {grand})"
    )


def test_conflict_in_one_file_reads_as_before(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", "game: five_ravens\ndescription: x\n")
    path = write(tmp_path, "x.yaml", "extends: base.yaml\nplayers: 3\nseats: [greedy, greedy]\n")
    assert error(path) == f"{path}: seats: expected 3 seats (one per player), got 2"


def test_rules_conflicts_name_the_file_of_each_key(tmp_path: Path) -> None:
    base = write(
        tmp_path,
        "base.yaml",
        VALID + "rules: {relics: {gem: {kind: gem, count: 4}}, removed_relics: {2: 1}}\n",
    )
    thief = write(tmp_path, "thief.yaml", "extends: base.yaml\nrules: {thief_relics: [crown]}\n")
    assert error(thief) == (
        f"{thief}: rules.thief_relics[0]: no relic named 'crown' in relics"
        f" (rules.relics set in {base})"
    )
    removed = write(
        tmp_path, "removed.yaml", "extends: base.yaml\nrules: {removed_relics: {2: 4}}\n"
    )
    assert error(removed) == (
        f"{removed}: rules.removed_relics.2: must be less than the 4 relics in the deck, got 4"
        f" (rules.relics set in {base})"
    )
    write(tmp_path, "base2.yaml", VALID + "rules: {removed_relics: {2: 3}}\n")
    small = write(
        tmp_path,
        "small.yaml",
        "extends: base2.yaml\nrules: {relics: {gem: {kind: gem, count: 3}}}\n",
    )
    assert error(small) == (
        f"{small}: rules.relics: 3 relics in the deck are too few for the 3 that"
        f" removed_relics.2 takes out (rules.removed_relics.2 set in {tmp_path / 'base2.yaml'})"
    )


def test_deck_from_two_files_names_both(tmp_path: Path) -> None:
    base = write(
        tmp_path,
        "base.yaml",
        VALID + "rules: {relics: {gem: {kind: gem, count: 60}, b: {kind: gem, count: 60}}}\n",
    )
    path = write(
        tmp_path,
        "x.yaml",
        "extends: base.yaml\nrules: {relics: {c: {kind: gem, count: 60}, d: {kind: gem, count: 60}}}\n",
    )
    assert error(path) == (
        f"{path}: rules.relics: the deck must hold 1-200 relics, got 240"
        f" (rules.relics also set in {base})"
    )


def test_requirement_cycle_across_files_names_each(tmp_path: Path) -> None:
    base = write(
        tmp_path,
        "base.yaml",
        "game: raven_order\nplayers: 2\nseats: random\n"
        "rules: {buildings: {citadel: {requires: statue}}}\n",
    )
    path = write(
        tmp_path,
        "x.yaml",
        "extends: base.yaml\nrules: {buildings: {statue: {requires: citadel}}}\n",
    )
    assert error(path) == (
        f"{path}: rules.buildings.statue.requires: a cycle of requirements"
        f" (rules.buildings.citadel.requires set in {base})"
    )


def test_validation_error_with_provenance_names_the_parent(tmp_path: Path) -> None:
    """The check-spec loader validates a load_yaml document against its own model: given the
    provenance, its errors name the file of the key, as a run config's do."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    class Spec(BaseModel):
        model_config = ConfigDict(extra="forbid", strict=True)
        alpha: float = 0.05
        batch: int = 100

    parent = write(tmp_path, "parent.yaml", "batch: many\n")
    path = write(tmp_path, "child.yaml", "extends: parent.yaml\nalpha: 0.1\n")
    data, prov = load_yaml(path)
    with pytest.raises(ValidationError) as info:
        Spec.model_validate(data)
    assert str(validation_error(info.value, data, str(path), Spec)) == (
        f"{path}: batch: expected an integer, got 'many'"
    )
    assert str(validation_error(info.value, data, str(path), Spec, provenance=prov)) == (
        f"{parent}: batch: expected an integer, got 'many'"
    )
