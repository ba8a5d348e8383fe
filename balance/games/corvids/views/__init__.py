"""Corvids' views: what the game draws and analyses for a reader, apart from its rules.

``report.py``: the game's own sections of a report (a starting pile, the pile's events per game);
``pictures.py``: the replay pictures (``balance replay --html``). They may import the report,
stats, configs and plotly; the rule modules (everything else in ``balance/games/corvids/``)
never import them, and the plugin reaches them only from inside its hooks, so importing the
game's rules pulls in nothing of analysis or drawing (tests/test_layering.py).
"""
