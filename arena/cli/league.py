"""``arena league``: create a league, enter bots, run its round robin (a ladder: ``ladder.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from referee import MatchResult
from referee.textlog import printable

from ..league import create_league
from ..league.entries import all_leagues, join_league
from ..league.executor import MatchJob
from ..league.runner import run_league
from ..league.schedule import (
    DEFAULT_SCHEDULE,
    FAILURE_POLICIES,
    LEAGUE_FORMATS,
    FailurePolicy,
    Format,
    ScheduleOptions,
    games_per_match,
)
from .completion import complete_bots, complete_leagues
from .options import (
    CELERY_JOBS,
    GAME,
    executor_options,
    parse_settings,
    quiet_option,
    time_options,
    user_errors,
    with_store,
)
from .output import console, echo_json, iso, json_option, print_table
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
        click.option("--deals", default=DEFAULT_SCHEDULE.deals, show_default=True,
                     help="Games per match = DEALS x players; each deal is played in every rotation over a cycle "
                          "of players matches."),
        time_options(),
        click.option("--failures", type=click.Choice(FAILURE_POLICIES), default=DEFAULT_SCHEDULE.failures,
                     show_default=True,
                     help="last: a failed seat ranks last and the game is rated; exclude: games with a failure "
                          "are not rated."),
    ]):
        command = decorate(command)
    return command


def create_from_options(store, format: Format, name: str, game: str, players: int, overrides: tuple[str, ...],
                        deals: int, decision_ms: int, bank_ms: int, increment_ms: int, match_bank_ms: int,
                        failures: FailurePolicy, **more: Any) -> ScheduleOptions:
    """Creates the league of :func:`create_options`' values, in ``format``; its options. ``more``:
    a format's own options (``challenger``, ``seeds_from``)."""
    try:
        options = ScheduleOptions(deals=deals, decision_ms=decision_ms, bank_ms=bank_ms, increment_ms=increment_ms,
                                  match_bank_ms=match_bank_ms, failures=failures, format=format, **more)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    create_league(store, name, game, players, parse_settings(overrides), options)
    return options


@league.command()
@create_options
@click.option("--format", "format_", type=click.Choice(LEAGUE_FORMATS), default=DEFAULT_SCHEDULE.format,
              show_default=True, help="How its tables are drawn (a ladder: `arena ladder create`); docs/leagues.md.")
@click.option("--challenger", default="", metavar="BOT",
              help="A gauntlet's challenger: the bot name whose versions each play the field (the others).")
@click.option("--seeds-from", default="", metavar="LEAGUE",
              help="A bracket's seeding: the league whose ratings order the seeds, the unrated after them in a "
                   "draw from the league's secret (default: its own ratings, none before its first run).")
@with_store()
@user_errors
def create(store, name: str, format_: Format, challenger: str, seeds_from: str, **values) -> None:
    """Create the league NAME, with a fresh secret from which its deals are drawn: a round robin
    unless --format says otherwise."""
    options = create_from_options(store, format_, name, **values, challenger=challenger, seeds_from=seeds_from)
    players = values["players"]
    kind = "" if format_ == "round-robin" else f" ({format_})"
    cycle = "rounds" if format_ == "round-robin" else "matches of a table"
    click.echo(f"league {printable(name)}{kind}: {values['game']}, {players} per table, "
               f"{games_per_match(players, options)} games per match; the luck of the deal cancels over each "
               f"cycle of {players} {cycle}")


@league.command()
@click.argument("name", shell_complete=complete_leagues())
@click.argument("bot", metavar="BOT[@VERSION]", shell_complete=complete_bots)
@with_store(create=False)
@user_errors
def join(name: str, bot: str, store) -> None:
    """Enter an already registered bot in the league NAME."""
    entered = join_league(store, name, bot)
    click.echo(f"{printable(entered.label)} joined {printable(name)}")


@league.command()
@click.argument("name", shell_complete=complete_leagues())
@click.option("--name", "finals", default=None, metavar="FINALS", help="The finals' name (default: NAME-finals).")
@click.option("--format", "format_", type=click.Choice(LEAGUE_FORMATS), default=DEFAULT_SCHEDULE.format,
              show_default=True, help="The finals' format (a bracket is seeded from NAME's ratings).")
@click.option("--challenger", default="", metavar="BOT", help="A gauntlet's challenger (with --format gauntlet).")
@with_store(create=False)
@user_errors
def finals(name: str, finals: str | None, format_: Format, challenger: str, store) -> None:
    """Close league NAME to new entrants and create its finals: NAME's playing entrants, its game,
    settings and time control, on a fresh secret (deals no bot has seen). Play them with `arena
    league run FINALS`; NAME itself may go on running (a ladder stays the public board)."""
    from ..league.finals import create_finals

    made = create_finals(store, name, finals, format_, challenger)
    click.echo(f"league {printable(name)} is closed to new entrants; its finals {printable(made.name)} "
               f"({format_}, {len(made.entrants)} entrants, a fresh secret): arena league run {printable(made.name)}")


@league.command("list")
@json_option
@with_store(create=False)
def list_leagues(as_json: bool, store) -> None:
    """Every league and ladder, with its entrants."""
    leagues = all_leagues(store)
    if as_json:
        echo_json([{"name": lg.name, "format": lg.format, "game": lg.game, "players": lg.players,
                    "settings": lg.settings, "schedule": lg.schedule, "created_at": iso(lg.created_at),
                    "closed_at": iso(lg.closed_at), "finals": lg.finals, "finals_of": lg.finals_of,
                    "entrants": [{"bot_id": b.id, "bot": b.name, "version": b.version} for b in lg.bots]}
                   for lg in leagues])
        return
    # each entrant escaped on its own: a cut must not cut the list
    print_table(["league", "format", "game", "players", "entrants"],
                [[lg.name, lg.format, lg.game, lg.players, ", ".join(printable(label) for label in lg.entrants) or "-"]
                 for lg in leagues], right=[3], hostile=[0])


@league.command()
@click.argument("name", shell_complete=complete_leagues("league"))
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
    """Play the league in its format (a round robin's rounds, a Swiss' rounds, a bracket to its
    end); a rerun resumes where a killed run stopped."""
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


@league.command()
@click.argument("name", shell_complete=complete_leagues())
@json_option
@with_store(create=False)
@user_errors
def standings(name: str, as_json: bool, store) -> None:
    """The standings of league NAME's format (a Swiss' points and tie-breaks, a bracket, a
    gauntlet's challengers against the field), from complete duplicate cycles, with the ratings."""
    from ..league.formats import format_named, standings_of

    data = standings_of(store, name)
    if as_json:
        echo_json(data)
        return
    if data["board"] is None:
        raise click.ClickException(f"a {data['format']} league's standings are its leaderboard: "
                                   f"arena leaderboard {printable(name)}")
    labels = {int(b): f"{r['bot']}@{r['version']}" for b, r in data["ratings"].items()}
    for line in format_named(data["format"]).text(data["board"], labels):
        click.echo(printable(line, limit=500))


@league.command()
@click.argument("name")
@click.option("--rounds", type=click.IntRange(min=0), default=None,
              help="A round robin's target (default: the rounds its last run was asked to play).")
@json_option
@with_store(create=False)
@user_errors
def status(name: str, rounds: int | None, as_json: bool, store) -> None:
    """What league NAME has done and has left, how fast, its failures, and the matches being played."""
    from ..league.status import league_status

    data = league_status(store, name, rounds)
    if as_json:
        echo_json(data)
    else:
        print_status(data)


def print_status(data: dict) -> None:
    """:func:`arena.league.status.league_status`'s document, as text."""
    out = console()
    kind = data["format"].replace("-", " ")  # "round robin", "ladder", "swiss", "double elimination"...
    say = out.print
    say(f"league {printable(data['league'])} ({kind}): {data['game']}, {data['players']} per table, "
        f"{data['games_per_match']} games per match")
    target, last = data["target"], data["last_run"] or {}
    when = f", started {last['at']}" if last.get("at") else ""
    if target is None:
        say(f"target: none ({data['eta']['why']})")
    elif "rounds" in target:
        say(f"target: {target['rounds']} rounds" + (f" (--rounds of its last run{when})" if target["from"] == "last_run"
                                                     else " (status --rounds)"))
    elif "until" in target:
        say(f"target: {target['until']} games (--until of its last run{when}; it completes the cycles it picked)")
    else:
        say(f"target: no match starts after {target['deadline']} (--for of its last run{when})")
    matches, games, rounds = data["matches"], data["games"], data["rounds"]
    if rounds is not None and rounds["complete"] is not None:
        say(f"rounds: {rounds['complete']} of {rounds['target']} complete, {rounds['left']} with matches left")
    left = "" if matches["left"] is None else f", {matches['left']} left of {matches['target']}"
    say(f"matches: {matches['stored']} stored, {matches['running']} being played{left}")
    left = "" if games["left"] is None else f", {games['left']} left"
    say(f"games: {games['stored']} stored, {games['in_running']} done in the matches being played{left}")
    say(f"cycles: {data['cycles']['complete']} complete, {data['cycles']['open']} open")
    rate = data["rate"]
    if rate["games_per_second"] is None:
        say("rate: not measured yet (no finished match)")
    else:
        say(f"rate: {rate['games_per_second']:.2f} games/s ({rate['games']} games of the {rate['matches']} "
            f"match(es) that finished in the {duration(rate['window_seconds'])} up to {rate['until']})")
    eta = data["eta"]
    if eta["seconds"] is None:
        say(f"ETA: unknown ({eta['why']})")
    else:
        idle = "" if data["running"] else "; nothing is being played now"
        say(f"ETA: {duration(eta['seconds'])}, at {eta['at']} ({eta['why']}{idle})")
    failures = data["failures"]
    say(f"failures: {failures['seats']} seat(s) in {failures['games']} game(s)")
    if failures["seats"]:
        print_table(["reason", "seats"], sorted(failures["by_reason"].items(), key=lambda kv: -kv[1]),
                    right=[1], hostile=[0])
        print_table(["bot", "failed", "of games", "reasons"],
                    [(b["bot"], b["failures"], b["games"],
                      ", ".join(f"{printable(r, 32)} {n}" for r, n in b["by_reason"].items()))
                     for b in failures["by_bot"]], right=[1, 2], hostile=[0])
    if data["running"]:
        say("being played (arena watch MATCH):")
        print_table(["match", "bots", "host", "since", "games done", "game", "decisions"],
                    [(r["match"], ", ".join(printable(b, 40) for b in r["bots"]), r["host"],
                      f"{r['since']} ({duration(r['seconds'])})",
                      "?" if r["games_done"] is None else f"{r['games_done']}/{r['games']}",
                      "-" if r["game"] is None else r["game"], "-" if r["decisions"] is None else r["decisions"])
                     for r in data["running"]], right=[4, 5, 6], hostile=[0, 2])
    else:
        say("being played: nothing")


def duration(seconds: float) -> str:
    """``75`` -> ``1m 15s``; ``4000`` -> ``1h 06m``."""
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
