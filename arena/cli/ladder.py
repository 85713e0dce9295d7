"""``arena ladder``: create a ladder and run it (``arena/league/ladder.py``)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import click

from referee.textlog import printable

from ..league.ladder import LadderStatus, run_ladder
from ..league.schedule import games_per_match
from .completion import complete_leagues
from .league import create_from_options, create_options
from .options import CELERY_JOBS, executor_options, quiet_option, user_errors, with_store
from .progress import NAME, Progress


class Duration(click.ParamType):
    """``90s``, ``10m``, ``2h``, ``1h30m`` (or plain seconds) -> seconds."""

    name = "duration"
    UNITS = {"h": 3600, "m": 60, "s": 1}

    def convert(self, value, param, ctx):
        if isinstance(value, int | float):
            return float(value)
        text = value.strip().lower()
        parts = re.findall(r"(\d+(?:\.\d+)?)([hms])", text)
        if re.fullmatch(r"\d+(\.\d+)?", text):
            seconds = float(text)
        elif parts and "".join(n + u for n, u in parts) == text:
            seconds = sum(float(n) * self.UNITS[u] for n, u in parts)
        else:
            self.fail(f"{value!r} is not a duration such as 90s, 10m, 2h or 1h30m", param, ctx)
        if seconds <= 0:
            self.fail("a duration must be more than 0 s", param, ctx)
        return seconds


@click.group()
def ladder() -> None:
    """Ladders: leagues that play without end, each table picked where it teaches the ratings most."""


@ladder.command()
@create_options
@with_store()
@user_errors
def create(store, name: str, **values) -> None:
    """Create the ladder NAME, with a fresh secret from which its deals are drawn."""
    options = create_from_options(store, "ladder", name, **values)
    players = values["players"]
    click.echo(f"ladder {printable(name)}: {values['game']}, {players} per table, "
               f"{games_per_match(players, options)} games per match; each cycle plays one table's deals in all "
               f"{players} rotations. Enter bots with `arena league join`, play with `arena ladder run`")


@ladder.command()
@click.argument("name", shell_complete=complete_leagues("ladder"))
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Matches played at once; with --executor celery, matches queued for the workers at once. "
                   f"Default: 1, or {CELERY_JOBS} with --executor celery.")
@click.option("--until", type=click.IntRange(min=1), metavar="GAMES",
              help="Pick no new cycle once the ladder has (or is playing) this many games in total; complete the "
                   "cycles picked.")
@click.option("--for", "duration", type=Duration(), metavar="DURATION",
              help="Start no match after this long (90s, 10m, 2h); the next run completes the cycles in progress.")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/leagues"),
              show_default=True, help="Where match records go.")
@quiet_option
@executor_options
@with_store(create=False)
@user_errors
def run(name: str, jobs: int | None, until: int | None, duration: float | None, runs_dir: Path, quiet: bool,
        executor: str, broker: str | None, queue: str, store) -> None:
    """Play the ladder NAME: without end (Ctrl-C or SIGTERM stops it), or --until or --for.

    A rerun after a kill completes the cycles it left incomplete first."""
    if until is not None and duration is not None:
        raise click.UsageError("give --until or --for, not both")
    previous = signal.signal(signal.SIGTERM, _interrupt)  # stop as Ctrl-C does: nothing half stored
    from ..league.workers import make_executor

    def progress(status: LadderStatus) -> None:
        shown.update(status.games, failures=status.reasons, playing=status.playing, status=_status(status))

    try:
        with make_executor(executor, store, broker, queue) as chosen, \
                Progress(f"ladder {name}", total=until, quiet=quiet) as shown:
            status = run_ladder(store, name, jobs or (CELERY_JOBS if executor == "celery" else 1), runs_dir,
                                until=until, duration=duration, progress=progress, executor=chosen)
    finally:
        signal.signal(signal.SIGTERM, previous)
    why = {"until": f"the ladder has {status.games} game(s)", "for": "its time is up",
           "interrupted": "interrupted; the matches in flight were dropped"}.get(status.stopped, "")
    click.echo(f"{status.matches_run} match(es), {status.games_run} game(s), {status.failures} seat failure(s) in "
               f"{status.seconds:.1f} s; {status.games} game(s) and {status.cycles} complete cycle(s) stored"
               + (f", {status.open_cycles} to complete" if status.open_cycles else "")
               + (f"; {status.abandoned} cycle(s) of retired bots left incomplete" if status.abandoned else "")
               + (f"; stopped: {why}" if why else ""))


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _status(status: LadderStatus) -> str:
    """The ladder's line under its bar: cycles, matches in flight, the top bots (names escaped)."""
    top = ", ".join(f"{printable(label, NAME)} {exposure:.1f}" for label, exposure in status.top)
    waiting = "; waiting for entrants" if status.waiting else ""
    return (f"{status.cycles} cycles ({status.open_cycles} open), {status.in_flight} in flight; "
            f"top: {top}{waiting}")
