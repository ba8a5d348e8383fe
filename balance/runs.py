"""A run as a command asks for one: new or resumed, and the card impact its report plays.

``balance simulate`` plays a config into a results directory, or goes on with a run that was
stopped (``--resume DIR``): :func:`plan_run` decides which from what was given and loads the
config, :func:`run_costs` checks the run's options and says why it deserves a question,
:func:`play_run` plays it (runner.run or runner.resume). The report of a run carries the causal
card impact of the game's report and impact variants, played on the run's first games when they
fit the config's ``report.impact_seconds``: :func:`run_impact` after ``simulate --report``,
:func:`results_impact` for ``balance report`` of a directory without one, then
:func:`play_impact`.

Nothing here prints or asks: the CLI says what a plan is, asks, and draws the progress. Errors
are one line (``BalanceError``) naming the option or file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from balance import runner
from balance.errors import BalanceError

Progress = Callable[[int, int], None]


class RunPlan(NamedTuple):
    """What ``balance simulate`` plays: ``config`` anew into ``out``, or (``resumed``) the run
    stopped in ``out``, from its finished chunks."""

    config: Any  # the RunConfig given, --set applied; None: a resumed run plays its recorded one
    config_path: str | None  # the config file as the manifest records it
    config_label: str | None  # the config file as given (a resumed run's errors name it)
    out: Path
    resumed: bool
    games: int | None  # None: the config's (a resumed run: its own)
    seed: int | None
    chunk_size: int | None  # None: a resumed run's own
    force: bool


def plan_run(
    config: str | os.PathLike[str] | None,
    sets: list[str] | None = None,
    *,
    config_path: str | None = None,
    out: Path | None = None,
    resume: Path | None = None,
    force: bool = False,
    games: int | None = None,
    seed: int | None = None,
    chunk_size: int | None = None,
) -> RunPlan:
    """A new run of the config file ``config`` (``--set`` ``sets`` applied) into ``out``
    (default: runner.default_out), or with ``resume`` the continuation of the run in that
    directory, which ``config`` (optional), ``games``, ``seed`` and ``chunk_size`` must match.
    ``config_path``: the file as the manifest records it (default: as given)."""
    if resume is not None:
        for option, given in (("--out", out), ("--force", force or None)):
            if given is not None:
                raise BalanceError(f"{option}: --resume {resume} writes into the run's directory")
        if config is None and sets:
            raise BalanceError(
                f"--set {sets[0]}: --resume without CONFIG plays the run's recorded config"
            )
    elif config is None:
        raise BalanceError("give a CONFIG file to play (or --resume DIR to continue a run)")
    cfg = None
    if config is not None:
        from balance.config import load_config
        from balance.config.overrides import parse_overrides

        cfg = load_config(config, parse_overrides(sets))
        config_path = str(config) if config_path is None else config_path
    if resume is None:
        chunk_size = runner.CHUNK if chunk_size is None else chunk_size
        out = out or runner.default_out(cfg, config)
    return RunPlan(
        config=cfg,
        config_path=config_path,
        config_label=None if config is None else str(config),
        out=Path(resume if resume is not None else out),
        resumed=resume is not None,
        games=games,
        seed=seed,
        chunk_size=chunk_size,
        force=force,
    )


def run_costs(plan: RunPlan, *, threads: int | None = None) -> list[str]:
    """Why a new run deserves a question before it starts (runner.run_costs: more than an hour,
    more disk than is free), after checking its options: a bad option is its own error, not a
    question. A resumed run checks its options against its manifest as it starts: []."""
    if plan.resumed:
        return []
    cfg = plan.config
    runner.check_options(
        games=cfg.games if plan.games is None else plan.games,
        seed=cfg.seed if plan.seed is None else plan.seed,
        chunk_size=plan.chunk_size,
        threads=threads,
        players=len(cfg.seats),
    )
    return runner.run_costs(cfg, games=plan.games, out=plan.out, threads=threads)


def play_run(
    plan: RunPlan, *, threads: int | None = None, progress: Progress | None = None
) -> runner.RunSummary:
    """Play ``plan``: runner.run, or runner.resume (whose summary has ``games_kept`` equal to
    ``games_requested`` when the run was complete already: nothing played). Ctrl-C raises
    runner.Interrupted once the run writes, a plain KeyboardInterrupt before."""
    if plan.resumed:
        return runner.resume(
            plan.out,
            config=plan.config,
            config_label=plan.config_label,
            games=plan.games,
            seed=plan.seed,
            chunk_size=plan.chunk_size,
            threads=threads,
            progress=progress,
        )
    return runner.run(
        plan.config,
        config_path=plan.config_path,
        out=plan.out,
        games=plan.games,
        seed=plan.seed,
        threads=threads,
        chunk_size=plan.chunk_size,
        force=plan.force,
        progress=progress,
    )


def recorded_run(results_dir: Path, *, game: int = 0, seed: int | None = None) -> tuple[Any, int]:
    """The resolved config and seed a results directory's manifest recorded (``seed`` wins);
    without ``seed``, ``game`` must be one of the run's games."""
    from balance.config import config_from_dict
    from balance.results import MANIFEST, read_manifest

    manifest = read_manifest(results_dir)
    recorded = manifest.get("config")
    if not isinstance(recorded, dict):
        raise BalanceError(f"{results_dir}: its {MANIFEST} records no config")
    cfg = config_from_dict(recorded, str(results_dir / MANIFEST))
    done = int(manifest.get("games_done") or 0)
    if seed is None and not 0 <= game < max(done, 1):
        raise BalanceError(
            f"--game {game}: {results_dir} holds games 0 to {done - 1:,}"
            if done
            else f"--game {game}: {results_dir} holds no games"
        )
    return cfg, int(manifest.get("seed", cfg.seed)) if seed is None else seed


# ================================================================= the report's card impact


class CardImpact(NamedTuple):
    """The causal card impact a run's report plays: ``plan`` (experiments.ReportImpactPlan: the
    variants, the games per variant and why) on the first games of the run in ``results_dir``."""

    plan: Any  # experiments.ReportImpactPlan
    config: Any
    config_path: str | None
    results_dir: Path
    seed: int


def run_impact(plan: RunPlan, summary: runner.RunSummary) -> CardImpact:
    """The card impact ``simulate --report`` plays after the run of ``plan`` (``summary``): as
    many games as fit the config's ``report.impact_seconds`` at the run's speed."""
    # Statistics import scipy (a second): only a run with --report pays for them.
    from balance import experiments
    from balance import games as registry

    if plan.resumed:
        cfg, config_path = runner.recorded_config(plan.out), plan.config_path
        config_path = runner.recorded_path(plan.out) if config_path is None else config_path
    else:
        cfg, config_path = plan.config, plan.config_path
    impact = experiments.plan_report_impact(
        cfg,
        registry.get(cfg.game),
        games_done=summary.games_done,
        games_per_s=summary.games_per_s,
    )
    return CardImpact(impact, cfg, config_path, summary.out, summary.seed)


def results_impact(results_dir: Path) -> CardImpact | None:
    """The card impact the report of ``results_dir`` plays, which has none yet
    (RESULTS/variants.json): on the run's first games and seed, within the config's
    report.impact_seconds at the run's recorded speed. None when the directory has its card
    impact already, or is no run (the report says what is wrong)."""
    from balance import experiments
    from balance import games as registry
    from balance.experiments.impact import check_report_variants
    from balance.results import read_manifest

    if (results_dir / experiments.REPORT_VARIANTS_FILE).exists() or not (
        results_dir / "manifest.json"
    ).exists():
        return None
    check_report_variants(results_dir, skip="--no-impact")  # before the games, not after them
    manifest = read_manifest(results_dir)
    cfg, seed = recorded_run(results_dir)
    impact = experiments.plan_report_impact(
        cfg,
        registry.get(cfg.game),
        games_done=int(manifest.get("games_done") or 0),
        games_per_s=float(manifest.get("games_per_s") or 0.0),
    )
    config_path = str(manifest.get("config_path") or results_dir)
    return CardImpact(impact, cfg, config_path, results_dir, seed)


def play_impact(
    impact: CardImpact, *, threads: int | None = None, progress: Progress | None = None
) -> Path | None:
    """Play ``impact`` into RESULTS/variants.json (experiments.play_report_variants, under the
    directory's writer lock); None, playing nothing, when its plan has no games."""
    from balance import experiments

    if not impact.plan.games:
        return None
    return experiments.play_report_variants(
        impact.config,
        impact.plan.variants,
        config_path=impact.config_path,
        results_dir=impact.results_dir,
        games=impact.plan.games,
        seed=impact.seed,
        threads=threads,
        progress=progress,
        featured=impact.plan.featured,
    )
