"""The interventional impact file written by ``balance impact --out`` and read by the report.

One module owns the format, so that the table printed by the CLI, the JSON file and the report's
card-impact section agree:

- ``.json``: provenance (config path and resolved config, games, seed, level, method, the
  headline metric, the variants), ``summary`` (one row per variant) and ``table`` (the long
  table);
- ``.parquet``: the long table only.

The long table has one row per (variant, metric, group): ``variant``, ``description``,
``metric`` (win_share, mean_score, mean_turns), ``kind``, ``group``, ``games``, ``a`` (base),
``b`` (variant), ``diff``, ``sd``, ``se``, ``lo``, ``hi`` (the row's own interval), ``p_value``,
``q_value`` (Benjamini-Hochberg within each metric over every variant, times the number of
metrics) and ``significant``: q < 0.05, the one rule of balance/stats/multiple.py that every star,
colour and sentence uses.

The summary ranks the variants by their change of one metric declared before the games were
played: the config's headline metric (``report: headline:``; by default the first player's win
share), never by whichever of a dozen noisy rows moved most.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import numpy as np
import polars as pl
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from balance import stats
from balance.errors import BalanceError, validation_line

FLAG_Q = stats.Q  # a row is significant when its Benjamini-Hochberg q-value is below this
DEFAULT_HEADLINE = ("win_share", "order", "0")  # the first player's win share
COLUMNS = ("variant", "metric", "kind", "group", "a", "b", "diff", "lo", "hi")
SUFFIXES = (".json", ".parquet")


class ImpactFileError(BalanceError):
    """An impact file cannot be written or read; one line naming the path."""


class ImpactFile(NamedTuple):
    """An impact table with its provenance (what ``read_impact`` returns)."""

    path: str
    config_path: str
    games: int
    seed: int | None
    level: float
    method: str
    table: pl.DataFrame  # the long table (module docstring)
    summary: pl.DataFrame  # one row per variant (impact_summary)
    headline: tuple[str, str, str] = DEFAULT_HEADLINE  # (metric, kind, group) it ranks by
    featured: tuple[str, ...] = ()  # variants every reader asks about: the page says each


def flag(table: pl.DataFrame) -> pl.DataFrame:
    """``significant``: q < Q (rows without a q-value have no test and are not)."""
    table = table.drop("flagged", strict=False)
    return table.with_columns(significant=pl.col("q_value").fill_nan(None).fill_null(1.0) < FLAG_Q)


def headline_label(headline: tuple[str, str, str]) -> str:
    """'win_share of order 0' for messages."""
    metric, kind, group = headline
    return f"{metric} of {kind} {group}"


def impact_summary(
    table: pl.DataFrame, headline: tuple[str, str, str] = DEFAULT_HEADLINE
) -> pl.DataFrame:
    """One row per variant, sorted by the size of its change of the ``headline`` metric (metric,
    kind, group), declared in advance: ``metric``, ``kind``, ``group``, ``diff``, ``lo``, ``hi``,
    ``p_value``, ``q_value``, ``significant`` of that row; ``changes`` (how many rows of the
    variant are significant); the change in game length (``turns_diff``, ``turns_lo``,
    ``turns_hi``). A variant without the headline's row (its group is missing) has nulls and
    sorts last."""
    if "significant" not in table.columns or "flagged" in table.columns:
        table = flag(table)
    metric, kind, group = headline
    head = table.filter(
        (pl.col("metric") == metric) & (pl.col("kind") == kind) & (pl.col("group") == group)
    ).with_columns(effect=pl.col("diff").abs())
    keep = ["variant", "metric", "kind", "group", "effect", "diff", "lo", "hi"]
    keep += ["p_value", "q_value", "significant"]
    head = head.select(*(c for c in keep if c in head.columns)).unique(
        "variant", maintain_order=True
    )
    changes = table.group_by("variant", maintain_order=True).agg(
        changes=pl.col("significant").sum().cast(pl.Int64)
    )
    turns = table.filter(pl.col("metric") == "mean_turns").select(
        "variant", turns_diff="diff", turns_lo="lo", turns_hi="hi"
    )
    desc = table.select("variant", "description").unique("variant", maintain_order=True)
    out = desc.join(head, on="variant", how="left", maintain_order="left")
    out = out.join(changes, on="variant", how="left", maintain_order="left")
    out = out.join(turns, on="variant", how="left", maintain_order="left")
    return out.sort("effect", descending=True, nulls_last=True, maintain_order=True)


def check_out(path: str | os.PathLike[str]) -> None:
    """Refuse a bad ``--out`` before minutes of games rather than after them."""
    path = Path(path)
    if path.suffix not in SUFFIXES:
        raise ImpactFileError(f"{path}: --out must end in .json or .parquet")
    if not path.parent.is_dir():
        raise ImpactFileError(
            f"{path}: no such directory {path.parent}; create it or choose another --out"
        )
    if path.is_dir():
        raise ImpactFileError(f"{path}: is a directory; --out names a .json or .parquet file")


def write_impact(
    path: str | os.PathLike[str],
    *,
    table: pl.DataFrame,
    summary: pl.DataFrame,
    provenance: dict[str, Any],
) -> Path:
    """Write ``.parquet`` (the long table) or ``.json`` (``provenance``, summary and table),
    atomically: a failed write leaves an earlier file as it was."""
    from balance.outputs import write_atomic

    path = Path(path)
    check_out(path)
    if path.suffix == ".parquet":
        buffer = io.BytesIO()
        table.write_parquet(buffer)
        content: str | bytes = buffer.getvalue()
    else:
        data = {
            **provenance,
            "summary": _no_nan(summary.to_dicts()),
            "table": _no_nan(table.to_dicts()),
        }
        content = json.dumps(data, indent=1, default=_json_default, allow_nan=False) + "\n"
    return write_atomic(path, content)  # a temporary file renamed into place


def read_impact(path: str | os.PathLike[str]) -> ImpactFile:
    """Load a ``balance impact --out`` file: ``.json`` (provenance and table) or ``.parquet``."""
    shown = os.fspath(path)
    p = Path(path)
    if not p.is_file():
        raise ImpactFileError(
            f"{shown}: no such impact file; write one with `balance impact CONFIG --out FILE.json`"
        )
    meta: dict[str, Any] = {}
    try:
        if p.suffix == ".parquet":
            table = pl.read_parquet(p)
        elif p.suffix == ".json":
            meta = json.loads(p.read_text())
            if not isinstance(meta, dict) or not isinstance(meta.get("table"), list):
                raise ImpactFileError(f"{shown}: not an impact file (no 'table' list)")
            _validate(meta, shown)
            table = pl.DataFrame(meta["table"], infer_schema_length=None)
        else:
            raise ImpactFileError(f"{shown}: an impact file ends in .json or .parquet")
    except (OSError, UnicodeDecodeError, pl.exceptions.PolarsError) as e:
        raise ImpactFileError(f"{shown}: cannot read: {str(e).splitlines()[0]}") from None
    except json.JSONDecodeError as e:
        raise ImpactFileError(f"{shown}: invalid JSON: {e.msg} at line {e.lineno}") from None
    except RecursionError:
        raise ImpactFileError(f"{shown}: not an impact file (nested too deeply)") from None
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing or table.height == 0:
        what = f"columns {', '.join(missing)} missing" if missing else "no rows"
        raise ImpactFileError(f"{shown}: not an impact table ({what})")
    floats = [
        c
        for c in ("a", "b", "diff", "sd", "se", "lo", "hi", "p_value", "q_value")
        if c in table.columns
    ]
    for c in ("variant", "metric", "kind", "group"):
        if table.schema[c] != pl.String:
            raise ImpactFileError(f"{shown}: column {c}: text expected, got {table.schema[c]}")
    for c in floats:
        if not (table.schema[c].is_numeric() or table.schema[c] == pl.Null):
            raise ImpactFileError(f"{shown}: column {c}: numbers expected, got {table.schema[c]}")
    table = table.with_columns(pl.col(floats).cast(pl.Float64).fill_null(float("nan")))
    if "description" not in table.columns:
        table = table.with_columns(description=pl.lit(""))
    if "q_value" not in table.columns:  # a table written without q-values: the one rule
        table = stats.adjust(table)
    table = flag(table)  # one rule, whatever wrote the file
    level = float(meta.get("level", 0.95))
    headline = _headline(meta.get("headline"), shown)
    games = meta.get("games") or (int(table["games"].max()) if "games" in table.columns else 0)
    return ImpactFile(
        path=shown,
        config_path=str(meta.get("config_path", "")),
        games=int(games),
        seed=meta.get("seed"),
        level=level,
        method=str(meta.get("method", stats.METHOD)),
        table=table,
        summary=impact_summary(table, headline),
        headline=headline,
        featured=tuple(str(v) for v in meta.get("featured") or ()),
    )


Share = Annotated[float, Field(ge=0, le=1)]
Number = float | None


class _Row(BaseModel):
    """A row of the long table (module docstring); further columns are kept."""

    model_config = ConfigDict(extra="allow")
    variant: StrictStr
    metric: StrictStr
    kind: StrictStr
    group: StrictStr
    description: StrictStr = ""
    games: Annotated[StrictInt, Field(ge=1)] | None = None
    a: Number
    b: Number
    diff: Number
    lo: Number
    hi: Number
    p_value: Annotated[float, Field(ge=0, le=1)] | None = None
    q_value: Annotated[float, Field(ge=0)] | None = None


class _ImpactJson(BaseModel):
    """The JSON impact file's provenance and table; a key it does not know is kept."""

    model_config = ConfigDict(extra="allow")
    config_path: StrictStr = ""
    games: Annotated[StrictInt, Field(ge=1, le=2**63 - 1)] | None = None
    seed: Annotated[StrictInt, Field(ge=0, le=2**63 - 1)] | None = None
    level: Annotated[float, Field(gt=0, lt=1)] = 0.95
    method: StrictStr = ""
    headline: Annotated[list[StrictStr], Field(min_length=3, max_length=3)] | None = None
    featured: list[StrictStr] = []
    table: Annotated[list[_Row], Field(min_length=1)]


def _validate(meta: dict[str, Any], shown: str) -> None:
    """ImpactFileError (one line naming the file and the key) unless ``meta`` is an impact file."""
    try:
        _ImpactJson.model_validate(meta)
    except ValidationError as e:
        raise ImpactFileError(f"{shown}: {validation_line(e)}") from None


def _headline(value: Any, shown: str) -> tuple[str, str, str]:
    if value is None:
        return DEFAULT_HEADLINE
    if not (isinstance(value, list | tuple) and len(value) == 3):
        raise ImpactFileError(f"{shown}: headline: expected [metric, kind, group], got {value!r}")
    return (str(value[0]), str(value[1]), str(value[2]))


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
