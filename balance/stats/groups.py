"""The groups of seats every statistic is computed for, and their per-game values.

One list of group kinds is used everywhere (win shares, paired and unpaired differences, card
impact, the CI gate and the report): ``KINDS``.

- ``seat`` s: seat s (its place at the table, fixed for the run);
- ``order`` k: the seat that was k-th in the game's opening turn order (0 = first player);
- ``policy``: the seats playing a policy (fixed per seat by the config's ``seats:``);
- ``team``: the seats on a team. A game whose sides change during play (Raven Manor) says per
  game which team each seat *ends* on; otherwise the config's ``teams:`` fixes it for the run;
- ``role``: the seats dealt a role, in games that deal roles (per game).

Membership of a policy, team or role is taken per game from the rows (or the chunk), never from
the config's line-up alone, so that a seat that changes sides counts for the side it ended on.

Per-game values of a group (``group_values``), the unit every interval is computed over:

- seat and order: the seat's ``win`` (1, 1/k for a win shared among k teams, 0) and score;
- policy and role: the mean ``win`` and mean score of the group's seats in that game (NaN in a
  game where no seat has it): its win share per seat-game;
- team: the team's win in that game (the ``win`` of its winning seats, which all get the same
  1/k; 0 when it did not win or had no seat) and its seats' mean score (NaN without a seat).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

KINDS = ("seat", "order", "policy", "team", "role")


class Lineup(NamedTuple):
    """What groups a run can have: its player count and the names of its policies, teams and
    roles (codes in ``GameArrays`` index these)."""

    players: int
    policies: tuple[str, ...]  # distinct policy names
    teams: tuple[str, ...]  # distinct team names
    roles: tuple[str, ...] = ()  # role names; () when the game deals no roles
    seat_policies: tuple[str, ...] = ()  # the policy of each seat (the config's ``seats``)
    seat_teams: tuple[str, ...] | None = None  # each seat's team when fixed for the run

    def names(self, kind: str) -> tuple[str, ...]:
        if kind in ("seat", "order"):
            return tuple(str(s) for s in range(self.players))
        if kind == "policy":
            return self.policies
        if kind == "team":
            return self.teams
        if kind == "role":
            return self.roles
        raise ValueError(f"unknown group kind {kind!r} (one of {', '.join(KINDS)})")

    @property
    def teams_are_seats(self) -> bool:
        """Every seat is its own team for the whole run: team rows would repeat seat rows."""
        return self.seat_teams is not None and len(set(self.seat_teams)) == self.players

    def repeats(self) -> dict[tuple[str, str], int]:
        """(kind, name) of each policy or team that is exactly one seat for the whole run, and
        that seat: its rows repeat the seat's, game by game (balance/stats/multiple.py)."""
        out = {}
        for kind in ("policy", "team"):
            for name in self.names(kind):
                seats = self.fixed_seats(kind, name)
                if seats is not None and len(seats) == 1:
                    out[(kind, name)] = seats[0]
        return out

    def fixed_seats(self, kind: str, name: str) -> tuple[int, ...] | None:
        """The seats of a group whose membership is the same in every game, else None."""
        if kind in ("seat", "order"):
            return (int(name),)
        if kind == "policy" and self.seat_policies:
            return tuple(s for s, p in enumerate(self.seat_policies) if p == name)
        if kind == "team" and self.seat_teams is not None:
            return tuple(s for s, t in enumerate(self.seat_teams) if t == name)
        return None


def config_lineup(
    seats: Sequence[str],
    teams: Sequence[str] | None,
    team_names: Sequence[str] = (),
    role_names: Sequence[str] = (),
) -> Lineup:
    """The line-up of a run: the config's policy (and team) per seat, and the game's team and
    role names when it deals them per game (then the config's teams are not used)."""
    players = len(seats)
    seat_teams = None
    if not team_names:
        seat_teams = tuple(teams) if teams else tuple(str(s) for s in range(players))
        team_names = tuple(dict.fromkeys(seat_teams))
    return Lineup(
        players=players,
        policies=tuple(dict.fromkeys(seats)),
        teams=tuple(team_names),
        roles=tuple(role_names),
        seat_policies=tuple(seats),
        seat_teams=seat_teams,
    )


def seat_codes(lineup: Lineup, n: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Policy codes and (when fixed) team codes of every game as broadcast int32[n, P] views."""
    p = lineup.players
    pol = np.array([lineup.policies.index(x) for x in lineup.seat_policies], dtype=np.int32)
    team = None
    if lineup.seat_teams is not None:
        team = np.array([lineup.teams.index(t) for t in lineup.seat_teams], dtype=np.int32)
        team = np.broadcast_to(team, (n, p))
    return np.broadcast_to(pol, (n, p)), team


class Group(NamedTuple):
    kind: str  # one of KINDS
    name: str  # seat number, place in the order, or the policy's, team's or role's name
    code: int  # the seat, the place, or the index into the line-up's names of the kind


def groups(lineup: Lineup, kinds: Sequence[str] = KINDS) -> list[Group]:
    """The groups of a line-up, kind by kind in the order of ``kinds`` (a kind without names,
    such as ``role`` in a game without roles, has no groups)."""
    out: list[Group] = []
    for kind in kinds:
        out += [Group(kind, name, code) for code, name in enumerate(lineup.names(kind))]
    return out


def common_groups(a: Lineup, b: Lineup) -> tuple[list[Group], list[Group]]:
    """Groups present in both line-ups (same kind and name), each with its own code."""
    gb = {(g.kind, g.name): g for g in groups(b)}
    pairs = [(g, gb[(g.kind, g.name)]) for g in groups(a) if (g.kind, g.name) in gb]
    return [x for x, _ in pairs], [y for _, y in pairs]


class GameArrays(NamedTuple):
    """Outcomes of consecutive games as arrays: a row per game, a column per seat. The codes
    index the names of the run's :class:`Lineup` (``policy`` and ``team`` may be broadcast
    views when fixed for the run; ``role`` is None in a game without roles)."""

    first_game: int
    win: np.ndarray  # float64[n, P]: 1, 1/k for a win shared among k teams, 0
    score: np.ndarray  # float64[n, P]
    turns: np.ndarray  # float64[n]
    order: np.ndarray  # int[n, P]: place in the opening turn order, 0 = first player
    policy: np.ndarray | None = None  # int[n, P]
    team: np.ndarray | None = None  # int[n, P]
    role: np.ndarray | None = None  # int[n, P]
    # how each game played, from its trajectory (stats/plays.py; None: the run keeps none)
    plays: Any = None  # plays.GameMetrics

    @property
    def n_games(self) -> int:
        return int(self.win.shape[0])

    def rows(self, keep: slice | np.ndarray) -> GameArrays:
        """The games selected by ``keep`` (a slice or a boolean mask), numbered from 0."""
        arrays = tuple(self)[1:-1]
        return GameArrays(
            0,
            *(None if a is None else a[keep] for a in arrays),  # type: ignore[arg-type]
            plays=None if self.plays is None else self.plays.rows(keep),
        )


def _codes(arrays: GameArrays, kind: str) -> np.ndarray:
    codes = getattr(arrays, kind)
    if codes is None:
        raise ValueError(f"these game arrays carry no {kind} codes")
    return codes


def group_values(arrays: GameArrays, grps: Sequence[Group]) -> tuple[np.ndarray, np.ndarray]:
    """Per-game (win, score) of each group: two float64[n, G] arrays (see the module docstring);
    NaN where a policy, team or role has no seat in a game (a team's win is then 0)."""
    n = arrays.n_games
    win = np.empty((n, len(grps)), order="F")  # filled column by column
    score = np.empty((n, len(grps)), order="F")
    if any(g.kind == "order" for g in grps):
        # Column k of the rearranged arrays is the seat that was k-th in the opening order.
        seat_at = np.argsort(arrays.order, axis=1, kind="stable")
        win_o = np.take_along_axis(arrays.win, seat_at, axis=1)
        score_o = np.take_along_axis(arrays.score, seat_at, axis=1)
    for j, grp in enumerate(grps):
        if grp.kind == "seat":
            win[:, j], score[:, j] = arrays.win[:, grp.code], arrays.score[:, grp.code]
            continue
        if grp.kind == "order":
            win[:, j], score[:, j] = win_o[:, grp.code], score_o[:, grp.code]
            continue
        mask = _codes(arrays, grp.kind) == grp.code
        count = mask.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_score = np.where(mask, arrays.score, 0.0).sum(axis=1) / count
            if grp.kind == "team":
                w = np.where(mask, arrays.win, 0.0).max(axis=1)
            else:
                w = np.where(mask, arrays.win, 0.0).sum(axis=1) / count
        win[:, j], score[:, j] = w, mean_score
    return win, score
