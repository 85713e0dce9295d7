"""Notifications: news for an account, in its inbox, its Atom feed and its webhooks.

One entry point writes them all: :func:`notify`, called in the session (the transaction) of the
change it reports, so a change is never stored without its news, nor news without its change.
It adds an inbox row per account, and per webhook of each account a delivery row
(``arena/webhooks.py`` sends those, from the store, so a restarted server goes on).

The events (their ``event`` names are part of the API: docs/api.md, "Notifications"):

- ``submission.entered``, ``submission.refused`` (with the reason): :func:`submission_finished`,
  from the submissions' workers (``arena/bots/submit.py``).
- ``scrimmage.done``: :func:`scrimmage_done`, from whatever plays scrimmages.
- ``bot.failing``: a bot failed in ``FAILURE_ALERT_SHARE`` or more of its last
  ``FAILURE_WINDOW`` games of a league (:func:`after_match`, in each match's transaction). Its
  owner is told once; once the share is below again, the next crossing is news again.
- ``rank.changed``: once a run ends (and every ``RANK_NOTICE_S`` while a ladder runs on), each
  owner is told, in one notification per league, which of their bots' ranks changed since they
  were last told (:func:`rank_changes`). A bot's first rank is not news: entering was.
- ``run.finished``, ``run.failed``: :func:`run_finished`: the owners of the league's bots
  and the admin who started it from the server (a failed run: that admin only, with why).

Nothing here imports the web server; the texts are made printable and capped here, and escaped
where shown.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from referee import limits
from referee.textlog import printable

from .store import (
    Bot,
    BotHealth,
    Entry,
    Game,
    League,
    Notification,
    NotificationFeed,
    RankMark,
    Rating,
    Store,
    TeamMember,
    User,
    Webhook,
    WebhookDelivery,
    rows_changed,
)
from .store.models import now


def digest(token: str) -> str:
    """A feed token's SHA-256, as ``arena.accounts`` keeps API tokens (not imported: it loads argon2)."""
    return hashlib.sha256(token.encode()).hexdigest()

EVENTS = ("submission.entered", "submission.refused", "scrimmage.done", "bot.failing", "rank.changed",
          "run.finished", "run.failed")


def clean(text: str, limit: int = limits.NOTIFICATION_CHARS) -> str:
    """``text`` made printable line by line (a bot's or an author's words may be in it) and capped."""
    return printable(" / ".join(line for line in text.splitlines() if line.strip()) or text, limit)


def notify(session: Session, user_ids: Iterable[int | None], event: str, text: str, url: str | None = None,
           data: dict[str, Any] | None = None) -> list[Notification]:
    """Tells each account of ``user_ids`` (None and repeats are skipped) that ``event`` happened:
    an inbox row, and a delivery to each of its webhooks, added to ``session``: they are stored
    when (and only if) the caller's transaction commits. ``url`` is a path of the site (``/bots/3``);
    ``data`` the event's facts for programs (JSON). Returns the inbox rows (flushed: with ids)."""
    assert event in EVENTS, event
    if url is not None and (not url.startswith("/") or url.startswith("//") or len(url) > 512):
        raise ValueError(f"a notification's url is a path of this site, not {url[:60]!r}")  # it becomes a link
    text = clean(text)
    data = dict(data or {})
    ids = list(dict.fromkeys(u for u in user_ids if u is not None))
    if not ids:
        return []
    rows = [Notification(user_id=user_id, event=event, text=text, url=url, data=data, created_at=now())
            for user_id in ids]
    session.add_all(rows)
    session.flush()
    hooks = session.execute(select(Webhook.id, Webhook.user_id).where(Webhook.user_id.in_(ids))).all()
    by_user = {row.user_id: row for row in rows}
    for hook_id, user_id in hooks:
        row = by_user[user_id]
        delivery = uuid.uuid4().hex
        body = json.dumps({"delivery": delivery, "event": event, "notification": row.id, "text": text, "url": url,
                           "data": data, "created_at": row.created_at.isoformat()}, separators=(",", ":"))
        session.add(WebhookDelivery(webhook_id=hook_id, delivery_id=delivery, event=event, body=body,
                                    next_attempt_at=row.created_at, created_at=row.created_at))
    return rows


# -- the inbox ------------------------------------------------------------------------------------
def inbox(store: Store, user_id: int, unread_only: bool = False,
          limit: int = limits.INBOX_SHOWN) -> tuple[int, list[Notification]]:
    """The account's unread count and its newest notifications (only the unread, if asked)."""
    with store() as session:
        query = select(Notification).where(Notification.user_id == user_id)
        if unread_only:
            query = query.where(Notification.read_at.is_(None))
        rows = list(session.scalars(query.order_by(Notification.id.desc()).limit(limit)))
        return _unread(session, user_id), rows


def unread_count(store: Store, user_id: int) -> int:
    with store() as session:
        return _unread(session, user_id)


def _unread(session: Session, user_id: int) -> int:
    return session.scalar(select(func.count(Notification.id)).where(Notification.user_id == user_id,
                                                                    Notification.read_at.is_(None))) or 0


def mark_read(store: Store, user_id: int, ids: Iterable[int] | None = None) -> int:
    """Marks the account's notifications ``ids`` read (all of them: None); another account's ids
    are not touched (they are not the asker's to know of). Returns how many changed."""
    with store() as session, session.begin():
        statement = update(Notification).where(Notification.user_id == user_id, Notification.read_at.is_(None))
        if ids is not None:
            statement = statement.where(Notification.id.in_(list(ids)))
        return rows_changed(session, statement.values(read_at=now()))


# -- the Atom feed --------------------------------------------------------------------------------
FEED_PREFIX = "feed_"


def rotate_feed(store: Store, user_id: int) -> str:
    """A new feed token for the account (the old one stops working); only its SHA-256 is kept,
    so this is the only time it is seen."""
    token = FEED_PREFIX + secrets.token_urlsafe(32)
    with store() as session, session.begin():
        session.execute(delete(NotificationFeed).where(NotificationFeed.user_id == user_id))
        session.add(NotificationFeed(user_id=user_id, digest=digest(token)))
    return token


def stop_feed(store: Store, user_id: int) -> bool:
    with store() as session, session.begin():
        return rows_changed(session, delete(NotificationFeed).where(NotificationFeed.user_id == user_id)) > 0


def feed_since(store: Store, user_id: int) -> datetime | None:
    """When the account's feed token was made; None: it has none."""
    with store() as session:
        return session.scalar(select(NotificationFeed.created_at).where(NotificationFeed.user_id == user_id))


def feed_of(store: Store, token: str) -> tuple[User, list[Notification]] | None:
    """The account whose feed token this is, and its newest notifications; None for a token that
    is not one (never issued, or rotated since)."""
    if not token.startswith(FEED_PREFIX) or len(token) > 100:
        return None
    with store() as session:
        user = session.scalar(select(User).join(NotificationFeed, NotificationFeed.user_id == User.id)
                              .where(NotificationFeed.digest == digest(token)))
        if user is None:
            return None
        rows = list(session.scalars(select(Notification).where(Notification.user_id == user.id)
                                    .order_by(Notification.id.desc()).limit(limits.FEED_ENTRIES)))
        return user, rows


# -- the events -----------------------------------------------------------------------------------
def submission_finished(session: Session, user_id: int, submission_id: int, status: str, bot: str,
                        leagues: list[str], reason: str = "") -> None:
    """A submission was entered or refused (``status``); ``bot`` is its NAME@VERSION."""
    url = f"/submissions/{submission_id}"
    data: dict[str, Any] = {"submission": submission_id, "bot": bot, "leagues": leagues}
    if status == "entered":
        where = f" in {', '.join(leagues)}" if leagues else ""
        notify(session, [user_id], "submission.entered", f"{bot} was entered{where} (submission {submission_id})",
               url, data)
    else:
        data["reason"] = reason
        notify(session, [user_id], "submission.refused",
               f"{bot or 'your bot'} was refused (submission {submission_id}): {reason}", url, data)


def scrimmage_done(session: Session, user_ids: Iterable[int | None], scrimmage_id: int, text: str, url: str,
                   data: dict[str, Any] | None = None) -> None:
    """A scrimmage ended: call it in the transaction that stores its result, with the challenger
    and the opponents' owners (what each may see of it is the scrimmage's page's to decide; keep
    ``text`` to what every one of them may know: who played, and that it is over)."""
    notify(session, user_ids, "scrimmage.done", text, url, {"scrimmage": scrimmage_id, **(data or {})})


def after_match(session: Session, league_id: int, games: list[Game]) -> None:
    """In a stored match's transaction: each of its bots' last games in the league, failed or
    not; an owner whose bot now fails in ``FAILURE_ALERT_SHARE`` of them is told (once per crossing)."""
    outcomes: dict[int, str] = {}
    for game in games:
        for seat, bot_id in enumerate(game.seats):
            outcomes[bot_id] = outcomes.get(bot_id, "") + ("1" if game.failures[seat] else "0")
    if not outcomes:
        return
    rows = {h.bot_id: h for h in session.scalars(select(BotHealth).where(BotHealth.league_id == league_id,
                                                                        BotHealth.bot_id.in_(list(outcomes))))}
    crossed: list[tuple[int, float, int]] = []
    for bot_id, seen in outcomes.items():
        row = rows.get(bot_id)
        if row is None:
            row = BotHealth(league_id=league_id, bot_id=bot_id, recent="", alerted=False)
            session.add(row)
        row.recent = (row.recent + seen)[-limits.FAILURE_WINDOW:]
        share = row.recent.count("1") / len(row.recent)
        failing = len(row.recent) >= limits.FAILURE_MIN_GAMES and share >= limits.FAILURE_ALERT_SHARE
        if failing and not row.alerted:
            crossed.append((bot_id, share, len(row.recent)))
        if failing != row.alerted:
            row.alerted = failing
    for bot_id, share, games_seen in crossed:
        bot = session.get(Bot, bot_id)
        league = session.get(League, league_id)
        if bot is None or league is None or not (told := holders(session, bot)):
            continue
        notify(session, told, "bot.failing",
               f"{bot.label} failed in {share:.0%} of its last {games_seen} games in {league.name}: its games "
               "on its page say why", f"/bots/{bot_id}",
               {"bot": bot.label, "bot_id": bot_id, "league": league.name, "failure_rate": round(share, 3),
                "games": games_seen})


def holders(session: Session, bot: Bot) -> list[int]:
    """The accounts told of ``bot``'s news: every member of its team for a team's bot, else its
    owner (none for the operator's), as :func:`arena.access.may_read_output` lets them read it."""
    if bot.team_id is not None:
        return list(session.scalars(select(TeamMember.user_id).where(TeamMember.team_id == bot.team_id)
                                    .order_by(TeamMember.user_id)))
    return [bot.owner_id] if bot.owner_id is not None else []


def ranks(session: Session, league_id: int) -> dict[int, int]:
    """Each rated bot's rank in the league, as the leaderboard ranks them: mu - 3 sigma, best first."""
    rows = session.execute(select(Rating.bot_id, Rating.exposure).where(Rating.league_id == league_id)).all()
    ordered = sorted(rows, key=lambda r: (-r.exposure, r.bot_id))
    return {bot_id: place for place, (bot_id, _) in enumerate(ordered, 1)}


def rank_changes(store: Store, league_name: str) -> int:
    """Tells each owner which of their bots' ranks in the league changed since they were last
    told: one notification per owner; returns how many were written."""
    with store() as session, session.begin():
        league = session.scalar(select(League).where(League.name == league_name))
        if league is None:
            return 0
        current = ranks(session, league.id)
        marks = {m.bot_id: m for m in session.scalars(select(RankMark).where(RankMark.league_id == league.id))}
        bots = {b.id: b for b in session.scalars(select(Bot).where(Bot.id.in_(list(current))))}
        moves: dict[int, list[tuple[Bot, int, int]]] = {}
        for bot_id, rank in current.items():
            mark = marks.get(bot_id)
            if mark is None:
                session.add(RankMark(league_id=league.id, bot_id=bot_id, rank=rank))
                continue
            if mark.rank != rank:
                bot = bots[bot_id]
                if bot.retired_at is None:
                    for holder in holders(session, bot):
                        moves.setdefault(holder, []).append((bot, mark.rank, rank))
                mark.rank = rank
        for owner_id, moved in moves.items():
            moved.sort(key=lambda m: m[2])
            words = "; ".join(f"{bot.label} {before} \u2192 {after}" for bot, before, after in moved)
            notify(session, [owner_id], "rank.changed", f"ranks in {league.name} of {len(current)}: {words}",
                   f"/leagues/{league.name}",
                   {"league": league.name, "entrants": len(current),
                    "changes": [{"bot": bot.label, "bot_id": bot.id, "before": before, "after": after}
                                for bot, before, after in moved]})
        return len(moves)


def run_finished(store: Store, league_name: str, games: int, failures: int, ran_by: int | None = None,
                 error: str = "") -> None:
    """A league or ladder run ended: tells the owners of its bots (not retired) and the admin
    who started it (``ran_by``; None: the command line's operator) what it played, then tells
    owners of rank changes. A run that failed (``error``) is told to that admin only."""
    url = None
    with store() as session, session.begin():
        league = session.scalar(select(League).where(League.name == league_name))
        if league is None:
            return
        url = f"/leagues/{league.name}"
        data: dict[str, Any] = {"league": league.name, "games": games, "seat_failures": failures}
        if error:
            notify(session, [ran_by], "run.failed", f"the run of {league.name} failed: {error}", url,
                   {**data, "error": clean(error)})
            return
        bots = session.scalars(select(Bot).join(Entry, Entry.bot_id == Bot.id)
                               .where(Entry.league_id == league.id, Bot.retired_at.is_(None)))
        owners = {holder for bot in bots for holder in holders(session, bot)}
        notify(session, [*sorted(owners), ran_by], "run.finished",
               f"the run of {league.name} finished: {games} game(s) played, {failures} seat failure(s)", url, data)
    rank_changes(store, league_name)
