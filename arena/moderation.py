"""Moderation by an admin: disqualifying a bot, disabling an account, and undoing either. The
web server's admin pages and API, and the command line (``arena bot retire --disqualify``,
``arena user disable``), both work through these functions; each writes its audit entry in its
own transaction (``arena/audit.py``).

- **Disqualified** (a bot version, any author's): it plays no new match from then on (it is
  retired too, so every matchmaker that skips retired bots skips it, and a league run skips the
  matches it had scheduled for it but not started: ``arena/league/runner.py``); its games and
  ratings stay; leaderboards and its page mark it. Unlike a retirement it is not its author's:
  the author cannot undo it, and cannot submit new versions of the name while any version of it
  is disqualified (``access.may_enter_name``). Only an admin undoes it; the bot is then as it
  was before (retired only if it was retired before).
- **Disabled** (an account): its web sessions are ended and its API tokens refused from the next
  request on, and it cannot sign in (``arena/accounts.py``); its bots stay as they are (an admin
  disqualifies them separately). Re-enabling makes its tokens work again; its browsers sign in
  again. The last enabled admin cannot be disabled.

``by`` is the admin asking, or None for the operator on the command line (who holds the store).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import delete, select

from . import access, audit
from .league import LeagueError, NotAllowed
from .store import Bot, Store, User, WebSession
from .store.models import now

if TYPE_CHECKING:
    from .accounts import Account

REASON_CHARS = 500  # an admin's reason for a disqualification


class ModerationError(LeagueError):
    """A moderation refused; the message says why (NotAllowed for a non-admin)."""


def _check(by: Account | None) -> int | None:
    if by is not None and not access.may_moderate(by):
        raise NotAllowed("only an admin may do that")
    return by.id if by is not None else None


def clean_reason(reason: str) -> str:
    """The admin's reason, as stored and shown: control characters refused, length capped."""
    reason = reason.strip()
    if any(ord(c) < 32 and c not in "\t" or ord(c) == 127 for c in reason):
        raise ModerationError("a reason is one line of text: no control characters")
    if len(reason) > REASON_CHARS:
        raise ModerationError(f"a reason has at most {REASON_CHARS} characters ({len(reason)} given)")
    return reason


@dataclass(frozen=True)
class BotState:
    id: int
    name: str
    version: str
    retired_at: datetime | None
    disqualified_at: datetime | None
    reason: str

    @classmethod
    def of(cls, bot: Bot) -> BotState:
        return cls(bot.id, bot.name, bot.version, bot.retired_at, bot.disqualified_at, bot.disqualified_reason)


def _bot(session, bot_id: int) -> Bot:
    bot = session.get(Bot, bot_id, with_for_update=True)
    if bot is None:
        raise ModerationError(f"no bot with id {bot_id}")
    return bot


def disqualify_bot(store: Store, bot_id: int, reason: str, by: Account | None) -> BotState:
    """Disqualifies bot ``bot_id`` (see the module's docstring); disqualifying it again changes
    only the reason."""
    actor, reason = _check(by), clean_reason(reason)
    with store() as session, session.begin():
        bot = _bot(session, bot_id)
        again = bot.disqualified_at is not None
        if not again:
            bot.disqualified_at = now()
            if bot.retired_at is None:  # retired by the disqualification: undone with it
                bot.retired_at = bot.disqualified_at
        bot.disqualified_reason = reason
        audit.record(session, actor, "bot.disqualify", f"bot {bot.id} ({bot.label})",
                     {"reason": reason, "again": again})
        return BotState.of(bot)


def requalify_bot(store: Store, bot_id: int, by: Account | None) -> BotState:
    """Undoes a disqualification: the bot plays again, unless it was retired before it."""
    actor = _check(by)
    with store() as session, session.begin():
        bot = _bot(session, bot_id)
        if bot.disqualified_at is None:
            raise ModerationError(f"{bot.label} is not disqualified")
        if bot.retired_at == bot.disqualified_at:  # retired by the disqualification, not before it
            bot.retired_at = None
        bot.disqualified_at, bot.disqualified_reason = None, ""
        audit.record(session, actor, "bot.requalify", f"bot {bot.id} ({bot.label})")
        return BotState.of(bot)


def _user(session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name).with_for_update())
    if user is None:
        raise ModerationError(f"no user {name!r}")
    return user


def disable_user(store: Store, name: str, by: Account | None) -> User:
    """Disables account ``name``: its sessions end, its tokens are refused, it cannot sign in.
    Refused for the last enabled admin. Disabling it again changes nothing."""
    actor = _check(by)
    with store() as session, session.begin():
        user = _user(session, name)
        if user.disabled_at is None:
            # locked: two admins disabling each other at once cannot both pass this
            others = session.scalars(select(User.id).where(User.is_admin.is_(True), User.disabled_at.is_(None),
                                                           User.id != user.id).with_for_update()).all()
            if not access.may_disable(user, len(others)):
                raise ModerationError(f"{name} is the last enabled admin: enable or add another admin first "
                                      "(`arena user add NAME --admin`)")
            user.disabled_at = now()
            session.execute(delete(WebSession).where(WebSession.user_id == user.id))
            audit.record(session, actor, "user.disable", f"user {user.name}")
        return user


def enable_user(store: Store, name: str, by: Account | None) -> User:
    """Enables account ``name`` again: its API tokens work again; its browsers sign in again."""
    actor = _check(by)
    with store() as session, session.begin():
        user = _user(session, name)
        if user.disabled_at is not None:
            user.disabled_at = None
            audit.record(session, actor, "user.enable", f"user {user.name}")
        return user


@dataclass(frozen=True)
class UserRow:
    id: int
    name: str
    is_admin: bool
    created_at: datetime
    disabled_at: datetime | None


def all_users(store: Store) -> list[UserRow]:
    """Every account, by name, with whether it is disabled: the admins' users page."""
    with store() as session:
        return [UserRow(u.id, u.name, u.is_admin, u.created_at, u.disabled_at)
                for u in session.scalars(select(User).order_by(User.name))]
