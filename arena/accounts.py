"""Accounts: bot authors and admins, their passwords, API tokens and invite codes.

Passwords are hashed with argon2id (``argon2-cffi``); API tokens and browser sessions are 256
random bits each, invite codes 192, kept only as their SHA-256 (a secret that long needs no salt
or slow hash). The command line (``arena user``) and the web server (``arena/web/auth.py``,
``arena/web/accounts.py``) both work through these functions.

A new account is made in one place, :func:`_create` (by :func:`add_user` for the command line,
:func:`sign_up` for the site): in one transaction with its first token and, by invite, with the
code's use, so a refusal at any step leaves nothing behind.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from referee import limits

from . import audit
from .store import ApiToken, Invite, Store, Team, TeamMember, User, WebSession, rows_changed

if TYPE_CHECKING:
    from .schemas.accounts import InviteOut

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
TOKEN_PREFIX = "arena_"
SESSION_DAYS = 14
_hasher = PasswordHasher()
# verified against when the name is unknown, so a wrong name costs as long as a wrong password
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


INVITE_HINT = 6  # characters of a code, or of a token after its prefix, shown in lists (36 bits)
TOKEN_TOUCH = timedelta(minutes=1)  # a token's last use is written at most this often

# the most common passwords of 10 characters or more (shorter ones are refused anyway), from the
# public lists of leaked passwords (SecLists' top 10,000), and a few of this site's own
_COMMON = """
1234567890 0123456789 0987654321 9876543210 1111111111 0000000000 1234512345 1122334455 1212121212
123456789a a123456789 12345678910 123456789q qwertyuiop qwertyuiop1 qwerty1234 qwerty12345 qwerty123456
1q2w3e4r5t 1q2w3e4r5t6y q1w2e3r4t5 zaq12wsxcde 1qaz2wsx3edc asdfghjkl1 asdfghjkl; zxcvbnm123 password12
password123 password1234 password12345 passw0rd123 p@ssw0rd123 passwordpassword iloveyou12 iloveyou123
letmein123 welcome123 welcome1234 football12 football123 baseball123 princess12 princess123 sunshine12
sunshine123 superman123 starwars123 trustno1trustno1 administrator admin12345 admin123456 changeme123
abcdefghij abc1234567 abcd123456 1234567890a 1234567890q qazwsxedcrfv michael123 jennifer123 computer123
monkey1234 dragon1234 shadow1234 master1234 whatever123 internet123 arena12345 arenaarena arena-password
"""
COMMON_PASSWORDS = frozenset(_COMMON.split())


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
class NameTaken(AccountError):
    """The name is another account's (whatever its case)."""


class WeakPassword(AccountError):
    """The password is too short, too long, the name, or a common one."""


class BadInvite(AccountError):
    """The invite code is unknown, expired, used up or revoked; or none was given and one is needed."""


class TooManyTokens(AccountError):
    """The account holds as many API tokens as it may."""


class WrongPassword(AccountError):
    """The current password given for a change is not the account's."""


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


def check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise AccountError(f"{name[:80]!r} is not a user name: 1-64 letters, digits, '_', '.' or '-', "
                           "starting with a letter or digit")


def password_problem(name: str, password: str) -> str | None:
    """Why ``password`` is too weak for account ``name``; None if it will do (docs/api.md, "Signing up")."""
    if len(password) < limits.PASSWORD_MIN_CHARS:
        return f"a password needs at least {limits.PASSWORD_MIN_CHARS} characters"
    if len(password) > limits.PASSWORD_MAX_CHARS:
        return f"a password has at most {limits.PASSWORD_MAX_CHARS} characters"
    folded = password.casefold()
    if folded == name.casefold() or folded == name.casefold()[::-1]:
        return "a password must not be the account's name"
    if folded in COMMON_PASSWORDS or len(set(folded)) == 1:
        return "that password is one of the most common: choose another"
    return None


def check_password_strength(name: str, password: str) -> None:
    if problem := password_problem(name, password):
        raise WeakPassword(problem)


def _create(session: Session, name: str, admin: bool, password_hash: str | None,
            invite_id: int | None = None, with_token: bool = True) -> tuple[User, str]:
    """The account and its first token ("" without), in the caller's transaction (which a refusal
    rolls back)."""
    if _name_held(session, name):
        raise _taken(name)
    token = new_token()
    user = User(name=name, name_folded=name.lower(), is_admin=admin, password_hash=password_hash,
                invite_id=invite_id)
    session.add(user)
    session.flush()  # a name another transaction took meanwhile fails here (the unique index)
    if not with_token:
        return user, ""
    session.add(ApiToken(user_id=user.id, digest=digest(token), hint=_hint(token)))
    session.flush()
    return user, token


def _name_held(session: Session, name: str) -> bool:
    """An account's or a team's name, whatever its case: a new account takes neither, so that nobody
    passes for another author or for a team (``arena/teams.py`` holds team names to the same)."""
    key = name.lower()
    return bool(session.scalar(select(User.id).where(User.name_folded == key))
                or session.scalar(select(Team.id).where(Team.name_key == key)))


def _taken(name: str) -> NameTaken:
    return NameTaken(f"the name {name!r} is taken (names are told apart whatever their case): choose another")


def add_user(store: Store, name: str, admin: bool = False, password: str | None = None) -> tuple[User, str]:
    """A new account ``name``; returns it and its first API token (shown once: only its hash is kept)."""
    check_name(name)
    if password is not None:
        check_password_strength(name, password)
    password_hash = _hasher.hash(password) if password else None
    try:
        with store() as session, session.begin():
            return _create(session, name, admin, password_hash)
    except IntegrityError:
        raise _taken(name) from None


def hash_password(password: str) -> str:
    """The password's argon2id hash (a tenth of a second of the cores, 64 MiB)."""
    return _hasher.hash(password)


def sign_up(store: Store, name: str, password: str, code: str | None = None,
            password_hash: str | None = None, with_token: bool = True) -> tuple[User, str]:
    """A new author's account from the site's sign-up; returns it and its first API token ("" if
    not ``with_token``: the page makes none, it would have to show it).
    Whether the asker may sign up at all (the server's ``--join``) is ``arena/access.py``'s to
    say, before. With ``code`` (sign-up by invite), it must be an invite code with a use left,
    not expired nor revoked; its use is taken in the same transaction as the account is made (a
    conditional UPDATE, which the database serializes: two sign-ups racing for a last use cannot
    both get it), so any refusal leaves the code's uses and the accounts as they were.
    ``password_hash`` is the password's, if the caller hashed it already (the web server does,
    in its password checks' gate).

    The audit log records it in the same transaction (where the request came from is the
    request's context: ``arena/audit.py``)."""
    check_name(name)
    check_password_strength(name, password)
    password_hash = password_hash or _hasher.hash(password)
    try:
        with store() as session, session.begin():
            invite_id = _use_invite(session, code.strip()) if code is not None else None
            user, token = _create(session, name, False, password_hash, invite_id, with_token)
            audit.record(session, user.id, "account.sign_up", f"account {user.id} ({name})", {"invite": invite_id})
            return user, token
    except IntegrityError:
        raise _taken(name) from None


def check_sign_up(store: Store, name: str, code: str | None) -> None:
    """Refuses, reading only, a sign-up whose name is taken or whose code cannot sign up, before
    its password is hashed (a tenth of a second of the cores): a stream of bad codes costs the
    server lookups only. :func:`sign_up` decides again, in its transaction."""
    with store() as session:
        if _name_held(session, name):
            raise _taken(name)
        if code is not None:
            invite = session.scalar(select(Invite).where(Invite.digest == digest(code.strip()[:256])))
            _refuse_invite(invite, datetime.now(UTC))


def _use_invite(session: Session, code: str) -> int:
    """Takes one use of ``code``; its id. The row is changed only if a use is left, in one
    statement: under concurrency the database decides which sign-up gets the last use."""
    now = datetime.now(UTC)
    key = digest(code[:256])
    live = (Invite.digest == key, Invite.used < Invite.uses, Invite.revoked_at.is_(None), Invite.expires_at > now)
    if rows_changed(session, update(Invite).where(*live).values(used=Invite.used + 1)) == 1:
        return session.scalar(select(Invite.id).where(Invite.digest == key)) or 0
    _refuse_invite(session.scalar(select(Invite).where(Invite.digest == key)), now)
    raise BadInvite("that invite code cannot be used now: ask an admin for another")  # it changed meanwhile


def _refuse_invite(invite: Invite | None, now: datetime) -> None:
    """Raises :class:`BadInvite` with why ``invite`` cannot sign up; returns if it can."""
    if invite is None:
        raise BadInvite("that invite code is not known here: check it, or ask the admin who gave it for another")
    if invite.revoked_at is not None:
        raise BadInvite("that invite code was revoked: ask an admin for another")
    if _aware(invite.expires_at) <= now:
        raise BadInvite("that invite code has expired: ask an admin for another")
    if invite.used >= invite.uses:
        raise BadInvite("that invite code is used up: ask an admin for another")


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives naive UTC


def _hint(secret: str) -> str:
    return secret.removeprefix(TOKEN_PREFIX)[:INVITE_HINT]


# -- invite codes ----------------------------------------------------------------------------------
def make_invite(store: Store, uses: int = limits.INVITE_USES, days: float = limits.INVITE_DAYS,
                by: int | None = None) -> tuple[Invite, str]:
    """A new invite code for ``uses`` sign-ups within ``days``, made by account ``by`` (None: the
    command line); returns it and the code (shown once: only its hash is kept)."""
    if not 1 <= uses <= limits.INVITE_MAX_USES:
        raise AccountError(f"an invite code allows 1 to {limits.INVITE_MAX_USES} sign-ups, not {uses}")
    if not 0 < days <= limits.INVITE_MAX_DAYS:
        raise AccountError(f"an invite code works for more than 0 and at most {limits.INVITE_MAX_DAYS} days, "
                           f"not {days:g}")
    code = secrets.token_urlsafe(24)
    now = datetime.now(UTC)
    invite = Invite(digest=digest(code), hint=_hint(code), uses=uses, used=0, created_by=by, created_at=now,
                    expires_at=now + timedelta(days=days))
    with store() as session, session.begin():
        session.add(invite)
    return invite, code


def invites(store: Store) -> list[Invite]:
    """Every invite code, newest first."""
    with store() as session:
        return list(session.scalars(select(Invite).order_by(Invite.id.desc())))


def invite_state(invite: Invite, now: datetime | None = None) -> Literal["active", "used up", "expired", "revoked"]:
    """``active``, ``used up``, ``expired`` or ``revoked``."""
    if invite.revoked_at is not None:
        return "revoked"
    if invite.used >= invite.uses:
        return "used up"
    if _aware(invite.expires_at) <= (now or datetime.now(UTC)):
        return "expired"
    return "active"


def invite_out(invite: Invite) -> InviteOut:
    """What the API and ``arena user invites --json`` show of an invite: never the code."""
    from .schemas.accounts import InviteOut  # here: the CLI's --help and Tab load no pydantic
    return InviteOut(id=invite.id, hint=invite.hint, uses=invite.uses, used=invite.used, state=invite_state(invite),
                     created_at=invite.created_at, expires_at=invite.expires_at, revoked_at=invite.revoked_at)


def revoke_invite(store: Store, invite_id: int) -> Invite:
    """Revokes invite ``invite_id`` (no more sign-ups with it; the accounts it made stay)."""
    with store() as session, session.begin():
        invite = session.get(Invite, invite_id)
        if invite is None:
            raise AccountError(f"no invite {invite_id}")
        if invite.revoked_at is None:
            invite.revoked_at = datetime.now(UTC)
        return invite


def get_user(session, name: str) -> User:
    user = session.scalar(select(User).where(User.name == name))
    if user is None:
        raise AccountError(f"no user {name!r}")
    return user


def set_password(store: Store, name: str, password: str) -> None:
    check_password_strength(name, password)
    with store() as session, session.begin():
        get_user(session, name).password_hash = _hasher.hash(password)


def change_password(store: Store, account: Account, current: str, new: str, keep_cookie: str | None = None) -> int:
    """The account's own password change: ``current`` must be its password; every session of
    the account but the one of ``keep_cookie`` (the browser that asked) ends. Returns how many
    ended. API tokens keep working (the owner revokes them on their own)."""
    check_password_strength(account.name, new)
    if current == new:
        raise WeakPassword("the new password is the current one: choose another")
    with store() as session:
        stored = session.scalar(select(User.password_hash).where(User.id == account.id))
    try:
        _hasher.verify(stored or _DUMMY_HASH, current)
    except (VerificationError, InvalidHashError):
        stored = None
    if not stored:
        raise WrongPassword("the current password is wrong")
    new_hash = _hasher.hash(new)
    with store() as session, session.begin():
        session.execute(update(User).where(User.id == account.id).values(password_hash=new_hash))
        others = delete(WebSession).where(WebSession.user_id == account.id)
        if keep_cookie:
            others = others.where(WebSession.digest != digest(keep_cookie))
        return rows_changed(session, others)


def issue_token(store: Store, name: str) -> str:
    """A new API token for ``name`` (older tokens keep working)."""
    with store() as session:
        user_id = get_user(session, name).id
    return new_api_token(store, user_id)[1]


def new_api_token(store: Store, user_id: int) -> tuple[ApiToken, str]:
    """A new API token for account ``user_id``: its row and the token (shown once)."""
    token = new_token()
    row = ApiToken(user_id=user_id, digest=digest(token), hint=_hint(token), created_at=datetime.now(UTC))
    with store() as session, session.begin():
        held = session.scalar(select(func.count(ApiToken.id)).where(ApiToken.user_id == user_id)) or 0
        if held >= limits.TOKENS_PER_ACCOUNT:
            raise TooManyTokens(f"an account holds at most {limits.TOKENS_PER_ACCOUNT} API tokens: revoke one "
                                "it no longer needs, then make another")
        session.add(row)
    return row, token


def tokens_of(store: Store, user_id: int) -> list[ApiToken]:
    """Account ``user_id``'s API tokens, newest first (their rows: hashes, never the tokens)."""
    with store() as session:
        return list(session.scalars(select(ApiToken).where(ApiToken.user_id == user_id)
                                    .order_by(ApiToken.id.desc())))


def revoke_token(store: Store, user_id: int, token_id: int) -> bool:
    """Revokes token ``token_id`` if it is account ``user_id``'s; whether it was."""
    with store() as session, session.begin():
        return rows_changed(session, delete(ApiToken).where(ApiToken.id == token_id,
                                                             ApiToken.user_id == user_id)) == 1


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
        account = account_of(session, row.user)
        now = datetime.now(UTC)
        if row.last_used_at is None or _aware(row.last_used_at) < now - TOKEN_TOUCH:
            # to the minute: a program's every request writing the store would cost every reader.
            # Best effort: a store busy writing (SQLite's one writer) must not fail the request
            try:
                session.execute(update(ApiToken).where(ApiToken.id == row.id).values(last_used_at=now))
                session.commit()
            except SQLAlchemyError:
                session.rollback()
        return account


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
