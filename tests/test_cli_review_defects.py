"""CLI defects found in review (issue 25, item 6): help texts whose brackets rich took for markup,
and `balance compare` rows of teams and roles that no game dealt ([+nan, +nan])."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import numpy as np
import polars as pl
import pytest
import typer
from kit.configs import write_config
from kit.fake_game import SCRIPTED, FakeGame
from kit.fake_game import roles as script
from pydantic import BaseModel, ConfigDict, Field
from typer.testing import CliRunner

from balance import games, stats
from balance.cli import app
from balance.config import load_config
from balance.experiments import compare
from balance.experiments.compare import Seated, leave_out
from balance.report.sentences import left_out_words

# ======================================================= --help: brackets are text, not markup


def _commands(cmd: Any, path: list[str]):
    yield path, cmd
    for name, sub in (getattr(cmd, "commands", None) or {}).items():
        yield from _commands(sub, [*path, name])


def _bracketed(text: str) -> list[str]:
    """Every [...] of a help text as the reader must see it (an escaped \\[ shows as [)."""
    return [m.group(1) for m in re.finditer(r"\\*(\[[^\]]*\])", text)]


def test_every_bracketed_help_text_survives_rich_markup():
    # pip install 'balance[ray]' printed as pip install 'balance': rich read [ray] as a style
    # tag; so did [default: 65536; --resume: the run's] of --chunk-size.
    runner = CliRunner()
    seen = []
    for path, cmd in _commands(typer.main.get_command(app), []):
        result = runner.invoke(app, [*path, "--help"], terminal_width=100)
        assert result.exit_code == 0, result.output
        shown = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
        texts = [cmd.help or "", cmd.epilog or ""]
        texts += [getattr(p, "help", None) or "" for p in cmd.params]
        for text in texts:
            for bracket in _bracketed(text):
                seen.append(bracket)
                assert bracket in shown, f"balance {' '.join(path)} --help drops {bracket!r}"
    assert {"[ray]", "[default: 65536; --resume: the run's]", "[order=0,decided]"} <= set(seen)
    simulate = runner.invoke(app, ["simulate", "--help"], terminal_width=200).output
    assert "pip install 'balance[ray]'" in simulate


# ============================================= compare: teams and roles that no game dealt


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flip: int = Field(0, ge=0, le=1, description="1: the Family wins script game 2")
    ghost: int = Field(0, ge=0, le=1, description="1: the ghost is dealt instead of the doc")


# The scripted game (``fake_roles`` of tests/kit/fake_game.py) whose names list a team (horseman)
# and roles (ghost, phantom) that its games never deal, as Raven Manor's list every character;
# with ``rules.ghost: 1`` the ghost is dealt instead of the doc.
PLUGIN = FakeGame(
    "fake_extra",
    players=(3, 3),
    end_reasons=script.PLUGIN.end_reasons,
    rules=Rules,
    policy_kinds=script.PLUGIN.policy_kinds,
    policies=script.PLUGIN.default_policies,
    outcome=SCRIPTED,
    telemetry=["possessed__seat"],
    teams=(*script.TEAMS, "horseman"),
    roles=(*script.ROLES, "ghost", "phantom"),
)


@pytest.fixture
def extra_game(monkeypatch):
    monkeypatch.setitem(games._GAMES, "fake_extra", __name__)
    return PLUGIN


def _config(path, **rules: int):
    rules = {"flip": rules.get("flip", 0), "ghost": rules.get("ghost", 0)}
    return write_config(
        path, "fake_extra", players=3, seats=["plain", "plain", "other"], games=400, seed=0,
        rules=rules,
    )  # fmt: skip


def test_compare_leaves_out_teams_and_roles_no_game_dealt_and_says_so(extra_game, tmp_path):
    a, b = _config(tmp_path / "a.yaml"), _config(tmp_path / "b.yaml", flip=1)
    page = tmp_path / "c.html"
    result = CliRunner().invoke(app, ["compare", str(a), str(b), "--report", str(page)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "nan" not in out
    assert "1 team and 2 roles never dealt in these games are not shown." in out
    assert not re.search(r"(team horseman|role ghost|role phantom)", out)
    assert re.search(r"win share +team raven .*-25\.00 pt", out)  # the rows dealt stay
    assert re.search(r"win share +role doc ", out)
    html = unescape(page.read_text())
    table = html[html.index('<section id="table">') :]
    table = table[: table.index("</section>")]
    assert "nan" not in table.lower()
    assert "horseman" not in table.split("</table>")[0]
    assert "1 team and 2 roles never dealt in these games are not shown." in table
    assert "Never dealt: team horseman, role ghost, role phantom." in table


def test_compare_keeps_the_paired_rows_of_a_role_dealt_on_one_side_only(extra_game, tmp_path):
    a = load_config(_config(tmp_path / "a.yaml"))
    b = load_config(_config(tmp_path / "b.yaml", ghost=1))  # B deals the ghost, never the doc
    c = compare(a, b, chunk_size=64)
    assert set(c.left_out) == {
        ("team", "horseman", "never dealt"),
        ("role", "phantom", "never dealt"),
        ("role", "doc", "only in A"),
        ("role", "ghost", "only in B"),
    }
    groups = {(r["kind"], r["group"]) for r in c.table.iter_rows(named=True)}
    assert not groups & {("team", "horseman"), ("role", "phantom"), ("role", "doc")}
    assert c.table.filter(c.table["games"] == 0).height == 0  # no row without a paired game
    assert not np.isnan(c.table["lo"].to_numpy()).any()
    words = left_out_words(c.left_out)
    assert words[0] == "1 team and 1 role never dealt in these games are not shown."
    assert words[1:] == [
        "Role doc (dealt only in A), role ghost (dealt only in B) are not shown: no game deals "
        "them in both A and B, so nothing pairs them."
    ]


def test_a_team_dealt_on_one_side_keeps_its_win_share_row():
    # A team dealt only in A has a win share in every game of B too (0: it has no seat): that
    # paired change is real and stays; its mean score has no paired game and goes.
    line = stats.Lineup(3, ("p",), ("family", "raven"), (), ("p", "p", "p"))
    a, b = Seated(line), Seated(line)
    a.counts["team"][:] = [10, 5]
    b.counts["team"][:] = [15, 0]
    table = pl.DataFrame(
        {
            "metric": ["win_share", "mean_score", "win_share", "mean_score"],
            "kind": ["team"] * 4,
            "group": ["family", "family", "raven", "raven"],
            "games": [5, 5, 5, 0],
            "lo": [0.0, 0.0, -0.5, float("nan")],
        }
    )
    kept, out = leave_out(table, a, b)
    assert out == (("team", "raven", "only in A"),)
    assert left_out_words(out) == [
        "Team raven (dealt only in A): win share only (0 in a game without it); no game seats "
        "it in both A and B, so its mean score has no paired difference."
    ]
    assert kept.select("metric", "group").rows() == [
        ("win_share", "family"),
        ("mean_score", "family"),
        ("win_share", "raven"),
    ]
