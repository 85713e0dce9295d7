"""Notifications: an account's inbox, its Atom feed and its webhooks (the API's
``/api/v1/notifications``, ``/api/v1/feed``, ``/api/v1/webhooks``)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .fields import Link, Moment, Out

Event = Literal["submission.entered", "submission.refused", "scrimmage.done", "bot.failing", "rank.changed",
                "run.finished", "run.failed"]


class NotificationOut(Out):
    """One notification of an account."""

    id: int = Field(ge=1, description="the notification's id")
    event: Event = Field(description="what happened (docs/api.md, \"Notifications\", lists the events)")
    text: str = Field(description="what happened, in words (printable, at most 1000 characters; it may quote a "
                                  "bot's or an author's words: escape it where shown)")
    url: Link | None = Field(description="the page it is about, a path of this site; null: none")
    data: dict[str, Any] = Field(description="the event's facts, for programs (by event: docs/api.md)")
    created_at: Moment = Field(description="when it happened (UTC)")
    read: bool = Field(description="marked read")


class Inbox(Out):
    """An account's inbox: how many are unread, and the newest notifications (at most 200)."""

    unread: int = Field(ge=0, description="notifications not marked read")
    notifications: list[NotificationOut] = Field(description="the newest first")


class FeedOut(Out):
    """An account's Atom feed. Its URL holds a token of which the server keeps only a hash: it is
    shown once, when made; a new one replaces it."""

    enabled: bool = Field(description="the account has a feed URL")
    url: str | None = Field(description="the feed's URL, only in the answer that made it; null otherwise")
    created_at: Moment | None = Field(description="when its URL was made; null: no feed")


DeliveryStatus = Literal["pending", "delivered", "failed"]


class WebhookOut(Out):
    """A webhook of the account: where its notifications are POSTed, signed."""

    id: int = Field(ge=1, description="the webhook's id")
    url: str = Field(description="where deliveries are POSTed")
    secret: str | None = Field(description="the HMAC-SHA256 key of its signatures, only in the answer that "
                                           "registered it; null otherwise")
    created_at: Moment = Field(description="when it was registered")
    pending: int = Field(ge=0, description="deliveries still to be tried")
    delivered: int = Field(ge=0, description="deliveries the receiver took (answered 2xx)")
    failed: int = Field(ge=0, description="deliveries given up after their last attempt")
    last_error: str = Field(description="why the latest delivery that went wrong did; \"\" if none did")


class DeliveryOut(Out):
    """One notification sent (or to be sent) to a webhook."""

    delivery: str = Field(description="the delivery's id: the X-Arena-Delivery header, the same on every attempt")
    event: Event = Field(description="what happened")
    status: DeliveryStatus = Field(description="pending (to be tried, maybe again), delivered, or failed (no "
                                               "attempt left)")
    attempts: int = Field(ge=0, description="attempts made")
    next_attempt_at: Moment | None = Field(description="when it is tried next; null once delivered or failed")
    last_status: int | None = Field(description="the HTTP status the receiver last answered; null: no answer")
    last_error: str = Field(description="why the last attempt failed; \"\" if it did not")
    created_at: Moment = Field(description="when it was queued")
    delivered_at: Moment | None = Field(description="when the receiver took it")
