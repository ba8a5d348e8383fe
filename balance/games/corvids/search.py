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


@njit(cache=True)
def log_hold(st):
    """Stop ``st``'s event log (its rows written and its room, returned) while a search copies
    it: a copy then carries no log rows into the search's log-less States."""
    n = st.board[S.G_LOG_N]
    cap = st.board[S.G_LOG_CAP]
    st.board[S.G_LOG_N] = 0
    st.board[S.G_LOG_CAP] = 0
    return n, cap


@njit(cache=True)
def log_resume(st, n, cap):
    """The log of ``st`` as ``log_hold`` found it."""
    st.board[S.G_LOG_N] = n
    st.board[S.G_LOG_CAP] = cap


_search.bind(
    globals(),
    S=S,
    E=E,
    P=P,
    K=K,
    block_tables=block_tables,
    block_state=block_state,
    block_end=block_end,
    log_hold=log_hold,
    log_resume=log_resume,
)


def play(compiled, sp, seed, first_game, n_games):
    """Play a chunk of games with search seats (sp: the seats' search settings)."""
    return E.play(compiled, seed, first_game, n_games, batch=_batch(sp))


def _batch(sp):
    def batch(kt, seed, first_game, n_games, out):
        play_batch_search(kt, sp, seed, first_game, n_games, out)  # noqa: F821 (bind)

    return batch
