"""``arena bot``: build a bot folder into an image, and validate an image by playing it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import click

from referee.sandbox import client, docker_client
from referee.textlog import printable

from ..bots import BUILD_TIMEOUT, MAX_IMAGE_MB, BotError, build_bot, load_bot_config, validate_bot
from ..submissions import SubmissionRefused, submit_bot
from .options import user_errors, with_store

LINE = 300  # characters of one line of a build's or a bot's output that are printed


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


ROOT_HELP = ("The folder the build may read, around PATH (default: PATH itself); bot.toml cannot "
             "reach outside it. For bots that share files.")


@bot.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--timeout", default=BUILD_TIMEOUT, show_default=True, help="Seconds the build may take.")
@click.option("--max-size-mb", default=MAX_IMAGE_MB, show_default=True, help="Cap on the image size.")
@click.option("--root", type=click.Path(path_type=Path), help=ROOT_HELP)
@click.option("--quiet", "-q", is_flag=True, help="Do not echo the build's output.")
@user_errors
def build(path: Path, timeout: int, max_size_mb: int, root: Path | None, quiet: bool) -> None:
    """Build the bot folder PATH (a Dockerfile and a bot.toml) into arena-bot/NAME:VERSION,
    offline and with limits on memory, processes and CPU."""
    try:
        config = load_bot_config(path, root)
        result = build_bot(docker_client(timeout=120), config, timeout=timeout, max_size_mb=max_size_mb,
                           say=(lambda line: None) if quiet else echo_line)
    except BotError as exc:
        raise click.ClickException(escaped(str(exc))) from exc
    click.echo(f"built {result.tag} ({result.size_mb:.0f} MiB, {result.seconds:.1f} s)")


@bot.command()
@click.argument("image")
@click.option("--startup-ms", default=15_000, show_default=True)
@click.option("--decision-ms", default=2_000, show_default=True)
@user_errors
def validate(image: str, startup_ms: int, decision_ms: int) -> None:
    """Start IMAGE, check its hello, and play a short game of each game it claims."""
    client()  # no engine: say so, rather than fail the validation
    result = validate_bot(image, startup_ms=startup_ms, decision_ms=decision_ms, say=echo_line)
    click.echo(printable(result.summary(), LINE))
    if not result.ok:
        if result.log.strip():
            click.echo("the bot's output (last lines):")
            for line in result.log.strip().splitlines()[-20:]:
                echo_line(f"| {line}")
        raise SystemExit(1)


@bot.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--league", "league_name", help="Enter the new version in this league.")
@click.option("--root", type=click.Path(path_type=Path), help=ROOT_HELP)
@click.option("--quiet", "-q", is_flag=True, help="Do not echo the build's output.")
@with_store()
@user_errors
def submit(path: Path, league_name: str | None, root: Path | None, quiet: bool, store) -> None:
    """Build and validate the bot folder PATH, then register it as a new bot version.

    A bot that fails to build or to validate is refused, and nothing is registered.
    """
    with submission_errors():
        submit_bot(store, path, league_name, root, say=click.echo,
                   build_say=(lambda line: None) if quiet else echo_line, validate_say=echo_line)


@contextlib.contextmanager
def submission_errors() -> Iterator[None]:
    """Turns a bad bot folder or a refused submission into a clean error, the bot quoted escaped."""
    try:
        yield
    except BotError as exc:
        raise click.ClickException(escaped(str(exc))) from exc
    except SubmissionRefused as exc:
        validation = exc.validation
        if validation is None:
            raise click.ClickException(f"refused: {escaped(str(exc))}") from exc
        tail = "\n".join(f"  | {printable(line, LINE)}" for line in validation.log.strip().splitlines()[-15:])
        raise click.ClickException(f"refused: {printable(str(exc), LINE)}"
                                   + (f"\nthe bot's output:\n{tail}" if tail else "")) from exc
