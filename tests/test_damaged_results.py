"""A damaged results dataset: every reader says which part is damaged, in one line, no traceback.

A part cut short (a copy that stopped, a full disk), emptied or overwritten is caught when the
dataset is opened, from its footer; a page damaged inside a part only when polars decodes it, and
then the CLI names the part too (results.find_damaged).
"""

from __future__ import annotations

import contextlib
import os
import random

import polars as pl
import pytest
from typer.testing import CliRunner

from balance import parquet, results, runner
from balance.cli import app
from balance.config import load_config

GAMES, CHUNK = 200, 50  # four parts of the fake game (3 players)


@pytest.fixture(autouse=True)
def _forget_opened(monkeypatch):
    """find_damaged looks at the datasets opened in this process: only this test's."""
    monkeypatch.setattr(results.read, "_OPENED", {})


@pytest.fixture
def run(fake_config, tmp_path):
    out = tmp_path / "run"
    runner.run(
        load_config(fake_config), config_path=fake_config, out=out, games=GAMES, chunk_size=CHUNK
    )
    return out


def _part(run, i: int = 1):
    return run / results.PARTS_DIR / results.part_name(i)


def _cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert not result.exception or isinstance(result.exception, SystemExit), result.exception
    return result


def _flip(data: bytes, start: int, n: int) -> bytes:
    b = bytearray(data)
    for i in range(start, start + n):
        b[i] ^= 0xFF
    return bytes(b)


DAMAGES = {
    # name: (how the part's bytes change, what the message says is wrong)
    "cut in half": (lambda b: b[: len(b) // 2], "no parquet footer at its end"),
    "last bytes cut": (lambda b: b[:-3], "no parquet footer at its end"),
    "empty": (lambda b: b"", "0 bytes, too short for a parquet file"),
    "overwritten": (lambda b: b"\x00" * len(b), "it does not start with the parquet magic PAR1"),
    "footer length": (
        lambda b: b[:-8] + (10**6).to_bytes(4, "little") + b"PAR1",
        "its footer length 1,000,000 exceeds the file's",
    ),
    "footer garbled": (
        lambda b: _flip(b, len(b) - 8 - int.from_bytes(b[-8:-4], "little"), 40),
        "its footer is unreadable",
    ),
}


@pytest.mark.parametrize("damage", DAMAGES, ids=list(DAMAGES))
def test_open_results_names_a_damaged_part(run, damage):
    change, reason = DAMAGES[damage]
    part = _part(run)
    part.write_bytes(change(part.read_bytes()))
    with pytest.raises(results.ResultsError) as info:
        results.open_results(run)
    message = str(info.value)
    assert message.startswith(f"{part}: damaged or truncated parquet file ({reason}")
    assert message.endswith(f"--games {GAMES} --seed 7 --out {run} --force`")
    assert "\n" not in message


def test_a_part_of_another_length_is_damaged(run, fake_config, tmp_path):
    other = tmp_path / "other"
    runner.run(load_config(fake_config), config_path=fake_config, out=other, games=30)
    _part(other, 0).replace(_part(run))
    with pytest.raises(
        results.ResultsError, match=r"part-00001.parquet: a part of another run \(run id "
    ):
        results.open_results(run)


def test_a_part_with_other_columns_is_not_of_this_run(run):
    pl.DataFrame({"game": [50] * 150}).write_parquet(_part(run))
    with pytest.raises(
        results.ResultsError, match=r"a part of another run \(no run id; this run is "
    ):
        results.open_results(run)


@pytest.mark.parametrize("damage", ["cut in half", "footer garbled"])
def test_report_and_describe_say_it_in_one_line(run, tmp_path, damage):
    change, reason = DAMAGES[damage]
    part = _part(run, 3)
    part.write_bytes(change(part.read_bytes()))
    result = _cli("report", run, "-o", tmp_path / "r.html")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {part}: damaged or truncated parquet file ({reason}")
    assert result.stderr.count("\n") == 1
    assert not (tmp_path / "r.html").exists()


def test_a_page_damaged_inside_a_part_is_named_before_the_rows_are_read(run, tmp_path):
    part = _part(run, 2)
    part.write_bytes(_flip(part.read_bytes(), 8, 12))  # the first page header: the footer is fine
    with pytest.raises(results.ResultsError) as info:  # its SHA-256 is not the one written
        results.open_results(run)
    assert str(info.value).startswith(f"{part}: damaged or truncated parquet file (its SHA-256 ")
    result = _cli("report", run, "-o", tmp_path / "r.html", "--baseline", run)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {part}: damaged or truncated parquet file (")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.output


def test_with_every_part_sound_a_polars_error_is_not_blamed_on_one(run):
    results.open_results(run)
    assert results.find_damaged() is None


def test_read_footer_agrees_with_other_writers(tmp_path):
    frame = pl.DataFrame({"a": range(1000), "b": ["x", "y"] * 500, "c": [True] * 1000})
    frame.write_parquet(tmp_path / "polars.parquet")
    import pyarrow.parquet as pq

    pq.write_table(frame.to_arrow(), tmp_path / "arrow.parquet")
    for name in ("polars", "arrow"):
        footer = parquet.read_footer(tmp_path / f"{name}.parquet")
        assert (footer.rows, footer.columns) == (1000, ["a", "b", "c"])


def test_read_footer_never_raises_anything_but_damaged_file(run):
    """Random bytes in the footer: DamagedFile, or a footer that still reads (a changed value)."""
    raw = _part(run).read_bytes()
    length = int.from_bytes(raw[-8:-4], "little")
    rng = random.Random(3)
    path = run / "fuzz.parquet"
    for _ in range(300):
        b = bytearray(raw)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b) - 8 - length, len(b) - 8)] = rng.randrange(256)
        path.write_bytes(b)
        with contextlib.suppress(parquet.DamagedFile):
            parquet.read_footer(path)
    os.remove(path)
