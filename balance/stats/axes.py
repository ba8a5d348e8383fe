"""The axes of balance a verdict judges, each group against a reference with simultaneous intervals.

An *axis* is a way the seats of a game differ: the place in the opening turn order, the chair
(``seat``), the side (``team``), the dealt role (Corvids' birds, Raven Manor's characters), and in
a line-up that mixes policies each policy at each place (``policy_order``: the economy player
going first against the economy player going second). For each group of an axis the verdict needs
one number, its *deviation*, and one question: is it within ±tolerance?

Deviations, all win shares per seat-game (``win`` is 1, 1/k of a shared win, 0):

- ``order``, ``seat`` and ``role``: the group's share minus the **mean seat win of the same
  games** (every seat-game's ``win`` averaged). That is 1/players when every game has exactly one
  winning seat, and what the average seat wins when the game deals teams (a Family victory is a
  win for every Family seat), so no fair share has to be assumed;
- ``policy_order``: the policy's share at that place minus the policy's own share over every
  place (is the policy's result a matter of where it sits in the turn order?);
- ``team``: the team's win share per game (a team wins a game when its seats do) minus a
  target: the share the config declares (``report.targets.team``), else, for a team fixed for
  the run, its seats' part of the table (seats / players); a dealt team without a target has no
  reference, and its row says so (``ref`` is NaN, ``verdict`` is ``no target``).
  A role may also be given a target (``report.targets.role``), which replaces the mean.

Every deviation is a difference of ratio estimators over the same games, so its variance is over
**games**, the independent unit: the linearisation (delta method, a cluster-robust sandwich with
the game as the cluster) ``u_g = (S_Ag - m_A N_Ag) / N_A - (S_Rg - m_R N_Rg) / N_R`` for the
group's rows A and the reference rows R of game g, ``var = G/(G-1) Σ_g u_g²``. For a place in the
turn order this is exactly the variance over games of (the place's win minus its game's mean seat
win); for a constant reference (a target) the second term is 0.

Intervals are **simultaneous** over the groups of an axis (Bonferroni: each at
``1 - (1 - level)/m`` for m groups, normal), so a verdict that scans every place, side or role
for the worst one does not find one by chance: with 95 % the whole axis is inside its intervals.
Each group is then

- ``within`` when its whole interval lies inside ±tolerance,
- ``outside`` when its whole interval lies beyond it (on one side),
- ``undetermined`` otherwise, with ``games_needed``: how many games would make the interval
  decide it at the observed deviation and spread (the half-width shrinks as 1/√games).

A normal interval needs a few dozen games in which the group both wins and loses; a group seen in
fewer than ``MIN_GAMES`` games is ``undetermined`` whatever its interval says.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
import polars as pl
from scipy import stats as sps

AXES = ("order", "seat", "team", "role", "policy_order")
VERDICTS = ("within", "outside", "undetermined", "no reference")
MIN_GAMES = 30  # fewer games with the group: no verdict (the normal interval is not yet valid)
MAX_GAMES_NEEDED = 10**12  # beyond this a "games needed" is no practical number


class Axis(NamedTuple):
    """One axis judged: a row per group, ``group``, (``policy`` for policy_order), ``games``
    (games in which the group has a seat), ``seat_games``, ``share``, ``ref`` (its reference:
    the mean seat win, the policy's own share, a target, NaN for none), ``dev`` (share - ref),
    ``se``, ``lo``, ``hi`` (simultaneous interval of ``dev``), ``verdict`` and ``games_needed``
    (for an undetermined row; null otherwise)."""

    kind: str  # one of AXES
    tolerance: float  # ± around the reference, in shares
    level: float  # simultaneous level of the whole axis
    games: int  # games in the dataset
    reference: str  # "mean", "policy", "target", "fair" or "none" (for the axis' main rows)
    rows: pl.DataFrame
    sides: bool = False  # roles measured against their side's roles (role_sides given)

    @property
    def judged(self) -> pl.DataFrame:
        """The rows with a reference (a dealt team without a target has none)."""
        return self.rows.filter(pl.col("verdict") != "no reference")

    @property
    def verdict(self) -> str:
        """``outside`` if any group is, ``within`` if every judged group is, ``undetermined``
        otherwise; ``no target`` when no group has a reference."""
        v = self.judged["verdict"].to_list()
        if not v:
            return "no reference"
        if "outside" in v:
            return "outside"
        return "within" if all(x == "within" for x in v) else "undetermined"

    @property
    def games_needed(self) -> int | None:
        """Games that would decide every undetermined group at the observed spread (None when
        nothing is undetermined or no number of games would)."""
        rows = self.judged.filter(pl.col("verdict") == "undetermined")
        if rows.height == 0:
            return None
        need = rows["games_needed"]
        if need.null_count():
            return None
        return int(need.max())

    @property
    def bound(self) -> float:
        """The largest |deviation| any judged group's simultaneous interval reaches."""
        r = self.judged
        if r.height == 0:
            return math.nan
        return float(max(r["hi"].max(), -r["lo"].min()))


def simultaneous_z(m: int, level: float = 0.95) -> float:
    """The normal quantile of m Bonferroni intervals that hold together with ``level``."""
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return float(sps.norm.ppf(1 - (1 - level) / (2 * max(m, 1))))


def judge(dev: float, lo: float, hi: float, tol: float) -> str:
    """``within``, ``outside`` or ``undetermined`` for an interval [lo, hi] of a deviation."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "undetermined"
    if -tol <= lo and hi <= tol:
        return "within"
    if lo > tol or hi < -tol:
        return "outside"
    return "undetermined"


def games_needed(dev: float, half: float, games: int, tol: float) -> int | None:
    """Games at which an interval of half-width ``half`` at ``games`` games (shrinking as
    1/√games) would stop straddling a tolerance bound, were the deviation to stay ``dev``; None
    when no number of games would (the deviation sits on the bound)."""
    margin = abs(abs(dev) - tol)
    if not (math.isfinite(half) and math.isfinite(margin)) or margin <= 0 or half <= 0:
        return None
    need = games * (half / margin) ** 2
    if need > MAX_GAMES_NEEDED:
        return None
    return max(math.ceil(need), games + 1)


def _finish(
    frame: pl.DataFrame,
    kind: str,
    tol: float,
    level: float,
    games: int,
    reference: str,
    sides: bool = False,
) -> Axis:
    """Simultaneous intervals, verdicts and games needed for a frame of group, games, share,
    ref, dev and se."""
    has_ref = frame["ref"].is_not_nan() & frame["ref"].is_not_null()
    m = int(has_ref.sum())
    z = simultaneous_z(m, level)
    dev, se = frame["dev"].to_numpy(), frame["se"].to_numpy()
    lo, hi = dev - z * se, dev + z * se
    present = frame["games"].to_numpy()
    verdicts, need = [], []
    for i in range(frame.height):
        if not has_ref[i]:
            verdicts.append("no reference")
            need.append(None)
            continue
        v = judge(dev[i], lo[i], hi[i], tol)
        if present[i] < MIN_GAMES:
            v = "undetermined"
        verdicts.append(v)
        need.append(games_needed(dev[i], z * se[i], games, tol) if v == "undetermined" else None)
    rows = frame.with_columns(
        lo=pl.Series(lo),
        hi=pl.Series(hi),
        verdict=pl.Series(verdicts, dtype=pl.String),
        games_needed=pl.Series(need, dtype=pl.Int64),
    )
    return Axis(kind, tol, level, games, reference, rows, sides)


def _against_reference(lf: pl.LazyFrame, label: str, ref_keys: Sequence[str] = ()) -> pl.DataFrame:
    """Per group of ``label`` (within each ``ref_keys`` group): its share of wins per seat-game,
    the reference's (every row of the same ``ref_keys``), the difference and its linearised
    standard error over games (module docstring)."""
    keys = list(ref_keys)
    base = lf.select("game", "win", *keys, label)
    per_ref_q = base.group_by("game", *keys).agg(
        pl.col("win").sum().alias("SR"), pl.len().alias("NR")
    )
    per_grp_q = base.group_by("game", *keys, label).agg(
        pl.col("win").sum().alias("SA"), pl.len().alias("NA")
    )
    per_ref, per_grp = pl.collect_all([per_ref_q, per_grp_q])
    games = per_ref["game"].n_unique()
    tot_ref = per_ref.group_by(*keys or [pl.lit(0).alias("_k")]).agg(
        pl.col("SR").sum().alias("TSR"), pl.col("NR").sum().alias("TNR")
    )
    join_ref = keys or ["_k"]
    if not keys:
        per_ref = per_ref.with_columns(_k=pl.lit(0))
        per_grp = per_grp.with_columns(_k=pl.lit(0))
    per_ref = (
        per_ref.join(tot_ref, on=join_ref)
        .with_columns(mR=pl.col("TSR") / pl.col("TNR"))
        .with_columns(b=(pl.col("SR") - pl.col("mR") * pl.col("NR")) / pl.col("TNR"))
    )
    bsum = per_ref.group_by(join_ref).agg((pl.col("b") ** 2).sum().alias("B2"))
    tot_grp = per_grp.group_by(*join_ref, label).agg(
        pl.col("SA").sum().alias("TSA"),
        pl.col("NA").sum().alias("TNA"),
        pl.len().alias("games"),
    )
    per_grp = (
        per_grp.join(tot_grp, on=[*join_ref, label])
        .join(per_ref.select("game", *join_ref, "b"), on=["game", *join_ref])
        .with_columns(
            a=(pl.col("SA") - pl.col("TSA") / pl.col("TNA") * pl.col("NA")) / pl.col("TNA")
        )
    )
    cross = per_grp.group_by(*join_ref, label).agg(
        (pl.col("a") ** 2 - 2 * pl.col("a") * pl.col("b")).sum().alias("AB")
    )
    out = (
        tot_grp.join(cross, on=[*join_ref, label])
        .join(bsum, on=join_ref)
        .join(tot_ref.with_columns(ref=pl.col("TSR") / pl.col("TNR")), on=join_ref)
        .with_columns(
            share=pl.col("TSA") / pl.col("TNA"),
            seat_games=pl.col("TNA"),
            var=(pl.col("AB") + pl.col("B2")).clip(lower_bound=0.0) * (games / max(games - 1, 1)),
        )
        .with_columns(dev=pl.col("share") - pl.col("ref"), se=pl.col("var").sqrt())
    )
    cols = [*keys, label, "games", "seat_games", "share", "ref", "dev", "se"]
    return (
        out.select(cols)
        .sort([*keys, label])
        .rename({label: "group"})
        .with_columns(pl.col("group").cast(pl.String), target=pl.lit(False))
    )


def _against_target(lf: pl.LazyFrame, label: str, targets: Mapping[str, float]) -> pl.DataFrame:
    """Per group of ``label``: its share of wins per seat-game (over the games it has a seat
    in) against a declared target, with the standard error over games."""
    per = (
        lf.group_by("game", label)
        .agg(pl.col("win").sum().alias("SA"), pl.len().alias("NA"))
        .collect()
    )
    tot = per.group_by(label).agg(
        pl.col("SA").sum().alias("TSA"), pl.col("NA").sum().alias("TNA"), pl.len().alias("games")
    )
    per = per.join(tot, on=label).with_columns(
        a=(pl.col("SA") - pl.col("TSA") / pl.col("TNA") * pl.col("NA")) / pl.col("TNA")
    )
    var = per.group_by(label).agg((pl.col("a") ** 2).sum().alias("A2"))
    return _target_frame(tot.join(var, on=label), label, targets, targets)


def _team_shares(lf: pl.LazyFrame, targets: Mapping[str, float], fair: Mapping[str, float]):
    """Per team: its win share per game (its seats' win when it had any, averaged over every
    game) against its target (or ``fair``), with the standard error over games."""
    per = lf.group_by("game", "team").agg(pl.col("win").max().alias("v")).collect()
    games = lf.select(pl.col("game").n_unique()).collect().item()
    tot = per.group_by("team").agg(
        pl.col("v").sum().alias("sv"), (pl.col("v") ** 2).sum().alias("sv2"),
        pl.len().alias("games"),
    )  # fmt: skip
    share = pl.col("sv") / games
    frame = tot.with_columns(
        share=share,
        seat_games=pl.col("games"),
        # a game without the team counts as a 0: Σ(v - mean)² over every game
        A2=((pl.col("sv2") - games * share**2).clip(lower_bound=0.0)) / games**2,
        TSA=pl.col("sv"),
        TNA=pl.lit(games),
    )
    return _target_frame(frame, "team", {**fair, **targets}, targets)


def _target_frame(
    frame: pl.DataFrame, label: str, refs: Mapping[str, float], declared: Mapping[str, float]
) -> pl.DataFrame:
    """The rows of groups measured against a constant reference ``refs`` (``target``: the
    reference is one the config declares)."""
    games = frame["games"].to_numpy()
    names = frame[label].cast(pl.String).to_list()
    ref = np.array([refs.get(n, math.nan) for n in names], dtype=np.float64)
    if "share" not in frame.columns:
        frame = frame.with_columns(share=pl.col("TSA") / pl.col("TNA"), seat_games=pl.col("TNA"))
    share = frame["share"].to_numpy()
    corr = np.where(games > 1, games / np.maximum(games - 1, 1), 1.0)
    se = np.sqrt(frame["A2"].to_numpy() * corr)
    return (
        frame.with_columns(
            ref=pl.Series(ref),
            dev=pl.Series(share - ref),
            se=pl.Series(se),
            target=pl.Series([n in declared for n in names], dtype=pl.Boolean),
        )
        .select(label, "games", "seat_games", "share", "ref", "dev", "se", "target")
        .sort(label)
        .rename({label: "group"})
        .with_columns(pl.col("group").cast(pl.String))
    )


class Tolerances(NamedTuple):
    """± in shares per axis (balance/config/headline.py's ``report.tolerance``)."""

    place: float = 0.02
    seat: float = 0.01
    team: float = 0.02
    role: float = 0.02
    policy_order: float = 0.02


def balance_axes(
    rows: pl.LazyFrame | pl.DataFrame,
    *,
    tolerance: Tolerances | None = None,
    targets: Mapping[str, Mapping[str, float]] | None = None,
    level: float = 0.95,
    role_sides: Mapping[str, str] | None = None,
) -> list[Axis]:
    """Every axis a dataset can be judged on, in the verdict's order: the places in the turn
    order, the chairs (when every seat plays the same policy), each policy at each place (when
    the line-up mixes policies), the sides (teams of several seats, or any team with a target)
    and the roles. ``targets`` maps ``team`` / ``role`` to {name: share}; ``role_sides`` maps a
    role to the side it starts on (module docstring)."""
    lf = rows.lazy() if isinstance(rows, pl.DataFrame) else rows
    names = lf.collect_schema().names()
    lf = lf.with_columns(pl.col("seat", "order").cast(pl.Int64))
    targets = targets or {}
    tolerance = tolerance or Tolerances()
    facts = (
        lf.select(
            pl.col("seat").n_unique().alias("players"),
            pl.col("game").n_unique().alias("games"),
            pl.col("policy").n_unique().alias("policies"),
            pl.col("team").n_unique().alias("teams"),
            pl.struct("seat", "team").n_unique().alias("seat_teams"),
        )
        .collect()
        .row(0, named=True)
    )
    players, games = int(facts["players"]), int(facts["games"])
    out: list[Axis] = []
    if players < 2 or games < 2:
        return out
    out.append(_finish(_against_reference(lf, "order"), "order", tolerance.place, level, games,
                       "mean"))  # fmt: skip
    if facts["policies"] == 1:
        out.append(_finish(_against_reference(lf, "seat"), "seat", tolerance.seat, level, games,
                           "mean"))  # fmt: skip
    else:
        po = _against_reference(lf, "order", ["policy"])
        out.append(_finish(po, "policy_order", tolerance.policy_order, level, games, "policy"))
    teams_fixed = facts["seat_teams"] == players
    team_targets = {str(k): float(v) for k, v in (targets.get("team") or {}).items()}
    if teams_fixed:
        seats = lf.group_by("team").agg(pl.col("seat").n_unique().alias("k")).collect()
        fair = {str(r["team"]): r["k"] / players for r in seats.iter_rows(named=True)}
        several = any(r["k"] > 1 for r in seats.iter_rows(named=True))
    else:
        fair, several = {}, True
    if facts["teams"] > 1 and (several or team_targets):
        t = _team_shares(lf, team_targets, fair)
        ref = "target" if team_targets else ("fair" if fair else "none")
        out.append(_finish(t, "team", tolerance.team, level, games, ref))
    if "role" in names:
        role_targets = {str(k): float(v) for k, v in (targets.get("role") or {}).items()}
        lr = lf.filter(pl.col("role").is_not_null())
        if lr.select(pl.len()).collect().item():
            out.append(
                _finish(_roles(lr, role_targets, role_sides), "role", tolerance.role, level,
                        games, "mean", sides=bool(role_sides))
            )  # fmt: skip
    return out


def _roles(
    lr: pl.LazyFrame, role_targets: Mapping[str, float], role_sides: Mapping[str, str] | None
) -> pl.DataFrame:
    """The role axis' rows: each role against the mean seat win (of its side's roles, with
    ``role_sides``), or against its target."""
    if role_sides:
        side = pl.col("role").cast(pl.String).replace_strict(dict(role_sides), default="")
        r = _against_reference(lr.with_columns(side=side), "role", ["side"])
        alone = pl.col("group").count().over("side") == 1
        r = r.with_columns(
            ref=pl.when(alone).then(float("nan")).otherwise(pl.col("ref")),
            dev=pl.when(alone).then(float("nan")).otherwise(pl.col("dev")),
        ).drop("side")
    else:
        r = _against_reference(lr, "role")
    if role_targets:
        tr = _against_target(lr, "role", role_targets)
        keep = tr.filter(pl.col("group").is_in(list(role_targets)))
        r = pl.concat([r.filter(~pl.col("group").is_in(list(role_targets))), keep])
    return r.sort("group")
