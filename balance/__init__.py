"""balance: game-balance analytics by massive simulation."""

from balance import _cache

__version__ = "0.1.0"

# Before numba is imported anywhere: compiled kernels are cached per version of the sources.
_cache.configure()
