"""The registry of bot versions: a bot built and checked is registered (and entered in leagues
in the same transaction), found by ``name@version``, listed and retired. A registered version
is never changed or removed: a retired one plays no new match and keeps its games and ratings.

Who may retire a bot is the access rules' (:func:`arena.access.may_retire`). A refusal raises
the leagues' :class:`~arena.league.LeagueError` (:class:`~arena.league.NotAllowed` for the
access rules), which the web server and the CLI answer alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, update

from .. import access, audit
from ..league import LeagueError, NotAllowed, check_open, get_league
from ..store import Bot, Entry, ImageArchive, League, Store, Team, User
from ..store.models import now

if TYPE_CHECKING:
    from ..accounts import Account


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
                 leagues: Sequence[str] = (), owner_id: int | None = None, retire_previous: bool = False,
                 team_id: int | None = None) -> Bot:
    """Records a built and validated bot version, and enters it in ``league`` and ``leagues``,
    all in one transaction. ``owner_id``: the account that submitted it over HTTP (None: the
    command line's, the operator's); ``team_id``: the team whose name it is (None: the owner's
    own). With ``retire_previous``, every other version of the name
    that is not retired yet is retired (it plays no new match)."""
    with store() as session, session.begin():
        names = list(dict.fromkeys([*([league] if league else []), *leagues]))
        targets = [get_league(session, n) for n in names]
        if session.scalar(select(Bot).where(Bot.name == name, Bot.version == version)):
            raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")
        bot = Bot(name=name, version=version, image=image, image_digest=image_digest, language=language,
                  author=author, games=games, owner_id=owner_id, team_id=team_id)
        session.add(bot)
        session.flush()
        for target in targets:
            check_plays(bot, target)
            session.add(Entry(league_id=target.id, bot_id=bot.id))
        if retire_previous:
            session.execute(update(Bot).where(Bot.name == name, Bot.id != bot.id, Bot.retired_at.is_(None))
                            .values(retired_at=now()))
    return bot


def retire_bot(store: Store, bot_id: int, account: Account | None, operator: bool = False) -> Bot:
    """Retires bot ``bot_id`` for ``account``, who must be allowed to
    (:func:`arena.access.may_retire`: its owner; for a team's, an owner of the team; for a bot of
    the command line, an admin), else :class:`NotAllowed`; the ``operator`` (the command line,
    holding the store) may retire any. A retired bot keeps its games and ratings and plays no new
    match. Retiring a retired bot changes nothing. Returns the bot."""
    with store() as session, session.begin():
        bot = session.get(Bot, bot_id)
        if bot is None:
            raise LeagueError(f"no bot with id {bot_id}")
        if not operator and not access.may_retire(account, bot):
            raise NotAllowed(f"only an owner of its team may retire {bot.label}" if bot.team_id is not None
                             else f"only the owner of {bot.label} may retire it")
        if bot.retired_at is None:
            bot.retired_at = now()
            audit.record(session, account.id if account is not None else None, "bot.retire",
                         f"bot {bot.id} ({bot.label})")
    return bot


def check_new_version(store: Store, name: str, version: str) -> None:
    """Refuses a version registered already: asked before a build, which it would waste."""
    if registered(store, name, version):
        raise LeagueError(f"bot {name} version {version} is registered already: give it a new version")


def registered(store: Store, name: str, version: str) -> Bot | None:
    """The registered bot ``name`` of that exact version, if there is one."""
    with store() as session:
        return session.scalar(select(Bot).where(Bot.name == name, Bot.version == version))


def check_plays(bot: Bot, league: League) -> None:
    """Refuses to enter ``bot`` in ``league`` unless it plays the league's game (no games listed: all)
    and the league is open (:func:`~arena.league.check_open`), and in a Swiss once it has started."""
    check_open(league)
    if bot.games and league.game not in bot.games:
        raise LeagueError(f"{bot.label} plays {', '.join(bot.games)}, not {league.game}")
    if league.schedule.get("format") == "swiss" and "draw" in league.schedule:
        # a Swiss' field is the entrants at its first round (arena/league/formats/swiss.py)
        raise LeagueError(f"{league.name} is a Swiss tournament that has started: its field was fixed at its first "
                          f"round, so {bot.label} cannot join it; enter it in a new league")


@dataclass(frozen=True)
class RegisteredBot:
    """A registered bot version, as ``arena bot list`` shows it."""

    ref: BotRef
    author: str
    owner: str | None  # the account that submitted it over HTTP, or its team's name; None: the command line's
    games: list[str]  # the games it claims; [] = all
    image: str
    image_digest: str
    archived: bool  # its image is kept in the store (``arena images archive``)
    created_at: datetime
    retired_at: datetime | None
    leagues: list[str]  # the leagues it entered, by name


def registered_bots(store: Store, name: str | None = None) -> list[RegisteredBot]:
    """Every registered bot version (of ``name`` only, if given), by name then registration."""
    query = (select(Bot, func.coalesce(Team.name, User.name), ImageArchive.id)
             .outerjoin(User, User.id == Bot.owner_id)
             .outerjoin(Team, Team.id == Bot.team_id)
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
