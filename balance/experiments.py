"""Runs that combine several simulations: interventional card impact, compare, check.

Every experiment here plays two or more configs on the same seeds and game indices. By the
runner's common random numbers (DESIGN.md) game ``i`` of seed ``s`` draws the same random numbers
under every config, so the per-game difference between two configs carries only the effect of
the change plus the chaos it causes, and a paired t-interval over games (balance/stats/paired.py)
needs far fewer games than comparing two independent runs.

Games are played in memory through the plugin protocol (``plugin.play``), chunk by chunk, and
each chunk is reduced at once to per-game win/score/turns arrays and then to running moments:
nothing is written to disk and memory stays flat however many games run.

Nothing here prints: progress goes through a ``progress(done, total)`` callback and errors are
raised (``ConfigError`` for a bad variant, spec or config, ``RunnerError`` for bad options).
"""

from __future__ import annotations

import difflib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple
from xml.etree import ElementTree as ET

import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from balance import results, runner, stats
from balance.config import ConfigError, RunConfig, config_from_dict, load_config, load_yaml
from balance.games.base import Chunk
from balance.runner import CHUNK, RunnerError

Progress = Callable[[int, int], None]


# =========================================================================== variants and patches


class Variant(NamedTuple):
    """A named change to a config: ``patch`` is merged into the resolved config."""

    name: str
    description: str
    patch: dict[str, Any]


def merge_patch(base: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``patch`` over ``base``: mappings merge key by key, lists and scalars replace (as
    ``extends`` does)."""
    out = dict(base)
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge_patch(out[key], value)
        else:
            out[key] = value
    return out


def apply_patch(config: RunConfig, variant: Variant, *, source: str = "variants") -> RunConfig:
    """``config`` with ``variant.patch`` merged in, validated; a bad patch raises a one-line
    ConfigError naming ``source``, the variant and the key."""
    where = f"{source} (variant {variant.name!r})"
    if not isinstance(variant.patch, dict):
        raise ConfigError(f"{where}: patch: expected a mapping", file=where, key="patch")
    for key in ("game", "seed", "games"):
        if key in variant.patch:
            # Pairing needs the same game and seeds; the number of games is the experiment's.
            raise ConfigError(
                f"{where}: {key}: a variant may not change {key}", file=where, key=key
            )
    data = merge_patch(config.resolved_dict(), variant.patch)
    return config_from_dict(data, where)


def default_variants(plugin: Any, config: RunConfig) -> list[Variant]:
    """The variants a game proposes for ``config`` (its ``impact_variants(config)`` hook, a list
    of ``{name, description, patch}``); [] if the game has none."""
    hook = getattr(plugin, "impact_variants", None)
    if hook is None:
        return []
    return [_variant(v, f"{plugin.name}.impact_variants", i) for i, v in enumerate(hook(config))]


def report_variants(plugin: Any, config: RunConfig) -> list[Variant]:
    """The variants a report of ``config`` always sets beside it (the game's
    ``report_variants(config)`` hook); [] if the game has none."""
    hook = getattr(plugin, "report_variants", None)
    if hook is None:
        return []
    return [_variant(v, f"{plugin.name}.report_variants", i) for i, v in enumerate(hook(config))]


REPORT_VARIANTS_FILE = "variants.json"  # in a results directory, beside manifest.json


class _VariantModel(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1)
    description: str = ""
    patch: dict[str, Any]


def _variant(data: Any, source: str, index: int) -> Variant:
    try:
        v = _VariantModel.model_validate(data)
    except ValidationError as e:
        raise _spec_error(e, source, _VariantModel, prefix=(index,)) from None
    return Variant(v.name, v.description, v.patch)


def load_variants(path: str | os.PathLike[str]) -> list[Variant]:
    """Variants from a YAML file: a list of ``{name, description, patch}`` (or a mapping with
    that list under ``variants:``)."""
    shown = os.fspath(path)
    data = _read_yaml_list(shown)
    variants = [_variant(v, shown, i) for i, v in enumerate(data)]
    seen: set[str] = set()
    for i, v in enumerate(variants):
        if v.name in seen:
            raise ConfigError(f"{shown}: [{i}].name: duplicate variant name {v.name!r}")
        seen.add(v.name)
    return variants


def _read_yaml_list(shown: str) -> list[Any]:
    import yaml

    try:
        with open(shown, encoding="utf-8") as f:
            data = yaml.safe_load(f)
    except FileNotFoundError:
        raise ConfigError(f"{shown}: file not found", file=shown) from None
    except OSError as e:
        raise ConfigError(f"{shown}: cannot read: {e.strerror}", file=shown) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{shown}: invalid YAML{where}: {e.problem}", file=shown) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"{shown}: invalid YAML: {e}", file=shown) from None
    if isinstance(data, dict) and set(data) == {"variants"}:
        data = data["variants"]
    if not isinstance(data, list) or not data:
        raise ConfigError(
            f"{shown}: expected a non-empty list of variants ({{name, description, patch}})",
            file=shown,
        )
    return data


# ================================================================================ playing games


def lineup(run: runner.Prepared) -> stats.Lineup:
    """The groups a prepared run's games can have (its policies, teams and roles)."""
    cfg = run.config
    return stats.config_lineup(cfg.seats, cfg.teams, run.team_names, run.role_names)


def chunk_arrays(chunk: Chunk, run: runner.Prepared, line: stats.Lineup) -> stats.GameArrays:
    """A chunk's outcomes as per-game arrays: ``win`` as in the results dataset (1/k over the
    distinct winning teams), and each seat's policy, team and role codes of every game."""
    team, _ = results.team_codes(chunk, run.config.teams or line.teams, run.team_names)
    win, _ = results.win_values(chunk.rank, team)
    policy, _ = stats.seat_codes(line, chunk.n_games)
    return stats.GameArrays(
        first_game=chunk.first_game,
        win=win,
        score=chunk.score.astype(np.float64),
        turns=chunk.turns.astype(np.float64),
        order=chunk.order,
        policy=policy,
        team=team,
        role=chunk.role,
    )


class Runs:
    """Configs prepared to play on common seeds, with their line-ups."""

    def __init__(self, configs: Sequence[RunConfig], seed: int, *, load: bool = True) -> None:
        self.runs = [runner.prepare(cfg, seed=seed, load=load) for cfg in configs]
        self.lineups = [lineup(r) for r in self.runs]

    def load(self, seed: int) -> None:
        """Load the kernels of runs prepared with ``load=False``."""
        self.runs = [runner.load(r, seed=seed) for r in self.runs]

    def play(
        self, *, seed: int, games: int, first_game: int = 0, chunk_size: int = CHUNK
    ) -> Iterator[list[stats.GameArrays]]:
        """Per-game arrays of every run for each chunk of games (the same games for all)."""
        for chunks in runner.play_chunks(
            self.runs, seed=seed, games=games, first_game=first_game, chunk_size=chunk_size
        ):
            yield [
                chunk_arrays(c, r, line)
                for c, r, line in zip(chunks, self.runs, self.lineups, strict=True)
            ]


def play_paired(
    configs: Sequence[RunConfig],
    *,
    games: int,
    seed: int,
    threads: int | None = None,
    chunk_size: int = CHUNK,
) -> Iterator[list[stats.GameArrays]]:
    """Play ``games`` games of every config on seed ``seed``, yielding the per-game arrays of
    each chunk (one per config, the same games for all)."""
    runner.check_options(games=games, seed=seed, chunk_size=chunk_size, threads=threads)
    with runner.numba_threads(threads):
        yield from Runs(configs, seed).play(seed=seed, games=games, chunk_size=chunk_size)


# ==================================================================================== compare


class Comparison(NamedTuple):
    """Paired differences B - A of two configs run on the same seeds (report: draw ``table``)."""

    a_path: str
    b_path: str
    a_config: RunConfig
    b_config: RunConfig
    games: int
    seed: int
    level: float
    method: str  # how the intervals are made
    table: pl.DataFrame  # stats.PairedAccumulator.table: metric, kind, group, a, b, diff, lo, hi...
    wall_time_s: float
    a_lineup: stats.Lineup | None = None  # the groups each run has (policies, teams, roles)
    b_lineup: stats.Lineup | None = None


def _check_pairable(a: RunConfig, b: RunConfig, what: str) -> None:
    if a.players != b.players:
        raise RunnerError(
            f"{what} needs the same number of players, got {a.players} and {b.players}"
        )
    if a.game != b.game:
        raise RunnerError(f"{what} needs configs of the same game, got {a.game} and {b.game}")


def compare(
    a: RunConfig,
    b: RunConfig,
    *,
    a_path: str = "A",
    b_path: str = "B",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    level: float = 0.95,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
) -> Comparison:
    """Run A and B on the same seeds (default: A's games and seed) and pair them game by game."""
    games = a.games if games is None else games
    seed = a.seed if seed is None else seed
    _check_pairable(a, b, "compare")
    runner.check_options(games=games, seed=seed, chunk_size=chunk_size, threads=threads)
    report = progress or (lambda done, total: None)
    t0 = time.perf_counter()
    with runner.numba_threads(threads):
        runs = Runs([a, b], seed)
        acc = stats.PairedAccumulator(*stats.common_groups(*runs.lineups))
        for arr_a, arr_b in runs.play(seed=seed, games=games, chunk_size=chunk_size):
            acc.add(arr_a, arr_b)
            report(acc.games, games)
    return Comparison(
        a_path=a_path,
        b_path=b_path,
        a_config=a,
        b_config=b,
        games=acc.games,
        seed=seed,
        level=level,
        method=stats.METHOD,
        table=acc.table(level),
        wall_time_s=time.perf_counter() - t0,
        a_lineup=runs.lineups[0],
        b_lineup=runs.lineups[1],
    )


# ================================================================================ card impact


class Impact(NamedTuple):
    """Interventional impact: every variant against the base config on the same seeds.

    ``table`` is long: one row per (variant, metric, group) with the columns of
    stats.PairedAccumulator.table (a = base, b = variant, diff = variant - base) plus
    ``variant``, ``description``, ``q_value`` (Benjamini-Hochberg over the win-share rows of
    all variants) and ``flagged`` (q < 0.05). ``significant`` is per row (the interval
    excludes 0); with dozens of variants and groups some intervals exclude 0 by chance, and
    ``flagged`` is the one to show. ``summary`` has one row per variant, sorted by ``effect``:
    the win-share change of the seat, place in the turn order, policy or team that moved most
    (``kind``, ``group``, ``diff``, ``lo``, ``hi``, ``p_value``, ``q_value``, ``significant``,
    ``flagged``), and the change in game length (``turns_diff``, ``turns_lo``, ``turns_hi``).
    """

    config_path: str
    config: RunConfig
    variants: list[Variant]
    games: int
    seed: int
    level: float
    method: str
    table: pl.DataFrame
    summary: pl.DataFrame
    wall_time_s: float
    lineup: stats.Lineup | None = None  # the base run's groups (policies, teams, roles)


def impact(
    config: RunConfig,
    variants: Sequence[Variant],
    *,
    config_path: str = "config",
    variants_source: str = "variants",
    games: int | None = None,
    seed: int | None = None,
    threads: int | None = None,
    level: float = 0.95,
    chunk_size: int = CHUNK,
    progress: Progress | None = None,
) -> Impact:
    """Play ``config`` and each variant on the same seeds; the paired change of each variant.

    Chunks are the outer loop (the base chunk is played once and paired with every variant's),
    so memory holds one chunk per run at a time.
    """
    if not variants:
        raise RunnerError("no variants to measure")
    games = config.games if games is None else games
    seed = config.seed if seed is None else seed
    configs = [apply_patch(config, v, source=variants_source) for v in variants]
    for cfg in configs:
        _check_pairable(config, cfg, "a variant")
    runner.check_options(games=games, seed=seed, chunk_size=chunk_size, threads=threads)
    report = progress or (lambda done, total: None)
    total = games * (1 + len(configs))
    t0 = time.perf_counter()
    done = 0
    with runner.numba_threads(threads):
        runs = Runs([config, *configs], seed)
        base_line = runs.lineups[0]
        accs = [
            stats.PairedAccumulator(*stats.common_groups(base_line, line))
            for line in runs.lineups[1:]
        ]
        for arrays in runs.play(seed=seed, games=games, chunk_size=chunk_size):
            base = arrays[0]
            for acc, arr in zip(accs, arrays[1:], strict=True):
                acc.add(base, arr)
            done += base.n_games * len(arrays)
            report(done, total)
    tables = [
        acc.table(level).with_columns(variant=pl.lit(v.name), description=pl.lit(v.description))
        for v, acc in zip(variants, accs, strict=True)
    ]
    table = pl.concat(tables).select("variant", "description", pl.exclude("variant", "description"))
    table = _with_qvalues(table, base_line)
    return Impact(
        config_path=config_path,
        config=config,
        variants=list(variants),
        games=accs[0].games,
        seed=seed,
        level=level,
        method=stats.METHOD,
        table=table,
        summary=_impact_summary(table, list(variants)),
        wall_time_s=time.perf_counter() - t0,
        lineup=base_line,
    )


def _with_qvalues(table: pl.DataFrame, line: stats.Lineup) -> pl.DataFrame:
    """Benjamini-Hochberg q-values over the win-share changes of all variants, so that a table of
    hundreds of intervals flags few changes by chance. A one-seat team repeats its seat's row: it
    is left out of the family and shares the seat's q-value. ``flagged``: q < 0.05."""
    shares = (table["metric"] == "win_share").to_numpy()
    kinds, groups = table["kind"].to_numpy(), table["group"].to_numpy()
    seat_of = {}
    for name in line.teams:
        seats = line.fixed_seats("team", name)
        if seats is not None and len(seats) == 1:
            seat_of[name] = seats[0]
    repeat = shares & np.array(
        [k == "team" and g in seat_of for k, g in zip(kinds, groups, strict=True)]
    )
    family = shares & ~repeat
    q = np.full(table.height, np.nan)
    q[family] = stats.bh_qvalues(table["p_value"].to_numpy()[family])
    table = table.with_columns(q_value=pl.Series(q))
    if repeat.any():
        seat_q = table.filter(pl.col("metric") == "win_share", pl.col("kind") == "seat").select(
            "variant", seat=pl.col("group"), seat_q=pl.col("q_value")
        )
        table = (
            table.with_row_index("_i")
            .with_columns(
                seat=pl.col("group").replace_strict(
                    {k: str(v) for k, v in seat_of.items()}, default=None, return_dtype=pl.String
                )
            )
            .join(seat_q, on=["variant", "seat"], how="left")
            .with_columns(
                q_value=pl.when(pl.Series(repeat))
                .then(pl.col("seat_q"))
                .otherwise(pl.col("q_value"))
            )
            .sort("_i")
            .drop("_i", "seat", "seat_q")
        )
    return table.with_columns(flagged=pl.col("q_value").fill_nan(None).fill_null(1.0) < 0.05)


def _impact_summary(table: pl.DataFrame, variants: list[Variant]) -> pl.DataFrame:
    shares = table.filter(pl.col("metric") == "win_share")
    top = (
        shares.with_columns(effect=pl.col("diff").abs())
        .sort("effect", descending=True, maintain_order=True)
        .group_by("variant", maintain_order=True)
        .first()
        .select(
            "variant",
            "effect",
            "kind",
            "group",
            "diff",
            "lo",
            "hi",
            "p_value",
            "q_value",
            "significant",
            "flagged",
        )
    )
    turns = table.filter(pl.col("metric") == "mean_turns").select(
        "variant", turns_diff="diff", turns_lo="lo", turns_hi="hi"
    )
    desc = pl.DataFrame(
        {"variant": [v.name for v in variants], "description": [v.description for v in variants]}
    )
    out = desc.join(top, on="variant", how="left").join(turns, on="variant", how="left")
    return out.sort("effect", descending=True, maintain_order=True)


def check_impact_out(path: str | os.PathLike[str]) -> None:
    """Refuse a bad ``--out`` before minutes of games rather than after them."""
    path = Path(path)
    if path.suffix not in (".json", ".parquet"):
        raise RunnerError(f"{path}: --out must end in .json or .parquet")
    if not path.parent.is_dir():
        raise RunnerError(
            f"{path}: no such directory {path.parent}; create it or choose another --out"
        )
    if path.is_dir():
        raise RunnerError(f"{path}: is a directory; --out names a .json or .parquet file")


def write_impact(result: Impact, path: str | os.PathLike[str]) -> Path:
    """Write the impact table: ``.parquet`` (the long table) or ``.json`` (provenance, summary
    and the long table)."""
    import json

    path = Path(path)
    if path.suffix == ".parquet":
        result.table.write_parquet(path)
    elif path.suffix == ".json":
        data = {
            "config_path": result.config_path,
            "config": result.config.resolved_dict(),
            "games": result.games,
            "seed": result.seed,
            "level": result.level,
            "method": result.method,
            "variants": [v._asdict() for v in result.variants],
            "summary": _no_nan(result.summary.to_dicts()),
            "table": _no_nan(result.table.to_dicts()),
        }
        path.write_text(json.dumps(data, indent=1, default=_json_default, allow_nan=False) + "\n")
    else:
        raise RunnerError(f"{path}: --out must end in .json or .parquet")
    return path


def _no_nan(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """NaN (no test possible, e.g. q-values of non-share rows) as JSON null."""
    return [
        {k: None if isinstance(v, float) and not np.isfinite(v) else v for k, v in r.items()}
        for r in rows
    ]


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON-able: {type(value).__name__}")


# ======================================================================================= check

Metric = Literal[
    "win_share",
    "mean_score",
    "mean_turns",
    "win_share_shift",
    "mean_score_shift",
    "mean_turns_shift",
    "max_seat_shift",
]
_GROUP_KEYS = stats.KINDS
# Default indifference width delta of the SPRT, by the quantity a metric measures.
DEFAULT_DELTA = {"win_share": 0.01, "mean_score": 0.5, "mean_turns": 1.0}
_STRICT = ConfigDict(extra="forbid", strict=True)


class AssertionSpec(BaseModel):
    """One balance claim, e.g. ``{metric: win_share, seat: 0, within: [0.25, 0.02]}``."""

    model_config = _STRICT

    metric: Metric = Field(description="what is measured")
    seat: int | None = Field(None, ge=0, description="the seat (win_share, mean_score)")
    order: int | None = Field(None, ge=0, description="place in the turn order, 0 = first player")
    policy: str | None = Field(None, description="the seats playing this policy")
    team: str | None = Field(None, description="the seats of this team (per game)")
    role: str | None = Field(None, description="the seats dealt this role (per game)")
    above: float | None = Field(None, description="claim: the value is above this")
    below: float | None = Field(None, description="claim: the value is below this")
    within: list[float] | None = Field(
        None, min_length=2, max_length=2, description="claim: [centre, tolerance]"
    )
    delta: float | None = Field(
        None, gt=0, description="SPRT indifference width around each bound (default by metric)"
    )
    baseline: str | None = Field(None, description="config the *_shift metrics compare against")
    name: str | None = Field(None, description="label shown instead of the generated one")

    @model_validator(mode="after")
    def _consistent(self) -> AssertionSpec:
        bounds = [k for k in ("above", "below", "within") if getattr(self, k) is not None]
        if len(bounds) != 1:
            raise ValueError("give exactly one of above, below, within")
        if self.within is not None and not self.within[1] > 0:
            raise ValueError(f"within: the tolerance must be > 0, got {self.within[1]}")
        given = [k for k in _GROUP_KEYS if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"give at most one of seat, order, policy, team, role, got {', '.join(given)}"
            )
        base = self.metric.removesuffix("_shift")
        if base == "win_share" and not given:
            raise ValueError(f"{self.metric} needs one of seat, order, policy, team, role")
        if self.metric in ("mean_turns", "mean_turns_shift", "max_seat_shift") and given:
            raise ValueError(f"{given[0]}: {self.metric} is about whole games, not a {given[0]}")
        if self.metric == "max_seat_shift":
            if self.below is None or self.below <= 0:
                raise ValueError("max_seat_shift takes below: a bound > 0 on every seat's shift")
        elif not self.metric.endswith("_shift") and self.baseline is not None:
            raise ValueError(f"baseline: {self.metric} uses no baseline (only the *_shift metrics)")
        return self

    def group(self) -> tuple[str, str] | None:
        for k in _GROUP_KEYS:
            value = getattr(self, k)
            if value is not None:
                return k, str(value)
        return None

    def label(self) -> str:
        if self.name:
            return self.name
        group = self.group()
        text = self.metric + (f" {group[0]} {group[1]}" if group else "")
        if self.within is not None:
            text += f" within {_num(self.within[0])} ± {_num(self.within[1])}"
        elif self.above is not None:
            text += f" above {_num(self.above)}"
        else:
            text += f" below {_num(self.below)}"
        return text


def _num(x: float) -> str:
    return f"{x:g}"


class CheckSpec(BaseModel):
    """One config and the claims about it."""

    model_config = _STRICT

    name: str | None = Field(None, description="label (default: the config's file name)")
    config: str = Field(description="config file, relative to the spec")
    baseline: str | None = Field(
        None, description="config the *_shift metrics compare against, relative to the spec"
    )
    assertions: list[AssertionSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _baselines(self) -> CheckSpec:
        for i, a in enumerate(self.assertions):
            if (a.metric.endswith("_shift")) and not (a.baseline or self.baseline):
                raise ValueError(
                    f"assertions[{i}].baseline: {a.metric} compares against a baseline; "
                    "give baseline: on the assertion or the check"
                )
        return self


class Spec(BaseModel):
    """A ``balance check`` spec: SPRT settings and checks."""

    model_config = _STRICT

    alpha: float = Field(0.05, gt=0, lt=0.5, description="chance of passing a claim delta/2 wrong")
    beta: float = Field(0.05, gt=0, lt=0.5, description="chance of failing a claim that holds")
    batch: int = Field(2000, ge=100, description="games per batch; SPRTs look after each")
    max_games: int = Field(100_000, ge=1, description="cap on games per check")
    inconclusive: Literal["pass", "fail"] = Field(
        "fail", description="verdict that counts when the cap is reached undecided"
    )
    seed: int | None = Field(None, ge=0, lt=2**63, description="default: each config's seed")
    level: float = Field(0.95, gt=0, lt=1, description="level of the printed intervals")
    description: str = ""
    checks: list[CheckSpec] = Field(min_length=1)

    @model_validator(mode="after")
    def _cap(self) -> Spec:
        if self.max_games < self.batch:
            raise ValueError(f"max_games: must be >= batch ({self.batch}), got {self.max_games}")
        return self


_NESTED: dict[type[BaseModel], dict[str, type[BaseModel]]] = {
    Spec: {"checks": CheckSpec},
    CheckSpec: {"assertions": AssertionSpec},
}


def _model_at(model: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    for seg in loc:
        if isinstance(seg, int):
            continue
        model = _NESTED.get(model, {}).get(seg)  # type: ignore[assignment]
        if model is None:
            return None
    return model


def _dotted(loc: Sequence[Any]) -> str:
    text = ""
    for seg in loc:
        text += f"[{seg}]" if isinstance(seg, int) else (f".{seg}" if text else str(seg))
    return text


def _spec_error(
    e: ValidationError, file: str, model: type[BaseModel], prefix: tuple[Any, ...] = ()
) -> ConfigError:
    """A pydantic error as one line ``<file>: <key.path>: <problem>``."""
    errors = e.errors(include_url=False)
    err = next((x for x in errors if x["type"] == "extra_forbidden"), errors[0])
    loc = [*prefix, *(seg for seg in err["loc"] if not str(seg).startswith("function-"))]
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "extra_forbidden":
        allowed = list((_model_at(model, loc[len(prefix) : -1]) or model).model_fields)
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1, cutoff=0.6)
        problem = (
            f"unknown key (did you mean '{close[0]}'?)"
            if close
            else f"unknown key (expected one of: {', '.join(allowed)})"
        )
    elif kind == "missing":
        problem = "required key is missing"
    elif kind == "value_error":
        problem = str(ctx.get("error", err["msg"]))
        head, sep, rest = problem.partition(": ")
        sub = _model_at(model, loc[len(prefix) :]) or model
        first = head.split("[")[0].split(".")[0]
        if sep and " " not in head and first in sub.model_fields:
            loc.append(head)
            problem = rest
    elif kind == "literal_error":
        problem = f"must be one of {ctx['expected']}, got {value!r}"
    elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        sign = {"greater_than": ">", "greater_than_equal": ">=", "less_than": "<"}.get(kind, "<=")
        bound = next(iter(ctx.values()))
        problem = f"must be {sign} {bound}, got {value!r}"
    else:
        problem = f"{err['msg']}, got {value!r}" if "input" in err else err["msg"]
    key = _dotted(loc)
    problem = " ".join(str(problem).split())
    message = f"{file}: {key}: {problem}" if key else f"{file}: {problem}"
    return ConfigError(message, file=file, key=key or None, problem=problem)


def load_spec(path: str | os.PathLike[str]) -> Spec:
    """Read and validate a check spec; problems raise a one-line ConfigError."""
    shown = os.fspath(path)
    data, _ = load_yaml(shown)
    try:
        return Spec.model_validate(data)
    except ValidationError as e:
        raise _spec_error(e, shown, Spec) from None


Verdict = Literal["PASS", "FAIL", "INCONCLUSIVE"]


class AssertionResult(NamedTuple):
    check: str  # the check's name
    config: str  # the config's path as written in the spec
    label: str  # e.g. "win_share seat 0 within 0.25 ± 0.02"
    verdict: Verdict
    passed: bool  # counts as passed (an inconclusive one per the spec's ``inconclusive``)
    estimate: float  # the measured value (max_seat_shift: the shift of the seat that moved most)
    lo: float
    hi: float
    games: int  # games played when it was decided (the cap if inconclusive)
    detail: str  # how it was decided
    seconds: float  # time from the check's start to the decision


class CheckResult(NamedTuple):
    spec: str
    alpha: float
    beta: float
    level: float
    assertions: list[AssertionResult]
    games: int  # games played, all configs and checks
    wall_time_s: float

    @property
    def passed(self) -> bool:
        return all(a.passed for a in self.assertions)

    def counts(self) -> dict[str, int]:
        out = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
        for a in self.assertions:
            out[a.verdict] += 1
        return out


class _Bound(NamedTuple):
    """An assertion made ready to run: where its numbers come from and its SPRTs."""

    spec: AssertionSpec
    index: int
    run: int  # index of the config's run
    base: int | None  # index of the baseline's run
    group_run: list[stats.Group] | None
    group_base: list[stats.Group] | None
    test: stats.SequentialAssertion
    labels: list[str]  # what each column is (max_seat_shift: the seats)


def _resolve(spec_dir: str, path: str) -> str:
    return os.path.normpath(os.path.join(spec_dir, path))


def _find_group(
    line: stats.Lineup, group: tuple[str, str], file: str, key: str, cfg_path: str
) -> stats.Group:
    kind, name = group
    for g in stats.groups(line, [kind]):
        if g.name == name:
            return g
    if kind in ("seat", "order"):
        problem = f"no {kind} {name} in {cfg_path} ({line.players} players, 0-{line.players - 1})"
    elif kind == "role" and not line.roles:
        problem = f"{cfg_path}: this game deals no roles"
    else:
        names = line.names(kind)
        problem = f"no seat plays {kind} {name!r} in {cfg_path} ({', '.join(names)})"
    return _raise(file, key, problem)


def _raise(file: str, key: str, problem: str) -> Any:
    raise ConfigError(f"{file}: {key}: {problem}", file=file, key=key, problem=problem)


def _default_delta(metric: str) -> float:
    return DEFAULT_DELTA[
        "win_share" if metric == "max_seat_shift" else metric.removesuffix("_shift")
    ]


def _claims(a: AssertionSpec, columns: int) -> list[stats.Claim]:
    delta = a.delta if a.delta is not None else _default_delta(a.metric)
    if a.metric == "max_seat_shift":
        return [c for j in range(columns) for c in stats.within(j, 0.0, a.below, delta)]
    if a.within is not None:
        return stats.within(0, a.within[0], a.within[1], delta)
    side = "above" if a.above is not None else "below"
    return [stats.Claim(0, side, a.above if a.above is not None else a.below, delta)]


def _values(b: _Bound, arrays: list[stats.GameArrays]) -> np.ndarray:
    """The per-game numbers of one assertion for one batch."""
    a = b.spec

    def one(run: int, grp: list[stats.Group] | None) -> np.ndarray:
        arr = arrays[run]
        metric = a.metric.removesuffix("_shift")
        if metric == "mean_turns" or a.metric == "max_seat_shift":
            return arr.turns if metric == "mean_turns" else arr.win
        if grp is None:  # mean_score of all seats
            return arr.score.mean(axis=1)
        win, score = stats.group_values(arr, grp)
        return (win if metric == "win_share" else score)[:, 0]

    x = one(b.run, b.group_run)
    if b.base is not None:
        x = x - one(b.base, b.group_base)
    return x


def check(
    spec: Spec,
    *,
    spec_path: str | os.PathLike[str] = "spec",
    threads: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> CheckResult:
    """Run every check of ``spec`` in batches until each assertion's SPRT decides or the cap.

    Config paths are relative to ``spec_path``. A config that does not load, or an assertion
    that names a seat, policy or team the config lacks, raises ConfigError before any game.
    ``progress(check name, games done, cap)`` is called after each batch.
    """
    shown = os.fspath(spec_path)
    spec_dir = os.path.dirname(shown)
    t0 = time.perf_counter()
    runner.check_options(games=1, seed=0, threads=threads)
    prepared = [_prepare_check(spec, shown, spec_dir, i) for i in range(len(spec.checks))]
    results: list[AssertionResult] = []
    played = 0
    with runner.numba_threads(threads):
        for name, cfg_path, runs, seed, bounds in prepared:
            runs.load(seed)
            decided_at: dict[int, tuple[int, float]] = {}
            games = 0
            start = time.perf_counter()
            while games < spec.max_games and len(decided_at) < len(bounds):
                n = min(spec.batch, spec.max_games - games)
                for arrays in runs.play(
                    seed=seed, games=n, first_game=games, chunk_size=min(n, CHUNK)
                ):
                    for b in bounds:
                        if b.index in decided_at:
                            continue
                        if b.test.update(_values(b, arrays)) is not None:
                            decided_at[b.index] = (b.test.games, time.perf_counter() - start)
                games += n
                played += n * len(runs.runs)
                if progress is not None:
                    progress(name, games, spec.max_games)
            elapsed = time.perf_counter() - start
            for b in bounds:
                results.append(_result(spec, name, cfg_path, b, games, elapsed, decided_at))
    return CheckResult(
        spec=shown,
        alpha=spec.alpha,
        beta=spec.beta,
        level=spec.level,
        assertions=results,
        games=played,
        wall_time_s=time.perf_counter() - t0,
    )


def _prepare_check(
    spec: Spec, shown: str, spec_dir: str, i: int
) -> tuple[str, str, Runs, int, list[_Bound]]:
    """A check's configs compiled (not yet their kernels) and its assertions bound to their
    groups, so that a spec naming a seat, policy, team or role the run lacks fails at once."""
    c = spec.checks[i]
    cfg = load_config(_resolve(spec_dir, c.config))
    paths = [c.config]
    configs = [cfg]
    for a in c.assertions:
        base_path = a.baseline or c.baseline
        if a.metric.endswith("_shift") and base_path not in paths:
            paths.append(base_path)
            configs.append(load_config(_resolve(spec_dir, base_path)))
    seed = spec.seed if spec.seed is not None else cfg.seed
    runner.check_options(games=spec.max_games, seed=seed)
    runs = Runs(configs, seed, load=False)
    bounds = []
    for j, a in enumerate(c.assertions):
        key = f"checks[{i}].assertions[{j}]"
        base_idx = None
        base_path = a.baseline or c.baseline
        if a.metric.endswith("_shift"):
            base_idx = paths.index(base_path)
            base_cfg = configs[base_idx]
            if base_cfg.players != cfg.players or base_cfg.game != cfg.game:
                _raise(
                    shown,
                    f"{key}.baseline",
                    f"{base_path} must be the same game with the same number of players as "
                    f"{c.config}",
                )
        group = a.group()
        g_run = g_base = None
        if group is not None:
            gkey = f"{key}.{group[0]}"
            g_run = [_find_group(runs.lineups[0], group, shown, gkey, c.config)]
            if base_idx is not None:
                g_base = [_find_group(runs.lineups[base_idx], group, shown, gkey, base_path)]
        columns = cfg.players if a.metric == "max_seat_shift" else 1
        test = stats.SequentialAssertion(
            _claims(a, columns),
            alpha=spec.alpha,
            beta=spec.beta,
            model="bernoulli" if _bernoulli(a, g_run, runs.lineups[0]) else "normal",
        )
        labels = [f"seat {s}" for s in range(columns)] if a.metric == "max_seat_shift" else [""]
        bounds.append(_Bound(a, j, 0, base_idx, g_run, g_base, test, labels))
    name = c.name or Path(c.config).stem
    return name, c.config, runs, seed, bounds


def _bernoulli(a: AssertionSpec, grp: list[stats.Group] | None, line: stats.Lineup) -> bool:
    """Whether the assertion's per-game value is one seat's or one team's win (0, 1/k or 1: the
    Bernoulli likelihood); a policy of several seats or a role is a mean (normal likelihood)."""
    if a.metric != "win_share" or grp is None:
        return False
    g = grp[0]
    if g.kind in ("seat", "order", "team"):
        return True
    seats = line.fixed_seats(g.kind, g.name)
    return seats is not None and len(seats) == 1


def _result(
    spec: Spec,
    name: str,
    cfg_path: str,
    b: _Bound,
    games: int,
    elapsed: float,
    decided_at: dict[int, tuple[int, float]],
) -> AssertionResult:
    test = b.test
    ci = test.estimate(spec.level)
    j = int(np.nanargmax(np.abs(ci.mean))) if b.spec.metric == "max_seat_shift" else 0
    estimate, lo, hi = float(ci.mean[j]), float(ci.lo[j]), float(ci.hi[j])
    lower, upper = test.tests[0].bounds
    llr = test.llr()
    if test.verdict is None:
        verdict: Verdict = "INCONCLUSIVE"
        passed = spec.inconclusive == "pass"
        detail = (
            f"undecided after the cap of {games:,} games (LLR {_llrs(llr)} within "
            f"[{lower:.2f}, {upper:.2f}]); counts as {spec.inconclusive}"
        )
        used, seconds = games, elapsed
    else:
        verdict = "PASS" if test.verdict == "pass" else "FAIL"
        passed = verdict == "PASS"
        used, seconds = decided_at[b.index]
        bad = [i for i, d in enumerate(test.decisions) if d < 0]
        if verdict == "FAIL":
            c = test.claims[bad[0]]
            what = f"{b.labels[c.column]} " if b.labels[c.column] else ""
            detail = (
                f"SPRT: {what}{c.side} {_num(c.bound)} rejected (LLR {llr[bad[0]]:.2f} <= "
                f"{lower:.2f})"
            )
        else:
            detail = f"SPRT: every bound accepted (LLR {_llrs(llr)} >= {upper:.2f})"
    if b.spec.metric == "max_seat_shift":
        detail = f"largest shift: seat {j}; " + detail
    return AssertionResult(
        check=name,
        config=cfg_path,
        label=b.spec.label(),
        verdict=verdict,
        passed=passed,
        estimate=estimate,
        lo=lo,
        hi=hi,
        games=used,
        detail=detail,
        seconds=seconds,
    )


def _llrs(llr: np.ndarray) -> str:
    if len(llr) <= 2:
        return ", ".join(f"{x:.2f}" for x in llr)
    return f"min {llr.min():.2f}"


def junit_xml(result: CheckResult) -> str:
    """The check as JUnit XML: a testsuite per check, a testcase per assertion; a FAIL (or an
    INCONCLUSIVE counted as fail) is a ``<failure>``."""
    root = ET.Element(
        "testsuites",
        name="balance check",
        tests=str(len(result.assertions)),
        failures=str(sum(not a.passed for a in result.assertions)),
        time=f"{result.wall_time_s:.3f}",
    )
    suites: dict[str, ET.Element] = {}
    for a in result.assertions:
        suite = suites.get(a.check)
        if suite is None:
            suite = ET.SubElement(root, "testsuite", name=a.check, tests="0", failures="0")
            ET.SubElement(
                ET.SubElement(suite, "properties"), "property", name="config", value=a.config
            )
            suites[a.check] = suite
        suite.set("tests", str(int(suite.get("tests", "0")) + 1))
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"balance.check.{a.check}",
            name=a.label,
            time=f"{a.seconds:.3f}",
        )
        line = format_line(a, result.level)
        if not a.passed:
            suite.set("failures", str(int(suite.get("failures", "0")) + 1))
            ET.SubElement(case, "failure", message=line, type=a.verdict).text = a.detail
        ET.SubElement(case, "system-out").text = f"{line}\n{a.detail}"
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def format_line(a: AssertionResult, level: float = 0.95) -> str:
    """One line per assertion: verdict, what, estimate, interval, games."""
    pct = f"{level * 100:g} %"
    return (
        f"{a.verdict:<12} {a.check}: {a.label}: {_fmt(a.estimate)} "
        f"[{_fmt(a.lo)}, {_fmt(a.hi)}] ({pct}), {a.games:,} games"
    )


def _fmt(x: float) -> str:
    if not np.isfinite(x):
        return "nan"
    return f"{x:.4f}" if abs(x) < 10 else f"{x:.2f}"
