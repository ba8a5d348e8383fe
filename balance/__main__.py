"""`python -m balance ...`: the same as the `balance` command."""

from balance.cli import app

app(prog_name="balance")
