"""Leagues and their entrants.

A league's schedule is ``schedule.py``, running it ``runner.py`` (through ``executor.py``),
its ratings and leaderboard ``standings.py``, and what it stored ``results.py``. The
functions of these modules are what the CLI calls; each takes the store and does one thing
in as few transactions as possible, raising :class:`LeagueError` with a sentence a user can
act on for anything it refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select, update

from arena_games import GameError, get_game
from referee.spec import SpecError, check_secret, new_secret

from .. import access
from ..store import Bot, Entry, ImageArchive, League, Store, User
from ..store.models import now
from .schedule import DEFAULT_SCHEDULE, ScheduleOptions

if TYPE_CHECKING:
    from ..accounts import Account


class LeagueError(Exception):
    """Something a league refuses; the message is a sentence a user can act on."""


class NotAllowed(LeagueError):
    """Something this account may not do (the web server answers 403)."""


# A league's name is part of URLs and of the folder its records go to: plain characters only.
LEAGUE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
LEAGUE_NAME_RULE = "letters, digits, '_', '.' or '-' (a letter or digit first), at most 64"


def league_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a league's name, or None: the one check of ``arena league create``,
    ``arena ladder create`` and the API's. fullmatch: ``$`` would let a trailing newline through."""
    if LEAGUE_NAME.fullmatch(name):
        return None
    return f"the league name {name!r} must be {LEAGUE_NAME_RULE}"


def create_league(store: Store, name: str, game: str, players: int, settings: dict[str, Any],
                  options: ScheduleOptions, secret: str | None = None) -> League:
    """A new league. Its deals and bot seeds derive from ``secret`` (hex, at least 128 bits);
    by default a fresh one from the operating system. Give one only to make a league
    reproducible (tests): whoever knows it knows every deal."""
    if problem := league_name_problem(name):
        raise LeagueError(problem)
    try:
        spec = get_game(game)
        full_settings = spec.validate(players, settings).to_dict()
        secret = new_secret() if secret is None else check_secret(secret, "the league's secret")
    except (GameError, SpecError) as exc:
        raise LeagueError(str(exc)) from None
    with store() as session, session.begin():
        if session.scalar(select(League).where(League.name == name)):
            raise LeagueError(f"a league named {name!r} exists already")
        league = League(name=name, game=spec.name, players=players, settings=full_settings,
                        schedule=options.to_dict(), secret=secret)
        session.add(league)
    return league


def get_league(session: Any, name: str) -> League:
    league = session.scalar(select(League).where(League.name == name))
    if league is None:
        known = session.scalars(select(League.name).order_by(League.name)).all()
        raise LeagueError(f"unknown league {name!r}; leagues: {', '.join(known) or 'none yet'}")
    return league


def find_bot(session: Any, label: str) -> Bot:
    """``name@version`` (or ``name``: its newest version)."""
    name, _, version = label.partition("@")
    query = select(Bot).where(Bot.name == name)
    if version:
        query = query.where(Bot.version == version)
    bot = session.scalars(query.order_by(Bot.id.desc())).first()
    if bot is None:
        raise LeagueError(f"no registered bot {label!r}")
    return bot


def register_bot(store: Store, *, name: str, version: str, image: str, image_digest: str,
                 language: str, author: str, games: list[str], league: str | None,
                 leagues: Sequence[str] = (), owner_id: int | None = None, retire_previous: bool = False) -> Bot:
    """Records a built and validated bot version, and enters it in ``league`` and ``leagues``,
    all in one transaction. ``owner_id``: the account that submitted it over HTTP (None: the
    command line's, the operator's). With ``retire_previous``, every other version of the name
    that is not retired yet is retired (it plays no new match)."""
    with store() as session, session.begin():
        names = list(dict.fromkeys([*([league] if league else []), *leagues]))
        targets = [get_league(session, n) for n in names]
        if session.scalar(select(Bot).where(Bot.name == name, Bot.version == version)):
            raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")
        bot = Bot(name=name, version=version, image=image, image_digest=image_digest, language=language,
                  author=author, games=games, owner_id=owner_id)
        session.add(bot)
        session.flush()
        for target in targets:
            _check_plays(bot, target)
            session.add(Entry(league_id=target.id, bot_id=bot.id))
        if retire_previous:
            session.execute(update(Bot).where(Bot.name == name, Bot.id != bot.id, Bot.retired_at.is_(None))
                            .values(retired_at=now()))
    return bot


def retire_bot(store: Store, bot_id: int, account: Account | None) -> Bot:
    """Retires bot ``bot_id`` for ``account``, who must be allowed to
    (:func:`arena.access.may_retire`: its owner; for a bot of the command line, an admin), else
    :class:`NotAllowed`. A retired bot keeps its games and ratings and plays no new match.
    Retiring a retired bot changes nothing. Returns the bot."""
    with store() as session, session.begin():
        bot = session.get(Bot, bot_id)
        if bot is None:
            raise LeagueError(f"no bot with id {bot_id}")
        if not access.may_retire(account, bot):
            raise NotAllowed(f"only the owner of {bot.label} may retire it")
        if bot.retired_at is None:
            bot.retired_at = now()
    return bot


def check_new_version(store: Store, name: str, version: str) -> None:
    if registered(store, name, version):
        raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")


def join_league(store: Store, league: str, bot_label: str) -> Bot:
    with store() as session, session.begin():
        target = get_league(session, league)
        bot = find_bot(session, bot_label)
        _check_plays(bot, target)
        if session.scalar(select(Entry).where(Entry.league_id == target.id, Entry.bot_id == bot.id)):
            raise LeagueError(f"{bot.label} is in league {league} already")
        session.add(Entry(league_id=target.id, bot_id=bot.id))
    return bot


def _check_plays(bot: Bot, league: League) -> None:
    if bot.games and league.game not in bot.games:
        raise LeagueError(f"{bot.label} plays {', '.join(bot.games)}, not {league.game}")


@dataclass(frozen=True)
class BotRef:
    """Which bot version: its id, name and version (each an author's text), and its language."""

    id: int
    name: str
    version: str
    language: str

    @classmethod
    def of(cls, bot: Bot) -> BotRef:
        return cls(bot.id, bot.name, bot.version, bot.language)

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"


@dataclass(frozen=True)
class LeagueSummary:
    name: str
    game: str
    players: int
    entrants: list[str]  # name@version of each bot entered
    format: str = DEFAULT_SCHEDULE.format  # or "ladder": see ScheduleOptions.format
    settings: dict[str, Any] = field(default_factory=dict)  # the game's, complete
    schedule: dict[str, Any] = field(default_factory=dict)  # ScheduleOptions.to_dict(): never the secret
    created_at: datetime | None = None
    bots: list[BotRef] = field(default_factory=list)  # the entrants, in the order of ``entrants``


def all_leagues(store: Store) -> list[LeagueSummary]:
    """Every league, by name, with its entrants."""
    with store() as session:
        summaries = []
        for lg in session.scalars(select(League).order_by(League.name)):
            options = ScheduleOptions.from_dict(lg.schedule)
            summaries.append(LeagueSummary(lg.name, lg.game, lg.players, [e.bot.label for e in lg.entries],
                                           options.format, lg.settings, options.to_dict(), lg.created_at,
                                           [BotRef.of(e.bot) for e in lg.entries]))
        return summaries


@dataclass(frozen=True)
class RegisteredBot:
    """A registered bot version, as ``arena bot list`` shows it."""

    ref: BotRef
    author: str
    owner: str | None  # the account that submitted it over HTTP; None: registered on the command line
    games: list[str]  # the games it claims; [] = all
    image: str
    image_digest: str
    archived: bool  # its image is kept in the store (``arena images archive``)
    created_at: datetime
    retired_at: datetime | None
    leagues: list[str]  # the leagues it entered, by name


def registered_bots(store: Store, name: str | None = None) -> list[RegisteredBot]:
    """Every registered bot version (of ``name`` only, if given), by name then registration."""
    query = (select(Bot, User.name, ImageArchive.id)
             .outerjoin(User, User.id == Bot.owner_id)
             .outerjoin(ImageArchive, ImageArchive.image_id == Bot.image_digest)
             .order_by(Bot.name, Bot.id))
    if name is not None:
        query = query.where(Bot.name == name)
    with store() as session:
        rows = session.execute(query).all()
        leagues: dict[int, list[str]] = {}
        for bot_id, league in session.execute(select(Entry.bot_id, League.name).join(League)
                                              .order_by(League.name)):
            leagues.setdefault(bot_id, []).append(league)
        return [RegisteredBot(BotRef.of(bot), bot.author, owner, list(bot.games or []), bot.image, bot.image_digest,
                              archive is not None, bot.created_at, bot.retired_at, leagues.get(bot.id, []))
                for bot, owner, archive in rows]


def entrants(store: Store, name: str) -> set[str]:
    """The name@version of each bot entered in league ``name``."""
    with store() as session:
        return {e.bot.label for e in get_league(session, name).entries}


def registered(store: Store, name: str, version: str) -> Bot | None:
    """The registered bot ``name`` of that exact version, if there is one."""
    with store() as session:
        return session.scalar(select(Bot).where(Bot.name == name, Bot.version == version))

