"""balance: game-balance analytics by massive simulation."""

from balance import _cache

__version__ = "0.1.0"

# Before numba is imported anywhere: compiled kernels are cached per version of the sources.
_cache.configure()


def env(config, seed=None, **kwargs):
    """A game as a PettingZoo AEC environment: :func:`balance.envs.env` (needs the ``env``
    extra, ``pip install 'balance[env]'``; imported on first call, so ``import balance`` does
    not need it)."""
    from balance.envs import env as make

    return make(config, seed, **kwargs)
