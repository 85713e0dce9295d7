"""The durable store: bots, leagues and their entrants, matches, games, ratings.

One schema for SQLite (the default) and PostgreSQL (shared deployments); migrations
are Alembic's (``arena/store/migrations``). Games are stored with everything needed to
recompute ratings (seats, scores, ranks, failures) and the path of their record.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ColumnElement,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    and_,
)
from sqlalchemy.ext.hybrid import hybrid_property
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class Bot(Base):
    """One version of a bot: a new version is a new entrant with a rating of its own."""

    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("name", "version", name="uq_bot_version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    version: Mapped[str] = mapped_column(String(128))
    image: Mapped[str] = mapped_column(String(256))
    image_digest: Mapped[str] = mapped_column(String(80))
    language: Mapped[str] = mapped_column(String(32))
    author: Mapped[str] = mapped_column(String(128))
    games: Mapped[list[Any]] = mapped_column(default=list)  # the games it claims; [] = all
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # the account that submitted it over HTTP; None for a bot registered on the command line (an
    # operator's). Only that account may submit new versions of the name or retire it.
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True, index=True)
    # the team whose bot name it is (None: the owner's own). A team's name stays the team's for
    # every version: its members submit versions; owner_id then only records who submitted it
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id"), nullable=True, index=True)
    # a retired bot plays no new match; its games and ratings stay
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # disqualified by an admin (arena/moderation.py): retired too, and its owner can neither undo it
    # nor submit new versions of the name until an admin does; the reason is the admin's words
    disqualified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    disqualified_reason: Mapped[str] = mapped_column(Text, default="", server_default="")

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    @hybrid_property
    def plays(self) -> bool:
        """Whether the bot may be picked for a new match (a league's, a ladder's, a scrimmage's):
        neither retired nor disqualified. Also an SQL clause: ``select(Bot).where(Bot.plays)``."""
        return self.retired_at is None and self.disqualified_at is None

    @plays.inplace.expression
    @classmethod
    def _plays(cls) -> ColumnElement[bool]:
        return and_(cls.retired_at.is_(None), cls.disqualified_at.is_(None))


class League(Base):
    __tablename__ = "leagues"
    __table_args__ = (UniqueConstraint("finals_of", name="uq_leagues_finals_of"),)  # one finals per league

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    game: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)  # the game's settings, complete
    # deals, time control, failure policy: see arena.league.schedule.ScheduleOptions
    schedule: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # hex, >= 128 bits: every deal and bot seed of the league derives from it; never sent to a bot
    secret: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # closed to new entrants (``arena league finals``): no join, no submission enters it
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # the league whose finals this is: its entrants at close, ranked on fresh deals (a new secret)
    finals_of: Mapped[int | None] = mapped_column(ForeignKey("leagues.id"), nullable=True)

    entries: Mapped[list[Entry]] = relationship(back_populates="league", order_by="Entry.bot_id")


class Entry(Base):
    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("league_id", "bot_id", name="uq_entry"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    league: Mapped[League] = relationship(back_populates="entries")
    bot: Mapped[Bot] = relationship()


class Match(Base):
    """A finished match. Only finished matches are stored, in one transaction with their
    games, so a league killed at any moment neither loses nor duplicates a result."""

    __tablename__ = "matches"
    __table_args__ = (UniqueConstraint("league_id", "round", "table", name="uq_match_slot"),
                      Index("ix_matches_league", "league_id", "id"))  # what the leaderboard's cache checks

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    round: Mapped[int] = mapped_column(Integer)
    table: Mapped[str] = mapped_column(String(256))  # the entrants' bot ids, sorted: "3,5,9"
    bots: Mapped[list[Any]] = mapped_column()  # bot ids in match order (seat rotation base)
    record_dir: Mapped[str] = mapped_column(String(1024))
    restarts: Mapped[list[Any]] = mapped_column(default=list)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # which try of the match this is (its records folder's name); "" for matches of older stores
    attempt: Mapped[str] = mapped_column(String(128), default="", server_default="")

    games: Mapped[list[Game]] = relationship(back_populates="match", order_by="Game.index")


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("match_id", "index", name="uq_game_index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    index: Mapped[int] = mapped_column(Integer)
    # the engine's seed in decimal: 128 bits do not fit an SQL INTEGER
    seed: Mapped[str] = mapped_column(String(40))
    deal: Mapped[str] = mapped_column(String(64))  # the same label in a table's cycle: the same cards
    seats: Mapped[list[Any]] = mapped_column()  # bot ids by seat
    scores: Mapped[list[Any]] = mapped_column()
    ranks: Mapped[list[Any]] = mapped_column()  # 1 is best; failed seats last
    failures: Mapped[list[Any]] = mapped_column()  # "" or the reason, by seat
    record_path: Mapped[str] = mapped_column(String(1024))

    match: Mapped[Match] = relationship(back_populates="games")


class Rating(Base):
    """A bot's current rating in a league, recomputed from the stored games."""

    __tablename__ = "ratings"
    __table_args__ = (UniqueConstraint("league_id", "bot_id", name="uq_rating"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    exposure: Mapped[float] = mapped_column(Float)  # mu - 3 sigma: the conservative estimate
    games: Mapped[int] = mapped_column(Integer, default=0)

    bot: Mapped[Bot] = relationship()


class RatingHistory(Base):
    """Each bot's rating after each rated game, in rating order."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_bot", "league_id", "bot_id", "seq"),)  # a bot page's chart

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), index=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    seq: Mapped[int] = mapped_column(Integer)  # position of the game in rating order
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)


class LiveMatch(Base):
    """A match being played: written when its referee starts, deleted when the match is stored
    (or its run ends). The web server finds running games here; their records are still
    being written in ``record_dir``."""

    __tablename__ = "live_matches"
    __table_args__ = (UniqueConstraint("league_id", "round", "table", name="uq_live_slot"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    round: Mapped[int] = mapped_column(Integer)
    table: Mapped[str] = mapped_column(String(256))
    bots: Mapped[list[Any]] = mapped_column()  # bot ids in match order
    record_dir: Mapped[str] = mapped_column(String(1024))
    host: Mapped[str] = mapped_column(String(256))  # where its referee runs, and as which process
    pid: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class LeagueLease(Base):
    """The runner that plays a league now (``arena league run`` or ``arena ladder run``): one per
    league (``arena/league/lease.py``). It renews ``renewed_at`` (by the database's clock) while it
    runs and deletes the row when it ends; a row whose process is gone, or that was not renewed
    for a while, is stale, and the next runner takes it over."""

    __tablename__ = "league_leases"

    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), primary_key=True)
    token: Mapped[str] = mapped_column(String(64))  # this run's own: a process may run several leagues
    host: Mapped[str] = mapped_column(String(256))  # where the runner runs, and as which process
    pid: Mapped[int] = mapped_column(Integer)
    command: Mapped[str] = mapped_column(String(32))  # "league run" or "ladder run"
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    renewed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class User(Base):
    """An account: a bot author, or an admin (who creates and runs leagues)."""

    __tablename__ = "users"
    __table_args__ = (UniqueConstraint("name_folded", name="uq_users_name_folded"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # the name in lower case, unique: names are unique whatever their case in the database itself
    # (two sign-ups racing for "Alice" and "alice" cannot both win), so nobody can pass for another
    # author by a capital letter. A column, not an index on lower(name): SQLite's batch migrations
    # rebuild a table without the expression indexes they cannot reflect
    name_folded: Mapped[str] = mapped_column(String(64), default=lambda context: _folded(context))
    password_hash: Mapped[str | None] = mapped_column(String(256), nullable=True)  # argon2id; None: no login
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # disabled by an admin (arena/moderation.py): its tokens and sessions are refused, it cannot sign in
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # the invite code it signed up with (None: made by an admin, or signed up while sign-up was open)
    invite_id: Mapped[int | None] = mapped_column(ForeignKey("invites.id"), nullable=True, index=True)


def _folded(context: Any) -> str:
    return str(context.get_current_parameters()["name"]).lower()


class Invite(Base):
    """An invite code an admin made: lets ``uses`` sign-ups until ``expires_at``, while sign-up is
    by invite. Only its SHA-256 is kept (a code is 192 random bits, like a token's 256: no salt or
    slow hash needed); ``hint`` is its first characters, to tell codes apart in a list."""

    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    uses: Mapped[int] = mapped_column(Integer)  # sign-ups it allows in all
    used: Mapped[int] = mapped_column(Integer, default=0)  # sign-ups it made; never above ``uses``
    # the admin's account id; None: the command line. No foreign key: users.invite_id points here,
    # and a cycle of keys is more than SQLite's batch migrations can rebuild
    created_by: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class ApiToken(Base):
    """A bearer token for the API. Only its SHA-256 is kept: a token is 256 random bits, so a
    plain hash is enough (no salt or slow hash needed), and a leaked table reveals no token."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    # the token's first characters after "arena_" (36 of its 256 bits): enough to tell tokens apart
    # in the owner's list, too few to matter; "" for tokens made before it was kept
    hint: Mapped[str] = mapped_column(String(16), default="", server_default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    # when it was last used, to the minute (accounts.py writes it at most once a minute)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    user: Mapped[User] = relationship()


class WebSession(Base):
    """A signed-in browser: the cookie holds a random token, the store its SHA-256 and the
    session's CSRF token (which every form that changes something must echo)."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    user: Mapped[User] = relationship()


class Team(Base):
    """A group of accounts that hold bot names together (``arena/teams.py``). Its name follows the
    accounts' rule and is unique whatever its case: ``name_key`` is its lower case."""

    __tablename__ = "teams"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


TeamRole = Literal["owner", "member"]


class TeamMember(Base):
    """An account in a team, with its role: an owner manages the team (members, roles, retiring
    its bots); every member submits its bots' versions and sees what their owner would."""

    __tablename__ = "team_members"
    __table_args__ = (UniqueConstraint("team_id", "user_id", name="uq_team_member"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    team_id: Mapped[int] = mapped_column(ForeignKey("teams.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)  # an account's teams: every request
    role: Mapped[str] = mapped_column(String(16))  # a TeamRole
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


SubmissionStatus = Literal["queued", "building", "checking", "entered", "refused"]


class Submission(Base):
    """A bot folder uploaded over HTTP, on its way to a league: queued, building, checking, then
    entered or refused. ``log`` is the build's output, ``report`` the check's; both are the
    bot's words (hostile text: escape them wherever they are shown)."""

    __tablename__ = "submissions"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    # the team it is for (None: its author's own): the bot is registered as the team's, and the
    # team's members see the submission as its author does
    team_id: Mapped[int | None] = mapped_column(ForeignKey("teams.id"), nullable=True, index=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")  # a SubmissionStatus
    leagues: Mapped[list[Any]] = mapped_column(default=list)  # league names to enter
    retire_previous: Mapped[bool] = mapped_column(Boolean, default=True)
    folder: Mapped[str] = mapped_column(String(1024))  # the unpacked upload, until it is built
    bot_name: Mapped[str] = mapped_column(String(64), default="")  # from its bot.toml, once read
    bot_version: Mapped[str] = mapped_column(String(128), default="")
    bot_id: Mapped[int | None] = mapped_column(ForeignKey("bots.id"), nullable=True)
    log: Mapped[str] = mapped_column(Text, default="")
    report: Mapped[str] = mapped_column(Text, default="")
    error: Mapped[str] = mapped_column(Text, default="")  # why it was refused
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)

    user: Mapped[User] = relationship()


class WorkerResult(Base):
    """A match played by a worker (``arena worker``), waiting for its league's runner to store
    it. Written once per (match, attempt): a worker that plays an attempt again (its message
    was redelivered after another worker died, or the broker came back) finds the row and
    writes nothing. The runner stores the match and its games from it (``Match.attempt`` says
    which attempt), then deletes it; a runner that restarts stores any it finds for matches
    not stored yet, whichever attempt they are."""

    __tablename__ = "worker_results"
    __table_args__ = (UniqueConstraint("match", "attempt", name="uq_result_attempt"),
                      Index("ix_worker_results_league", "league_id", "id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"))
    round: Mapped[int] = mapped_column(Integer)
    table: Mapped[str] = mapped_column(String(256))
    match: Mapped[str] = mapped_column(String(256))  # the spec's match id: league, round and table
    attempt: Mapped[str] = mapped_column(String(128))  # the runner's name for this try (its records folder)
    worker: Mapped[str] = mapped_column(String(256))  # host:pid of the worker that played it
    failure: Mapped[str] = mapped_column(Text, default="")  # why the referee failed; "" when it ended
    result: Mapped[dict[str, Any]] = mapped_column(default=dict)  # result.json, started_at, seconds
    records: Mapped[bytes] = mapped_column(LargeBinary)  # the records folder: a gzipped tar
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ImageArchive(Base):
    """A bot image as ``docker save`` wrote it (gzipped, in ``ImageChunk`` rows), so a worker
    whose engine lacks it can load exactly that image: the ID it loads must be ``image_id``.
    The row is written after all its chunks, so a half-written archive is never read."""

    __tablename__ = "image_archives"

    id: Mapped[int] = mapped_column(primary_key=True)
    image_id: Mapped[str] = mapped_column(String(80), unique=True)  # sha256:... (Bot.image_digest)
    image: Mapped[str] = mapped_column(String(256))  # the tag it was saved under
    size: Mapped[int] = mapped_column(BigInteger)  # bytes of the gzipped archive
    chunks: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ImageChunk(Base):
    """One piece (a few MiB) of an image archive: rows this size stream through any database."""

    __tablename__ = "image_chunks"
    __table_args__ = (UniqueConstraint("image_id", "seq", name="uq_image_chunk"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    image_id: Mapped[str] = mapped_column(String(80), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class AuditEntry(Base):
    """One change made through the site, the API or the command line (``arena/audit.py``): who,
    what, when, from where. ``action`` is ``http`` for the record every state-changing request
    leaves (its method, route template, target ids and status), ``cli`` for a command that wrote
    to the store, or a domain action's name (``bot.disqualify``, ``user.disable``, ...). Never a
    secret: no request body, query string or token is stored."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_actor", "actor_id", "id"), Index("ix_audit_action", "action", "id"))

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)
    # the account; None for the operator on the command line, or nobody signed in. No foreign key:
    # the log outlives what it names
    actor_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    actor: Mapped[str] = mapped_column(String(128))  # its name then; "operator" or "-" (nobody)
    via: Mapped[str] = mapped_column(String(8))  # "web", "api" or "cli"
    address: Mapped[str] = mapped_column(String(128), default="")  # the client's, or user@host for the CLI
    action: Mapped[str] = mapped_column(String(64))
    method: Mapped[str] = mapped_column(String(8), default="")
    route: Mapped[str] = mapped_column(String(256), default="")  # the route's template, never the raw path
    target: Mapped[str] = mapped_column(String(256), default="")  # "bot 12", "user alice", ...
    status: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the HTTP answer's
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)


class Notification(Base):
    """A line of news in an account's inbox (``arena/notifications.py``): a submission entered or
    refused, a scrimmage done, a bot failing often, a rank changed, a run finished. ``text`` is
    made printable and capped when written; it may quote a bot's or an author's words."""

    __tablename__ = "notifications"
    __table_args__ = (Index("ix_notifications_user", "user_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    event: Mapped[str] = mapped_column(String(40))  # "submission.entered", "run.finished", ...
    text: Mapped[str] = mapped_column(Text)
    url: Mapped[str | None] = mapped_column(String(512), nullable=True)  # a path of the site: what it is about
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)  # the event's facts, for programs
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    read_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class NotificationFeed(Base):
    """An account's Atom feed: its URL holds a random token, of which only the SHA-256 is kept."""

    __tablename__ = "notification_feeds"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class Webhook(Base):
    """A URL an account registered: every notification of the account is POSTed there, signed
    with HMAC-SHA256 under ``secret`` (which the account was shown once; kept as it is, since
    signing needs it)."""

    __tablename__ = "webhooks"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    url: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


DeliveryStatus = Literal["pending", "delivered", "failed"]


class WebhookDelivery(Base):
    """One notification on its way to one webhook: written with the notification, in the same
    transaction, and sent by the server's senders (``arena/webhooks.py``) until the receiver
    answers 2xx or the attempts run out. ``body`` is fixed when written: every attempt sends the
    same bytes under the same ``delivery_id``. A sender claims a row by moving ``next_attempt_at``
    past the attempt's end, so a sender that dies leaves it to be tried again."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    webhook_id: Mapped[int] = mapped_column(ForeignKey("webhooks.id"), index=True)
    delivery_id: Mapped[str] = mapped_column(String(64), unique=True)
    event: Mapped[str] = mapped_column(String(40))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="pending")  # a DeliveryStatus
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    last_status: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the receiver's last HTTP status
    last_error: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    delivered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class BotHealth(Base):
    """A bot's last games in a league, failed or not ("1" or "0", oldest first, at most
    ``FAILURE_WINDOW``), and whether its owner was told it fails too often (told once per crossing)."""

    __tablename__ = "bot_health"

    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    recent: Mapped[str] = mapped_column(String(64), default="")
    alerted: Mapped[bool] = mapped_column(Boolean, default=False)


class RankMark(Base):
    """A bot's rank in a league as its owner was last told (or first saw it): a change is news."""

    __tablename__ = "rank_marks"

    league_id: Mapped[int] = mapped_column(ForeignKey("leagues.id"), primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    rank: Mapped[int] = mapped_column(Integer)


ScrimmageStatus = Literal["queued", "running", "done", "failed"]


class Scrimmage(Base):
    """An unrated match series an author asked for (``arena/scrimmage.py``): their bot against
    opponents of their choice. Its games are :class:`ScrimmageGame` rows, never ``games``: no
    rating, leaderboard, rating history or league slot reads them."""

    __tablename__ = "scrimmages"
    __table_args__ = (Index("ix_scrimmages_user", "user_id", "created_at"),)  # the daily quota's count

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))  # the challenger
    game: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)  # the game's, complete
    schedule: Mapped[dict[str, Any]] = mapped_column(default=dict)  # ScheduleOptions.to_dict()
    # hex, 256 bits: its deals and bot seeds derive from it (never a league's); never shown or sent
    secret: Mapped[str] = mapped_column(Text)
    bots: Mapped[list[Any]] = mapped_column()  # bot ids: the challenger's first, then the opponents
    games: Mapped[int] = mapped_column(Integer)  # asked for: a multiple of ``players``
    status: Mapped[str] = mapped_column(String(16), default="queued")  # a ScrimmageStatus
    error: Mapped[str] = mapped_column(Text, default="")  # why it failed (the server's words, never a bot's)
    record_dir: Mapped[str] = mapped_column(String(1024), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    results: Mapped[list[ScrimmageGame]] = relationship(back_populates="scrimmage",
                                                        order_by="ScrimmageGame.number")


class ScrimmageGame(Base):
    """A game of a scrimmage, stored with the rest of its match in one transaction."""

    __tablename__ = "scrimmage_games"
    __table_args__ = (UniqueConstraint("scrimmage_id", "number", name="uq_scrimmage_game"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    scrimmage_id: Mapped[int] = mapped_column(ForeignKey("scrimmages.id"))
    number: Mapped[int] = mapped_column(Integer)  # in the scrimmage: round * players + index
    round: Mapped[int] = mapped_column(Integer)  # its match (one per seat rotation of the cycle)
    index: Mapped[int] = mapped_column(Integer)  # in its match
    deal: Mapped[str] = mapped_column(String(64))
    seats: Mapped[list[Any]] = mapped_column()  # bot ids by seat
    match_bots: Mapped[list[Any]] = mapped_column()  # bot ids in match order (their output files' numbers)
    scores: Mapped[list[Any]] = mapped_column()
    ranks: Mapped[list[Any]] = mapped_column()
    failures: Mapped[list[Any]] = mapped_column()
    record_path: Mapped[str] = mapped_column(String(1024))

    scrimmage: Mapped[Scrimmage] = relationship(back_populates="results")
