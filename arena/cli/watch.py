"""``arena watch MATCH``: a match followed live, game by game, in the public view (``arena/watch.py``)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from ..store import StoreError, open_store
from ..watch import POLL, Watcher, WatchError, resolve


@click.command()
@click.argument("match_ref", metavar="MATCH")
@click.option("--db", "db_url", envvar="ARENA_DB", metavar="URL",
              help="Database URL (SQLAlchemy); default $ARENA_DB or sqlite:///runs/arena.db.")
@click.option("--interval", type=click.FloatRange(min=0.05, max=10), default=POLL, show_default=True,
              help="Seconds between looks at the records being written.")
def watch(match_ref: str, db_url: str | None, interval: float) -> None:
    """Follow MATCH as it is played: each game's seats, its public events, its scores.

    MATCH is LEAGUE/ROUND/TABLE (as `arena league status` lists the matches being played), a
    stored match's id (replayed at once), or a match's records folder (`arena match --out DIR`).
    Nobody's hidden cards are shown; a league's games show only their headers until their
    table's whole duplicate cycle is stored (its other matches deal the same cards). Ctrl-C
    stops watching."""
    try:
        store = open_store(db_url, create=False)
    except StoreError as exc:
        if not Path(match_ref).is_dir():
            raise click.ClickException(str(exc)) from exc
        store = None  # a records folder needs no store (unless its spec plans its deals: resolve says so)
    try:
        watcher = Watcher(resolve(match_ref, store), store)
        for line in watcher.start():
            click.echo(line)
        while True:
            for line in watcher.poll():
                click.echo(line)
            if watcher.finished:
                break
            time.sleep(interval)
    except WatchError as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        click.echo("stopped watching", err=True)
        return
    if watcher.failed:
        raise SystemExit(1)
