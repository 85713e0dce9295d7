"""``arena bot new``: a ready bot folder from a language's starter kit (``arena/bots/starters/``)."""

from __future__ import annotations

import getpass
import shlex
from pathlib import Path

import click

from referee.textlog import printable

from ..bots.config import IMAGE_REPOSITORY, BotError
from ..bots.starters import new_bot, starters
from .options import GAME
from .output import echo_json, json_option, print_table


class Language(click.ParamType):
    """A starter's language; the error lists every one, with the protocol it speaks."""

    name = "language"

    def convert(self, value, param, ctx):
        known = starters()
        if value not in known:
            listed = ", ".join(f"{s.language} ({s.protocol})" for s in known.values())
            self.fail(f"no starter for {value!r}; known: {listed}. Any other language: shell, which speaks "
                      "the stdio protocol (JSON lines; docs/writing-a-bot.md)", param, ctx)
        return value

    def shell_complete(self, ctx, param, incomplete):
        return [click.shell_completion.CompletionItem(language) for language in starters()
                if language.startswith(incomplete)]


def list_languages(as_json: bool) -> None:
    rows = [{"language": s.language, "protocol": s.protocol, "base": s.base, "description": s.description}
            for s in starters().values()]
    if as_json:
        echo_json(rows)
    else:
        print_table(["language", "protocol", "base", "what it builds on"], [list(row.values()) for row in rows],
                    optional=[3])


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name (a container's unnamed uid)
        return "anonymous"


@click.command("new")
@click.argument("name", required=False)
@click.option("--language", "-l", type=Language(), help="The starter's language (see --list-languages).")
@click.option("--game", "games", type=GAME, multiple=True,
              help="A game the bot plays, for bot.toml's games (repeat for several; default: every game).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write (default: ./NAME); it must not exist, or be empty.")
@click.option("--version", "bot_version", default="0.1.0", show_default=True, help="The bot's version.")
@click.option("--author", help="bot.toml's author (default: your login name).")
@click.option("--list-languages", "listing", is_flag=True,
              help="List the starters' languages, the protocol and base image of each (no NAME needed).")
@json_option
def new(name: str | None, language: str | None, games: tuple[str, ...], out: Path | None, bot_version: str,
        author: str | None, listing: bool, as_json: bool) -> None:
    """Write a ready bot folder for the bot NAME from a starter: a Dockerfile, a bot.toml and a
    bot that plays a random legal action. `arena bot build` then `arena bot check` pass on it
    as it is; the bot's code is yours to change."""
    if listing:
        list_languages(as_json)
        return
    if as_json:
        raise click.UsageError("--json goes with --list-languages")
    if name is None:
        raise click.UsageError("give the bot's NAME (or --list-languages)")
    if language is None:
        raise click.UsageError("give --language (one of: " + ", ".join(starters()) + ")")
    folder = out if out is not None else Path(name)
    try:
        files = new_bot(folder, language, name, bot_version, author if author is not None else _login(), games)
    except BotError as exc:
        raise click.ClickException(str(exc)) from exc
    shown = printable(str(folder), 500)
    click.echo(f"wrote {shown}/: {', '.join(files)} ({language}, {starters()[language].protocol})")
    click.echo(f"next: arena bot build {shlex.quote(shown)} && arena bot check {IMAGE_REPOSITORY}/{name}:{bot_version}")
