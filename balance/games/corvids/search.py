"""Corvids's search player: balance/games/_search.py's ISMCTS compiled against this game's
engine (imported only for a config with a search seat)."""

from numba import njit

from balance.games import _search
from balance.games.corvids import engine as E
from balance.games.corvids import knowledge as K
from balance.games.corvids import policies as P
from balance.games.corvids import state as S


@njit(cache=True)
def block_tables(kt):
    """The kernels' tables from the batch's argument (the Compiled's tb itself)."""
    return kt


@njit(cache=True)
def block_state(tb):
    """A State for a block of games, and what keeps it alive (itself)."""
    st = S.alloc_state(tb, 0)
    return st, st


@njit(cache=True)
def block_end(keep):
    """Nothing to keep alive past a block's games."""
    return None


_search.bind(
    globals(),
    S=S,
    E=E,
    P=P,
    K=K,
    block_tables=block_tables,
    block_state=block_state,
    block_end=block_end,
)


def play(compiled, sp, seed, first_game, n_games):
    """Play a chunk of games with search seats (sp: the seats' search settings)."""
    return E.play(compiled, seed, first_game, n_games, batch=_batch(sp))


def _batch(sp):
    def batch(kt, seed, first_game, n_games, out):
        play_batch_search(kt, sp, seed, first_game, n_games, out)  # noqa: F821 (bind)

    return batch
