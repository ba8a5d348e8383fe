"""Corvids (not registered yet): the physical model of the trash pile lives in ``physics``."""
