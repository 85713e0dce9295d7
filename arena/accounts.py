"""Accounts: bot authors and admins, their passwords and API tokens.

Passwords are hashed with argon2id (``argon2-cffi``); API tokens and browser sessions are 256
random bits each, kept only as their SHA-256 (a token that long needs no salt or slow hash).
The command line (``arena user``) and the web server (``arena/web/auth.py``) both work
through these functions.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from .store import ApiToken, Store, TeamMember, User, WebSession, rows_changed

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TOKEN_PREFIX = "arena_"
SESSION_DAYS = 14
_hasher = PasswordHasher()
# verified against when the name is unknown, so a wrong name costs as long as a wrong password
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


class AccountError(Exception):
    """Something the accounts refuse; the message says what to do."""


class AccountDisabled(AccountError):
    """The account was disabled by an admin (``arena/moderation.py``): its tokens and sessions are
    refused, and it cannot sign in. Raised only once the token, cookie or password was right."""

    def __init__(self, name: str) -> None:
        super().__init__(f"the account {name} is disabled by an admin: ask an admin to enable it again")
        self.name = name


def _enabled(user: User) -> None:
    if user.disabled_at is not None:
        raise AccountDisabled(user.name)


@dataclass(frozen=True)
class Account:
    """Who is asking: what a request knows of its user."""

    id: int
    name: str
    is_admin: bool
    # the session's CSRF token, still to be shown by a request that changes something; "" when the
    # request came with an API token, or has shown it (arena/web/auth.py)
    csrf: str = ""
    # the teams it is in (any role), and those it owns: read from the membership rows with the
    # account, on every request, so that a member removed loses the team's bots at once
    teams: frozenset[int] = frozenset()
    owned_teams: frozenset[int] = frozenset()


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def new_password() -> str:
    return secrets.token_urlsafe(12)


def add_user(store: Store, name: str, admin: bool = False, password: str | None = None) -> tuple[User, str]:
    """A new account ``name``; returns it and its first API token (shown once: only its hash is kept)."""
    if not NAME.fullmatch(name):
        raise AccountError(f"{name!r} is not a user name: 1-64 letters, digits, '_', '.' or '-', "
                           "starting with a letter or digit")
    token = new_token()
    with store() as session, session.begin():
        if session.scalar(select(User).where(User.name == name)):
            raise AccountError(f"a user named {name!r} exists already")
        user = User(name=name, is_admin=admin, password_hash=_hasher.hash(password) if password else None)
        session.add(user)
        session.flush()
        session.add(ApiToken(user_id=user.id, digest=digest(token)))
    return user, token


def get_user(session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise AccountError(f"no user {name!r}")
    return user


def set_password(store: Store, name: str, password: str) -> None:
    if len(password) < 8:
        raise AccountError("a password needs at least 8 characters")
    with store() as session, session.begin():
        get_user(session, name).password_hash = _hasher.hash(password)


def issue_token(store: Store, name: str) -> str:
    """A new API token for ``name`` (older tokens keep working)."""
    token = new_token()
    with store() as session, session.begin():
        session.add(ApiToken(user_id=get_user(session, name).id, digest=digest(token)))
    return token


def revoke_tokens(store: Store, name: str) -> int:
    """Revokes every API token of ``name``; returns how many there were."""
    with store() as session, session.begin():
        user = get_user(session, name)
        return rows_changed(session, delete(ApiToken).where(ApiToken.user_id == user.id))


def users(store: Store) -> list[User]:
    with store() as session:
        return list(session.scalars(select(User).order_by(User.name)))


def check_password(store: Store, name: str, password: str) -> Account | None:
    """The account, if ``password`` is its password."""
    with store() as session:
        user = session.scalar(select(User).where(User.name == name))
        stored = user.password_hash if user is not None else None
        try:
            _hasher.verify(stored or _DUMMY_HASH, password)
        except (VerificationError, InvalidHashError):
            return None
        if user is None or stored is None:
            return None
        _enabled(user)
        if _hasher.check_needs_rehash(stored):
            user.password_hash = _hasher.hash(password)
            session.commit()
        return account_of(session, user)


def account_of(session: Session, user: User, csrf: str = "") -> Account:
    """``user`` as the access rules see it: with the teams it is in, as the store says now."""
    roles = session.execute(select(TeamMember.team_id, TeamMember.role).where(TeamMember.user_id == user.id)).all()
    return Account(user.id, user.name, user.is_admin, csrf, teams=frozenset(t for t, _ in roles),
                   owned_teams=frozenset(t for t, role in roles if role == "owner"))


def account_for_token(store: Store, token: str) -> Account | None:
    if not token.startswith(TOKEN_PREFIX):
        return None
    with store() as session:
        row = session.scalar(select(ApiToken).where(ApiToken.digest == digest(token)))
        if row is None:
            return None
        _enabled(row.user)  # asked on every request: a disabled account's token fails at once
        return account_of(session, row.user)


def open_session(store: Store, account: Account) -> tuple[str, str]:
    """A new browser session for ``account``: its cookie value and its CSRF token."""
    cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    now = datetime.now(UTC)
    with store() as session, session.begin():
        session.execute(delete(WebSession).where(WebSession.expires_at < now))
        session.add(WebSession(user_id=account.id, digest=digest(cookie), csrf=csrf,
                               expires_at=now + timedelta(days=SESSION_DAYS)))
    return cookie, csrf


def account_for_session(store: Store, cookie: str) -> Account | None:
    with store() as session:
        row = session.scalar(select(WebSession).where(WebSession.digest == digest(cookie)))
        if row is None:
            return None
        expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(tzinfo=UTC)
        if expires < datetime.now(UTC):
            return None
        _enabled(row.user)
        return account_of(session, row.user, row.csrf)


def device_cookie(store: Store, name: str) -> str | None:
    """A cookie saying "this browser signed in as ``name``", for a browser that just did: the
    sign-in throttle lets it try ``name`` even while others' failures on the name make them wait
    (``arena/web/signin.py``). Signed with a key derived from the account's password hash, so a new
    password voids every such cookie; None for an account without a password."""
    with store() as session:
        stored = session.scalar(select(User.password_hash).where(User.name == name))
    if not stored:
        return None
    nonce = secrets.token_urlsafe(16)
    return f"{nonce}.{_device_mac(stored, name, nonce)}"


def known_device(store: Store, name: str, cookie: str) -> str | None:
    """The browser's own key (for its throttle) if ``cookie`` is one :func:`device_cookie` gave for ``name``."""
    nonce, _, mac = cookie.partition(".")
    if not nonce or not mac:
        return None
    with store() as session:
        stored = session.scalar(select(User.password_hash).where(User.name == name))
    if not stored or not hmac.compare_digest(mac, _device_mac(stored, name, nonce)):
        return None
    return nonce


def _device_mac(password_hash: str, name: str, nonce: str) -> str:
    key = hashlib.sha256(b"arena device\0" + password_hash.encode()).digest()
    return hmac.new(key, f"{name}\0{nonce}".encode(), hashlib.sha256).hexdigest()


def close_session(store: Store, cookie: str) -> None:
    with store() as session, session.begin():
        session.execute(delete(WebSession).where(WebSession.digest == digest(cookie)))
