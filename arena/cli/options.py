"""Parsing helpers shared by the command modules."""

from __future__ import annotations

import click

from arena_games import GAMES, UnknownGame, get_game


class GameName(click.ParamType):
    """A game's name, checked against the registry so the error lists the known games."""

    name = "game"

    def convert(self, value, param, ctx):
        try:
            return get_game(value).name
        except UnknownGame as exc:
            self.fail(str(exc), param, ctx)

    def get_metavar(self, param, ctx=None) -> str:
        return "[" + "|".join(sorted(GAMES)) + "]"


GAME = GameName()


def parse_settings(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """``("max_bribe_offers=2", ...)`` -> ``{"max_bribe_offers": "2"}``; the engine converts types."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {pair!r}", param_hint="--set")
        out[key.strip()] = value.strip()
    return out


def with_store(create: bool = True):
    """Adds ``--db URL`` (default: $ARENA_DB, else sqlite:///runs/arena.db) and passes the open store.

    Without ``create``, for commands that only read or that need a league to exist, a URL
    that holds no store is an error, and nothing is created.
    """
    import functools

    from ..store import StoreError, open_store

    def decorate(command):
        @click.option("--db", "db_url", envvar="ARENA_DB", metavar="URL",
                      help="Database URL (SQLAlchemy); default $ARENA_DB or sqlite:///runs/arena.db.")
        @functools.wraps(command)
        def wrapper(*args, db_url: str | None, **kwargs):
            from .. import audit

            try:
                store = open_store(db_url, create=create)
            except StoreError as exc:
                raise click.ClickException(str(exc)) from exc
            # what the command writes is the operator's, on the record (an audit entry, arena/audit.py)
            with audit.command(store, " ".join(click.get_current_context().command_path.split()[1:])):
                return command(*args, store=store, **kwargs)

        return wrapper

    return decorate


def user_errors(command):
    """Turns the errors whose message is meant for the user (a league's refusal, no Docker
    engine, a referee that failed, a full disk) into a clean CLI error (exit status 1)."""
    import functools

    from referee import RefereeFailed
    from referee.sandbox import NoDockerEngine

    from ..league import LeagueError
    from ..league.waiting import DiskFull

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (LeagueError, NoDockerEngine, RefereeFailed, DiskFull) as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def quiet_option(command):
    """``--quiet``/``-q``: no progress (passed on as ``quiet``); errors and the summary still print."""
    return click.option("--quiet", "-q", is_flag=True,
                        help="No progress display or progress lines; errors and the summary line still print."
                        )(command)


def time_options(startup_ms: int | None = None):
    """``--decision-ms``, ``--bank-ms``, ``--increment-ms`` and ``--match-bank-ms``, and with a
    ``startup_ms`` default ``--startup-ms``: the time control of ``arena match``, ``arena compare``,
    ``arena league create``, ``arena ladder create`` and ``arena bot check``, passed on as
    ``decision_ms``, ``bank_ms``, ``increment_ms``, ``match_bank_ms`` (and ``startup_ms``). The
    defaults are referee/limits.py's; the bounds the referee's (a decision and a start take some
    time, a bank or an increment may be 0; none past the wire's uint32)."""
    from referee import limits
    from referee.spec import MAX_MS

    def ms(least: int) -> click.IntRange:
        return click.IntRange(min=least, max=MAX_MS)

    options = [
        click.option("--decision-ms", type=ms(1), default=limits.DECISION_MS, show_default=True,
                     help="Per-decision time limit."),
        click.option("--bank-ms", type=ms(0), default=limits.BANK_MS, show_default=True,
                     help="Per-game time bank (per seat): time past the decision limit comes out of it."),
        click.option("--increment-ms", type=ms(0), default=limits.INCREMENT_MS, show_default=True,
                     help="Fischer increment: added to the game bank after each decision answered in time "
                          "(uncapped)."),
        click.option("--match-bank-ms", type=ms(0), default=limits.MATCH_BANK_MS, show_default=True,
                     help="Per-match time bank (per bot), spent once the game bank is; 0: none."),
    ]
    if startup_ms is not None:
        options.append(click.option("--startup-ms", type=ms(1), default=startup_ms, show_default=True,
                                    help="Time to connect and say hello."))

    def decorate(command):
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


EXECUTORS = ("local", "celery")
CELERY_JOBS = 16  # matches queued at once for the workers, unless --jobs says otherwise


def executor_options(command):
    """``--executor local|celery``, ``--broker URL`` and ``--queue NAME`` for the commands that run
    a league's matches: they pass ``executor`` (``"local"`` or ``"celery"``), ``broker`` and
    ``queue`` on (see :func:`arena.league.workers.executor`)."""
    for decorate in reversed([
        click.option("--executor", type=click.Choice(EXECUTORS), default="local", show_default=True,
                     help="local: referee processes on this machine; celery: hand matches to `arena worker`s "
                          "through the broker."),
        click.option("--broker", envvar="ARENA_BROKER", metavar="URL",
                     help="The Celery broker (Redis) of --executor celery; default $ARENA_BROKER or "
                          "redis://127.0.0.1:6379/0."),
        click.option("--queue", envvar="ARENA_QUEUE", default="arena", show_default=True, metavar="NAME",
                     help="The broker queue the workers of --executor celery listen on."),
    ]):
        command = decorate(command)
    return command
