"""Fit Raven Manor's belief tables (balance/games/raven_manor/beliefs.json) from self-play.

    python benchmarks/fit_beliefs.py [--games 3000] [--rounds 3] [--seed 11]

The reasoning players (balance/games/raven_manor/beliefs.py) weigh each public action by how
often a player of each side takes such an action in self-play. This script plays games of the
starter game (configs/raven_manor/base.yaml) at 3 to 10 players and of every card and
character (all_cards.yaml, 8 players), every seat ``reasoning``, and counts, at every turn's
action (RM-4):

- ``lik[class][side][relation]``: actions of each class (beliefs.CLASS_NAMES) by a seat of each
  side (0 Family, 1 evil) on a target of each relation to it (none, its side, another side),
  per opportunity: per action decision for "none", per living other seat of that relation for
  the others (a per-target rate, so that a side of 1 and a side of 4 compare), each side's rate
  shrunk toward the two sides' pooled rate by 100 opportunities (a class nobody took: 0 for both,
  no evidence);
- ``possessed[players][round]``: the share of living Family characters possessed for the Raven
  and for the Horseman at each round of the table in the starter game (the possession prior);
- ``bluff``: the Raven's public Feather discards per Feather it drew (RM-13).

The tables the reasoning players use shape the games the next fit counts (an evil seat hides
from the actions the tables call evil), so the fit is repeated (``--rounds``): round 1 from the
tables in the file (or, when there is none, from games of ``basic`` players), each next round from
games played with the previous round's tables, each round's tables fitted from the counts of
every round so far (a best response to each round alone oscillates: the evil side drops what the
last tables flagged). The result and its provenance are written to beliefs.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from balance import games as registry  # noqa: E402
from balance.config import load_config  # noqa: E402
from balance.config.overrides import parse_overrides  # noqa: E402
from balance.games.position import Position  # noqa: E402
from balance.games.raven_manor import beliefs as B  # noqa: E402
from balance.games.raven_manor import state as S  # noqa: E402
from balance.games.raven_manor import tables as T  # noqa: E402

PLAYERS = range(3, 11)  # the starter pool seats 2 to 10 (RM-30); 2 is a duel
# and every card and character (configs/raven_manor/all_cards.yaml, 8 players), so that every
# action class is seen: the starter deck has no targeted card outside kills, stuns, looks,
# swaps and trades
# each with table talk off and on (rules.talk, ENGINE-15): the actions' rates are the two's, the
# claims' come from the games with talk
GAMES = [
    (name, n, talk)
    for name, n in [("base.yaml", n) for n in PLAYERS] + [("all_cards.yaml", 8)]
    for talk in (False, True)
]
PRIOR = 100.0  # opportunities of the pooled rate each side's rate starts from (shrinkage)


def _side(st, p: int) -> int:
    return int(st.pl[p, S.PL_SIDE])


def _opportunity(st, a: int, players: int, acc: dict, per: str) -> int:
    """Count one decision of seat ``a`` (``per``: "" an action, "claim_" a claim) and a target
    opportunity per living other seat of each relation; returns ``a``'s side (0 Family, 1 evil)."""
    ev = 0 if _side(st, a) == T.FAMILY else 1
    acc[f"{per}decisions"][ev] += 1
    for q in range(players):
        if q != a and st.pl[q, S.PL_ALIVE]:
            rel = B.REL_SAME if _side(st, q) == _side(st, a) else B.REL_OTHER
            acc[f"{per}exposure"][ev, rel] += 1
    return ev


def count(
    name: str, players: int, talk: bool, policy: str, games: int, seed: int, acc: dict
) -> None:
    """Play ``games`` games of config ``name`` at ``players`` players, table talk on or off,
    every seat ``policy``, into ``acc``."""
    seats = f"seats=[{', '.join([policy] * players)}]"
    cfg = load_config(
        ROOT / "configs" / "raven_manor" / name,
        parse_overrides([f"players={players}", seats, f"rules.talk={str(talk).lower()}"]),
    )
    plugin = registry.get("raven_manor")
    compiled = plugin.compile(cfg)
    poss = acc["poss"].setdefault((name, players, talk), np.zeros((T.N_POSS_T, 3)))
    for g in range(games):
        pos = Position(plugin, compiled, seed, g)
        st = pos.state
        last_round = -1
        while not pos.done:
            rnd = min(int(st.board[S.G_TURN]) // players, T.N_POSS_T - 1)
            if rnd != last_round:
                last_round = rnd
                for p in range(players):
                    if st.pl[p, S.PL_ALIVE] and not S.evil(st.pl[p, S.PL_CHAR]):
                        poss[rnd, 0] += st.pl[p, S.PL_POSSESSED] == T.S_RAVEN
                        poss[rnd, 1] += st.pl[p, S.PL_POSSESSED] == T.S_HORSEMAN
                        poss[rnd, 2] += 1
            if pos.kind == "action":
                a = pos.actor
                code = pos.choose()
                base = S.B_CAND + 4 * code
                kind, c, t, o = (int(x) for x in st.board[base : base + 4])
                cls = int(B.action_class(kind, c, t, o))
                ev = _opportunity(st, a, players, acc, "")
                if cls == B.C_NONE or t < 0:
                    acc["n"][cls, ev, B.REL_NONE] += 1
                else:
                    rel = B.REL_SAME if _side(st, t) == _side(st, a) else B.REL_OTHER
                    acc["n"][cls, ev, rel] += 1
                pos.apply(code)
            elif pos.kind == "claim":
                a = pos.actor
                code = pos.choose()
                ev = _opportunity(st, a, players, acc, "claim_")
                said_before = code and int(st.pl[a, S.PL_SAID]) >> (code - 1) & 1
                if code != S.CLAIM_NONE and not said_before:  # a repeat is no evidence
                    cls, t = int(B.claim_class(code)), int(B.claim_target(code))
                    rel = B.REL_NONE
                    if t >= 0:
                        rel = B.REL_SAME if _side(st, t) == _side(st, a) else B.REL_OTHER
                    acc["n"][cls, ev, rel] += 1
                pos.apply(code)
            else:
                pos.play_policy()
        for p in range(players):
            if st.pl[p, S.PL_CHAR] == T.RAVEN:
                acc["bluff"][0] += st.pl[p, S.PL_FEATHER_DISC]
                acc["bluff"][1] += st.pl[p, S.PL_TELE + T.TE_DRAWN + T.FEATHER]


def new_counts() -> dict:
    return {
        "n": np.zeros((T.N_CLS, 2, T.N_REL)),
        "exposure": np.zeros((2, T.N_REL)),
        "decisions": np.zeros(2),
        "claim_exposure": np.zeros((2, T.N_REL)),
        "claim_decisions": np.zeros(2),
        "poss": {},
        "bluff": np.zeros(2),
    }


def fit(games: int, seed: int, policy: str, acc: dict) -> dict:
    """Add ``games`` games per line-up to the counts ``acc`` and fit the tables from all of
    them."""
    for name, players, talk in GAMES:
        count(name, players, talk, policy, games, seed + players, acc)
    # each side's rate per opportunity, shrunk toward the two sides' pooled rate by PRIOR
    # opportunities: a class no side took has rate 0 for both (no evidence), one seen a few
    # times stays near the pooled rate rather than jumping by the sides' exposures
    lik = np.zeros((T.N_CLS, 2, T.N_REL))
    n = acc["n"]
    for first, last, per in ((0, B.C_SAY_FAMILY, ""), (B.C_SAY_FAMILY, T.N_CLS, "claim_")):
        for rel in range(T.N_REL):  # actions per action decision, claims per claim decision
            exposure = (
                acc[f"{per}decisions"] if rel == B.REL_NONE else acc[f"{per}exposure"][:, rel]
            )
            pooled = n[first:last, :, rel].sum(axis=1) / max(exposure.sum(), 1)
            for ev in range(2):
                lik[first:last, ev, rel] = (n[first:last, ev, rel] + PRIOR * pooled) / (
                    exposure[ev] + PRIOR
                )
    possessed = {}
    for (name, players, talk), rows in sorted(acc["poss"].items()):
        if name != "base.yaml" or talk:
            continue  # the prior is the starter game's, without talk
        seen = rows[:, 2] > 0
        share = np.zeros((T.N_POSS_T, 2))
        share[seen] = rows[seen, :2] / rows[seen, 2:3]
        last = int(np.flatnonzero(seen).max()) if seen.any() else 0
        share[~seen] = share[last]  # rounds no game reached: the last round seen
        possessed[str(players)] = [[float(f"{x:.5g}") for x in r] for r in share.tolist()]
    bluff = (acc["bluff"][0] + 1) / (acc["bluff"][1] + 2)
    return {
        "lik": [[[float(f"{x:.6g}") for x in r] for r in side] for side in lik.tolist()],
        "bluff": round(float(bluff), 5),
        "possessed": possessed,
        "counts": {
            "actions": acc["n"].astype(int).tolist(),
            "exposure": acc["exposure"].astype(int).tolist(),
            "decisions": acc["decisions"].astype(int).tolist(),
            "claim_exposure": acc["claim_exposure"].astype(int).tolist(),
            "claim_decisions": acc["claim_decisions"].astype(int).tolist(),
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000, help="games per player count and round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    path = T.BELIEFS_FILE
    acc = new_counts()
    for r in range(args.rounds):
        policy = "reasoning" if path.exists() else "basic"
        t0 = time.perf_counter()
        data = fit(args.games, args.seed + 1000 * r, policy, acc)
        data["provenance"] = {
            "script": "benchmarks/fit_beliefs.py",
            "configs": [
                f"configs/raven_manor/{name} at {n} players, talk {'on' if talk else 'off'}"
                for name, n, talk in GAMES
            ],
            "games_per_players": args.games,
            "games_per_players_all_rounds": args.games * (r + 1),
            "seed": args.seed + 1000 * r,
            "round": r + 1,
            "rounds": args.rounds,
            "played_by": policy,
            "classes": list(B.CLASS_NAMES),
            "sides": ["family", "evil"],
            "relations": ["none", "same side", "other side"],
        }
        path.write_text(json.dumps(data, indent=1) + "\n")
        lik = np.array(data["lik"])
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = lik[:, 1, :] / lik[:, 0, :]  # nan: a class no side took (no evidence)
        print(f"round {r + 1} ({policy} players, {time.perf_counter() - t0:.0f} s): evil/family "
              f"rate ratios (none, same, other):")  # fmt: skip
        for name, row in zip(B.CLASS_NAMES, ratio, strict=True):
            print(f"  {name:13s} " + "  ".join(f"{x:6.2f}" for x in row))
        print(f"  bluff {data['bluff']}")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
