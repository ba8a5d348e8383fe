"""balance: game-balance analytics by massive simulation."""

__version__ = "0.1.0"
