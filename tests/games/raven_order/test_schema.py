"""Bad Raven Order configs give one-line errors through `balance validate` (exit 1), naming the
file and the key path; the shipped configs are valid."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balance.cli import app
from balance.config import load_config
from balance.config.overrides import parse_overrides
from balance.games import get
from balance.games._search import SP_ITERS
from balance.games.raven_order import schema
from balance.search import SearchTables, search_seats

from .helpers import BASE, CONFIGS

BAD = {
    "unknown_building": (
        "rules:\n  buildings:\n    castle: {cost: 3}\n",
        "rules.buildings.castle: no building named 'castle'",
    ),
    "unknown_rune": (
        "rules:\n  runes:\n    fire_rune: {count: 2}\n",
        "rules.runes.fire_rune: no rune named 'fire_rune'",
    ),
    "field_a_rune_lacks": (
        "rules:\n  runes:\n    frost_mark: {gold: 2}\n",
        "rules.runes.frost_mark.gold: frost_mark has no 'gold' (its numbers: power)",
    ),
    "paint_on_a_building": (
        "rules:\n  runes:\n    crown_rune: {target: town}\n",
        "rules.runes.crown_rune.target: a paint rune goes on a druid (RO-6)",
    ),
    "requirement_cycle": (
        "rules:\n  buildings:\n    armory: {requires: shrine}\n",
        "a cycle of requirements",
    ),
    "three_players": ("players: 3\n", "players: raven_order is for 2-2 players, got 3"),
    "negative_cost": (
        "rules:\n  buildings:\n    camp: {cost: -1}\n",
        "rules.buildings.camp.cost: must be >= 0, got -1",
    ),
    "negative_rune_count": (
        "rules:\n  runes:\n    horses: {count: -1}\n",
        "rules.runes.horses.count",
    ),
    "unknown_requirement": (
        "rules:\n  buildings:\n    town: {requires: palace}\n",
        "rules.buildings.town.requires: no building named 'palace'",
    ),
    "unknown_rule": ("rules:\n  gold_rush: 3\n", "rules.gold_rush"),
    "rune_target_unknown": (
        "rules:\n  runes:\n    looting: {target: palace}\n",
        "rules.runes.looting.target",
    ),
    # RO-8: a worker blocks with power 0; a key that changed nothing would mislead a designer
    "worker_power": (
        "rules:\n  units:\n    worker: {power: 5}\n",
        "rules.units.worker.power: must be 0, got 5 (a worker blocks with no power (RO-8)",
    ),
    "worker_cost": (
        "rules:\n  units:\n    worker: {cost: 2}\n",
        "rules.units.worker.cost: must be 0, got 2 (a worker is free (RO-2)",
    ),
}


def write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"extends: {BASE}\n{body}")
    return path


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_config_is_a_one_line_error_naming_file_and_key(tmp_path, name):
    body, message = BAD[name]
    path = write(tmp_path, name, body)
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {path}: ")
    assert message in result.stderr


def test_requirement_cycle_names_the_building(tmp_path):
    path = write(tmp_path, "cycle", BAD["requirement_cycle"][0])
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert "rules.buildings." in result.stderr and ".requires: a cycle" in result.stderr


def test_shipped_configs_are_valid():
    paths = _shipped()
    assert len(paths) >= 8
    result = CliRunner().invoke(app, ["validate", *map(str, paths)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("ok: ") == len(paths)


def _shipped() -> list[Path]:
    return sorted(CONFIGS.glob("*.yaml")) + sorted((CONFIGS / "rune_mixes").glob("*.yaml"))


def test_every_shipped_config_compiles_and_plays():
    """Every shipped config compiles through the plugin and plays a couple of games: a config
    with a search seat (search_vs_economy.yaml) compiles to SearchTables and plays at a budget
    of 4 iterations (its own 1,000 would make this test slow), the others to the game's tables."""
    plugin = get("raven_order")
    searched = 0
    for path in _shipped():
        cfg = load_config(path)
        names = sorted({cfg.seats[i] for i in search_seats(cfg)})
        if names:
            overrides = [f"policies.{n}.iterations=4" for n in names]
            cfg = load_config(path, parse_overrides(overrides))
        tables = plugin.compile(cfg)
        assert isinstance(tables, SearchTables) == bool(names), path.name
        if names:
            searched += 1
            assert (tables.search[tables.search_seats, SP_ITERS] == 4).all()
        chunk = plugin.play(tables, 3, 0, 2)
        assert chunk.rank.shape == (2, 2), path.name
        assert set(chunk.rank[:, 0].tolist()) <= {1, 2}, path.name
    assert searched >= 1  # search_vs_economy.yaml


def test_defaults_are_the_rulebook():
    r = schema.Rules()
    costs = {n: b.cost for n, b in r.buildings.items()}
    assert costs == {
        "camp": 3, "town": 5, "capitol": 6, "armory": 2, "citadel": 2, "shrine": 2,
        "statue": 1, "academy_1": 2, "academy_2": 2, "academy_3": 2, "guildhall": 4,
    }  # fmt: skip
    assert {n: b.gold for n, b in r.buildings.items() if b.gold} == {
        "camp": 2,
        "town": 2,
        "capitol": 3,
    }
    assert r.buildings["guildhall"].workers == 1 and r.buildings["academy_3"].runes == 1
    assert (r.turn_cap, r.starting_gold, r.starting_hand) == (200, 0, 5)  # RO-1, RO-9
    assert r.starting_buildings == ["camp"] and r.compensation.sentries == 1
    assert r.deck_size() == 19 and all(x.count == 1 for x in r.runes.values())
    assert [r.units.sentry.power, r.units.rider.power, r.units.druid.power] == [2, 2, 2]
    assert get("raven_order").end_reasons == ("destruction", "draw")
