"""The tests' shared kit: ``kit.configs`` writes configs, ``kit.fake_game`` is the one fake game
(tests/ is on sys.path, as for every helper module of the tests)."""
