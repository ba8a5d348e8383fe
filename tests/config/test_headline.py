"""The config's ``report: headline:``: declared in advance, validated like any key, and the one
metric an impact summary ranks its variants by."""

from __future__ import annotations

from pathlib import Path

import pytest
from kit.configs import write_config

from balance.config import ConfigError, config_hash, load_config
from balance.config.headline import Headline

BASE = Path(__file__).resolve().parent.parent.parent / "configs" / "five_ravens" / "base.yaml"


def _config(tmp_path: Path, headline: str) -> Path:
    return write_config(tmp_path / "h.yaml", extends=BASE, report={"headline": headline})


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ({}, ("win_share", "order", "0")),  # the first player's win share by default
        ({"seat": 2}, ("win_share", "seat", "2")),
        ({"metric": "mean_score", "policy": "greedy"}, ("mean_score", "policy", "greedy")),
        ({"team": "raven"}, ("win_share", "team", "raven")),
        ({"metric": "mean_turns"}, ("mean_turns", "game", "all")),
    ],
)
def test_a_headline_names_one_row_of_a_differences_table(given, key):
    assert Headline(**given).key() == key


@pytest.mark.parametrize(
    ("headline", "message"),
    [
        ("{seat: 7}", "report.headline.seat: seat 7 does not exist with 4 players (0..3)"),
        ("{order: 4}", "report.headline.order: order 4 does not exist with 4 players"),
        ("{policy: random}", "report.headline.policy: no seat plays 'random' (seats: greedy)"),
        ("{team: red}", "report.headline.team: no team named 'red' (teams: 0, 1, 2, 3)"),
        ("{seat: 1, order: 0}", "report.headline: name one group, not seat and order"),
        ("{metric: mean_turns, seat: 0}", "report.headline: mean_turns is per game: remove seat"),
        ("{metric: edge}", "report.headline.metric"),
        ("{colour: red}", "report.headline.colour: unknown key (expected one of: metric, seat,"),
    ],
)
def test_a_bad_headline_is_a_one_line_error_naming_the_file_and_key(tmp_path, headline, message):
    path = _config(tmp_path, headline)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    text = str(e.value)
    assert text.startswith(f"{path}: ") and message in text and "\n" not in text


def test_the_report_section_changes_no_game_and_not_the_config_hash(tmp_path):
    base = load_config(BASE)
    other = load_config(_config(tmp_path, "{seat: 1}"))
    assert other.report.headline.key() == ("win_share", "seat", "1")
    assert config_hash(other) == config_hash(base)
    assert other.model_copy(update={"report": base.report}) == base
