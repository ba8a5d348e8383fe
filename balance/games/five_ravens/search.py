"""Five Ravens' search player: balance/games/_search.py's ISMCTS compiled against this game's
engine (imported only for a config with a search seat)."""

from numba import njit

from balance.games import _search
from balance.games.five_ravens import engine as E
from balance.games.five_ravens import knowledge as K
from balance.games.five_ravens import policies as P
from balance.games.five_ravens import state as S
from balance.games.five_ravens import tables as T


# block_tables and block_state return a record by value (the Tables and the State hold one),
# which numba cannot pass back from a call ("use load_from_data_pointer() instead", as it cannot
# hand one to Python): they are inlined into the search's kernels (numba IR inlining), which then
# make the Tables and the State in their own body, as engine.play_batch does.
@njit(cache=True, inline="always")
def block_tables(kt):
    """The kernels' Tables from the batch's argument, the record's one-element array (as
    engine.play_batch takes them)."""
    return T.Tables(kt[0])


@njit(cache=True, inline="always")
def block_state(tb):
    """A State for a block of games and its record's array, which the block keeps alive to its
    end (the State holds the record ``s[0]``, which does not)."""
    s, aux = S.alloc_state(tb, 0)
    return s, S.State(s[0], aux)


@njit(cache=True)
def block_end(keep):
    """A use of the record's array after the block's games, so it lives that long."""
    keep[0].board[S.G_LOG_N] = 0


@njit(cache=True)
def log_hold(st):
    """Stop ``st``'s event log (its rows written and its room, returned) while a search copies
    it: a copy then carries no log rows into the search's log-less States."""
    n = st.r.board[S.G_LOG_N]
    cap = st.r.board[S.G_LOG_CAP]
    st.r.board[S.G_LOG_N] = 0
    st.r.board[S.G_LOG_CAP] = 0
    return n, cap


@njit(cache=True)
def log_resume(st, n, cap):
    """The log of ``st`` as ``log_hold`` found it."""
    st.r.board[S.G_LOG_N] = n
    st.r.board[S.G_LOG_CAP] = cap


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
