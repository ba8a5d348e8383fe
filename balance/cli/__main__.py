"""`python -m balance.cli ...`: the same as the `balance` command."""

from balance.cli import app

app()
