"""The kernel cache folder (balance/_cache.py): one per source version, stale ones pruned."""

from __future__ import annotations

import os
import time

from balance import _cache

DAY = 86400


def test_prune_deletes_only_other_versions_unused_for_30_days(tmp_path):
    now = time.time()
    current = tmp_path / "numba-current"
    recent, stale, other = (tmp_path / n for n in ("numba-recent", "numba-stale", "notes"))
    for d in (current, recent, stale, other):
        d.mkdir()
        (d / "kernel.nbi").write_text("x")
    os.utime(current, (now - 90 * DAY, now - 90 * DAY))  # old, but in use now
    os.utime(recent, (now - 29 * DAY, now - 29 * DAY))
    os.utime(stale, (now - 31 * DAY, now - 31 * DAY))
    os.utime(other, (now - 365 * DAY, now - 365 * DAY))  # not a cache folder: left alone

    assert _cache.prune(current, now=now) == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "numba-current", "numba-recent"]
    assert current.stat().st_mtime == now  # marked as used


def test_prune_of_a_missing_folder_is_quiet(tmp_path):
    assert _cache.prune(tmp_path / "nope" / "numba-x") == []


def test_importing_balance_points_numba_at_the_versions_folder_and_prunes(tmp_path):
    """A fresh process: NUMBA_CACHE_DIR unset, XDG_CACHE_HOME=tmp -> tmp/balance/numba-<hash>;
    a sibling folder unused for 31 days is gone, the user's own NUMBA_CACHE_DIR is kept."""
    import subprocess
    import sys

    stale = tmp_path / "balance" / "numba-0123456789abcdef"
    stale.mkdir(parents=True)
    old = time.time() - 31 * DAY
    os.utime(stale, (old, old))
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    show = "import os, balance; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True)
    expected = tmp_path / "balance" / f"numba-{_cache.source_hash()}"
    assert out.stdout.strip() == str(expected)
    assert not stale.exists()
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == str(tmp_path / "mine")
