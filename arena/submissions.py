"""A submission: a bot folder built, validated by playing it, and registered as a new bot version.

A bot that fails to build or to validate is refused, and nothing is registered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.sandbox import docker_client

from .bots import BotError, Validation, build_bot, load_bot_config, validate_bot
from .league import LeagueError, check_new_version, get_league, register_bot
from .store import Bot, Store

Say = Callable[[str], None]


class SubmissionRefused(Exception):
    """A bot that did not build, validate or register; the message says why, and quotes the
    bot or its build (escape it before printing it)."""

    def __init__(self, message: str, validation: Validation | None = None) -> None:
        super().__init__(message)
        self.validation = validation
        """When the bot failed validation: what it did, and its own output."""


def submit_bot(store: Store, folder: Path, league: str | None = None, root: Path | None = None,
               say: Say = lambda line: None, build_say: Say = lambda line: None,
               validate_say: Say = lambda line: None) -> Bot:
    """Builds the bot folder (the build may read ``root``, see :func:`~arena.bots.load_bot_config`),
    validates its image, registers it and enters it in ``league``; returns the registered bot.

    ``say`` gets our own progress lines, ``build_say`` each line of the build's output, and
    ``validate_say`` each line of the validation (which quote the bot's hello). A bad folder
    raises :class:`~arena.bots.BotError`, an unknown league or a version registered already
    :class:`~arena.league.LeagueError`, both before any build.
    """
    config = load_bot_config(folder, root)
    if league:
        with store() as session:
            get_league(session, league)  # an unknown league is refused before any build
    check_new_version(store, config.name, config.version)
    client = docker_client(timeout=120)
    try:
        try:
            built = build_bot(client, config, say=build_say)
        except BotError as exc:
            raise SubmissionRefused(str(exc)) from exc
        say(f"built {built.tag} ({built.size_mb:.0f} MiB); validating ...")
        result = validate_bot(built.tag, say=validate_say)
        if not result.ok:
            raise SubmissionRefused(result.summary(), result)
        claimed = result.hello.get("games") or list(config.games)
        try:
            registered = register_bot(store, name=config.name, version=config.version, image=built.tag,
                                      image_digest=client.images.get(built.tag).id, language=config.language,
                                      author=config.author, games=claimed, league=league)
        except LeagueError as exc:
            raise SubmissionRefused(str(exc)) from exc
    finally:
        client.close()
    say(f"registered {registered.label}" + (f" in league {league}" if league else ""))
    return registered
