"""Experiments (impact variants, compare, check) and their commands, as a user meets them."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree as ET

import numpy as np
import polars as pl
import pytest
from kit import fake_game as fake
from stats.helpers import reference_q
from typer.testing import CliRunner

from balance import experiments as ex
from balance import stats
from balance.cli import app
from balance.config import ConfigError, load_config

ROOT = Path(__file__).parent.parent.parent
CI = ROOT / "configs" / "ci"
CONFIGS = ROOT / "configs"
FIVE_RAVENS = CONFIGS / "five_ravens"


def run(*args: object):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


# ------------------------------------------------------------------------ variants and patches


def test_patches_merge_mappings_and_replace_lists_and_scalars():
    base = {"rules": {"a": 1, "b": {"c": 2, "d": [1, 2]}}, "seats": ["x", "y"]}
    patch = {"rules": {"b": {"d": [3]}, "e": 5}, "seats": ["z"]}
    assert ex.merge_patch(base, patch) == {
        "rules": {"a": 1, "b": {"c": 2, "d": [3]}, "e": 5},
        "seats": ["z"],
    }
    assert base["rules"]["b"]["d"] == [1, 2]  # the base is not modified


def test_a_patch_is_validated_with_a_one_line_error(fake_config):
    cfg = load_config(fake_config)
    v = ex.apply_patch(cfg, ex.Variant("more", "", {"rules": {"bonus": 2, "deck": {"aces": 1}}}))
    assert (v.rules.bonus, v.rules.deck.aces, v.rules.deck.kings) == (2, 1, 4)
    with pytest.raises(ConfigError) as e:
        ex.apply_patch(cfg, ex.Variant("big", "", {"rules": {"bonus": 9}}), source="v.yaml")
    assert str(
        e.value
    ) == "v.yaml (variant 'big'): rules.bonus: Input should be less than or equal to 5" or (
        str(e.value) == "v.yaml (variant 'big'): rules.bonus: must be <= 5, got 9"
    )
    with pytest.raises(ConfigError, match=r"rules\.bonnus: unknown key \(did you mean 'bonus'\?\)"):
        ex.apply_patch(cfg, ex.Variant("typo", "", {"rules": {"bonnus": 1}}))
    with pytest.raises(ConfigError, match="variant 's'\\): seed: a variant may not change seed"):
        ex.apply_patch(cfg, ex.Variant("s", "", {"seed": 3}))


def test_variants_file_errors_are_one_line(tmp_path):
    def load(text: str):
        path = tmp_path / "v.yaml"
        path.write_text(text)
        return ex.load_variants(path)

    [v] = load("- {name: a, description: d, patch: {rules: {bonus: 1}}}\n")
    assert v == ex.Variant("a", "d", {"rules": {"bonus": 1}})
    assert load("variants:\n  - {name: a, patch: {}}\n")[0].description == ""
    cases = {
        "- {name: a, patches: {}}\n": "[0].patches: unknown key (did you mean 'patch'?)",
        "- {name: a}\n": "[0].patch: required key is missing",
        "{a: 1}\n": "expected a non-empty list of variants ({name, description, patch})",
        "- {name: a, patch: {}}\n- {name: a, patch: {}}\n": "[1].name: duplicate variant name 'a'",
        "- [\n": "invalid YAML at line 2, column 1: expected the node content, but found '<stream end>'",
    }
    for text, problem in cases.items():
        with pytest.raises(ConfigError) as e:
            load(text)
        assert str(e.value) == f"{tmp_path / 'v.yaml'}: {problem}"
    with pytest.raises(ConfigError, match=r"nope\.yaml: file not found"):
        ex.load_variants(tmp_path / "nope.yaml")


def test_default_variants_come_from_the_plugin_hook(fake_game, fake_config):
    cfg = load_config(fake_config)

    class Hooked(type(fake_game)):
        name = "hooked"

        def impact_variants(self, config):
            return [
                {
                    "name": "bonus",
                    "description": "first player +1",
                    "patch": {"rules": {"bonus": 1}},
                }
            ]

    assert ex.default_variants(fake_game, cfg) == []  # a game that proposes none
    assert ex.default_variants(Hooked(), cfg) == [
        ex.Variant("bonus", "first player +1", {"rules": {"bonus": 1}})
    ]


def test_the_five_ravens_plugin_proposes_its_variants():
    from balance import games as registry

    cfg = load_config(FIVE_RAVENS / "base.yaml")
    variants = ex.default_variants(registry.get("five_ravens"), cfg)
    assert len(variants) == 33 and variants[0].name == "chest_1 -1 copy"


def test_each_change_is_measured_once_whatever_its_names():
    """The Raven Order's base gives the second player one sentry and nothing else (RO-1), so its
    impact variant "no second-player sentry" makes the same config as the report's "no
    compensation": the card impact and the ladder's --impact top play it once. With gold in the
    compensation too, the two are different changes and both are kept."""
    from balance import games as registry
    from balance.config.overrides import parse_overrides

    plugin = registry.get("raven_order")
    base = load_config(CONFIGS / "raven_order" / "base.yaml")
    names = [v.name for v in ex.distinct_variants(plugin, base)]
    assert names[0] == "no compensation" and "no second-player sentry" not in names
    assert len(names) == len(ex.default_variants(plugin, base))  # one in, one out
    gold = load_config(
        CONFIGS / "raven_order" / "base.yaml", parse_overrides(["rules.compensation.gold=2"])
    )
    names = [v.name for v in ex.distinct_variants(plugin, gold)]
    assert names[0] == "no compensation" and "no second-player sentry" in names


def test_five_ravens_default_variants_all_validate():
    from balance.games.five_ravens.variants import impact_variants

    for path in ("base.yaml", "two_players.yaml"):
        cfg = load_config(FIVE_RAVENS / path)
        variants = [ex.Variant(**v) for v in impact_variants(cfg)]
        # 10 relic types one copy fewer, 5 chests worth 1 less, 9 actions and 9 captures off.
        assert len(variants) == 10 + 5 + 9 + 9
        assert len({v.name for v in variants}) == len(variants)
        changed = [ex.apply_patch(cfg, v) for v in variants]
        assert all(c != cfg for c in changed)
    assert changed[0].rules.relics["chest_1"].count == 0
    by_name = dict(zip((v.name for v in variants), changed, strict=True))
    assert by_name["chest_5 value -1"].rules.relics["chest_5"].value == 4
    assert by_name["seven action off"].rules.ravens.seven.action is False
    assert by_name["nine capture off"].rules.ravens.nine.capture is False


# ----------------------------------------------------------------------- compare (fake game)


def test_compare_pairs_games_exactly(fake_config, tmp_path):
    a = load_config(fake_config)
    b = ex.apply_patch(a, ex.Variant("bonus", "", {"rules": {"bonus": 2}}))
    result = ex.compare(a, b, games=500, seed=3, chunk_size=64)
    assert (result.games, result.seed, result.level) == (500, 3, 0.95)
    t = result.table
    first = t.row(
        by_predicate=(pl.col("metric") == "mean_score") & (pl.col("kind") == "order")
        & (pl.col("group") == "0"),
        named=True,
    )  # fmt: skip
    # The fake game adds the bonus to the first player's score and changes nothing else.
    assert (first["diff"], first["lo"], first["hi"], first["significant"]) == (2, 2, 2, True)
    turns = t.filter(pl.col("metric") == "mean_turns").row(0, named=True)
    assert (turns["diff"], turns["significant"]) == (0, False)
    seats = t.filter((pl.col("metric") == "mean_score") & (pl.col("kind") == "seat"))
    assert seats["diff"].sum() == pytest.approx(2)  # the bonus lands on one seat per game


def test_compare_command(fake_config, tmp_path):
    b = fake.write_config(tmp_path / "b.yaml", rules="{bonus: 2}")
    result = run("compare", fake_config, b, "--games", 300)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith(f"compare A = {fake_config}, B = {b}: 300 paired games (seed 7) in ")
    line = next(x for x in out.splitlines() if "mean score" in x and "1st player" in x)
    assert "+2.000" in line and line.endswith("*")
    assert out.rstrip().endswith("times the number of metrics; * q < 0.05.")
    assert "team" not in out  # one team per seat: the seat rows say it all


def test_compare_of_different_player_counts_is_unpaired(fake_config, tmp_path):
    # Issue 14: no longer refused; independent samples (tests/experiments/test_compare_players.py).
    b = fake.write_config(tmp_path / "b.yaml", players=2)
    result = run("compare", fake_config, b, "--games", 10)
    assert result.exit_code == 0, result.output
    assert "10 games of each, independent samples (seed 7, 3 and 2 players)" in result.stdout


# ------------------------------------------------------------------------ impact (Five Ravens)

PLANTED = ex.Variant(
    "chest_5 worth 30", "planted", {"rules": {"relics": {"chest_5": {"value": 30}}}}
)
NEUTRAL = [
    ex.Variant("nothing", "an empty patch", {}),
    ex.Variant(
        "draw_value unchanged", "the default again", {"policies": {"greedy": {"draw_value": 0.4}}}
    ),
]


@pytest.mark.slow
def test_impact_finds_a_planted_effect_and_flags_no_neutral_variant():
    from balance.games.five_ravens.variants import impact_variants

    cfg = load_config(FIVE_RAVENS / "random_vs_greedy.yaml")
    defaults = [ex.Variant(**v) for v in impact_variants(cfg)]
    variants = [*NEUTRAL, defaults[0], defaults[14], PLANTED, defaults[20]]
    result = ex.impact(cfg, variants, games=4000, seed=5, chunk_size=1500)
    assert result.games == 4000
    # Ranked by the config's headline metric (the greedy seats' win share), whatever else moved.
    assert result.headline == ("win_share", "policy", "greedy")
    head = result.table.filter(
        (pl.col("metric") == "win_share") & (pl.col("kind") == "policy")
        & (pl.col("group") == "greedy")
    )  # fmt: skip
    by_size = head.sort(pl.col("diff").abs(), descending=True, maintain_order=True)
    assert result.summary["variant"].to_list()[:4] == by_size["variant"].to_list()[:4]
    top = result.summary.row(0, named=True)
    assert top["variant"] == PLANTED.name and top["significant"] and top["changes"] > 1
    # A relic worth 30 makes luck matter more: random seats win more, greedy ones less.
    planted = result.table.filter(
        (pl.col("variant") == PLANTED.name) & (pl.col("metric") == "win_share")
        & (pl.col("kind") == "policy")
    )  # fmt: skip
    shares = dict(zip(planted["group"], planted.iter_rows(named=True), strict=True))
    assert shares["random"]["lo"] > 0 and shares["greedy"]["hi"] < 0
    neutral = result.table.filter(pl.col("variant").is_in([v.name for v in NEUTRAL]))
    assert (neutral["diff"] == 0).all() and not neutral["significant"].any()
    assert (neutral["q_value"].drop_nans() == 1).all()
    assert result.summary["variant"].to_list()[-2:] == [v.name for v in NEUTRAL]


def test_impact_leaves_out_characters_no_game_deals_and_its_file_reads_back(tmp_path):
    """Raven Manor's starter game deals 10 of its characters: the paired table had a row of 0
    games for each of the others, which the impact file's reader (games >= 1) refused after the
    games (`nox -s reports -- raven_manor` failed so)."""
    from balance import games
    from balance.impact_file import read_impact

    cfg = load_config(CONFIGS / "raven_manor" / "base.yaml")
    variants = ex.default_variants(games.get("raven_manor"), cfg)[:1]
    result = ex.impact(cfg, variants, games=200, seed=3)
    assert (result.table["games"] > 0).all()
    roles = set(result.table.filter(pl.col("kind") == "role")["group"])
    assert "raven" in roles and "headless_horseman" not in roles  # not in the starter game
    path = ex.write_impact(result, tmp_path / "i.json")
    assert read_impact(path).table.height == result.table.height
    # named as `compare` names them: 2 teams (Horseman's, Cthulhu's) and 19 roles
    never = result.left_out[variants[0].name]
    assert ("role", "headless_horseman", "never dealt") in never and len(never) == 21
    # the command's table has no column of dashes for them, and says what it leaves out
    shown = run("impact", CONFIGS / "raven_manor" / "base.yaml", "--games", 100, "--threads", 1,
                "--variants", _one_variant(tmp_path, variants[0]))  # fmt: skip
    assert shown.exit_code == 0, shown.output
    text = " ".join(shown.stdout.split())
    assert "2 teams and 19 roles never dealt in these games are not shown." in text
    from balance.terminal import impact_table

    headers = [str(c.header) for c in impact_table(result).columns]
    assert "role raven" in headers and "role headless_horseman" not in headers
    assert "team horseman" not in headers and len(headers) == 1 + 5 + 1 + 2 + 10 + 1


def _one_variant(tmp_path: Path, variant) -> Path:
    path = tmp_path / "one.yaml"
    import yaml

    path.write_text(yaml.safe_dump([{"name": variant.name, "description": variant.description,
                                     "patch": variant.patch}]))  # fmt: skip
    return path


@pytest.mark.slow
def test_impact_command_with_a_variants_file(tmp_path):
    variants = tmp_path / "v.yaml"
    variants.write_text(
        "- {name: chest_5 worth 30, description: planted, "
        "patch: {rules: {relics: {chest_5: {value: 30}}}}}\n"
        "- {name: nothing, description: empty patch, patch: {}}\n"
    )
    out = tmp_path / "impact.json"
    config = FIVE_RAVENS / "random_vs_greedy.yaml"
    result = run("impact", config, "--games", 2000, "--variants", variants, "--out", out)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "2,000 paired games (seed 1)" in " ".join(result.stdout.split())
    planted = next(i for i, x in enumerate(lines) if "chest_5 worth 30" in x)
    nothing = next(i for i, x in enumerate(lines) if "nothing" in x)
    assert planted < nothing  # sorted by effect
    assert "*" in lines[planted] and "*" not in lines[nothing]
    data = json.loads(out.read_text())
    assert (data["games"], data["seed"], len(data["variants"])) == (2000, 1, 2)
    assert data["summary"][0]["variant"] == "chest_5 worth 30"
    assert {r["metric"] for r in data["table"]} == {"win_share", "mean_score", "mean_turns"}
    parquet = tmp_path / "impact.parquet"
    assert (
        run("impact", config, "--games", 200, "--variants", variants, "--out", parquet).exit_code
        == 0
    )
    assert pl.read_parquet(parquet).height == len(data["table"])


def test_impact_command_errors(fake_config, tmp_path):
    result = run("impact", fake_config, "--games", 10)
    assert result.exit_code == 1
    assert result.stderr == "error: fake proposes no default variants; pass --variants FILE.yaml\n"
    bad = tmp_path / "v.yaml"
    bad.write_text("- {name: big, patch: {rules: {bonus: 9}}}\n")
    result = run("impact", fake_config, "--variants", bad)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {bad} (variant 'big'): rules.bonus: ")
    result = run("impact", fake_config, "--variants", bad, "--out", tmp_path / "x.csv")
    assert result.stderr == f"error: {tmp_path / 'x.csv'}: --out must end in .json or .parquet\n"
    out = tmp_path / "missing" / "x.json"
    result = run("impact", fake_config, "--variants", bad, "--out", out)
    assert result.stderr == (
        f"error: {out}: no such directory {out.parent}; create it or choose another --out\n"
    )


def test_impact_on_the_fake_game(fake_config, tmp_path):
    cfg = load_config(fake_config)
    variants = [ex.Variant("bonus 3", "", {"rules": {"bonus": 3}}), ex.Variant("none", "", {})]
    result = ex.impact(cfg, variants, games=400, chunk_size=100)
    assert result.summary["variant"].to_list() == ["bonus 3", "none"]
    top = result.summary.row(0, named=True)
    assert (top["kind"], top["group"]) == ("order", "0") and top["diff"] > 0.2
    # One-seat teams repeat their seat: they share its q-value and do not widen the BH family,
    # which is every other row of every variant (win shares, mean scores, game length) with a
    # test.
    t = result.table
    for metric in ("win_share", "mean_score"):
        rows = t.filter(pl.col("metric") == metric)
        seat = rows.filter(pl.col("kind") == "seat").sort("variant", "group")
        team = rows.filter(pl.col("kind") == "team").sort("variant", "group")
        assert seat["q_value"].to_list() == team["q_value"].to_list()
    repeats = result.lineup.repeats()  # one-seat teams (and policies) of the fake line-up
    assert ("team", "0") in repeats
    keys = list(zip(t["kind"], t["group"], strict=True))
    family = t.filter(pl.Series([k not in repeats for k in keys]) & pl.col("p_value").is_not_nan())
    q = reference_q(family["p_value"], family["metric"])
    np.testing.assert_allclose(family["q_value"].to_numpy(), q)
    assert (family["significant"].to_numpy() == (q < 0.05)).all()


# --------------------------------------------------------------------------------------- check


def spec(tmp_path: Path, body: str, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path


FAKE_SPEC = """\
batch: 200
max_games: 2000
checks:
  - config: fake.yaml
    assertions:
{}
"""


def test_check_passes_fails_and_is_inconclusive_on_the_fake_game(fake_config, tmp_path):
    # The fake game's games last 10 + (hash % 20) turns: 19.5 on average.
    path = spec(
        tmp_path,
        FAKE_SPEC.format(
            "      - {metric: mean_turns, within: [19.5, 1]}\n"
            "      - {metric: mean_turns, below: 15, name: games are short}\n"
            "      - {metric: mean_turns, above: 19.5, delta: 0.01}\n"
            "      - {metric: mean_score_shift, order: 0, within: [0, 0.5], baseline: bonus.yaml}"
        ),
    )
    fake.write_config(tmp_path / "bonus.yaml", rules="{bonus: 2}")
    junit = tmp_path / "check.xml"
    result = run("check", path, "--junit", junit)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("PASS         fake: mean_turns within 19.5 ± 1: 19.")
    assert lines[0].endswith("(95 % CS), 200 games")
    assert lines[1].startswith("FAIL         fake: games are short: 19.")
    # Undecided at the spec's cap of 2,000 games, which is far too small for delta 0.01: the
    # estimate sits in the indifference zone 19.495-19.505 or not, and the cap earns a warning.
    assert lines[2].startswith("INCONCLUSIVE fake: mean_turns above 19.5: ")
    assert ", 2,000 games" in lines[2]
    # Against a baseline whose first player scores 2 more: a shift of exactly -2, every game.
    assert lines[3].startswith(
        "FAIL         fake: mean_score_shift order 0 within 0 ± 0.5: -2.0000 [-2.0000, -2.0000]"
    )
    assert lines[4].startswith("check: 1 PASS, 2 FAIL, 1 INCONCLUSIVE; ")
    assert lines[4].endswith(
        "-> FAILED; each assertion: P(pass | off by delta/2) <= 5 %, P(fail | holds with delta/2 "
        "to spare) <= 5 % (per assertion, not for the whole gate); beta not kept by the 1 "
        f"assertion whose max_games is too small (see the warnings); JUnit -> {junit}"
    )
    warnings = result.stderr.splitlines()
    assert len(warnings) == 1
    assert warnings[0].startswith(
        f"warning: {path}: checks[0].assertions[2]: max_games 2,000 is below the "
    )
    assert "games that delta 0.01 needs" in warnings[0] and "raise max_games" in warnings[0]
    root = ET.parse(junit).getroot()
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", "4", "3")
    suite = root.find("testsuite")
    promise = suite.find("./properties/property[@name='guarantee']").get("value")
    assert promise.startswith("each assertion: P(pass | off by delta/2) <= 5 %")
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == [
        "mean_turns within 19.5 ± 1",
        "games are short",
        "mean_turns above 19.5",
        "mean_score_shift order 0 within 0 ± 0.5",
    ]
    assert [c.find("failure") is not None for c in cases] == [False, True, True, True]
    assert cases[2].find("failure").get("type") == "INCONCLUSIVE"
    warned = [c.find("./properties/property[@name='warning']") for c in cases]
    assert [w is not None for w in warned] == [False, False, True, False]
    assert warned[2].get("value") == warnings[0].removeprefix("warning: ")
    assert "warning: " in cases[2].find("system-out").text
    assert [c.find("./properties/property[@name='games']").get("value") for c in cases] == [
        "200",
        "200",
        "2000",
        "200",
    ]
    out = cases[0].find("system-out").text
    assert "confidence sequence" in out and "beta 0.05/2 = 0.025 per claim" in out


def test_a_decision_inside_the_indifference_zone_says_so(fake_config, tmp_path):
    # Mean 19.5: "above 19.5" with delta 1 decides between 19.0 (fails) and 20.0 (passes); it
    # passes after 400 games, with the estimate (19.84) between the two.
    path = spec(tmp_path, FAKE_SPEC.format("      - {metric: mean_turns, above: 19.5, delta: 1}"))
    result = ex.check(ex.load_spec(path), spec_path=path)
    (a,) = result.assertions
    assert (a.verdict, a.games) == ("PASS", 400)
    assert a.zone == "above 19.5: 19.84 in [19.00, 20.00]"
    line = ex.format_line(a)
    assert line.endswith(f"; in the indifference zone ({a.zone})")
    xml = ex.junit_xml(result)
    assert 'name="indifference_zone"' in xml
    clear = ex.check(
        ex.load_spec(spec(tmp_path, FAKE_SPEC.format("      - {metric: mean_turns, below: 30}"))),
        spec_path=path,
    )
    assert clear.assertions[0].zone == "" and "indifference" not in ex.format_line(
        clear.assertions[0]
    )


def test_without_max_games_each_assertion_gets_a_cap_that_keeps_beta(fake_config, tmp_path):
    body = FAKE_SPEC.replace("max_games: 2000\n", "").format(
        "      - {metric: win_share, seat: 0, within: [0.33, 0.1], delta: 0.02}\n"
        "      - {metric: mean_turns, below: 30}"
    )
    path = spec(tmp_path, body)
    result = ex.check(ex.load_spec(path), spec_path=path)
    share, turns = result.assertions
    assert result.warnings() == []
    # 3 × the fixed-sample size of one side (alpha 0.05, beta 0.025, p(1-p) at 0.42 and 0.44),
    # or the truncation size if larger: a few thousand games.
    p0, p1 = 0.44, 0.42
    fixed = stats.fixed_sample_size(
        p0, p1, 0.05, 0.025, sd0=np.sqrt(p0 * (1 - p0)), sd1=np.sqrt(p1 * (1 - p1))
    )
    assert share.cap >= 3 * fixed
    assert turns.cap >= 100  # from the sample variance: tiny for a claim that far off


def test_inconclusive_pass_is_refused_with_the_fix(fake_config, tmp_path):
    body = FAKE_SPEC.format("      - {metric: mean_turns, above: 19.5, delta: 0.01}")
    path = spec(tmp_path, "inconclusive: pass\n" + body)
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {path}: inconclusive: 'pass' is not allowed: an assertion left undecided at the "
        "cap would pass unseen; delete the key (INCONCLUSIVE always fails) and give the claim "
        "more games (max_games) or a wider delta\n"
    )
    # "fail", what old specs wrote, is what happens anyway: accepted.
    result = run("check", spec(tmp_path, "inconclusive: fail\n" + body, "old.yaml"))
    assert result.exit_code == 1 and result.stdout.startswith("INCONCLUSIVE fake:")


BAD_SPECS = {
    "unknown key": ("alpah: 0.1\n", "alpah: unknown key (did you mean 'alpha'?)"),
    "bad bound": ("batch: 10\n", "batch: must be >= 100, got 10"),
    "cap below batch": (
        "batch: 500\nmax_games: 200\n",
        "max_games: must be >= batch (500), got 200",
    ),
    "not finite": ("alpha: .nan\n", "alpha: must be a finite number, got nan"),
    "inconclusive typo": ("inconclusive: pas\n", "inconclusive: must be one of 'fail', got 'pas'"),
    "no checks": (None, "checks: required key is missing"),
    "two bounds": (
        "      - {metric: mean_turns, above: 1, below: 3}",
        "checks[0].assertions[0]: give exactly one of above, below, within",
    ),
    "unknown metric": (
        "      - {metric: mean_turn, below: 3}",
        "checks[0].assertions[0].metric: must be one of 'win_share', 'mean_score', 'mean_turns', "
        "'win_share_shift', 'mean_score_shift', 'mean_turns_shift', 'max_seat_shift', "
        "'first_player_edge', 'max_role_shift', 'lead_changes', 'comeback_half', "
        "'comeback_two_thirds', 'max_deficit', 'decided_at', 'margin', 'close', 'dead_turns', 'forced', 'first_minus_last' or "
        "'kingmaking_games', got 'mean_turn'",
    ),
    "assertion typo": (
        "      - {metric: mean_turns, belo: 3}",
        "checks[0].assertions[0].belo: unknown key (did you mean 'below'?)",
    ),
    "share without a group": (
        "      - {metric: win_share, above: 0.2}",
        "checks[0].assertions[0]: win_share needs one of seat, order, policy, team, role",
    ),
    "zero tolerance": (
        "      - {metric: mean_turns, within: [20, 0]}",
        "checks[0].assertions[0].within: the tolerance must be > 0, got 0.0",
    ),
    "shift without baseline": (
        "      - {metric: max_seat_shift, below: 0.01}",
        "checks[0].assertions[0].baseline: max_seat_shift compares against a baseline; "
        "give baseline: on the assertion or the check",
    ),
    "delta lost in the bound": (
        "      - {metric: mean_turns, below: 1.0e+20, delta: 1}",
        "checks[0].assertions[0].delta: 1 around the bound 1e+20 leaves nothing to test "
        "(bound - delta/2 and bound + delta/2 must be two different finite numbers)",
    ),
    "no such seat": (
        "      - {metric: win_share, seat: 3, above: 0.1}",
        "checks[0].assertions[0].seat: no seat 3 in fake.yaml (3 players, 0-2)",
    ),
    "no such policy": (
        "      - {metric: win_share, policy: smart, above: 0.1}",
        "checks[0].assertions[0].policy: no seat plays policy 'smart' in fake.yaml (plain, skilled)",
    ),
}


@pytest.mark.parametrize(("edit", "problem"), BAD_SPECS.values(), ids=BAD_SPECS.keys())
def test_a_bad_spec_is_one_line_and_exit_2(fake_config, tmp_path, edit, problem):
    ok = "      - {metric: mean_turns, below: 30}"
    if edit is None:
        body = "alpha: 0.1\n"
    elif edit.startswith("      "):
        body = FAKE_SPEC.format(edit)
    else:
        body = edit + FAKE_SPEC.format(ok).replace("batch: 200\nmax_games: 2000\n", "")
    path = spec(tmp_path, body)
    result = run("check", path)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {path}: {problem}\n"


def test_missing_files_are_exit_2(fake_game, tmp_path):
    result = run("check", tmp_path / "nope.yaml")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {tmp_path / 'nope.yaml'}: file not found\n",
    )
    path = spec(tmp_path, FAKE_SPEC.format("      - {metric: mean_turns, below: 30}"))
    result = run("check", path)  # fake.yaml is not there
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {tmp_path / 'fake.yaml'}: file not found\n",
    )
    fake.write_config(tmp_path / "fake.yaml", players=7)
    result = run("check", path)
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error: {tmp_path / 'fake.yaml'}: players: fake is for 2-4 players, got 7\n"
    )


@pytest.mark.slow
def test_shipped_ci_spec_passes_with_junit(tmp_path):
    junit = tmp_path / "check.xml"
    result = run("check", CI / "five_ravens.yaml", "--junit", junit)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(line.startswith("PASS ") for line in lines[:-1]) and len(lines) == 11
    assert lines[-1].startswith("check: 10 PASS, 0 FAIL, 0 INCONCLUSIVE")
    assert "each assertion: P(pass | off by delta/2) <= 5 %" in lines[-1]
    assert _without_kernel_lines(result.stderr) == ""  # no cap warning: the spec keeps its promises
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures")) == ("10", "0")
    assert len(root.findall(".//testcase")) == 10 and not root.findall(".//failure")


@pytest.mark.slow
def test_unbalanced_example_fails_with_exit_1(tmp_path):
    junit = tmp_path / "check.xml"
    result = run("check", CI / "unbalanced_example.yaml", "--junit", junit)
    assert result.exit_code == 1, result.output
    verdicts = [line.split()[0] for line in result.stdout.splitlines()[:-1]]
    assert verdicts == ["FAIL", "FAIL", "PASS", "PASS", "FAIL"]
    assert "seat 0 within 0.25 ± 0.02: 0.0" in result.stdout  # the random seat barely wins
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures")) == ("5", "3")
    assert len(root.findall(".//testcase/failure")) == 3


def test_check_results_are_reproducible(fake_config, tmp_path):
    path = spec(tmp_path, FAKE_SPEC.format("      - {metric: win_share, seat: 1, above: 0.3}"))
    a = ex.check(ex.load_spec(path), spec_path=path)
    b = ex.check(ex.load_spec(path), spec_path=path)
    strip = [r._replace(seconds=0) for r in a.assertions]
    assert strip == [r._replace(seconds=0) for r in b.assertions]
    assert np.isfinite(a.assertions[0].estimate)


@pytest.mark.parametrize("args", [["--bogus"], [], ["spec.yaml", "--junit"]])
def test_check_usage_errors_are_exit_2(args):
    """Exit 1 means "balance broke" to a CI gate; a mistyped command line must not look like it."""
    result = run("check", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_a_bad_key_an_extends_parent_spec_wrote_names_the_parent(tmp_path):
    (tmp_path / "parent.yaml").write_text(
        f"alpah: 0.05\nchecks:\n  - config: {FIVE_RAVENS / 'base.yaml'}\n"
        "    assertions:\n      - {metric: mean_turns, within: [80, 10]}\n"
    )
    (tmp_path / "child.yaml").write_text("extends: parent.yaml\nbatch: 2000\n")
    with pytest.raises(ConfigError) as e:
        ex.load_spec(tmp_path / "child.yaml")
    assert str(e.value) == f"{tmp_path / 'parent.yaml'}: alpah: unknown key (did you mean 'alpha'?)"


def _without_kernel_lines(text: str) -> str:
    """stderr without the kernels' loading/compiling lines (what every warm or cold start says)."""
    keep = [
        x
        for x in text.splitlines(keepends=True)
        if not x.startswith(("loading ", "loaded ", "compiling ", "compiled "))
    ]
    return "".join(keep)


def test_impact_holds_about_half_a_million_games_at_once_whatever_the_variants():
    from balance.experiments.impact import IMPACT_GAMES_IN_MEMORY, impact_chunk
    from balance.runner import CHUNK

    assert impact_chunk(2) == CHUNK  # a compare-sized run keeps the runner's chunk
    assert impact_chunk(34) == 8192 and IMPACT_GAMES_IN_MEMORY >= 34 * 8192  # 33 variants
    assert impact_chunk(10_000) == 1024  # never below 1,024 games


def test_impact_table_does_not_depend_on_the_chunk_size(fake_config):
    cfg = load_config(fake_config)
    variants = [ex.Variant("bonus 3", "", {"rules": {"bonus": 3}})]
    a = ex.impact(cfg, variants, games=3000)  # the memory-sized default chunk
    b = ex.impact(cfg, variants, games=3000, chunk_size=256)
    from polars.testing import assert_frame_equal

    # the same games: equal up to the rounding of merging running moments chunk by chunk
    assert_frame_equal(a.table, b.table, check_exact=False, rel_tol=1e-9, abs_tol=1e-12)
