"""``arena bot``: build a bot folder into an image, check a bot by playing it, submit a bot folder."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import click

from referee import limits
from referee.sandbox import client, docker_client
from referee.spec import MAX_MS, TimeControl
from referee.textlog import printable

from ..bots.build import BUILD_TIMEOUT, MAX_IMAGE_MB, build_bot
from ..bots.check import check_bot
from ..bots.config import BotError, load_bot_config
from ..bots.local import local_hello, stdio_command
from ..bots.submit import SubmissionRefused, submit_bot
from .completion import complete_leagues
from .options import quiet_option, user_errors, with_store
from .output import echo_json, iso, json_option, print_table
from .progress import Progress

LINE = 300  # characters of one line of a build's or a bot's output that are printed
STEP = re.compile(r"Step (\d+)/(\d+) : (.*)")  # the classic builder's line as a step of the Dockerfile starts


def escaped(message: str) -> str:
    """A message of ours that quotes a bot or its author (a build's output, a failure detail),
    escaped line by line: only our own newlines are kept."""
    return "\n".join(printable(line, LINE) for line in message.split("\n"))


def echo_line(line: str) -> None:
    """Prints one line that a build or a bot wrote, indented and escaped."""
    click.echo(f"  {printable(line, LINE)}")


@click.group()
def bot() -> None:
    """Bots as container images."""


@bot.command("list")
@click.argument("name", required=False)
@json_option
@with_store(create=False)
def list_bots(name: str | None, as_json: bool, store) -> None:
    """Every registered bot version (of NAME only, if given): its language, author, owner, image
    and leagues, and whether its image is archived in the store or it is retired."""
    from ..bots.registry import registered_bots

    bots = registered_bots(store, name)
    if as_json:
        echo_json([{"bot_id": b.ref.id, "bot": b.ref.name, "version": b.ref.version, "language": b.ref.language,
                    "author": b.author, "owner": b.owner, "games": b.games, "image": b.image,
                    "image_digest": b.image_digest, "archived": b.archived, "created_at": iso(b.created_at),
                    "retired_at": iso(b.retired_at), "leagues": b.leagues} for b in bots])
        return
    print_table(["id", "bot", "version", "language", "author", "owner", "image", "archived", "retired", "leagues"],
                [[b.ref.id, b.ref.name, b.ref.version, b.ref.language, b.author, b.owner or "-", b.image,
                  "yes" if b.archived else "no", f"{b.retired_at:%Y-%m-%d}" if b.retired_at else "-",
                  ", ".join(printable(league) for league in b.leagues) or "-"] for b in bots],
                right=[0], hostile={1: 64, 2: 24, 3: 16, 4: 32, 5: 32, 6: 64}, optional=[9, 6, 4])


ROOT_HELP = ("The folder the build may read, around PATH (default: PATH itself); bot.toml cannot "
             "reach outside it. For bots that share files.")


@bot.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--timeout", default=BUILD_TIMEOUT, show_default=True, help="Seconds the build may take.")
@click.option("--max-size-mb", default=MAX_IMAGE_MB, show_default=True, help="Cap on the image size.")
@click.option("--root", type=click.Path(path_type=Path), help=ROOT_HELP)
@click.option("--quiet", "-q", is_flag=True,
              help="Do not echo the build's output, and show no progress; the result line, and an error with the "
                   "build's last lines, still print.")
@user_errors
def build(path: Path, timeout: int, max_size_mb: int, root: Path | None, quiet: bool) -> None:
    """Build the bot folder PATH (a Dockerfile and a bot.toml) into arena-bot/NAME:VERSION,
    offline and with limits on memory, processes and CPU."""
    try:
        config = load_bot_config(path, root)
        client = docker_client(timeout=120)
        with Progress(f"build {config.tag}", unit="steps", quiet=quiet, rate=False, lines=False) as shown:
            def said(line: str) -> None:  # the build's output; its "Step N/M : ..." lines are the bar's steps
                if step := STEP.match(line):
                    shown.update(int(step[1]) - 1, int(step[2]))
                    shown.step(step[3])
                shown.output(line)

            result = build_bot(client, config, timeout=timeout, max_size_mb=max_size_mb, say=said)
            if shown.total is not None:
                shown.update(shown.total)
            shown.step("")
    except BotError as exc:
        raise click.ClickException(escaped(str(exc))) from exc
    click.echo(f"built {result.tag} ({result.size_mb:.0f} MiB, {result.seconds:.1f} s)")


@bot.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
@click.option("--command", "is_command", is_flag=True,
              help="Check a local process run by the command that follows (development), not an image.")
@click.option("--stdio", is_flag=True,
              help="With --command: the command speaks JSON lines (docs/protocol.md); run it under the stdio "
                   "adapter, saying hello with the name, version and games of ./bot.toml if there is one.")
@click.option("--decision-ms", type=click.IntRange(min=1, max=MAX_MS), default=limits.DECISION_MS,
              show_default=True,
              help=f"The time control under load: per decision (other games get {limits.CHECK_SLACK} times as long).")
@click.option("--bank-ms", type=click.IntRange(min=0, max=MAX_MS), default=limits.BANK_MS, show_default=True,
              help="The time control under load: the bank of a game.")
@click.option("--increment-ms", type=click.IntRange(min=0, max=MAX_MS), default=limits.INCREMENT_MS,
              show_default=True,
              help="The time control under load: added to the game bank after each decision answered in time.")
@click.option("--match-bank-ms", type=click.IntRange(min=0, max=MAX_MS), default=limits.MATCH_BANK_MS,
              show_default=True,
              help="The time control under load: the match bank (each game of the check is a match of one game).")
@quiet_option
@click.argument("target", nargs=-1, required=True, metavar="IMAGE | --command CMD...")
@user_errors
def check(is_command: bool, stdio: bool, decision_ms: int, bank_ms: int, increment_ms: int, match_bank_ms: int,
          quiet: bool, target: tuple[str, ...]) -> None:
    """Check a bot before submitting it, the way a submission does: its image settings, its
    hello (against bot.toml), one game of every game it claims at every player count, its time
    under a loaded CPU, its memory and its exit at MatchEnd. Options go before IMAGE or CMD.

    Exit status 1 when any check fails. With --quiet, only the report prints.
    """
    if not is_command and len(target) != 1:
        raise click.UsageError("give one IMAGE (options go before it), or --command CMD...")
    if stdio and not is_command:
        raise click.UsageError("--stdio goes with --command (an image says its protocol in its bot.toml)")
    if not is_command:
        client()  # no engine: say so, rather than fail the check
    command = target
    if stdio:
        try:
            hello = local_hello("stdio-bot", toml_name=True)
        except BotError as exc:
            raise click.ClickException(escaped(str(exc))) from exc
        command = tuple(stdio_command(target, hello))
        click.echo(f"under the stdio adapter, as {printable(hello.name)} {printable(hello.version or '-')}"
                   + (f" (from {hello.source})" if hello.source else " (no ./bot.toml)"))
    time_control = TimeControl(limits.CHECK_STARTUP_MS, decision_ms, bank_ms, increment_ms, match_bank_ms)
    with Progress(f"check {target[0] if not is_command else ' '.join(target)}", quiet=quiet) as shown:
        def ended(check: str, failure: str) -> None:
            shown.ended(check)
            shown.advance(1, [failure], note=f"{check}: {failure or 'played'}")

        report = check_bot(image="" if is_command else target[0], command=command if is_command else (),
                           time_control=time_control, say=shown.message,
                           stdio_fix="add --stdio (arena bot check --stdio --command CMD...)",
                           planned=lambda checks: shown.update(0, len(checks)),
                           game_started=lambda check: shown.started(check, check), game_ended=ended)
    for line in report.text():
        click.echo(line)
    if not report.ok:
        if report.log.strip():
            click.echo("the bot's output (last lines):")
            for line in report.log.strip().splitlines()[-20:]:
                echo_line(f"| {line}")
        raise SystemExit(1)


@bot.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--league", "leagues", multiple=True, metavar="NAME", shell_complete=complete_leagues(),
              help="Enter the new version in this league (repeat the option for several).")
@click.option("--server", envvar="ARENA_SERVER", metavar="URL",
              help="Submit to the Arena server at URL (default $ARENA_SERVER) rather than to the store here.")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN",
              help="Your API token on that server (default $ARENA_TOKEN).")
@click.option("--keep-previous", is_flag=True,
              help="With --server: keep your earlier versions of the bot playing (by default they are retired "
                   "once this one is entered).")
@click.option("--team", metavar="TEAM",
              help="With --server: submit it for team TEAM, which you are in (a name a team holds stays the "
                   "team's without it).")
@click.option("--root", type=click.Path(path_type=Path), help=ROOT_HELP + " Not with --server.")
@click.option("--quiet", "-q", is_flag=True, help="Do not echo the build's output.")
@click.option("--db", "db_url", envvar="ARENA_DB", metavar="URL",
              help="Without --server: the database URL (SQLAlchemy); default $ARENA_DB or sqlite:///runs/arena.db.")
@user_errors
def submit(path: Path, leagues: tuple[str, ...], server: str | None, token: str | None, keep_previous: bool,
           team: str | None, root: Path | None, quiet: bool, db_url: str | None) -> None:
    """Build the bot folder PATH, check it (arena bot check), then register it as a new bot version.

    A bot that fails to build or fails a check is refused, and nothing is registered.

    With --server, PATH is packed and uploaded to that Arena server with your --token instead,
    and built and checked there; its build log and check report are printed as they come. The
    exit status is 0 once it is entered, 1 when it is refused.
    """
    if server:
        if root is not None:
            raise click.UsageError("--root goes only with a local submission: a server builds the bot folder alone")
        submit_remotely(path, server, token or "", leagues, not keep_previous, quiet, team)
        return
    if keep_previous:
        raise click.UsageError("--keep-previous goes with --server (a local submission retires nothing)")
    if team:
        raise click.UsageError("--team goes with --server (a local submission is the operator's)")
    from ..store import StoreError, open_store

    try:
        store = open_store(db_url)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from exc
    with submission_errors():
        submit_bot(store, path, leagues, root, say=click.echo,
                   build_say=(lambda line: None) if quiet else echo_line, check_say=click.echo)


def submit_remotely(path: Path, server: str, token: str, leagues: tuple[str, ...], retire_previous: bool,
                    quiet: bool, team: str | None = None) -> None:
    from ..bots.upload import UploadRefused
    from ..remote import ServerError, submit_to_server

    try:
        followed = submit_to_server(server, token, path, leagues, retire_previous, say=click.echo,
                                    log_say=(lambda line: None) if quiet else (lambda line: click.echo(f"  {line}")),
                                    report_say=click.echo, team=team)
    except BotError as exc:
        raise click.ClickException(escaped(str(exc))) from exc
    except UploadRefused as exc:
        raise click.ClickException(f"not sent: {escaped(str(exc))}") from exc
    except ServerError as exc:
        raise click.ClickException(str(exc)) from exc
    submission = followed.submission
    if not followed.entered:
        click.echo(f"refused: {escaped(submission['error'])}", err=True)
        raise SystemExit(1)
    where = f" in {', '.join(printable(league) for league in submission['leagues'])}" if submission["leagues"] else ""
    click.echo(f"entered: {printable(submission['bot_name'])} {printable(submission['bot_version'])}{where}")


@contextlib.contextmanager
def submission_errors() -> Iterator[None]:
    """Turns a bad bot folder or a refused submission into a clean error, the bot quoted escaped."""
    try:
        yield
    except BotError as exc:
        raise click.ClickException(escaped(str(exc))) from exc
    except SubmissionRefused as exc:
        log = exc.report.log if exc.report is not None else ""
        tail = "\n".join(f"  | {printable(line, LINE)}" for line in log.strip().splitlines()[-15:])
        raise click.ClickException(f"refused: {escaped(str(exc))}"
                                   + (f"\nthe bot's output:\n{tail}" if tail else "")) from exc


from .bot_new import new  # noqa: E402  (its own module: the starters; a command of this group)

bot.add_command(new)


@bot.command("retire")
@click.argument("label", metavar="NAME[@VERSION]")
@click.option("--disqualify", is_flag=True,
              help="Disqualify it instead (any author's): its owner cannot undo it nor submit new versions of the "
                   "name; leaderboards mark it. Undo with `arena bot requalify`.")
@click.option("--reason", default="", metavar="TEXT", help="Why it is disqualified (its owner and admins see it).")
@with_store(create=False)
@user_errors
def retire(label: str, disqualify: bool, reason: str, store) -> None:
    """Retire bot NAME@VERSION (NAME alone: its newest version): it plays no new match; its games
    and ratings stay. The operator's twin of the bot page's button, for any author's bot; with
    --disqualify, an admin's disqualification (recorded in the audit log as the operator's)."""
    from ..bots.registry import find_bot, retire_bot
    from ..moderation import disqualify_bot

    if reason and not disqualify:
        raise click.UsageError("--reason goes with --disqualify")
    with store() as session:
        found = find_bot(session, label)
        bot_id, shown = found.id, printable(found.label)
    if disqualify:
        disqualify_bot(store, bot_id, reason, None)
        click.echo(f"{shown} disqualified: it plays no new match, and its name takes no new version")
    else:
        retire_bot(store, bot_id, None, operator=True)
        click.echo(f"{shown} retired: it plays no new match")


@bot.command("requalify")
@click.argument("label", metavar="NAME[@VERSION]")
@with_store(create=False)
@user_errors
def requalify(label: str, store) -> None:
    """Undo the disqualification of bot NAME@VERSION (NAME alone: its newest version): it plays
    again, unless it was retired before it was disqualified."""
    from ..bots.registry import find_bot
    from ..moderation import requalify_bot

    with store() as session:
        bot_id = find_bot(session, label).id
    state = requalify_bot(store, bot_id, None)
    click.echo(f"{printable(state.name)}@{printable(state.version)} requalified"
               + (": it is still retired (it was before)" if state.retired_at else ": it plays again"))
