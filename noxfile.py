"""Developer tasks: `nox -s tests`, `nox -s lint`, `nox -s bench`."""

import nox


@nox.session
def tests(session: nox.Session) -> None:
    """Run the test suite; extra arguments go to pytest (e.g. `nox -s tests -- -n 2`)."""
    session.install(".[test]")
    session.run("pytest", *session.posargs)


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
