"""Raven Manor's search player: balance/games/_search.py's ISMCTS compiled against this game's
engine (imported only for a config with a search seat)."""

from numba import njit

from balance.games import _search
from balance.games.raven_manor import engine as E
from balance.games.raven_manor import knowledge as K
from balance.games.raven_manor import policies as P
from balance.games.raven_manor import state as S
from balance.games.raven_manor import tables as T


@njit(cache=True)
def side_of(tb, st, seat):
    """0 while the seat is on the Family's side, 1 on an evil side (the Raven's, or possessed:
    RM-6, RM-11, the seat knows it): a search's ``sides``."""
    return 0 if st.pl[seat, S.PL_SIDE] == T.FAMILY else 1


_search.bind(globals(), S=S, E=E, P=P, K=K, side_of=side_of)
