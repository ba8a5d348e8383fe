"""Per-game random streams usable inside numba kernels.

Each game ``i`` of a run seeded with ``s`` gets its own streams, derived with a counter-based mix
(splitmix64 of the seed, the game index and a stream number), so that a game is the same whatever
the chunking, the thread count or the backend (DESIGN.md, Determinism), and two configs run with
the same seed share their per-game streams (common random numbers).

The generator is xorshift64* on a ``uint64[1]`` state: an array so that a kernel can hold one
state per stream in a row of a 2-D array and pass it by reference. Every constant is typed
``np.uint64`` so that the compiled and the ``NUMBA_DISABLE_JIT=1`` runs agree bit for bit (in
numba ``uint64 + int64`` is int64, in NumPy 2 it is float64).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_XS_MULT = np.uint64(0x2545F4914F6CDD1D)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S32 = np.uint64(32)
_ZERO = np.uint64(0)


@njit(cache=True, _nrt=False, forceinline=False)
def splitmix64(x):
    """One splitmix64 step of ``x`` (a uint64): a strong 64-bit mix."""
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False, forceinline=False)
def seed_stream(state, seed, game, stream):
    """Seed ``state`` (uint64[1]) for stream ``stream`` of game ``game`` of run ``seed``."""
    z = splitmix64(np.uint64(seed))
    z = splitmix64(z ^ np.uint64(game))
    z = splitmix64(z ^ np.uint64(stream))
    if z == _ZERO:  # xorshift must not start at zero
        z = _GOLDEN
    state[0] = z


@njit(cache=True, _nrt=False, forceinline=False)
def next_u64(state):
    """The next 64 random bits of xorshift64* ``state``."""
    x = state[0]
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * _XS_MULT


@njit(cache=True, _nrt=False, forceinline=False)
def below(state, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (multiply-shift, bias < 2**-32 * n)."""
    return np.int64(((next_u64(state) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, _nrt=False, forceinline=False)
def uniform(state):
    """A uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
