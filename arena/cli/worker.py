"""``arena worker``: a Celery worker that plays league matches on this host's Docker engine."""

from __future__ import annotations

import os
from pathlib import Path

import click

from referee import cpu


@click.command()
@click.option("--concurrency", "-c", type=click.IntRange(min=1), default=None,
              help="Matches played at once, each on a core of its own; default: this host's cores.")
@click.option("--broker", envvar="ARENA_BROKER", metavar="URL",
              help="The Celery broker (Redis); default $ARENA_BROKER or redis://127.0.0.1:6379/0.")
@click.option("--db", "db_url", envvar="ARENA_DB", metavar="URL",
              help="The league store the runner uses (PostgreSQL when workers are on several hosts); "
                   "default $ARENA_DB or sqlite:///runs/arena.db.")
@click.option("--queue", envvar="ARENA_QUEUE", default="arena", show_default=True, metavar="NAME",
              help="The broker queue to take matches from.")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/worker"),
              show_default=True, help="Where matches' records are written while they are played.")
@click.option("--visibility-timeout", type=click.IntRange(min=1), default=3600, show_default=True,
              metavar="SECONDS",
              help="A match taken by a worker that has not finished it after this long (the worker died) is "
                   "handed to another; set it above the longest match.")
def worker(concurrency: int | None, broker: str | None, db_url: str | None, queue: str, runs_dir: Path,
           visibility_timeout: int) -> None:
    """Play league matches handed out by `arena league run --executor celery` (or `arena ladder run`).

    Each match runs in a referee process of its own, with its bots' containers, on this host's
    Docker engine. A bot image the engine lacks is loaded from the store's archive of it. Stop
    it with Ctrl-C or SIGTERM: it finishes its matches in hand first; a second Ctrl-C, or
    SIGQUIT, stops it at once (its matches are played again elsewhere). See docs/deploy.md."""
    from ..league.waiting import DiskFull
    from ..league.workers import run_worker
    from ..store import StoreTooNew

    try:
        run_worker(concurrency=concurrency or len(cpu.allowed()), broker=broker, db_url=db_url, queue=queue,
                   runs_dir=runs_dir, visibility_timeout=visibility_timeout, pid=os.getpid())
    except (StoreTooNew, DiskFull) as exc:  # what waiting for the store cannot mend
        raise click.ClickException(str(exc)) from exc
