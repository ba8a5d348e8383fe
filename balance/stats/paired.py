"""Paired differences between two runs of the same seeds and games (common random numbers).

Game ``i`` of seed ``s`` draws the same random numbers under any config (DESIGN.md, Common random
numbers), so comparing two configs game by game cancels most of the luck: the per-game difference
``d_i = x_B(i) - x_A(i)`` has a far smaller variance than two independent samples would. Its mean
is the change, and its interval is a **t-interval over games** (mean ± t(n-1) · sd / sqrt(n)).

Per-game values of each group of seats (seat, place in the turn order, policy, team, role; see
balance/stats/groups.py) and the game length ``turns``. Everything reduces to running moments (count, mean, M2) that
merge across chunks, so a run of any length is summarised in constant memory
(:class:`PairedAccumulator`); :func:`paired_differences` does the same for two result datasets.

Two runs that did not play the same games can only be compared as independent samples
(:func:`unpaired_differences`: Newcombe and Welch intervals, in the same table).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

from balance.stats.groups import GameArrays, Group, Lineup, common_groups, group_values
from balance.stats.impact import newcombe_interval, two_proportion_p
from balance.stats.multiple import adjust
from balance.stats.winrates import Distributions, WinShares, _lazy

METHOD = "t-interval over games of the per-game paired difference (common random numbers)"
UNPAIRED_METHOD = (
    "independent samples: Newcombe intervals for win shares, Welch t-intervals for means"
)


# ------------------------------------------------------------------------------ running moments


class Moments(NamedTuple):
    """Count, mean and sum of squared deviations (M2) per column; arrays of one shape."""

    n: np.ndarray
    mean: np.ndarray
    m2: np.ndarray


def moments(values: np.ndarray) -> Moments:
    """Moments of ``values`` over axis 0 (a game per row, a column per series); NaN entries (a
    group without a seat in that game) are left out of their column's count."""
    v = np.asarray(values, dtype=np.float64)
    n = np.full(v.shape[1:], v.shape[0], dtype=np.float64)
    if v.shape[0] == 0:
        return Moments(n, np.zeros(v.shape[1:]), np.zeros(v.shape[1:]))
    missing = np.isnan(v)
    if not missing.any():
        mean = v.mean(axis=0)
        return Moments(n, mean, ((v - mean) ** 2).sum(axis=0))
    n = (~missing).sum(axis=0).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(n > 0, np.where(missing, 0.0, v).sum(axis=0) / n, 0.0)
    m2 = np.where(missing, 0.0, (v - mean) ** 2).sum(axis=0)
    return Moments(n, mean, m2)


def merge_moments(a: Moments | None, b: Moments) -> Moments:
    """Moments of the union of two samples (Chan et al.'s parallel update)."""
    if a is None:
        return b
    n = a.n + b.n
    with np.errstate(divide="ignore", invalid="ignore"):
        delta = b.mean - a.mean
        mean = np.where(n > 0, a.mean + delta * b.n / n, 0.0)
        m2 = a.m2 + b.m2 + np.where(n > 0, delta * delta * a.n * b.n / n, 0.0)
    return Moments(n, mean, m2)


class MeanInterval(NamedTuple):
    mean: np.ndarray
    sd: np.ndarray  # of one observation (n - 1 in the denominator)
    se: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    p_value: np.ndarray  # two-sided t-test of mean == 0


def mean_interval(m: Moments, level: float = 0.95) -> MeanInterval:
    """t-interval for the mean of each column; a column without variation has a zero-width
    interval, and p = 1 if its mean is 0 (nothing changed) else 0 (every game moved alike)."""
    n = np.asarray(m.n, dtype=np.float64)
    mean = np.asarray(m.mean, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.where(n > 1, m.m2 / (n - 1), np.nan))
        se = sd / np.sqrt(n)
        df = np.maximum(n - 1, 1)
        t = sps.t.ppf(0.5 + level / 2, df)
        lo, hi = mean - t * se, mean + t * se
        p = 2 * sps.t.sf(np.abs(mean) / se, df)
    flat = (n > 1) & (se == 0)
    p = np.where(flat, np.where(mean == 0, 1.0, 0.0), p)
    lo = np.where(flat, mean, lo)
    hi = np.where(flat, mean, hi)
    return MeanInterval(mean, sd, se, lo, hi, p)


# ---------------------------------------------------------------------------------- the table


class PairedAccumulator:
    """Paired differences B - A, accumulated chunk by chunk in constant memory.

    ``add(a, b)`` takes the same games (same first game and count) of the two runs.
    """

    def __init__(self, groups_a: Sequence[Group], groups_b: Sequence[Group]) -> None:
        if [(g.kind, g.name) for g in groups_a] != [(g.kind, g.name) for g in groups_b]:
            raise ValueError("groups_a and groups_b must name the same groups in the same order")
        self.groups_a = list(groups_a)
        self.groups_b = list(groups_b)
        self._m: dict[str, Moments | None] = dict.fromkeys(
            ("win_a", "win_b", "win_d", "score_a", "score_b", "score_d", "turns"), None
        )

    @property
    def games(self) -> int:
        m = self._m["turns"]
        return 0 if m is None else int(m.n[0])

    def add(self, a: GameArrays, b: GameArrays) -> None:
        if a.first_game != b.first_game or a.n_games != b.n_games:
            raise ValueError(
                f"unpaired chunks: games [{a.first_game}, +{a.n_games}) and "
                f"[{b.first_game}, +{b.n_games})"
            )
        wa, sa = group_values(a, self.groups_a)
        wb, sb = group_values(b, self.groups_b)
        turns = np.column_stack([a.turns, b.turns, b.turns - a.turns])
        for key, values in (
            ("win_a", wa),
            ("win_b", wb),
            ("win_d", wb - wa),
            ("score_a", sa),
            ("score_b", sb),
            ("score_d", sb - sa),
            ("turns", turns),
        ):
            self._m[key] = merge_moments(self._m[key], moments(values))

    def table(
        self, level: float = 0.95, *, repeats: dict[tuple[str, str], int] | None = None
    ) -> pl.DataFrame:
        """One row per (metric, group): metric (win_share, mean_score, mean_turns), kind, group,
        games, a, b, diff, sd (of the per-game difference), se, lo, hi (the row's own
        t-interval), p_value, q_value and significant
        (q < 0.05): the one rule of balance/stats/multiple.py. ``repeats`` (the base line-up's
        ``Lineup.repeats()``) names the rows that repeat a seat's. A row whose value is the same
        in every game of both runs (a share the rules fix) has no test: p is NaN."""
        return adjust(self.raw_table(level), repeats=repeats)

    def raw_table(self, level: float = 0.95) -> pl.DataFrame:
        """:meth:`table` without q-values (for a caller that adjusts several tables as one)."""
        m = self._m
        if m["turns"] is None:
            return _table([], [], [], [], level, None)
        labels = [(g.kind, g.name) for g in self.groups_a]
        parts = []
        for metric, key in (("win_share", "win"), ("mean_score", "score")):
            a, b = m[f"{key}_a"], m[f"{key}_b"]
            fixed = (a.m2 == 0) & (b.m2 == 0) & (m[f"{key}_d"].m2 == 0)
            parts.append(
                _table([metric] * len(labels), labels, a.mean, b.mean, level, m[f"{key}_d"], fixed)
            )
        t = m["turns"]
        d = Moments(t.n[2:], t.mean[2:], t.m2[2:])
        fixed = np.array([t.m2[0] == 0 and t.m2[1] == 0])
        parts.append(
            _table(["mean_turns"], [("game", "all")], t.mean[:1], t.mean[1:2], level, d, fixed)
        )
        return pl.concat(parts)


def _table(
    metrics: list[str],
    labels: list[tuple[str, str]],
    a: Any,
    b: Any,
    level: float,
    d: Moments | None,
    fixed: np.ndarray | None = None,
) -> pl.DataFrame:
    if d is None:
        d = Moments(np.zeros(0), np.zeros(0), np.zeros(0))
    ci = mean_interval(d, level)
    p = ci.p_value if fixed is None else np.where(fixed, np.nan, ci.p_value)
    return pl.DataFrame(
        {
            "metric": metrics,
            "kind": [k for k, _ in labels],
            "group": [g for _, g in labels],
            "games": np.asarray(d.n, dtype=np.int64),
            "a": np.asarray(a, dtype=np.float64),
            "b": np.asarray(b, dtype=np.float64),
            "diff": ci.mean,
            "sd": ci.sd,
            "se": ci.se,
            "lo": ci.lo,
            "hi": ci.hi,
            "p_value": p,
        },
        schema_overrides={"metric": pl.String, "kind": pl.String, "group": pl.String},
    )


class Paired(NamedTuple):
    """Paired differences B - A (see :meth:`PairedAccumulator.table` for the columns)."""

    games: int
    level: float
    method: str
    table: pl.DataFrame


def game_arrays(
    rows: pl.LazyFrame | pl.DataFrame, manifest: dict[str, Any] | None = None
) -> tuple[GameArrays, Lineup, np.ndarray]:
    """A dataset's rows as per-game arrays, its line-up (group names from the rows; the
    manifest's order of team and role names when given) and the game index of each array row."""
    lf = _lazy(rows)
    has_role = "role" in lf.collect_schema().names()
    cols = ["game", "seat", "policy", "team", *(["role"] if has_role else [])]
    df = lf.select(*cols, "win", "score", "turns", "order").collect()
    if df.height == 0:
        raise ValueError("the dataset has no rows")
    if not (df["game"].is_sorted() and _seats_sorted(df)):  # datasets are written in this order
        df = df.sort("game", "seat")
    p = int(df["seat"].max()) + 1
    n = df.height // p
    seat = df["seat"].to_numpy()
    if df.height != n * p or not np.array_equal(seat.reshape(n, p), np.tile(np.arange(p), (n, 1))):
        raise ValueError("every game of the dataset must have one row for each seat 0..P-1")
    m = manifest or {}

    def codes(col: str, known: Sequence[str] = ()) -> tuple[np.ndarray, tuple[str, ...]]:
        names = list(dict.fromkeys([*known, *df[col].unique(maintain_order=True).to_list()]))
        code = df[col].replace_strict(names, range(len(names)), return_dtype=pl.Int32)
        return code.to_numpy().reshape(n, p), tuple(names)

    first = df.head(p)
    policy, policies = codes("policy", first["policy"].to_list())
    team, teams = codes("team", m.get("team_names") or first["team"].to_list())
    role, roles = codes("role", m.get("role_names") or ()) if has_role else (None, ())
    fixed = bool((team == team[:1]).all())
    lineup = Lineup(
        players=p,
        policies=policies,
        teams=teams,
        roles=roles,
        seat_policies=tuple(first["policy"].to_list()),
        seat_teams=tuple(first["team"].to_list()) if fixed and not m.get("team_names") else None,
    )
    games = df["game"].to_numpy()[::p]
    arrays = GameArrays(
        first_game=int(games[0]),
        win=df["win"].to_numpy().reshape(n, p).astype(np.float64),
        score=df["score"].to_numpy().reshape(n, p).astype(np.float64),
        turns=df["turns"].to_numpy()[::p].astype(np.float64),
        order=df["order"].to_numpy().reshape(n, p),
        policy=policy,
        team=team,
        role=role,
    )
    return arrays, lineup, games


def _seats_sorted(df: pl.DataFrame) -> bool:
    seat = df["seat"].to_numpy()
    game = df["game"].to_numpy()
    same_game = game[1:] == game[:-1]
    return bool((seat[1:][same_game] > seat[:-1][same_game]).all())


def _select(arrays: GameArrays, keep: np.ndarray) -> GameArrays:
    if keep.all():
        return arrays._replace(first_game=0)
    return arrays.rows(keep)


def paired_differences(
    a_rows: pl.LazyFrame | pl.DataFrame,
    b_rows: pl.LazyFrame | pl.DataFrame,
    *,
    a_manifest: dict[str, Any] | None = None,
    b_manifest: dict[str, Any] | None = None,
    level: float = 0.95,
) -> Paired:
    """Paired differences B - A of two datasets over the games both hold.

    The pairing is only meaningful for runs of the same seed; given manifests, a seed mismatch
    raises ValueError. Games held by only one dataset are left out.
    """
    if a_manifest and b_manifest and a_manifest.get("seed") != b_manifest.get("seed"):
        raise ValueError(
            f"the runs have different seeds ({a_manifest.get('seed')} and "
            f"{b_manifest.get('seed')}); paired differences need the same seeds"
        )
    a_arr, a_line, a_games = game_arrays(a_rows, a_manifest)
    b_arr, b_line, b_games = game_arrays(b_rows, b_manifest)
    if a_arr.win.shape[1] != b_arr.win.shape[1]:
        raise ValueError(
            f"the runs have {a_arr.win.shape[1]} and {b_arr.win.shape[1]} players; "
            "paired differences need the same number"
        )
    # Both are sorted by game: the games they share, in the same order on both sides.
    a_arr = _select(a_arr, np.isin(a_games, b_games, assume_unique=True))
    b_arr = _select(b_arr, np.isin(b_games, a_games, assume_unique=True))
    ga, gb = common_groups(a_line, b_line)
    acc = PairedAccumulator(ga, gb)
    if a_arr.n_games:
        acc.add(a_arr, b_arr)
    return Paired(acc.games, level, METHOD, acc.table(level, repeats=a_line.repeats()))


# ------------------------------------------------------------- runs that are not paired


def unpaired_differences(
    a_shares: WinShares,
    a_dist: Distributions,
    b_shares: WinShares,
    b_dist: Distributions,
    *,
    level: float = 0.95,
) -> pl.DataFrame:
    """Differences B - A of two independent runs (no common games), in the columns of the
    paired table (metric, kind, group, games, a, b, diff, lo, hi, p_value, q_value, significant
    (balance/stats/multiple.py); no sd/se).

    Win shares per seat, place in the order, policy, team and role (the groups both runs have):
    Newcombe interval and pooled two-proportion z-test over each side's effective games (a
    group of several seats: see balance/stats/winrates.py; no test for a share both runs fix by
    the rules); mean score per seat and policy and mean game
    length: Welch t-interval and test. ``games`` is B's count. Use it when two runs did not play
    the same seeds and games; otherwise :func:`paired_differences` is far tighter.
    """
    parts: list[pl.DataFrame] = []
    for kind, key in (
        ("seat", "by_seat"),
        ("order", "by_order"),
        ("policy", "by_policy"),
        ("team", "by_team"),
        ("role", "by_role"),
    ):
        fa, fb = getattr(a_shares, key), getattr(b_shares, key)
        if kind not in fa.columns or kind not in fb.columns:  # no roles in one of the runs
            continue
        cols = [pl.col(kind).cast(pl.String).alias("group"), "share", "n", "n_eff", "se", "exact"]
        j = fa.select(cols).join(fb.select(cols), on="group", suffix="_b", maintain_order="left")
        if j.height == 0:
            continue
        pa, na, pb, nb = (
            j[c].to_numpy().astype(np.float64) for c in ("share", "n_eff", "share_b", "n_eff_b")
        )
        # Over games: a group of several seats counts its effective games (winrates.py).
        lo, hi = newcombe_interval(pb, nb, pa, na, level)
        _, p = two_proportion_p(pb, nb, pa, na)
        exact_a, exact_b = j["exact"].to_numpy(), j["exact_b"].to_numpy()
        if (exact_a | exact_b).any():  # a share fixed by the rules is known without error
            se = np.hypot(j["se"].to_numpy(), j["se_b"].to_numpy())
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.abs(pb - pa) / se
            p = np.where(exact_a | exact_b, 2 * sps.norm.sf(z), p)
            p = np.where(exact_a & exact_b, np.nan, p)  # both fixed: nothing to test
        games_b = j["n_b"].to_numpy()
        parts.append(
            _diff_frame("win_share", kind, j["group"].to_list(), games_b, pa, pb, lo, hi, p)
        )
    for kind, key in (("seat", "score_by_seat"), ("policy", "score_by_policy")):
        cols = [pl.col(kind).cast(pl.String).alias("group"), "n", "mean", "sd"]
        a = getattr(a_dist, key).select(cols)
        b = getattr(b_dist, key).select(cols)
        j = a.join(b, on="group", suffix="_b", maintain_order="left")
        if j.height == 0:
            continue
        arr = {
            c: j[c].to_numpy().astype(np.float64)
            for c in ("n", "mean", "sd", "n_b", "mean_b", "sd_b")
        }
        lo, hi, p = _welch(
            arr["mean"], arr["sd"], arr["n"], arr["mean_b"], arr["sd_b"], arr["n_b"], level
        )
        parts.append(
            _diff_frame(
                "mean_score",
                kind,
                j["group"].to_list(),
                arr["n_b"],
                arr["mean"],
                arr["mean_b"],
                lo,
                hi,
                p,
            )
        )
    ta, tb = a_dist.turns, b_dist.turns
    lo, hi, p = _welch(
        *(np.array([x]) for x in (ta.mean, ta.sd, ta.n, tb.mean, tb.sd, tb.n)), level
    )
    parts.append(
        _diff_frame(
            "mean_turns",
            "game",
            ["all"],
            np.array([tb.n]),
            np.array([ta.mean]),
            np.array([tb.mean]),
            lo,
            hi,
            p,
        )
    )
    return adjust(pl.concat(parts), repeats=_repeats(a_shares))


def _repeats(shares: WinShares) -> dict[tuple[str, str], int]:
    """The policy and team rows of a run that repeat one seat's (one seat for the whole run)."""
    out: dict[tuple[str, str], int] = {}
    seat = shares.by_seat
    for kind in ("policy", "team"):
        if kind == "team" and not shares.teams_fixed:
            continue
        for name, rows in seat.group_by(kind):
            if rows.height == 1:
                out[(kind, str(name[0]))] = int(rows["seat"][0])
    return out


def _welch(ma, sa, na, mb, sb, nb, level):  # type: ignore[no-untyped-def]
    with np.errstate(divide="ignore", invalid="ignore"):
        va, vb = sa * sa / na, sb * sb / nb
        se = np.sqrt(va + vb)
        df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
        df = np.where(np.isfinite(df) & (df > 0), df, np.maximum(na + nb - 2, 1))
        t = sps.t.ppf(0.5 + level / 2, df)
        d = mb - ma
        p = np.where(se > 0, 2 * sps.t.sf(np.abs(d) / se, df), np.where(d == 0, 1.0, 0.0))
    return d - t * se, d + t * se, p


def _diff_frame(metric, kind, groups, games, a, b, lo, hi, p) -> pl.DataFrame:  # type: ignore[no-untyped-def]
    d = np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)
    return pl.DataFrame(
        {
            "metric": [metric] * len(groups),
            "kind": [kind] * len(groups),
            "group": [str(g) for g in groups],
            "games": np.asarray(games).astype(np.int64),
            "a": np.asarray(a, dtype=np.float64),
            "b": np.asarray(b, dtype=np.float64),
            "diff": d,
            "lo": np.asarray(lo, dtype=np.float64),
            "hi": np.asarray(hi, dtype=np.float64),
            "p_value": np.asarray(p, dtype=np.float64),
        },
        schema_overrides={"metric": pl.String, "kind": pl.String, "group": pl.String},
    )
