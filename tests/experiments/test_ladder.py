"""The skill ladder's plan (balance/experiments/ladder.py): its rungs and the configs it plays."""

from __future__ import annotations

from pathlib import Path

import pytest

from balance.config import load_config
from balance.experiments import ladder as L

ROOT = Path(__file__).resolve().parents[2]
HEURISTIC = {
    "five_ravens": "greedy",
    "raven_order": "economy",
    "raven_manor": "basic",
    "corvids": "greedy",
}


def _base(game: str):
    return load_config(ROOT / "configs" / game / "base.yaml")


@pytest.mark.parametrize("game", sorted(HEURISTIC))
def test_the_default_rungs_are_random_the_heuristic_then_search(game):
    cfg = _base(game)
    assert L.default_rungs(cfg, [50, 200]) == ["random", HEURISTIC[game], "search_50", "search_200"]


@pytest.mark.parametrize("game", sorted(HEURISTIC))
def test_every_point_is_a_valid_config_of_its_rungs(game):
    cfg = _base(game)
    rungs = L.parse_rungs(cfg, L.default_rungs(cfg, [25, 100]))
    pts = L.plan_points(cfg, rungs)
    players = cfg.players
    mirrors = [p for p in pts if p.kind == "mirror"]
    depth = [p for p in pts if p.kind == "depth"]
    assert [p.rung for p in mirrors] == [r.name for r in rungs]
    assert len(depth) == (len(rungs) - 1) * players  # every step, its seat rotated
    for p in mirrors:
        assert p.config.seats == [p.rung] * players
    for p in depth:
        want = [p.below] * players
        want[p.seat] = p.rung
        assert p.config.seats == want
        order = [r.name for r in rungs]
        assert order.index(p.below) == order.index(p.rung) - 1
    top = next(p for p in mirrors if p.rung == "search_100").config
    assert top.policies["search_100"]["iterations"] == 100
    assert top.policies["search_100"]["rollout"] == HEURISTIC[game]
    assert top.game == cfg.game and top.rules == cfg.rules  # the rules are the config's
    assert len({p.dir for p in pts}) == len(pts)


def test_a_search_rung_keeps_the_configs_search_settings_but_its_budget():
    cfg = load_config(ROOT / "configs" / "raven_manor" / "search_raven_vs_basic_family.yaml")
    r = L.rung(cfg, "search_40")
    assert r.entry["iterations"] == 40
    assert r.entry["opponents"] == "policy" and r.entry["sides"] == ["evil"]


def test_a_rung_may_be_any_policy_of_the_config():
    cfg = load_config(ROOT / "configs" / "raven_order" / "base.yaml")
    rungs = L.parse_rungs(cfg, "rush,economy,search_10")
    pts = L.plan_points(cfg, rungs)
    assert pts[0].config.policies["rush"] == cfg.policies["rush"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("greedy", "at least 2 rungs, got 1"),
        ("random,foo", "'foo' is not a rung: name random, a policy of the config"),
        ("random,,greedy", "an empty rung name"),
        ("random,greedy,random", "'random' is named twice"),
        ("random,search_0", "'search_0' is not a rung"),
        ("random,search_x", "'search_x' is not a rung"),
        (",".join(f"search_{i}" for i in range(1, 10)), "at most 8 rungs, got 9"),
    ],
)
def test_bad_rungs_are_one_line(text, says):
    with pytest.raises(L.LadderError) as e:
        L.parse_rungs(_base("five_ravens"), text)
    message = str(e.value)
    assert message.startswith("--rungs: ") and says in message and "\n" not in message
