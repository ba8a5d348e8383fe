"""The skill ladder's plan (balance/experiments/ladder.py): its rungs and the configs it plays."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
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
def test_each_games_default_search_budgets_grow_4x_from_at_least_2(game):
    """A search of 1 iteration is a random pick; two rungs at least, each 4x the last (three
    where the half hour allows: Corvids and Raven Manor's search_32 took 47 and 66 minutes)."""
    budgets = L.BUDGETS[game]
    assert budgets[0] >= 2 and len(budgets) >= 2
    assert all(b == 4 * a for a, b in zip(budgets, budgets[1:]))
    assert L.default_rungs(_base(game))[2:] == [f"search_{b}" for b in budgets]


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
    luck = [p for p in pts if p.kind == "luck"]  # the top rung among the first
    assert [(p.rung, p.below, p.seat) for p in luck] == [
        (rungs[-1].name, "random", s) for s in range(players)
    ]
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


# ------------------------------------------------------------------ playing and reading back

FR = ROOT / "configs" / "five_ravens" / "base.yaml"


def test_a_small_ladder_plays_every_point_resumes_and_measures_its_depth(tmp_path):
    plan = L.plan_ladder(FR, "random,greedy,search_2", games=120, seed=3)
    assert plan.games == 120 and len(plan.points) == 3 + 2 * 4 + 4  # mirrors, steps, luck
    out = tmp_path / "ladder"
    first = L.run_ladder(plan, out=out)
    assert first.played_games == 120 * 15
    manifest = L.read_manifest(out)
    assert [r["name"] for r in manifest["rungs"]] == ["random", "greedy", "search_2"]
    assert {p["dir"] for p in manifest["points"]} == {p.dir for p in plan.sweep.points}
    d = L.read_depth(out)
    low, high = d.steps
    assert (low.lower, low.upper) == ("random", "greedy")
    assert low.yardstick == pytest.approx(0.25) and low.lo > 0.3  # greedy crushes random
    assert high.games == 120 and d.level == pytest.approx(1 - 0.05 / 2)
    again = L.run_ladder(plan, out=out)  # finished: every point kept
    assert again.played_games == 0 and L.read_depth(out) == d


def test_a_rung_that_plays_like_the_one_below_has_no_edge_game_by_game(tmp_path):
    """Planted: ``twin`` is greedy under another name. Its seat among greedy plays the mirror's
    games exactly (common random numbers), so the step's edge is 0 in every game: no ladder."""
    plan = L.plan_ladder(FR, "greedy,twin", sets=["policies.twin={kind: greedy}"], games=80)
    L.run_ladder(plan, out=tmp_path / "twin")
    (step,) = L.read_depth(tmp_path / "twin").steps
    assert step.edge == 0 and step.lo == step.hi == 0 and step.share == pytest.approx(0.25)


def test_an_unfinished_ladder_says_so_in_one_line(tmp_path):
    plan = L.plan_ladder(FR, "random,greedy", games=20)
    L.run_ladder(plan, out=tmp_path / "l")
    (tmp_path / "l" / plan.sweep.points[-1].dir / "manifest.json").unlink()
    with pytest.raises(L.LadderError, match="not finished \\(1 of 6 points to play\\)"):
        L.read_depth(tmp_path / "l")
    with pytest.raises(L.LadderError, match="not a ladder directory"):
        L.read_depth(tmp_path)


def test_games_for_a_half_width():
    assert L.games_for(0.02) == 2401  # the "about 2,400 games for a pair of rungs"
    assert L.games_for(0.01) == 9604
    with pytest.raises(L.LadderError, match="--half-width"):
        L.games_for(0.0)


def test_the_findings_of_every_mirror_are_classified_across_the_rungs(tmp_path):
    from balance.stats.ladder import CALLS

    plan = L.plan_ladder(FR, "random,greedy,search_2", games=150, seed=5)
    L.run_ladder(plan, out=tmp_path / "fr")
    found = {(f.axis, f.group): f for f in L.read_findings(tmp_path / "fr")}
    assert set(found) == {(a, str(i)) for a in ("order", "seat") for i in range(1, 5)}
    for f in found.values():
        assert f.call in CALLS and len(f.value) == 3 and f.games == [150] * 3
        assert all(lo <= v <= hi for v, lo, hi in zip(f.value, f.lo, f.hi, strict=True))


def test_raven_manor_findings_have_sides_without_a_target_and_roles(tmp_path):
    """The sides are dealt and base.yaml names no target: a side's finding is its share (no
    reference); basic players make the Raven's side win far more than random ones."""
    rm = ROOT / "configs" / "raven_manor" / "base.yaml"
    plan = L.plan_ladder(rm, "random,basic", games=300, seed=3)
    L.run_ladder(plan, out=tmp_path / "rm")
    found = {(f.axis, f.group): f for f in L.read_findings(tmp_path / "rm")}
    raven = found[("team", "raven")]
    assert not raven.reference and raven.call == "grows" and raven.value[1] > 0.8
    assert ("role", "raven") in found and found[("order", "1")].reference


def test_raven_manor_matrix_plays_each_family_rung_against_each_evil_rung(tmp_path):
    """Issue 30's matrix: every seat plays the Family's rung on the Family's side and the evil
    rung on an evil side. A heuristic cell is the game's own by_side policy, so the cell
    (basic Family, random evil) is exactly the games of a config whose seats all play
    ``basic_family`` (configs/raven_manor/base.yaml's): the same deals, every column."""
    from balance.results import open_results

    rm = ROOT / "configs" / "raven_manor" / "base.yaml"
    plan = L.plan_ladder(rm, "random,basic", games=200, seed=3)
    cells = [(p.rung, p.evil) for p in plan.points if p.kind == "matrix"]
    assert cells == [("random", "basic"), ("basic", "random")]
    assert L.plan_ladder(rm, "random,basic", games=200, matrix=False).points[-1].kind == "depth"
    out = tmp_path / "rm"
    L.run_ladder(plan, out=out)
    m = L.read_matrix(out)
    assert m.side == "raven" and m.rungs == ["random", "basic"]
    assert m.level == pytest.approx(1 - 0.05 / 4)
    found = {(f.axis, f.group): f for f in L.read_findings(out)}
    assert m.cell("basic", "basic").share == pytest.approx(found[("team", "raven")].value[1])
    cell = next(p for p in plan.sweep.points if "Family basic, evil side random" in p.name)
    twin = load_config(rm, []).model_copy(update={"seats": ["basic_family"] * 5})
    from balance import runner

    runner.run(twin, config_path=None, out=tmp_path / "twin", games=200, seed=3)
    a = open_results(out / cell.dir)[1].drop("policy").collect()
    b = open_results(tmp_path / "twin")[1].drop("policy").collect()
    assert a.equals(b)
    assert m.cell("basic", "random").share < m.cell("random", "basic").share


def test_side_rungs_for_search_cells():
    """A search rung against a heuristic one searches on its side only and plays (and rolls
    out) the by_side policy elsewhere; two search rungs search on both sides, each at its
    budget."""
    cfg = load_config(ROOT / "configs" / "raven_manor" / "base.yaml")
    rand, _, s4, s16 = L.parse_rungs(cfg, "random,basic,search_4,search_16")
    one, extra = L.side_rung(cfg, s4, rand)
    assert one.entry["kind"] == "search" and one.entry["sides"] == ["family"]
    assert one.entry["rollout"] == L.SIDE_ROLLOUT and one.entry["iterations"] == 4
    roll = extra[L.SIDE_ROLLOUT]
    assert (roll["kind"], roll["family"], roll["evil"]) == ("by_side", "basic", "random")
    assert roll["kill"] == cfg.policies["basic"]["kill"]  # the heuristic's own weights
    other, extra = L.side_rung(cfg, rand, s16)
    assert other.entry["sides"] == ["evil"] and extra[L.SIDE_ROLLOUT]["family"] == "random"
    both, extra = L.side_rung(cfg, s16, s4)
    assert extra == {} and "sides" not in both.entry
    assert both.entry["iterations"] == 16
    assert both.entry["iterations_by_side"] == {"family": 16, "evil": 4}
    plan = L.plan_ladder(ROOT / "configs" / "raven_manor" / "base.yaml",
                         "random,basic,search_4,search_16", games=10)  # fmt: skip
    assert sum(p.kind == "matrix" for p in plan.points) == 12  # every config validated


# ---------------------------------------------------------------------------- the command


def _cli(*args: object):
    from typer.testing import CliRunner

    from balance.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def test_balance_ladder_says_its_plan_its_estimate_its_depth_and_its_findings(tmp_path):
    out = tmp_path / "l"
    r = _cli("ladder", FR, "--rungs", "random,greedy", "--games", 60, "--out", out)
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith(
        "card impact: the 3 variants that move the headline most with the config's line-up (on "
        "60 games of seed 2): "
    )
    assert lines[1] == (
        "ladder configs/five_ravens/base.yaml: random < greedy; 12 points, 60 games each on "
        f"seed 1 -> {out}"
    )
    assert lines[2].startswith("estimate: about ") and "pilot of 4 games" in lines[2]
    assert "card impact at every rung" in r.stdout
    assert (
        "greedy over random" in r.stdout and "Each rung wins more than the rung below" in r.stdout
    )
    assert "place 1" in r.stdout and "chair 4" in r.stdout
    again = _cli("ladder", FR, "--rungs", "random,greedy", "--games", 60, "--out", out)
    assert again.exit_code == 0 and "ladder: 0 games" in again.stdout
    assert again.stdout.count("kept (complete)") == 12


def test_a_ladder_past_an_hour_is_refused_off_a_terminal_without_yes(tmp_path, monkeypatch):
    hours = L.Estimate(7200.0, (7200.0,), 4, 0.1)
    monkeypatch.setattr(L, "estimate", lambda plan, **kw: hours)
    out = tmp_path / "l"
    r = _cli("ladder", FR, "--rungs", "random,greedy", "--games", 60, "--out", out)
    assert r.exit_code == 1 and r.stderr.startswith("error: the ladder takes about 2.0 h")
    assert r.stderr.rstrip().endswith("pass --yes to run anyway") and not out.exists()


def test_a_game_without_a_search_player_needs_its_rungs_named(fake_config):
    r = _cli("ladder", fake_config, "--games", 20)
    assert r.exit_code == 1
    assert r.stderr == (
        "error: --rungs: fake has no search player: name the rungs (its policies: plain, skilled)\n"
    )


# ---------------------------------------------------------------- planted: a game of skill


@pytest.fixture
def skill_game(monkeypatch):
    """``fake_skill`` (tests/kit/fake_game.py): skill moves the first player's edge and each
    seat's chance by amounts a test sets."""
    from kit import fake_game as fake

    from balance import games

    monkeypatch.setitem(games._GAMES, "fake_skill", fake.skill.__name__)
    return fake.skill


def _ladder(skill_game, tmp_path, rungs: str, games: int, seed: int, **rules):
    cfg = skill_game.write_config(tmp_path / f"skill-{seed}.yaml", seed=seed, **rules)
    out = tmp_path / f"ladder-{seed}"
    L.run_ladder(L.plan_ladder(cfg, rungs, games=games), out=out)
    return L.read_depth(out), L.read_findings(out)


def test_planted_skill_that_changes_nothing_is_never_called_a_change(skill_game, tmp_path):
    """No edge and no gain at any skill: over 20 ladders (3 rungs, 2,000 games a point) at least
    95 % of the findings are called holds or not determined, and no step has an edge (the
    stronger seat plays the mirror's games exactly)."""
    calls = []
    for seed in range(20):
        depth, found = _ladder(skill_game, tmp_path, "s0,s1,s2", 2000, seed)
        assert [s.edge for s in depth.steps] == [0.0, 0.0] and not depth.ladder
        calls += [f.call for f in found]
    quiet = sum(c in ("holds", "not determined") for c in calls)
    assert quiet >= 0.95 * len(calls), calls


def test_planted_first_player_edge_that_turns_with_skill_flips(skill_game, tmp_path):
    _, found = _ladder(skill_game, tmp_path, "s0,s1,s2,s3", 3000, 1, edge_low=0.15, edge_high=-0.15)
    first = next(f for f in found if (f.axis, f.group) == ("order", "1"))
    assert first.call == "flips"
    assert first.value[0] == pytest.approx(0.15, abs=0.03)
    assert first.value[-1] == pytest.approx(-0.15, abs=0.03)


def test_planted_skill_that_wins_makes_a_ladder(skill_game, tmp_path):
    depth, _ = _ladder(skill_game, tmp_path, "s0,s1,s2", 2000, 2, gain=1.0)
    assert depth.ladder
    # seat weights 2 : 1 : 1 (s1 among s0) and 3 : 2 : 2 (s2 among s1): 1/2 and 3/7
    assert depth.steps[0].share == pytest.approx(0.5, abs=0.03)
    assert depth.steps[1].share == pytest.approx(3 / 7, abs=0.03)


def test_a_ladder_stopped_by_ctrl_c_resumes_to_the_same_numbers(skill_game, tmp_path):
    from balance.experiments.sweep import SweepInterrupted
    from balance.results import open_results

    cfg = skill_game.write_config(tmp_path / "s.yaml", gain=0.5, edge_low=0.1)
    plan = L.plan_ladder(cfg, "s0,s1,s2", games=900)
    L.run_ladder(plan, out=tmp_path / "whole", chunk_size=300)
    plugin = skill_game.PLUGIN
    plugin.reset()
    plugin.interrupt_at = 8  # in the third point's third chunk
    with pytest.raises(SweepInterrupted) as stop:
        L.run_ladder(plan, out=tmp_path / "stopped", chunk_size=300)
    assert stop.value.done == 2
    with pytest.raises(L.LadderError, match="not finished"):
        L.read_depth(tmp_path / "stopped")
    plugin.reset()
    again = L.run_ladder(plan, out=tmp_path / "stopped", chunk_size=300)
    assert again.played_games == 900 * (len(plan.points) - 2)  # the two finished points kept
    for a, b in [(tmp_path / "whole", tmp_path / "stopped")]:
        assert L.read_depth(a) == L.read_depth(b)
        assert L.read_findings(a) == L.read_findings(b)
        for p in plan.sweep.points:
            x = open_results(a / p.dir)[1].collect()
            y = open_results(b / p.dir)[1].collect()
            assert x.equals(y), p.dir


def test_luck_against_skill_of_a_small_ladder(tmp_path):
    plan = L.plan_ladder(FR, "random,greedy,search_2", games=200, seed=4)
    L.run_ladder(plan, out=tmp_path / "l")
    luck = L.read_luck(tmp_path / "l")
    assert (luck.bottom, luck.top) == ("random", "search_2")
    assert luck.step.yardstick == pytest.approx(0.25) and luck.step.lo > 0  # even search_2
    assert 0 <= luck.chance <= 1 and 0 <= luck.same <= 1 and luck.lo <= luck.hold <= luck.hi
    two = L.plan_ladder(FR, "random,greedy", games=100)  # 2 rungs: the step is the luck
    assert not [p for p in two.points if p.kind == "luck"]
    L.run_ladder(two, out=tmp_path / "two")
    assert L.read_luck(tmp_path / "two").step == L.read_depth(tmp_path / "two").steps[0]


# ------------------------------------------------------------------- a gate across skill


def test_a_check_may_name_the_rung_its_claims_are_about(skill_game, tmp_path):
    """The first player wins 1/3 + 0.2 among skill-0 players and 1/3 - 0.2 among skill-3
    players: "below 0.3" fails for the config's line-up and passes with ``players: s3``."""
    from balance import experiments as ex

    skill_game.write_config(tmp_path / "skill.yaml", edge_low=0.2, edge_high=-0.2)
    body = """\
batch: 500
max_games: 5000
checks:
  - config: skill.yaml
    {players}
    assertions:
      - {{metric: win_share, order: 0, below: 0.3}}
"""
    bots = tmp_path / "bots.yaml"
    bots.write_text(body.format(players=""))
    strong = tmp_path / "strong.yaml"
    strong.write_text(body.format(players="players: s3"))
    assert [a.verdict for a in ex.check(ex.load_spec(bots), spec_path=bots).assertions] == ["FAIL"]
    (a,) = ex.check(ex.load_spec(strong), spec_path=strong).assertions
    assert a.verdict == "PASS" and a.estimate == pytest.approx(1 / 3 - 0.2, abs=0.04)
    bad = tmp_path / "bad.yaml"
    bad.write_text(body.format(players="players: s9"))
    with pytest.raises(Exception) as e:
        ex.check(ex.load_spec(bad), spec_path=bad)
    assert str(e.value).startswith(f"{bad}: checks[0].players: 's9' is not a rung: ")


# --------------------------------------------------------------- card impacts at every rung


def test_card_impacts_at_every_rung_are_classified_like_findings(skill_game, tmp_path):
    """Planted: ``nothing`` changes no game (an effect of exactly 0 at every rung: holds);
    ``turns`` moves the strong first player's edge from 0 to -0.2 as skill grows from 0 to 3
    (an effect that appears with skill: grows, ending near -0.2)."""
    from balance.config import load_config

    path = skill_game.write_config(tmp_path / "s.yaml")
    cfg = load_config(path)
    chosen = L.choose_variants(cfg, "nothing,turns", games=100, seed=3)
    assert [v.name for v in chosen] == ["nothing", "turns"]
    plan = L.plan_ladder(path, "s0,s1,s2,s3", games=3000, variants=chosen)
    assert len([p for p in plan.points if p.kind == "impact"]) == 2 * 4
    L.run_ladder(plan, out=tmp_path / "l")
    (nothing, n), (_, t) = L.read_impacts(tmp_path / "l")
    assert nothing["name"] == "nothing" and n.value == [0.0] * 4 and n.call == "holds"
    assert t.call == "grows" and t.value[0] == 0.0
    assert t.value[-1] == pytest.approx(-0.2, abs=0.03) and t.hi[-1] < 0


def test_the_impact_choice_is_checked_in_one_line(skill_game, tmp_path):
    from balance.config import load_config

    cfg = load_config(skill_game.write_config(tmp_path / "s.yaml"))
    assert L.choose_variants(cfg, "none", games=10, seed=1) == []
    with pytest.raises(L.LadderError) as e:
        L.choose_variants(cfg, "nothing,typo", games=10, seed=1)
    assert str(e.value) == (
        "--impact: 'typo' is not a variant of fake_skill (top, none, or names among: nothing, "
        "turns)"
    )
    from balance.config.overrides import parse_overrides

    strong = load_config(tmp_path / "s.yaml", parse_overrides(["seats=s3"]))
    top = L.choose_variants(strong, "top", games=400, seed=1)
    assert [v.name for v in top] == ["turns", "nothing"]  # the only one that moves it, first


def test_recorded_sizes_outside_a_point_s_range_are_refused(skill_game, tmp_path):
    """Sizes come back from a ladder's own files on a rerun: one a point cannot play (more than
    the ladder's worst case, or none) is refused in one line saying so, not as a count."""
    plan = L.plan_ladder(skill_game.write_config(tmp_path / "s.yaml"), "s0,s1", games=500)
    n = len(plan.points)
    with pytest.raises(L.LadderError) as e:
        L.with_games(plan, [300] * (n - 1) + [900])
    assert str(e.value) == "a ladder point was sized for 900 games; a point plays 1 to 500"
    with pytest.raises(L.LadderError, match="sized for 0 games"):
        L.with_games(plan, [0] * n)
    with pytest.raises(L.LadderError) as e:
        L.with_games(plan, [300])
    assert str(e.value) == f"a ladder of {n} points was sized for 1"
    assert L.with_games(plan, [300] * n).sweep.point_games == (300,) * n


def test_resume_goes_on_with_the_ladder_as_recorded(tmp_path):
    import shutil

    out = tmp_path / "l"
    first = _cli("ladder", FR, "--rungs", "random,greedy", "--games", 80, "--set",
                 "rules.relics.gem.count=3", "--impact", "none", "--out", out)  # fmt: skip
    assert first.exit_code == 0, first.output
    last = sorted(p for p in out.iterdir() if p.is_dir())[-1]
    shutil.rmtree(last)  # as if killed before its last point
    again = _cli("ladder", "--resume", out)
    assert again.exit_code == 0, again.output
    assert "ladder: 80 games" in again.stdout and again.stdout.count("kept (complete)") == 5
    tables = first.stdout[first.stdout.index("skill depth") :]
    assert again.stdout[again.stdout.index("skill depth") :] == tables
    clash = _cli("ladder", "--resume", out, "--games", 5)
    assert clash.exit_code == 1
    assert clash.stderr == f"error: --resume {out}: takes the ladder's own choices; drop --games\n"
    none = _cli("ladder", "--resume", tmp_path)
    assert none.stderr == f"error: {tmp_path}: not a ladder directory (no ladder.json)\n"
    assert _cli("ladder").stderr == "error: give a CONFIG (or --resume DIR)\n"


# ------------------------------------------------------------------ sizing each point


def test_sized_games_share_a_count_where_points_are_read_together():
    """A step's rotations share one count, a variant's points at every rung another, and the
    mirrors take the most of all (the others are read against their first games); each count
    within [MIN_GAMES, the worst case of games_for]."""
    plan = L.plan_ladder(FR, "random,greedy,search_2", games=L.games_for(0.02))
    kinds = [p.kind for p in plan.points]
    sd = [0.5 if k == "mirror" else 0.0 for k in kinds]
    sd[kinds.index("depth")] = 0.2  # one rotation of the first step
    sizes = L.sized_games(plan, sd, half_width=0.02)
    by = dict(zip([p.dir for p in plan.points], sizes, strict=True))
    first_step = [n for p, n in zip(plan.points, sizes, strict=True)
                  if p.kind == "depth" and p.rung == "greedy"]  # fmt: skip
    assert first_step == [math.ceil((1.959964 * 0.2 / 0.02) ** 2)] * 4 == [385] * 4
    assert all(n == L.MIN_GAMES for p, n in zip(plan.points, sizes, strict=True)
               if (p.kind == "depth" and p.rung == "search_2") or p.kind == "luck")  # fmt: skip
    assert {by[p.dir] for p in plan.points if p.kind == "mirror"} == {2401}  # sd 0.5: the cap
    tiny = L.sized_games(plan, [0.0] * len(sd), half_width=0.1)  # the cap (97) under the floor
    assert set(tiny) == {L.games_for(0.1)} == {97}


def test_a_sized_ladder_plays_each_point_its_own_games_and_reads_them_together(tmp_path):
    """The default ladder sizes its points from a pilot (seed + 2): fewer games where a
    statistic varies less, the readers pair the first games of each, and the same command
    again keeps every point without playing the pilot again."""
    out = tmp_path / "l"
    args = ("ladder", FR, "--rungs", "random,greedy", "--impact", "none", "--half-width", 0.04,
            "--out", out)  # fmt: skip
    r = _cli(*args)
    assert r.exit_code == 0, r.output
    assert "sizing: 100 games of each of the 6 points on seed 3" in r.stdout
    assert "pilot of 100 games of each point" in r.stdout
    manifest = L.read_manifest(out)
    games = {p["dir"]: p["games"] for p in manifest["points"]}
    mirrors = {games[p["dir"]] for p in manifest["points"] if p["kind"] == "mirror"}
    steps = {games[p["dir"]] for p in manifest["points"] if p["kind"] == "depth"}
    most = max(games.values())
    assert mirrors == {most} and most <= L.games_for(0.04) == 601
    assert len(steps) == 1 and L.MIN_GAMES <= min(steps) < most
    assert manifest["point_games"] == [games[p["dir"]] for p in manifest["points"]]
    assert f"to {most:,} games a point, {sum(games.values()):,} in all" in r.stdout
    depth = L.read_depth(out)
    assert depth.steps[0].games == min(steps)
    # the step by hand: its rotations against the mirror's first games
    rot = [p for p in manifest["points"] if p["kind"] == "depth"]  # 2 rungs: one step
    mirror = next(p for p in manifest["points"] if p["kind"] == "mirror" and p["rung"] == "random")
    w = np.stack([L.point_wins(out / p["dir"])[:, p["seat"]] for p in sorted(
        rot, key=lambda p: p["seat"])], axis=1)  # fmt: skip
    m = L.point_wins(out / mirror["dir"])[: len(w)]
    assert depth.steps[0].edge == pytest.approx((w.mean(axis=1) - m.mean(axis=1)).mean())
    again = _cli(*args)
    assert again.exit_code == 0, again.output
    assert "sizes: as" in again.stdout and "sizing:" not in again.stdout
    assert "ladder: 0 games" in again.stdout and again.stdout.count("kept (complete)") == 6
    resumed = _cli("ladder", "--resume", out)
    assert resumed.exit_code == 0 and "ladder: 0 games" in resumed.stdout, resumed.output
