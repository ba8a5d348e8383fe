"""A small parquet writer for the results dataset: flat columns without nulls, one row group.

Why not polars' or pyarrow's writer: a part is ~262,000 rows of ~80 columns, most of them uint8
telemetry counts of 0..10, and general writers spend their time hashing the values into a
dictionary and in a generic RLE encoder. Every integer column here is dictionary-encoded without
hashing: its dictionary is the range ``min..max``, so a value's key is ``value - min``, bit-packed in
one numba pass over the row-major telemetry block. Measured (benchmarks/writer_ab.py, interleaved,
a 65,536-game part, CPU per game): this writer 795 ns for Five Ravens and 513 ns for The Raven
Order; pyarrow's best setting 2.02x and 1.56x that (with dictionary encoding everywhere, as here,
4.1x and 3.2x), polars' about 4x. The file is plain parquet (format 1 data pages, ZSTD with frame
checksums, statistics with min, max and null count, key-value metadata), read by polars,
pyarrow/pandas and DuckDB with the same values and types (tests/test_parquet_readers.py fuzzes
all four).

Supported column types: ``np.ndarray`` of bool, int8, int16, int32, int64, uint8, uint16 or float64
(1-D, one value per row), a 2-D uint8 block written as one column per array column (see
:class:`Block`), and :class:`Codes` (strings given as integer codes into a list of names).
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import zstandard
from numba import njit

MAGIC = b"PAR1"
ZSTD_LEVEL = 1  # level 3 costs ~15 % more of the writer's time for files no smaller
MAX_DICT_BITS = 16  # wider ranges (e.g. a score range > 65,535) are written PLAIN

# parquet.thrift enums
_BOOLEAN, _INT32, _INT64, _DOUBLE, _BYTE_ARRAY = 0, 1, 2, 5, 6
_REQUIRED = 0
_PLAIN, _RLE, _RLE_DICTIONARY = 0, 3, 8
_ZSTD = 6
_DATA_PAGE, _DICTIONARY_PAGE = 0, 2
_UTF8, _UINT_8, _UINT_16, _INT_8, _INT_16 = 0, 11, 12, 15, 16


class Codes(NamedTuple):
    """A string column as codes: row ``i`` is ``names[codes[i]]``."""

    codes: np.ndarray  # integer, 1-D, values in 0..len(names) - 1
    names: Sequence[str]


class Block(NamedTuple):
    """Several integer columns of one type stored row-major, ``values[:, j]`` being column
    ``names[j]``; written without first copying each column out of the block (the telemetry's
    uint8 counts, a trajectory's int16 measures)."""

    values: np.ndarray  # uint8 (or another integer type)[rows, len(names)], C-contiguous
    names: Sequence[str]


class Runs(NamedTuple):
    """An integer column given as runs: ``values[i]`` repeated ``lengths[i]`` times (a game index
    on every row of the game's trajectory). Written as RLE runs of dictionary keys, without
    the column ever being made: a handful of bytes a run."""

    values: np.ndarray  # int64[k]
    lengths: np.ndarray  # int64[k], each >= 1

    def __len__(self) -> int:  # the column's rows
        return int(self.lengths.sum())


class Ranged(NamedTuple):
    """An integer column whose minimum and maximum the caller knows (a game index, a point, a
    seat): written without a pass to find them. They must be the column's exact extremes (the
    file's statistics say them)."""

    values: np.ndarray  # 1-D integers
    lo: int
    hi: int


# ---- the numba part: min/max and bit-packing, column by column over a row-major block ---------


@njit(cache=True, nogil=True)
def _min_max(a):  # pragma: no cover - compiled
    """Per-column minimum and maximum of the 2-D integer array ``a`` (rows >= 1)."""
    rows, cols = a.shape
    lo = np.empty(cols, np.int64)
    hi = np.empty(cols, np.int64)
    for j in range(cols):
        lo[j] = a[0, j]
        hi[j] = a[0, j]
    for i in range(1, rows):
        for j in range(cols):
            v = a[i, j]
            if v < lo[j]:
                lo[j] = v
            elif v > hi[j]:
                hi[j] = v
    return lo, hi


@njit(cache=True, nogil=True)
def _pack(a, lo, width, offset, out):  # pragma: no cover - compiled
    """Bit-pack ``a[:, j] - lo[j]`` with ``width[j]`` bits, least significant bit first, into
    ``out[offset[j]:]`` for every column j (parquet's bit-packed run; groups of 8 values fill
    exactly ``width`` bytes, the last one padded with zeros). Every byte of each column's
    ``((rows + 7) // 8) * width`` is written. Rows go in blocks that stay in cache across the
    columns."""
    rows, cols = a.shape
    step = 2048  # a multiple of 8, so that a block starts on a byte of every column
    for r0 in range(0, rows, step):
        r1 = min(rows, r0 + step)
        for j in range(cols):
            w = width[j]
            base = lo[j]
            pos = offset[j] + (r0 // 8) * w
            i = r0
            if w <= 8:  # 8 values fill one uint64: write its low w bytes (all telemetry)
                uw = np.uint64(w)
                while i + 8 <= r1:
                    acc = np.uint64(0)
                    for k in range(8):
                        acc |= np.uint64(a[i + k, j] - base) << (uw * np.uint64(k))
                    for b in range(w):
                        out[pos + b] = np.uint8((acc >> np.uint64(8 * b)) & np.uint64(0xFF))
                    pos += w
                    i += 8
            acc = np.uint64(0)
            bits = 0
            for r in range(i, r1):
                acc |= np.uint64(a[r, j] - base) << np.uint64(bits)
                bits += w
                while bits >= 8:
                    out[pos] = np.uint8(acc & np.uint64(0xFF))
                    pos += 1
                    acc >>= np.uint64(8)
                    bits -= 8
            if bits > 0:  # only in the last block
                out[pos] = np.uint8(acc & np.uint64(0xFF))
                pos += 1
            if r1 == rows:
                # The last group of 8 is padded to its full ``w`` bytes with zeros: readers
                # decode whole groups and check every key against the dictionary, so a byte left
                # as it was in ``out`` (np.empty) could read as a key out of range.
                end = offset[j] + ((rows + 7) // 8) * w
                while pos < end:
                    out[pos] = 0
                    pos += 1


# ---- thrift compact protocol (just what the parquet footer and page headers use) -------------

_BYTE, _I16, _I32, _I64, _BINARY, _LIST, _STRUCT = 3, 4, 5, 6, 8, 9, 12
_TRUE, _FALSE = 1, 2


@njit(cache=True, nogil=True)
def _rle_runs(keys, lengths, key_bytes):  # pragma: no cover - compiled
    """The RLE runs of parquet's hybrid encoding: for each run, the ULEB128 varint of its length
    shifted left once (the low bit 0: a run, not bit-packed), then its key in ``key_bytes``
    bytes, little-endian."""
    out = np.empty(keys.shape[0] * (10 + key_bytes), np.uint8)
    pos = 0
    for i in range(keys.shape[0]):
        n = lengths[i] << 1
        while True:
            byte = n & 0x7F
            n >>= 7
            if n:
                out[pos] = byte | 0x80
                pos += 1
            else:
                out[pos] = byte
                pos += 1
                break
        k = keys[i]
        for b in range(key_bytes):
            out[pos] = (k >> (8 * b)) & 0xFF
            pos += 1
    return out[:pos]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


def _struct(*fields: tuple[int, int, object] | None) -> bytes:
    """A thrift struct from (field id, compact type, value) in increasing id order; None skips.
    Values: int for _I32/_I64/_BYTE, bool for _TRUE, bytes for _BINARY and _STRUCT (encoded),
    (element type, [encoded elements]) for _LIST."""
    out = bytearray()
    last = 0
    for field in fields:
        if field is None:
            continue
        fid, kind, value = field
        if kind == _TRUE:
            kind = _TRUE if value else _FALSE
        delta = fid - last
        if 0 < delta <= 15:
            out.append((delta << 4) | kind)
        else:
            out.append(kind)
            out += _zigzag(fid)
        last = fid
        if kind in (_TRUE, _FALSE):
            pass
        elif kind == _BYTE:
            out.append(int(value) & 0xFF)
        elif kind in (_I16, _I32, _I64):
            out += _zigzag(int(value))
        elif kind == _BINARY:
            out += _varint(len(value)) + value
        elif kind == _STRUCT:
            out += value
        elif kind == _LIST:
            elem, items = value
            out.append((len(items) << 4) | elem if len(items) < 15 else 0xF0 | elem)
            if len(items) >= 15:
                out += _varint(len(items))
            for item in items:
                out += _zigzag(item) if elem in (_I32, _I64) else item
        else:
            raise AssertionError(kind)
    out.append(0)
    return bytes(out)


def _binary(item: bytes) -> bytes:  # a list element of type binary
    return _varint(len(item)) + item


# ---- columns -> pages -------------------------------------------------------------------------


class _Chunk(NamedTuple):  # one column's encoded pages, before the footer knows where they are
    name: str
    schema: bytes  # its SchemaElement
    physical: int
    pages: list[tuple[bytes, int, int]]  # (page header + compressed body, uncompressed size, kind)
    encodings: list[int]
    stats: bytes  # its Statistics struct


# numpy dtype -> (physical type, converted type or None, logical (bit width, signed) or None)
_INTS = {
    np.dtype(np.int8): (_INT32, _INT_8, (8, True)),
    np.dtype(np.int16): (_INT32, _INT_16, (16, True)),
    np.dtype(np.int32): (_INT32, None, None),
    np.dtype(np.int64): (_INT64, None, None),
    np.dtype(np.uint8): (_INT32, _UINT_8, (8, False)),
    np.dtype(np.uint16): (_INT32, _UINT_16, (16, False)),
}


def _schema_element(name: str, physical: int, converted: int | None, logical: bytes | None):
    return _struct(
        (1, _I32, physical),
        (3, _I32, _REQUIRED),
        (4, _BINARY, name.encode()),
        None if converted is None else (6, _I32, converted),
        None if logical is None else (10, _STRUCT, logical),
    )


def _int_logical(bits: int, signed: bool) -> bytes:  # LogicalType.INTEGER
    return _struct((10, _STRUCT, _struct((1, _BYTE, bits), (2, _TRUE, signed))))


class _Encoder:
    def __init__(self, level: int) -> None:
        # A content checksum in every zstd frame: a reader that decompresses a damaged page
        # (polars, pyarrow, DuckDB) fails on it instead of decoding other values.
        self._zstd = zstandard.ZstdCompressor(level=level, write_checksum=True)

    def page(self, body: bytes | memoryview, kind: int, n_values: int, encoding: int):
        data = self._zstd.compress(body)
        if kind == _DICTIONARY_PAGE:
            sub = (7, _STRUCT, _struct((1, _I32, n_values), (2, _I32, encoding)))
        else:
            sub = (
                5,
                _STRUCT,
                _struct((1, _I32, n_values), (2, _I32, encoding), (3, _I32, _RLE), (4, _I32, _RLE)),
            )
        header = _struct((1, _I32, kind), (2, _I32, len(body)), (3, _I32, len(data)), sub)
        return header + data, len(header) + len(body), kind

    def ints(self, names: Sequence[str], a: np.ndarray, lo=None, hi=None) -> list[_Chunk]:
        """Integer columns ``a[:, j]`` (a 2-D array of one dtype), dictionary-encoded by range."""
        physical, converted, logical = _INTS[a.dtype]
        logical_b = None if logical is None else _int_logical(*logical)
        rows, cols = a.shape
        if lo is None:
            lo, hi = _min_max(a)
        span = hi.astype(np.float64) - lo.astype(np.float64)  # int64 - int64 can wrap
        width = np.maximum(1, np.ceil(np.log2(span + 1.0)).astype(np.int64))
        width = np.where(span >= (1 << MAX_DICT_BITS), 0, width)
        packed_cols = np.flatnonzero(width > 0)
        group_bytes = (rows + 7) // 8
        sizes = np.where(width > 0, group_bytes * width, 0)
        offset = np.concatenate(([0], np.cumsum(sizes)))
        out = np.empty(int(offset[-1]), np.uint8)
        if len(packed_cols):
            _pack(a, lo, width, offset[:-1], out)
        fmt = "<i" if physical == _INT32 else "<q"
        np_t = np.int32 if physical == _INT32 else np.int64
        chunks = []
        for j in range(cols):
            lo_j, hi_j = int(lo[j]), int(hi[j])
            stats = _struct(
                (3, _I64, 0),
                (5, _BINARY, struct.pack(fmt, hi_j)),
                (6, _BINARY, struct.pack(fmt, lo_j)),
            )
            schema = _schema_element(names[j], physical, converted, logical_b)
            w = int(width[j])
            if w:
                dictionary = np.arange(lo_j, hi_j + 1, dtype=np_t).tobytes()
                head = bytes([w]) + _varint((group_bytes << 1) | 1)
                body = head + out[offset[j] : offset[j + 1]].tobytes()
                pages = [
                    self.page(dictionary, _DICTIONARY_PAGE, hi_j - lo_j + 1, _PLAIN),
                    self.page(body, _DATA_PAGE, rows, _RLE_DICTIONARY),
                ]
                encodings = [_PLAIN, _RLE, _RLE_DICTIONARY]
            else:
                body = np.ascontiguousarray(a[:, j], dtype=np_t).tobytes()
                pages = [self.page(body, _DATA_PAGE, rows, _PLAIN)]
                encodings = [_PLAIN, _RLE]
            chunks.append(_Chunk(names[j], schema, physical, pages, encodings, stats))
        return chunks

    def runs(self, name: str, column: Runs) -> _Chunk:
        """An int64 column of runs (:class:`Runs`), dictionary-encoded by range with one RLE run
        of the hybrid encoding per run; PLAIN (the values made) when the range is too wide."""
        values = np.asarray(column.values, np.int64)
        lengths = np.asarray(column.lengths, np.int64)
        rows = int(lengths.sum())
        lo, hi = int(values.min()), int(values.max())
        if hi - lo >= 1 << MAX_DICT_BITS:
            made = np.repeat(values, lengths).reshape(-1, 1)
            return self.ints([name], made, np.array([lo]), np.array([hi]))[0]
        width = max(1, (hi - lo).bit_length())
        body = bytes([width]) + _rle_runs(values - lo, lengths, (width + 7) // 8).tobytes()
        physical, converted, logical = _INTS[np.dtype(np.int64)]
        logical_b = None if logical is None else _int_logical(*logical)
        stats = _struct(
            (3, _I64, 0),
            (5, _BINARY, struct.pack("<q", hi)),
            (6, _BINARY, struct.pack("<q", lo)),
        )
        dictionary = np.arange(lo, hi + 1, dtype=np.int64).tobytes()
        pages = [
            self.page(dictionary, _DICTIONARY_PAGE, hi - lo + 1, _PLAIN),
            self.page(body, _DATA_PAGE, rows, _RLE_DICTIONARY),
        ]
        schema = _schema_element(name, physical, converted, logical_b)
        return _Chunk(name, schema, physical, pages, [_PLAIN, _RLE, _RLE_DICTIONARY], stats)

    def strings(self, name: str, column: Codes) -> _Chunk:
        codes = np.asarray(column.codes, dtype=np.int64).reshape(-1, 1)
        n = len(column.names)
        if n == 0 or (len(codes) and not (codes.min() >= 0 and codes.max() < n)):
            raise ValueError(f"column {name!r}: codes outside 0..{n - 1}")
        if n > 1 << MAX_DICT_BITS:  # cannot happen for seats, teams and roles
            raise ValueError(f"column {name!r}: too many names ({n})")
        (chunk,) = self.ints([name], codes, np.zeros(1, np.int64), np.array([n - 1]))
        encoded = [s.encode() for s in column.names]
        dictionary = b"".join(struct.pack("<I", len(s)) + s for s in encoded)
        pages = [self.page(dictionary, _DICTIONARY_PAGE, n, _PLAIN), chunk.pages[-1]]
        schema = _struct(
            (1, _I32, _BYTE_ARRAY),
            (3, _I32, _REQUIRED),
            (4, _BINARY, name.encode()),
            (6, _I32, _UTF8),
            (10, _STRUCT, _struct((1, _STRUCT, _struct()))),  # LogicalType.STRING
        )
        stats = _struct((3, _I64, 0))
        return _Chunk(name, schema, _BYTE_ARRAY, pages, chunk.encodings, stats)

    def plain(self, name: str, values: np.ndarray) -> _Chunk:
        rows = len(values)
        if values.dtype == np.bool_:
            body = np.packbits(values, bitorder="little").tobytes()
            schema = _schema_element(name, _BOOLEAN, None, None)
            stats = _struct((3, _I64, 0))
            physical = _BOOLEAN
        elif values.dtype == np.float64:
            body = np.ascontiguousarray(values).tobytes()
            schema = _schema_element(name, _DOUBLE, None, None)
            lo, hi = (float(values.min()), float(values.max())) if rows else (0.0, 0.0)
            stats = _struct(
                (3, _I64, 0),
                None if not rows or np.isnan(lo) else (5, _BINARY, struct.pack("<d", hi)),
                None if not rows or np.isnan(lo) else (6, _BINARY, struct.pack("<d", lo)),
            )
            physical = _DOUBLE
        else:
            raise TypeError(f"column {name!r}: unsupported dtype {values.dtype}")
        page = self.page(body, _DATA_PAGE, rows, _PLAIN)
        return _Chunk(name, schema, physical, [page], [_PLAIN, _RLE], stats)


Column = np.ndarray | Codes | Block | Ranged | Runs


def _values(column: Column) -> np.ndarray:
    return (
        column.codes
        if isinstance(column, Codes)
        else column.values
        if isinstance(column, Block | Ranged)
        else column
    )


def _length(column: Column) -> int:
    return len(column) if isinstance(column, Runs) else len(_values(column))


def n_rows(columns: Mapping[str, Column]) -> int:
    """The rows of a table's columns (those of the first; write_table checks they agree)."""
    return _length(next(iter(columns.values()))) if columns else 0


def write_table(
    path: str | os.PathLike[str],
    columns: Mapping[str, Column],
    *,
    created_by: str = "balance",
    level: int = ZSTD_LEVEL,
    metadata: Mapping[str, str] | None = None,
) -> str:
    """Write ``columns`` (name -> values, all the same number of rows) as one parquet file, with
    ``metadata`` as the footer's key-value metadata; returns the SHA-256 of the file's bytes (hex),
    computed as they are written."""
    lengths = {name: _length(column) for name, column in columns.items()}
    rows = next(iter(lengths.values()), 0)
    if not rows:
        raise ValueError("a table without rows cannot be written")
    for name, n in lengths.items():
        if n != rows:
            raise ValueError(f"column {name!r} has {n} rows, the first column {rows}")
    leaves = [
        n for name, c in columns.items() for n in (c.names if isinstance(c, Block) else [name])
    ]
    if not leaves:
        raise ValueError("a table without columns cannot be written")
    if len(set(leaves)) != len(leaves):
        twice = sorted({n for n in leaves if leaves.count(n) > 1})
        raise ValueError(f"columns {twice} are named twice; readers refuse such a file")
    enc = _Encoder(level)
    chunks: list[_Chunk] = []
    for name, column in columns.items():
        if isinstance(column, Block):
            a = np.ascontiguousarray(column.values)
            if a.dtype not in _INTS:
                a = a.astype(np.uint8)
            if a.ndim != 2 or a.shape[1] != len(column.names):
                raise ValueError(f"block {name!r}: shape {a.shape} for {len(column.names)} names")
            if len(column.names):
                chunks += enc.ints(list(column.names), a)
        elif isinstance(column, Runs):
            chunks.append(enc.runs(name, column))
        elif isinstance(column, Ranged):
            a = np.ascontiguousarray(column.values).reshape(-1, 1)
            lo = np.array([column.lo], np.int64)
            chunks += enc.ints([name], a, lo, np.array([column.hi], np.int64))
        elif isinstance(column, Codes):
            chunks.append(enc.strings(name, column))
        elif column.dtype in _INTS:
            chunks += enc.ints([name], np.ascontiguousarray(column).reshape(-1, 1))
        else:
            chunks.append(enc.plain(name, np.asarray(column)))
    with open(path, "wb") as raw:
        f = _Hashing(raw)
        f.write(MAGIC)
        pos = len(MAGIC)
        column_chunks = []
        total_uncompressed = total_compressed = 0
        first = pos
        for chunk in chunks:
            start = pos
            dict_offset = data_offset = None
            uncompressed = 0
            for data, size, kind in chunk.pages:
                if kind == _DICTIONARY_PAGE:
                    dict_offset = pos
                else:
                    data_offset = pos
                f.write(data)
                pos += len(data)
                uncompressed += size
            compressed = pos - start
            total_uncompressed += uncompressed
            total_compressed += compressed
            meta = _struct(
                (1, _I32, chunk.physical),
                (2, _LIST, (_I32, chunk.encodings)),
                (3, _LIST, (_BINARY, [_binary(chunk.name.encode())])),
                (4, _I32, _ZSTD),
                (5, _I64, rows),
                (6, _I64, uncompressed),
                (7, _I64, compressed),
                (9, _I64, data_offset),
                None if dict_offset is None else (11, _I64, dict_offset),
                (12, _STRUCT, chunk.stats),
            )
            column_chunks.append(_struct((2, _I64, start), (3, _STRUCT, meta)))
        row_group = _struct(
            (1, _LIST, (_STRUCT, column_chunks)),
            (2, _I64, total_uncompressed),
            (3, _I64, rows),
            (5, _I64, first),
            (6, _I64, total_compressed),
            (7, _I16, 0),  # ordinal
        )
        root = _struct((4, _BINARY, b"schema"), (5, _I32, len(chunks)))
        type_order = _struct((1, _STRUCT, _struct()))  # ColumnOrder.TYPE_ORDER
        footer = _struct(
            (1, _I32, 1),
            (2, _LIST, (_STRUCT, [root, *(c.schema for c in chunks)])),
            (3, _I64, rows),
            (4, _LIST, (_STRUCT, [row_group] if rows else [])),
            None if not metadata else (5, _LIST, (_STRUCT, _key_values(metadata))),
            (6, _BINARY, created_by.encode()),
            (7, _LIST, (_STRUCT, [type_order] * len(chunks))),
        )
        f.write(footer)
        f.write(struct.pack("<I", len(footer)))
        f.write(MAGIC)
    return f.hexdigest()


class _Hashing:
    """A binary file that hashes (SHA-256) what is written to it."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self._hash = hashlib.sha256()

    def write(self, data: bytes) -> None:
        self._hash.update(data)
        self._file.write(data)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


def _key_values(metadata: Mapping[str, str]) -> list[bytes]:
    return [
        _struct((1, _BINARY, str(k).encode()), (2, _BINARY, str(v).encode()))
        for k, v in metadata.items()
    ]


# ---- reading a footer back: is a part complete? -----------------------------------------------


class DamagedFile(ValueError):
    """Not a complete parquet file; the message says what is wrong with it (not its path)."""


class Footer(NamedTuple):
    rows: int
    columns: list[str]  # leaf column names, in file order
    metadata: dict[str, str] = {}  # the footer's key-value metadata  # noqa: RUF012


def read_footer(path: str | os.PathLike[str]) -> Footer:
    """The row count, column names and key-value metadata from the footer of parquet file
    ``path``, after checking what a truncated or overwritten file gets wrong: the magic at both
    ends, the footer's length, and its schema and row count (only the footer is read: a fraction
    of a millisecond). A page damaged inside the file is found only by a reader decoding it, or
    by the file's checksum. Raises DamagedFile, or OSError if the file cannot be read."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < 2 * len(MAGIC) + 4:
            raise DamagedFile(f"{size} bytes, too short for a parquet file")
        head = f.read(len(MAGIC))
        f.seek(size - 8)
        tail = f.read(8)
        length = _footer_length(head, tail, size)
        f.seek(size - 8 - length)
        return _parse_footer(f.read(length))


def parse_footer(data: bytes | memoryview) -> Footer:
    """:func:`read_footer` of a whole parquet file already in memory (``data``)."""
    size = len(data)
    if size < 2 * len(MAGIC) + 4:
        raise DamagedFile(f"{size} bytes, too short for a parquet file")
    length = _footer_length(bytes(data[: len(MAGIC)]), bytes(data[size - 8 :]), size)
    return _parse_footer(bytes(data[size - 8 - length : size - 8]))


def _footer_length(head: bytes, tail: bytes, size: int) -> int:
    if head != MAGIC:
        raise DamagedFile("it does not start with the parquet magic PAR1")
    if tail[4:] != MAGIC:
        raise DamagedFile("no parquet footer at its end")
    length = struct.unpack("<I", tail[:4])[0]
    if length > size - 12:
        raise DamagedFile(f"its footer length {length:,} exceeds the file's {size:,} bytes")
    return length


def _parse_footer(raw: bytes) -> Footer:
    try:
        meta = _Reader(raw).struct()  # FileMetaData: 2 schema, 3 num_rows, 5 key-value metadata
        rows = int(meta[3])
        root, *leaves = meta[2]
        names = [e[4].decode() for e in leaves]
        metadata = {kv[1].decode(): kv.get(2, b"").decode() for kv in meta.get(5, [])}
        sound = rows >= 0 and root.get(5) == len(names)  # the root counts its columns
    except (IndexError, KeyError, TypeError, ValueError, AttributeError):
        sound = False
    if not sound:
        raise DamagedFile("its footer is unreadable")
    return Footer(rows, names, metadata)


class _Reader:
    """Thrift compact protocol values as Python values (a struct is {field id: value}); every
    read is bounded by the data, so garbage raises IndexError or ValueError."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.i = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.i + n > len(self.data):
            raise IndexError("past the end")
        self.i += n
        return self.data[self.i - n : self.i]

    def varint(self) -> int:
        n = shift = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7
            if shift > 70:
                raise ValueError("varint too long")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, kind: int, depth: int) -> object:
        if kind in (_I16, _I32, _I64):
            return self.zigzag()
        if kind in (_TRUE, _FALSE):
            return kind == _TRUE
        if kind == _BYTE:
            return self.take(1)[0]
        if kind == 7:  # double
            return struct.unpack("<d", self.take(8))[0]
        if kind == _BINARY:
            return self.take(self.varint())
        if kind == _STRUCT:
            return self.struct(depth + 1)
        if kind in (_LIST, 10):  # list, set
            header = self.take(1)[0]
            n, elem = header >> 4, header & 0x0F
            if n == 15:
                n = self.varint()
            if n > len(self.data) - self.i:  # every element takes at least a byte
                raise IndexError("list longer than the data")
            if elem in (_TRUE, _FALSE):  # in a list, a bool is a whole byte
                return [b == _TRUE for b in self.take(n)]
            return [self.value(elem, depth) for _ in range(n)]
        if kind == 11:  # map
            n = self.varint()
            types = self.take(1)[0] if n else 0
            return {self.value(types >> 4, depth): self.value(types & 15, depth) for _ in range(n)}
        raise ValueError(f"unknown thrift type {kind}")

    def struct(self, depth: int = 0, stop_at: int | None = None) -> dict[int, object]:
        """The next struct; with ``stop_at``, only its fields before that field id."""
        if depth > 16:
            raise ValueError("structs nested too deep")
        fields: dict[int, object] = {}
        last = 0
        while True:
            b = self.take(1)[0]
            if b == 0:
                return fields
            kind, delta = b & 0x0F, b >> 4
            last = last + delta if delta else self.zigzag()
            if stop_at is not None and last >= stop_at:
                return fields
            fields[last] = self.value(kind, depth)
