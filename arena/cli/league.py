"""``arena league``: create a league, enter bots, run its round robin (a ladder: ``ladder.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from referee import MatchResult
from referee.textlog import printable

from ..league import all_leagues, create_league, join_league
from ..league.executor import MatchJob
from ..league.runner import run_league
from ..league.schedule import FAILURE_POLICIES, ScheduleOptions, games_per_match
from .options import CELERY_JOBS, GAME, executor_options, parse_settings, quiet_option, user_errors, with_store
from .progress import Progress, table


@click.group()
def league() -> None:
    """Leagues: one game, one player count, its settings, and the bots entered."""


def create_options(command):
    """The options of ``arena league create`` and ``arena ladder create``: NAME, the game, the
    players per table, its settings, and the schedule's (see :class:`ScheduleOptions`)."""
    for decorate in reversed([
        click.argument("name"),
        click.option("--game", required=True, type=GAME),
        click.option("--players", required=True, type=int, help="Players per table."),
        click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="A [house] setting of the game."),
        click.option("--deals", default=1, show_default=True,
                     help="Games per match = DEALS x players; each deal is played in every rotation over a cycle "
                          "of players matches."),
        click.option("--decision-ms", default=1000, show_default=True),
        click.option("--bank-ms", default=10_000, show_default=True),
        click.option("--failures", type=click.Choice(FAILURE_POLICIES), default="last", show_default=True,
                     help="last: a failed seat ranks last and the game is rated; exclude: games with a failure "
                          "are not rated."),
    ]):
        command = decorate(command)
    return command


def create_from_options(store, format: str, name: str, game: str, players: int, overrides: tuple[str, ...],
                        deals: int, decision_ms: int, bank_ms: int, failures: str) -> ScheduleOptions:
    """Creates the league of :func:`create_options`' values, in ``format``; its options."""
    try:
        options = ScheduleOptions(deals=deals, decision_ms=decision_ms, bank_ms=bank_ms, failures=failures,
                                  format=format)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    create_league(store, name, game, players, parse_settings(overrides), options)
    return options


@league.command()
@create_options
@with_store()
@user_errors
def create(store, name: str, **values) -> None:
    """Create the league NAME, a round robin, with a fresh secret from which its deals are drawn."""
    options = create_from_options(store, "round-robin", name, **values)
    players = values["players"]
    click.echo(f"league {printable(name)}: {values['game']}, {players} per table, "
               f"{games_per_match(players, options)} games per match; the luck of the deal cancels over each "
               f"cycle of {players} rounds")


@league.command()
@click.argument("name")
@click.argument("bot", metavar="BOT[@VERSION]")
@with_store(create=False)
@user_errors
def join(name: str, bot: str, store) -> None:
    """Enter an already registered bot in the league NAME."""
    entered = join_league(store, name, bot)
    click.echo(f"{entered.label} joined {name}")


@league.command("list")
@with_store(create=False)
def list_leagues(store) -> None:
    """Every league, with its entrants."""
    for lg in all_leagues(store):
        bots = ", ".join(map(printable, lg.entrants)) or "no entrants"
        kind = " (ladder)" if lg.format == "ladder" else ""
        click.echo(f"{printable(lg.name)}{kind}: {lg.game}, {lg.players} per table; {bots}")


@league.command()
@click.argument("name")
@click.option("--rounds", default=1, show_default=True, help="Play every round up to this many.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Matches played at once; with --executor celery, matches queued for the workers at once. "
                   f"Default: 1, or {CELERY_JOBS} with --executor celery.")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/leagues"),
              show_default=True, help="Where match records go.")
@quiet_option
@executor_options
@with_store(create=False)
@user_errors
def run(name: str, rounds: int, jobs: int | None, runs_dir: Path, quiet: bool, executor: str, broker: str | None,
        queue: str, store) -> None:
    """Play the league's round robin; a rerun resumes where a killed run stopped."""
    from ..league.workers import make_executor

    with make_executor(executor, store, broker, queue) as chosen:
        run_with_progress(store, name, rounds, jobs or (CELERY_JOBS if executor == "celery" else 1), runs_dir,
                          chosen, quiet=quiet)


def run_with_progress(store, name: str, rounds: int, jobs: int, runs_dir: Path, executor=None,
                      quiet: bool = False) -> None:
    """Runs the league with its progress (:mod:`.progress`): games done of the total, the rate,
    the ETA, the tables being played and the failures; then the summary line."""
    with Progress(f"league {name}", quiet=quiet) as shown:
        def started(job: MatchJob) -> None:
            shown.started(job.out_dir, table(bot.name for bot in job.spec.bots))

        def ended(job: MatchJob, result: MatchResult | None) -> None:
            shown.ended(job.out_dir)
            if result is not None:
                shown.advance(len(result.games), [f for g in result.games for f in g["failures"]],
                              note=f"stored round {job.slot.round}: {table(bot.name for bot in job.spec.bots)}")

        summary = run_league(store, name, rounds, jobs, runs_dir, on_start=lambda total: shown.update(0, total),
                             executor=executor, match_started=started, match_ended=ended)
    click.echo(f"{summary.matches_run} match(es), {summary.games_run} game(s), {summary.failures} seat "
               f"failure(s) in {summary.seconds:.1f} s; {summary.matches_skipped} match(es) were already played")
