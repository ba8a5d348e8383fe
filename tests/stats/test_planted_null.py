"""A planted null: a compare whose B differs from A in nothing a seat can feel shows no star and
no headline in at least 95 % of replicates (issue 13, acceptance).

A and B are the same config; B's games are *other* games of the same run (games i and j of a seed
are independent and identically distributed), paired with A's game by game exactly as
``balance compare`` pairs two configs. Every row of the table is then a true null, so any star
is a false discovery: Benjamini-Hochberg at q < 0.05 over the whole table keeps the chance of
even one below 5 % (under the complete null the false discovery rate is the family-wise rate).
The old rule, a star for each interval that excludes 0, starred something in most replicates.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from balance import stats
from balance.config import load_config
from balance.experiments.compare import Comparison
from balance.report.sentences import comparison_sentences
from balance.results import open_results
from balance.runner import run

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "five_ravens"
REPLICATES, GAMES = 200, 1000
# P(more than 17 of 200 | a 5 % rate) < 1 %: the measured rate is at most 5 % + Monte Carlo error
MOST = 17


def _replicates(arrays: stats.GameArrays):
    for i in range(REPLICATES):
        a = arrays.rows(slice(2 * i * GAMES, (2 * i + 1) * GAMES))
        b = arrays.rows(slice((2 * i + 1) * GAMES, (2 * i + 2) * GAMES))
        yield a, b


@pytest.mark.slow
@pytest.mark.parametrize("config", ["base.yaml", "random_vs_greedy.yaml"])
def test_a_planted_null_compare_stars_nothing_in_95_percent_of_replicates(config, tmp_path):
    cfg = load_config(CONFIGS / config)
    run(cfg, config_path=config, out=tmp_path / "r", games=2 * REPLICATES * GAMES, seed=11)
    manifest, lf = open_results(tmp_path / "r")
    arrays, lineup, _ = stats.game_arrays(lf, manifest)
    grps = stats.groups(lineup)
    starred = headlined = unadjusted = 0
    for a, b in _replicates(arrays):
        acc = stats.PairedAccumulator(grps, grps)
        acc.add(a, b)
        table = acc.table(repeats=lineup.repeats())
        starred += bool(table["significant"].any())
        unadjusted += bool(((table["lo"] > 0) | (table["hi"] < 0)).any())
        c = Comparison(
            a_path="A", b_path="B", a_config=cfg, b_config=cfg, games=GAMES, seed=11,
            level=0.95, method=stats.METHOD, table=table, wall_time_s=1.0,
            a_lineup=lineup, b_lineup=lineup,
        )  # fmt: skip
        words = " ".join(comparison_sentences(c))
        headlined += any(
            w in words
            for w in (
                "B raises",
                "B lowers",
                "B lengthens",
                "B shortens",
                "changes significantly for",
            )
        )
    assert starred <= MOST, f"{starred} of {REPLICATES} null replicates have a star"
    assert headlined <= starred  # a sentence names a change only when the table stars it
    # Without multiplicity control about a dozen rows each at 5 % star something most times.
    assert unadjusted > 3 * MOST
