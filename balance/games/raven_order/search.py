"""The Raven Order's search player: balance/games/_search.py's ISMCTS compiled against this game's
engine (imported only for a config with a search seat)."""

from balance.games import _search
from balance.games.raven_order import engine as E
from balance.games.raven_order import knowledge as K
from balance.games.raven_order import policies as P
from balance.games.raven_order import state as S

_search.bind(globals(), S=S, E=E, P=P, K=K)
