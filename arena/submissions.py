"""A submission: a bot folder built, checked by playing it (``arena bot check``, see
``arena/conformance.py``), and registered as a new bot version.

A bot that fails to build or fails a check is refused, and nothing is registered.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee.sandbox import docker_client

from .bots import BotError, build_bot, load_bot_config
from .conformance import CheckReport, check_bot
from .league import LeagueError, check_new_version, get_league, register_bot
from .store import Bot, Store

Say = Callable[[str], None]


class SubmissionRefused(Exception):
    """A bot that did not build, pass the check or register; the message says why, and quotes
    the bot or its build (the check's lines come escaped; escape the rest before printing it)."""

    def __init__(self, message: str, report: CheckReport | None = None) -> None:
        super().__init__(message)
        self.report = report
        """When the bot failed the check: the whole report, and the bot's output."""


def submit_bot(store: Store, folder: Path, league: str | None = None, root: Path | None = None,
               say: Say = lambda line: None, build_say: Say = lambda line: None,
               check_say: Say = lambda line: None) -> Bot:
    """Builds the bot folder (the build may read ``root``, see :func:`~arena.bots.load_bot_config`),
    checks its image (:func:`~arena.conformance.check_bot`), registers it and enters it in
    ``league``; returns the registered bot.

    ``say`` gets our own progress lines, ``build_say`` each line of the build's output, and
    ``check_say`` the check's progress and report, line by line (escaped). A bad folder raises
    :class:`~arena.bots.BotError`, an unknown league or a version registered already
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
        say(f"built {built.tag} ({built.size_mb:.0f} MiB); checking it ...")
        report = check_bot(image=built.tag, say=check_say)
        for line in report.text():
            check_say(line)
        if not report.ok:
            raise SubmissionRefused(f"{built.tag} failed {len(report.failed)} check(s):\n"
                                    + "\n".join(f"  {line}" for line in report.failed), report)
        claimed = report.hello.get("games") or list(config.games)
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
