"""sentences.py: labels, number formats and the sentences of a page, from planted numbers."""

from __future__ import annotations

import numpy as np
import pytest

from balance import fmt
from balance.impact_file import read_impact
from balance.report import numbers, sentences
from balance.report.sentences import summary_sentences

from .planted import planted_impact_table, planted_rows, planted_stats


@pytest.fixture(scope="module")
def planted() -> numbers.DatasetStats:
    return planted_stats(planted_rows())


def test_sentences_for_a_planted_seat_and_first_player_advantage(planted):
    s = summary_sentences(planted)
    assert s[0] == (
        "The seat farthest from the mean seat win (25.0 %) is seat 1, at 31.0 %: +6.0 points "
        "[+4.8, +7.2] (simultaneous 95 % over 4 seats; off by more than ±1 point; χ² = 216.0, "
        "p < 0.001)."
    )
    assert s[1] == (
        "The first player wins 30.0 % ± 0.9 % of games against a fair 25 %: an edge of "
        "+5.0 points [+4.1, +5.9]."
    )
    assert s[2].startswith(
        "Strongest card association (a diagnostic, not an effect): Seat-games with “stolen gem” "
        "win 100.0 % against 0.0 % without (+100.0 points, q < 1e-300)"
    )
    assert s[-1] == (
        "Games last 35.0 turns on average (90 % between 30 and 40); a seat scores 13.62 on "
        "average (median 12)."
    )


def test_sentences_for_planted_policies():
    rows = planted_rows(
        wins=(4_870, 130, 4_870, 130),
        policies=("greedy", "random", "greedy", "random"),
        first_player_wins=2_500,
    )
    s = summary_sentences(planted_stats(rows))
    assert s[0] == (
        "Greedy seats win 48.7 % ± 0.2 % of their seat-games against 1.3 % for random "
        "(fair: 25 %; 10,000 games)."
    )
    assert s[1] == (
        "The first player wins 25.0 % ± 0.8 % of games against a fair 25 %: an edge of "
        "+0.0 points [−0.8, +0.9], not distinguishable from 0 at 10,000 games (it lies within "
        "±0.9 points, 95 %)."
    )
    assert "greedy seat-games with “stolen gem”" in s[2]


def test_sentence_for_balanced_seats():
    rows = planted_rows(wins=(2_500, 2_500, 2_510, 2_490))
    s = summary_sentences(planted_stats(rows))
    # Not "seats are balanced": what the intervals bound. Simultaneous 95 %: each seat's Wilson
    # interval at 1 - 0.05/4; the widest reach from 25 % is seat 2's upper end.
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(np.array([2_500, 2_500, 2_510, 2_490]), 10_000, 0.0125, "wilson")
    bound = max((hi - 0.25).max(), (0.25 - lo).max())
    assert round(bound * 100, 1) == 1.2
    assert s[0] == (
        "No seat wins more or less often than a fair 25 % beyond chance (χ² = 0.08, p = 0.99 "
        "over 10,000 games); with simultaneous 95 % intervals every seat is within ±1.2 points "
        "of fair."
    )


def test_share_formatting_shows_one_significant_digit_of_the_interval():
    assert fmt.share_pm(0.281, 0.279, 0.283) == "28.1 % ± 0.2 %"
    assert fmt.share_pm(0.28006, 0.2791, 0.2809) == "28.01 % ± 0.09 %"
    assert fmt.points(0.0301, 0.0292, 0.0309) == "+3.01 points [+2.92, +3.09]"
    assert fmt.points(-0.02) == "−2.0 points"
    assert fmt.points(float("nan")) == "n/a"
    # an interval without width: one decimal for shares, two for a compare page's changes
    assert fmt.points(0.0, 0.0, 0.0) == "+0.0 points [+0.0, +0.0]"
    assert fmt.signed(0.0, 0.0, 0.0, 100, " points") == "+0.00 points [+0.00, +0.00]"
    assert fmt.signed(-2.0, -2.02, -1.98) == "−2.00 [−2.02, −1.98]"


def test_labels():
    assert [sentences.ordinal(k) for k in (0, 1, 2, 3, 10, 11, 20)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "21st",
    ]
    assert sentences.difference_label("order", "0") == "1st player"
    assert sentences.difference_label("game", "all") == "game length"
    assert sentences.difference_label("policy", "greedy") == "policy greedy"
    assert sentences.listing(["a"]) == "a"
    assert sentences.listing(list("abcdef"), most=3) == "a, b, c and 3 more"


def test_difference_sentence_names_the_largest_significant_change(planted):
    rows_b = planted_rows(wins=(2_000, 3_500, 2_000, 2_500))
    b = planted_stats(rows_b, label="changed")
    d = numbers.differences(b, planted, rows=rows_b.lazy(), base_rows=planted_rows().lazy())
    sentence = sentences.difference_sentences(d)[0]
    assert sentence.startswith("Against baseline planted (paired over 10,000 games): ")
    assert "seat 1's win share, 31.0 % → 35.0 % (+4.0 points" in sentence
    out = summary_sentences(b, diff=d)
    # the causal and paired sentences come before the observational association (a diagnostic)
    assert out.index(sentence) < next(i for i, x in enumerate(out) if "association" in x)


def test_impact_sentence_names_the_variant_that_moves_most(tmp_path):
    planted_impact_table().write_parquet(tmp_path / "i.parquet")
    imp = read_impact(tmp_path / "i.parquet")
    sentence = sentences.impact_sentences(imp)[0]
    assert (
        "ranked by the 1st player's win share (the headline metric, declared in advance): "
        "“gem +1” changes it most, by +3.0 points [+2.0, +4.0], q < 0.001; 1 of 2 variants "
        "changes it significantly (q < 0.05: Benjamini-Hochberg within each metric (win share, "
        "mean score, game length), times the number of metrics, over every variant)"
    ) in sentence
