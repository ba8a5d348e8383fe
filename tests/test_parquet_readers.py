"""Fuzz the project's parquet writer against four readers: pyarrow, polars, pandas (pyarrow
engine) and DuckDB each read every random table back with every value and the type it was
written with (issue 26, item 10: the writer is kept, so its files must be plain parquet to all).

Tables: 1 to 5,000 rows (around the bit-packer's groups of 8 and blocks of 2,048), one to six
columns of every kind ``balance.parquet.write_table`` takes: bool, int8/16/32/64, uint8/16 and
float64 arrays, uint8 :class:`~balance.parquet.Block` columns (contiguous or not) and
:class:`~balance.parquet.Codes` of random names (unicode, empty, NUL, repeated; up to 300 of them).
Integer ranges from one value to the dtype's whole range, so that columns are written with a
dictionary of 1 to 16 bits or PLAIN; floats with NaN, infinities, -0.0, subnormals and the
extremes. The statistics pyarrow reads are the true minimum and maximum, and DuckDB's filter on
them keeps exactly the matching rows.

BALANCE_FUZZ_EXAMPLES=2000 searches longer (the default takes a few seconds).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from balance import parquet

EXAMPLES = int(os.environ.get("BALANCE_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,  # a loaded machine must not make it flaky
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16"]
KINDS = ["bool", *INTS, "float64", "codes", "block", "ranged", "runs"]
# Spans (max - min) of an integer column: one value, the widths of 1..16-bit dictionaries at their
# edges, the first that goes PLAIN, and the dtype's whole range ("full"). int64's whole range and
# any span of 2**63 or more are left out: see test_int64_spans_of_2_63_or_more.
SPANS = [0, 1, 2, 7, 8, 127, 128, 255, 256, 4095, 65_535, 65_536, 2**31, 2**40, "full"]
INT64_SPAN_LIMIT = 2**63 - 1
FLOATS = [
    np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 1.0, -1.0,
]  # fmt: skip
ROWS = st.one_of(
    st.sampled_from([1, 2, 7, 8, 9, 15, 16, 17, 2047, 2048, 2049]), st.integers(1, 5000)
)


class Leaf:
    """One column as the readers should see it: its type ("int8", ..., "float64", "bool",
    "string") and its values (a numpy array, or a list of str)."""

    def __init__(self, kind: str, values: np.ndarray | list[str]) -> None:
        self.kind = kind
        self.values = values


def _ints(draw, rng, dtype: str, rows: int, shape: tuple[int, ...]) -> np.ndarray:
    info = np.iinfo(dtype)
    span = draw(st.sampled_from(SPANS))
    whole = int(info.max) - int(info.min)
    if dtype == "int64":
        whole = INT64_SPAN_LIMIT
    span = whole if span == "full" else min(span, whole)
    lo = draw(st.integers(int(info.min), int(info.min) + whole - span))
    values = rng.integers(lo, lo + span, shape, dtype=np.int64, endpoint=True)
    # Both ends of the range appear: the writer's dictionary is exactly min..max.
    flat = values.reshape(-1)
    flat[draw(st.integers(0, flat.size - 1))] = lo
    flat[draw(st.integers(0, flat.size - 1))] = lo + span
    return values.astype(dtype)


def _floats(draw, rng, rows: int) -> np.ndarray:
    scale = draw(st.sampled_from([1.0, 1e-300, 1e300, 1e308]))
    with np.errstate(over="ignore"):  # 1e308 times more than 1.8 is inf: fine
        values = rng.standard_normal(rows) * scale
    if draw(st.booleans()):
        values[:] = draw(st.sampled_from(FLOATS))  # e.g. a column of NaN only
    for i, v in draw(st.lists(st.tuples(st.integers(0, rows - 1), st.sampled_from(FLOATS)))):
        values[i] = v
    return values


@st.composite
def tables(draw) -> tuple[dict[str, Any], dict[str, Leaf]]:
    """(the columns given to write_table, the leaf columns the file should hold)."""
    rows = draw(ROWS)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=6))
    columns: dict[str, Any] = {}
    leaves: dict[str, Leaf] = {}
    for i, kind in enumerate(kinds):
        name = draw(st.sampled_from([f"c{i}", f"ç{i}_é", f"列{i}", f"c {i}.x"]))
        if kind == "bool":
            values = rng.random(rows) < draw(st.sampled_from([0.0, 0.5, 1.0]))
            columns[name] = values
            leaves[name] = Leaf("bool", values)
        elif kind in INTS:
            values = _ints(draw, rng, kind, rows, (rows,))
            columns[name] = values
            leaves[name] = Leaf(kind, values)
        elif kind == "float64":
            values = _floats(draw, rng, rows)
            columns[name] = values
            leaves[name] = Leaf("float64", values)
        elif kind == "codes":
            names = draw(st.lists(st.text(max_size=8), min_size=1, max_size=12))
            if draw(st.booleans()):  # more names than int8 codes or a 8-bit dictionary hold
                names += [f"n{k}" for k in range(draw(st.sampled_from([117, 300])))]
            codes = rng.integers(0, len(names), rows)
            codes[draw(st.integers(0, rows - 1))] = len(names) - 1
            dtype = np.int8 if len(names) <= 127 and draw(st.booleans()) else np.int64
            columns[name] = parquet.Codes(codes.astype(dtype), names)
            leaves[name] = Leaf("string", [names[c] for c in codes])
        elif kind == "runs":  # an int64 column given as runs (parquet.Runs)
            k = int(rng.integers(1, rows + 1))
            lengths = (
                np.diff(
                    np.sort(rng.choice(np.arange(1, rows), k - 1, replace=False)),
                    prepend=0,
                    append=rows,
                )
                if k > 1
                else np.array([rows])
            )
            values = _ints(draw, rng, "int64", k, (k,))
            columns[name] = parquet.Runs(values, lengths)
            leaves[name] = Leaf("int64", np.repeat(values, lengths))
        elif kind == "ranged":  # an integer column with its extremes given (parquet.Ranged)
            dtype = draw(st.sampled_from(INTS))
            values = _ints(draw, rng, dtype, rows, (rows,))
            columns[name] = parquet.Ranged(values, int(values.min()), int(values.max()))
            leaves[name] = Leaf(dtype, values)
        else:  # a Block of integer columns, as the telemetry (uint8) and trajectories are written
            width = draw(st.integers(1, 5))
            dtype = draw(st.sampled_from(["uint8", "uint8", *INTS]))
            block = _ints(draw, rng, dtype, rows, (rows, width * 2))
            if draw(st.booleans()):
                block = block[:, ::2]  # not contiguous: the writer copies it
            else:
                block = block[:, :width].copy()
            sub = [f"{name}_{j}" for j in range(width)]
            columns[name] = parquet.Block(block, sub)
            for j, s in enumerate(sub):
                leaves[s] = Leaf(dtype, block[:, j])
    return columns, leaves


# ---- the readers, each giving {column: (type, values)} in file order -----------------------------

_ARROW = {
    pa.bool_(): "bool", pa.int8(): "int8", pa.int16(): "int16", pa.int32(): "int32",
    pa.int64(): "int64", pa.uint8(): "uint8", pa.uint16(): "uint16", pa.float64(): "float64",
    pa.string(): "string", pa.large_string(): "string", pa.string_view(): "string",
}  # fmt: skip
_POLARS = {
    pl.Boolean: "bool", pl.Int8: "int8", pl.Int16: "int16", pl.Int32: "int32",
    pl.Int64: "int64", pl.UInt8: "uint8", pl.UInt16: "uint16", pl.Float64: "float64",
    pl.String: "string",
}  # fmt: skip
_DUCKDB = {
    "BOOLEAN": "bool", "TINYINT": "int8", "SMALLINT": "int16", "INTEGER": "int32",
    "BIGINT": "int64", "UTINYINT": "uint8", "USMALLINT": "uint16", "DOUBLE": "float64",
    "VARCHAR": "string",
}  # fmt: skip


def read_pyarrow(path: Path) -> dict[str, tuple[str, Any]]:
    table = pq.read_table(path)
    return {
        f.name: (
            _ARROW.get(f.type, str(f.type)),
            col.to_pylist() if _ARROW.get(f.type) == "string" else col.to_numpy(),
        )
        for f, col in zip(table.schema, table.columns, strict=True)
    }


def read_polars(path: Path) -> dict[str, tuple[str, Any]]:
    out = {}
    for s in pl.read_parquet(path):
        kind = _POLARS.get(s.dtype.base_type(), str(s.dtype))
        out[s.name] = (kind, s.to_list() if kind == "string" else s.to_numpy())
    return out


def read_pandas(path: Path) -> dict[str, tuple[str, Any]]:
    out = {}
    for name, s in pd.read_parquet(path, engine="pyarrow").items():
        if pd.api.types.is_string_dtype(s.dtype) and s.dtype != object:
            out[name] = ("string", s.tolist())
        elif isinstance(s.dtype, np.dtype) and s.dtype != object:
            out[name] = (s.dtype.name, s.to_numpy())
        else:
            out[name] = (str(s.dtype), s.tolist())
    return out


def read_duckdb(path: Path) -> dict[str, tuple[str, Any]]:
    with duckdb.connect() as con:
        rel = con.sql("select * from read_parquet(?)", params=[str(path)])
        kinds = [_DUCKDB.get(str(t), str(t)) for t in rel.types]
        values = rel.fetchnumpy()
        return {
            name: (kind, list(values[name]) if kind == "string" else np.asarray(values[name]))
            for name, kind in zip(rel.columns, kinds, strict=True)
        }


READERS = {"pyarrow": read_pyarrow, "polars": read_polars, "pandas": read_pandas}
READERS["duckdb"] = read_duckdb


def same_values(leaf: Leaf, got: Any) -> bool:
    if leaf.kind == "string":
        return list(got) == leaf.values
    got = np.asarray(got)
    if got.dtype != leaf.values.dtype or got.shape != leaf.values.shape:
        return False
    if leaf.kind == "float64":  # bit for bit (-0.0 is not 0.0), but any NaN is NaN
        nan = np.isnan(leaf.values)
        return bool(
            (np.isnan(got) == nan).all()
            and (got[~nan].view(np.int64) == leaf.values[~nan].view(np.int64)).all()
        )
    return bool((got == leaf.values).all())


def disagreements(path: Path, leaves: dict[str, Leaf]) -> list[str]:
    """What each reader gets wrong about the file at ``path``, one line each."""
    wrong = []
    for reader, read in READERS.items():
        try:
            got = read(path)
        except Exception as e:  # a reader refusing the file is a disagreement too
            wrong.append(f"{reader}: {type(e).__name__}: {e}")
            continue
        if list(got) != list(leaves):
            wrong.append(f"{reader}: columns {list(got)}, written {list(leaves)}")
            continue
        for name, leaf in leaves.items():
            kind, values = got[name]
            if kind != leaf.kind:
                wrong.append(f"{reader}: {name!r} read as {kind}, written as {leaf.kind}")
            elif not same_values(leaf, values):
                wrong.append(f"{reader}: {name!r} ({kind}) values differ")
    return wrong


def statistics_disagreements(path: Path, leaves: dict[str, Leaf]) -> list[str]:
    """The integer and float columns' min/max statistics, as pyarrow reads them, are the true
    ones; a DuckDB filter, which skips row groups by them, keeps exactly the matching rows."""
    wrong = []
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups == 1
    group = meta.row_group(0)
    for k, (name, leaf) in enumerate(leaves.items()):
        if leaf.kind in ("bool", "string"):
            continue
        stats = group.column(k).statistics
        values = leaf.values
        if leaf.kind == "float64" and np.isnan(values).any():
            continue  # no min/max is written for a column with NaN
        lo, hi = values.min(), values.max()
        if not (stats is not None and stats.has_min_max and stats.min == lo and stats.max == hi):
            wrong.append(f"statistics of {name!r}: {stats and (stats.min, stats.max)}, {lo, hi}")
        pivot = values[len(values) // 2]
        if leaf.kind != "float64":
            quoted = name.replace('"', '""')
            with duckdb.connect() as con:
                (n,) = con.execute(
                    f'select count(*) from read_parquet(?) where "{quoted}" = ?',
                    [str(path), int(pivot)],
                ).fetchone()
            if n != int((values == pivot).sum()):
                wrong.append(f"duckdb: {name!r} = {pivot} counts {n} rows")
    return wrong


@FUZZ
@given(table=tables())
def test_every_reader_reads_back_what_was_written(table):
    columns, leaves = table
    with tempfile.TemporaryDirectory(prefix="balance-readers-") as tmp:
        path = Path(tmp) / "t.parquet"
        parquet.write_table(path, columns, created_by="balance test")
        assert parquet.read_footer(path) == parquet.Footer(
            len(next(iter(leaves.values())).values), list(leaves)
        )
        wrong = disagreements(path, leaves) + statistics_disagreements(path, leaves)
    assert not wrong, "\n".join(wrong)


def test_the_readers_know_a_wrong_value_when_they_see_one(tmp_path):
    """The comparison can fail: a file with one value changed, one type changed or one column
    renamed disagrees with what was 'written', for every reader."""
    values = np.array([-5, 0, 7], np.int16)
    path = tmp_path / "t.parquet"
    parquet.write_table(path, {"x": values, "s": parquet.Codes(np.array([0, 1, 0]), ["a", "é"])})
    ok = {"x": Leaf("int16", values), "s": Leaf("string", ["a", "é", "a"])}
    assert disagreements(path, ok) == []
    for bad in (
        {"x": Leaf("int16", values + np.int16(1)), "s": ok["s"]},
        {"x": Leaf("int32", values.astype(np.int32)), "s": ok["s"]},
        {"x": ok["x"], "s": Leaf("string", ["a", "e", "a"])},
        {"y": ok["x"], "s": ok["s"]},
    ):
        assert {line.split(":")[0] for line in disagreements(path, bad)} == set(READERS)


def test_a_table_without_rows_is_refused_and_nothing_written(tmp_path):
    """Parts always hold games: zero rows (or no columns) is an error, before the file opens."""
    path = tmp_path / "t.parquet"
    for columns in (
        {},
        {"x": np.array([], np.int32)},
        {"t": parquet.Block(np.zeros((0, 2), np.uint8), ["a", "b"])},
        {"s": parquet.Codes(np.array([], np.int8), ["a"])},
    ):
        with pytest.raises(ValueError, match="without rows"):
            parquet.write_table(path, columns)
        assert not path.exists()


@pytest.mark.parametrize("values", [[-1, 2**63 - 1], [-(2**62), 2**62], [-(2**63), 2**63 - 1]])
def test_int64_spans_of_2_63_or_more(tmp_path, values):
    path = tmp_path / "t.parquet"
    values = np.array(values, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no wrapped span any more
        parquet.write_table(path, {"x": values})
    assert disagreements(path, {"x": Leaf("int64", values)}) == []


def test_a_table_without_columns_or_with_a_name_twice_is_refused(tmp_path):
    """DuckDB refuses a file without columns and renames a repeated one, the others refuse it."""
    path = tmp_path / "t.parquet"
    with pytest.raises(ValueError, match="without columns"):
        parquet.write_table(path, {"t": parquet.Block(np.zeros((3, 0), np.uint8), [])})
    block = parquet.Block(np.zeros((3, 1), np.uint8), ["x"])
    with pytest.raises(ValueError, match=r"\['x'\] are named twice"):
        parquet.write_table(path, {"x": np.arange(3, dtype=np.int32), "t": block})
    assert not path.exists()
