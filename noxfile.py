"""Developer tasks: `nox -s tests`, `nox -s faults`, `nox -s lint`, `nox -s bench`, `nox -s reports`."""

import os
import shutil
from pathlib import Path

import nox

# The published reports under reports/: (config, games, games per card-impact variant) each; the
# report is reports/<game>.html. The variants' games are fixed (report.impact_games) rather than
# left to the report's time budget, so that the same page comes out on any machine.
REPORTS = {
    "five_ravens": ("configs/five_ravens/base.yaml", 1_000_000, 100_000),
    "raven_order": ("configs/raven_order/base.yaml", 200_000, 200_000),
    "raven_manor": ("configs/raven_manor/base.yaml", 200_000, 20_000),
    "corvids": ("configs/corvids/base.yaml", 200_000, 10_000),
}
# Each game's default skill ladder (`balance ladder CONFIG`), the "Skill" section of its report:
# kept between runs (half an hour to an hour and a half a game on two cores), so that a stopped
# `nox -s reports` resumes it and a finished one is not played again; delete a game's folder
# after changing its ladder's defaults.
LADDERS = Path(".nox") / "ladders"
# The published ladders' rungs where they are not the default: Corvids' and Raven Manor's default
# ladders stop at search_8 to fit half an hour (balance/experiments/ladder.py, BUDGETS); a
# published report shows the strongest rung this release has measured, search_32 (47 and 66 min).
LADDER_RUNGS = {
    "raven_manor": "random,basic,search_2,search_8,search_32",
    "corvids": "random,greedy,search_2,search_8,search_32",
}

# Games of each published report's census (`balance census RESULTS`, kingmaking tested): a few
# minutes a game, replayed decision by decision
CENSUS_GAMES = 1_000

# Published sweep pages: reports/<name>.html of `balance sweep CONFIG --over KNOB --games N`.
SWEEPS = {
    "five_ravens_players": ("configs/five_ravens/first_player_edge.yaml", "players=2,3,4", 200_000),
    "five_ravens_hand_size": (
        "configs/five_ravens/first_player_edge.yaml",
        "rules.hand_size=2,3,4,5,6",
        200_000,
    ),
}


@nox.session(reuse_venv=True)  # the inner loop: no new environment on every run
def tests(session: nox.Session) -> None:
    """Run the test suite; extra arguments go to pytest. The inner loop of development is
    `nox -s tests -- -m "not slow"` (the tests marked slow left out; docs/development.md gives
    its time); `.ci/run` runs the whole suite. On as many workers as the machine has cores
    (pytest-xdist) unless the arguments say otherwise (`-n 0`: one process). The package is
    installed editable: the tests run the working tree, whose compiled kernels numba's cache
    keeps between runs; its environment is kept too (`nox -R` also skips the install)."""
    session.install("-e", ".[test]")
    args = list(session.posargs)
    if not any(
        a in ("-n", "--numprocesses") or a.startswith(("-n", "--numprocesses=")) for a in args
    ):
        args = ["-n", "auto", *args]
    session.run("pytest", *args)


@nox.session
def faults(session: nox.Session) -> None:
    """Run every case of the fault suite (the default test run takes a seeded sample): kills,
    two writers, a full disk, byte flips and the bad-input matrix; extra arguments go to pytest.

    About 5 minutes on two cores; mounting its small disk needs root (else that case skips)."""
    session.install(".[test]")
    session.run(
        "pytest",
        "tests/test_faults.py",
        "tests/test_bad_input_matrix.py",
        *session.posargs,
        env={"BALANCE_FAULTS": "all"},
    )


@nox.session
def lint(session: nox.Session) -> None:
    """Check the code with ruff."""
    session.install("ruff")
    session.run("ruff", "check", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Measure every game on this machine: compile, start-up, games/s, plain-Python ratio, targets.

    Takes a few minutes per game; extra arguments go to `balance bench`, e.g.
    `nox -s bench -- --no-cold --games 300000`. A first argument naming a game measures only
    that one: `nox -s bench -- raven_order --no-cold`.
    """
    session.install(".")
    games = ["five_ravens", "raven_order"]
    args = list(session.posargs)
    if args and not args[0].startswith("-"):
        games, args = [args[0]], args[1:]
    for game in games:
        session.run("balance", "bench", game, *args)


@nox.session
def reports(session: nox.Session) -> None:
    """Regenerate the published reports, reports/<game>.html for each game in REPORTS and
    reports/<name>.html for each sweep in SWEEPS (`balance sweep CONFIG --over KNOB --report`).

    Each is `balance simulate CONFIG --games N`, then `balance census` of its first CENSUS_GAMES
    games and `balance report -o reports/GAME.html`, in a scratch results
    directory named after the game (the report's title and section names), inside this session's
    folder and given relative to the repository, so that the pages' provenance carries relative
    paths only (configs/..., .nox/reports/tmp/GAME), never /tmp or a home directory. Each game's
    skill ladder (its default, or LADDER_RUNGS) is played first into .nox/ladders/GAME (kept, see
    LADDERS) and given as `--ladder`, the report's "Skill" section; `-- --no-ladder` leaves it
    out. The scratch
    directory is deleted afterwards, so a page never points a reader into it: the card impact's
    variants, kept there as variants.json, are named by the command that plays them
    (balance/report/sections.py, ``impact_source``). A first argument naming a game regenerates
    only that one: `nox -s reports -- raven_order`; with `nox --no-venv -s reports` it uses the
    installed balance.
    """
    if session.venv_backend != "none":
        session.install(".")
    known = [*REPORTS, *SWEEPS]
    names = [a for a in session.posargs if not a.startswith("-")] or known
    unknown = sorted(set(names) - set(known))
    if unknown:
        session.error(f"unknown report {', '.join(unknown)}; known: {', '.join(known)}")
    scratch = Path(os.path.relpath(session.create_tmp(), Path.cwd()))
    for name in (n for n in names if n in SWEEPS):
        config, knob, games = SWEEPS[name]
        out = scratch / name
        shutil.rmtree(out, ignore_errors=True)
        session.run(
            "balance", "sweep", config, "--over", knob, "--games", str(games), "--report",
            f"reports/{name}.html", "--out", str(out), "--force", "--yes",
        )  # fmt: skip
        shutil.rmtree(out, ignore_errors=True)
    for game in (n for n in names if n in REPORTS):
        config, games, impact_games = REPORTS[game]
        out = scratch / game
        shutil.rmtree(out, ignore_errors=True)
        skill = []
        if "--no-ladder" not in session.posargs:
            ladder = LADDERS / game  # kept: the same command again resumes it or keeps it
            rungs = ["--rungs", LADDER_RUNGS[game]] if game in LADDER_RUNGS else []
            session.run("balance", "ladder", config, "--out", str(ladder), "--yes", *rungs)
            skill = ["--ladder", str(ladder)]
        session.run(
            "balance", "simulate", config, "--games", str(games), "--out", str(out), "--force",
            "--yes", "--set", f"report.impact_games={impact_games}",
        )  # fmt: skip
        # the census the page's "How the game plays" reads: turns per place, dead turns, kingmaking
        session.run("balance", "census", str(out), "--games", str(CENSUS_GAMES))
        session.run("balance", "report", str(out), "-o", f"reports/{game}.html", *skill)
        shutil.rmtree(out, ignore_errors=True)
