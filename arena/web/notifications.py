"""An account's news (``arena/notifications.py`` writes it): its inbox (page and API), its Atom
feed (at a URL holding a token: a feed reader cannot sign in), and its webhooks (registered
here, sent by the senders this module starts: ``arena/webhooks.py``).

Everything here is the account's own (``access.may_read_notification``, ``may_manage_webhook``):
another's webhook is 404, as one that does not exist. A feed token or a webhook secret is shown
once, in the answer that made it, never in a URL of the site's pages (a page is answered, not
redirected to, so it stays out of the history and of Referer headers).
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Annotated
from xml.etree import ElementTree as ET

from fastapi import APIRouter, FastAPI, Form, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field

from referee import limits

from .. import access, webhooks
from .. import notifications as news
from ..accounts import Account
from ..schemas.notifications import DeliveryOut, FeedOut, Inbox, NotificationOut, WebhookOut
from ..store import Notification, Webhook
from .answers import API, render
from .auth import SignedIn, site_origin
from .ids import MAX_ID, Id

router = APIRouter()
ATOM = "http://www.w3.org/2005/Atom"
# what XML 1.0 cannot hold at all, even escaped (texts are printable already: this is the last guard)
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _notification(row: Notification) -> NotificationOut:
    return NotificationOut(id=row.id, event=row.event, text=row.text, url=row.url, data=dict(row.data),
                           created_at=row.created_at, read=row.read_at is not None)


def _inbox(request: Request, account: Account, unread_only: bool = False) -> Inbox:
    unread, rows = news.inbox(request.app.state.store, account.id, unread_only)
    return Inbox(unread=unread, notifications=[_notification(r) for r in rows
                                               if access.may_read_notification(account, r)])


def _feed_url(request: Request, token: str) -> str:
    return f"{site_origin(request)}/feeds/{token}.atom"


def _feed(request: Request, account: Account, token: str | None = None) -> FeedOut:
    since = news.feed_since(request.app.state.store, account.id)
    return FeedOut(enabled=since is not None, url=_feed_url(request, token) if token else None, created_at=since)


def _webhook(hook: Webhook, counts: dict[str, int], last_error: str, secret: str | None = None) -> WebhookOut:
    return WebhookOut(id=hook.id, url=hook.url, secret=secret, created_at=hook.created_at,
                      pending=counts.get("pending", 0), delivered=counts.get("delivered", 0),
                      failed=counts.get("failed", 0), last_error=last_error)


def _hooks(request: Request, account: Account) -> list[WebhookOut]:
    return [_webhook(*row) for row in webhooks.webhooks_of(request.app.state.store, account.id)
            if access.may_manage_webhook(account, row[0])]


def _own_hook(request: Request, account: Account, webhook_id: int) -> Webhook:
    hook = webhooks.webhook_of(request.app.state.store, webhook_id)
    if hook is None or not access.may_manage_webhook(account, hook):
        raise HTTPException(404, f"no webhook {webhook_id} of yours")
    return hook


def _register(request: Request, account: Account, url: str) -> WebhookOut:
    settings = request.app.state.settings
    try:
        hook, secret = webhooks.register(request.app.state.store, account.id, url, settings.webhooks_to_private)
    except webhooks.WebhookRefused as exc:
        raise HTTPException(400, f"that webhook URL is refused: {exc}") from None
    return _webhook(hook, {}, "", secret)


# -- the API --------------------------------------------------------------------------------------
class ReadRequest(BaseModel):
    ids: list[Annotated[int, Field(ge=1, le=MAX_ID)]] | None = Field(
        None, max_length=1000, description="the notifications to mark read; null or missing: all of them")


class WebhookRequest(BaseModel):
    url: str = Field(max_length=limits.WEBHOOK_URL_CHARS, description="where to POST deliveries: http(s)")


NOTIFICATIONS = API + "/notifications"
WEBHOOKS = API + "/webhooks"


@router.get(NOTIFICATIONS, tags=["notifications"])
def api_inbox(request: Request, account: SignedIn,
              unread: Annotated[bool, Query(description="only those not marked read")] = False) -> Inbox:
    """Your inbox: the unread count and the newest notifications (200 at most)."""
    return _inbox(request, account, unread)


@router.post(NOTIFICATIONS + "/read", tags=["notifications"])
def api_mark_read(request: Request, account: SignedIn, body: ReadRequest | None = None) -> Inbox:
    """Marks your notifications read (``ids``; all of them without); answers the inbox."""
    news.mark_read(request.app.state.store, account.id, None if body is None else body.ids)
    return _inbox(request, account)


@router.get(API + "/feed", tags=["notifications"])
def api_feed(request: Request, account: SignedIn) -> FeedOut:
    """Whether you have an Atom feed URL (the URL itself is shown only when made)."""
    return _feed(request, account)


@router.post(API + "/feed", tags=["notifications"])
def api_new_feed(request: Request, account: SignedIn) -> FeedOut:
    """Makes a new Atom feed URL for you (the old one stops working): shown only in this answer."""
    return _feed(request, account, news.rotate_feed(request.app.state.store, account.id))


@router.delete(API + "/feed", tags=["notifications"])
def api_stop_feed(request: Request, account: SignedIn) -> FeedOut:
    """Stops your Atom feed: its URL answers 404 from now on."""
    news.stop_feed(request.app.state.store, account.id)
    return _feed(request, account)


@router.get(WEBHOOKS, tags=["notifications"])
def api_webhooks(request: Request, account: SignedIn) -> list[WebhookOut]:
    """Your webhooks, with their deliveries counted."""
    return _hooks(request, account)


@router.post(WEBHOOKS, tags=["notifications"], status_code=201,
             responses={400: {"description": "a URL that is not http(s), or points inside"}})
def api_register(request: Request, account: SignedIn, body: WebhookRequest) -> WebhookOut:
    """Registers a webhook: every notification of yours is POSTed to ``url``, signed with the
    ``secret`` in this answer (shown only here)."""
    return _register(request, account, body.url)


@router.get(WEBHOOKS + "/{webhook_id}", tags=["notifications"])
def api_webhook(request: Request, account: SignedIn, webhook_id: Id) -> WebhookOut:
    """One of your webhooks."""
    hook = _own_hook(request, account, webhook_id)
    return next(w for w in _hooks(request, account) if w.id == hook.id)


@router.delete(WEBHOOKS + "/{webhook_id}", tags=["notifications"])
def api_remove(request: Request, account: SignedIn, webhook_id: Id) -> WebhookOut:
    """Removes one of your webhooks, and its deliveries not sent yet; answers it as it was."""
    hook = _own_hook(request, account, webhook_id)
    shown = next(w for w in _hooks(request, account) if w.id == hook.id)
    webhooks.remove(request.app.state.store, hook.id)
    return shown


@router.get(WEBHOOKS + "/{webhook_id}/deliveries", tags=["notifications"])
def api_deliveries(request: Request, account: SignedIn, webhook_id: Id) -> list[DeliveryOut]:
    """The webhook's last 100 deliveries, newest first: what was sent, how often, what came back."""
    hook = _own_hook(request, account, webhook_id)
    return [DeliveryOut(delivery=d.delivery_id, event=d.event, status=d.status,
                        attempts=d.attempts, next_attempt_at=d.next_attempt_at if d.status == "pending" else None,
                        last_status=d.last_status, last_error=d.last_error, created_at=d.created_at,
                        delivered_at=d.delivered_at)
            for d in webhooks.deliveries(request.app.state.store, hook.id)]


# -- the feed -------------------------------------------------------------------------------------
@router.get("/feeds/{token}.atom", include_in_schema=False)
def atom_feed(request: Request, token: str) -> Response:
    found = news.feed_of(request.app.state.store, token)
    if found is None:
        raise HTTPException(404, "no such feed: its URL was replaced by a new one, or never made")
    user, rows = found
    origin = site_origin(request) or ""
    return Response(atom(origin, _feed_url(request, token), user.id, user.name, rows),
                    media_type="application/atom+xml; charset=utf-8",
                    headers={"cache-control": "private, no-store", "x-robots-tag": "noindex"})


def _xml_text(text: str) -> str:
    return NOT_XML.sub("\ufffd", text)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")  # stored in UTC (SQLite hands it back without its zone)


def atom(origin: str, self_url: str, user_id: int, name: str, rows: list[Notification]) -> bytes:
    """An Atom document (RFC 4287) of ``rows``; ElementTree escapes every text and attribute."""
    ET.register_namespace("", ATOM)

    def add(parent: ET.Element, tag: str, text: str | None = None, **attributes: str) -> ET.Element:
        element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", {k: _xml_text(v) for k, v in attributes.items()})
        if text is not None:
            element.text = _xml_text(text)
        return element

    feed = ET.Element(f"{{{ATOM}}}feed")
    add(feed, "id", f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{origin}/users/{user_id}/feed')}")
    add(feed, "title", f"Arena: news for {name}")
    add(feed, "updated", _stamp(rows[0].created_at) if rows else "1970-01-01T00:00:00Z")
    add(add(feed, "author"), "name", "Arena")
    add(feed, "link", rel="self", type="application/atom+xml", href=self_url)
    add(feed, "link", rel="alternate", type="text/html", href=f"{origin}/inbox")
    for row in rows:
        entry = add(feed, "entry")
        add(entry, "id", f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, f'{origin}/notifications/{row.id}')}")
        title = row.text if len(row.text) <= 120 else row.text[:117] + "..."
        add(entry, "title", title, type="text")
        add(entry, "updated", _stamp(row.created_at))
        add(entry, "category", term=row.event)
        if row.url:
            add(entry, "link", rel="alternate", type="text/html", href=origin + row.url)
        add(entry, "content", row.text, type="text")
    return ET.tostring(feed, encoding="utf-8", xml_declaration=True)


# -- pages ----------------------------------------------------------------------------------------
def _page(request: Request, account: Account, status_code: int = 200, **shown: object) -> Response:
    context = {"inbox": _inbox(request, account), "feed": _feed(request, account), "hooks": _hooks(request, account),
               "new_feed": None, "new_hook": None, "error": "",
               "private_ok": request.app.state.settings.webhooks_to_private, **shown}
    return render(request, "inbox.html", context, status_code=status_code)


@router.get("/inbox", include_in_schema=False)
def inbox_page(request: Request, account: SignedIn) -> Response:
    return _page(request, account)


@router.post("/inbox/read", include_in_schema=False)
def read_form(request: Request, account: SignedIn, id: Annotated[int | None, Form(ge=1, le=MAX_ID)] = None,  # noqa: A002
              ) -> Response:
    news.mark_read(request.app.state.store, account.id, None if id is None else [id])
    return RedirectResponse("/inbox", status_code=303)


@router.post("/inbox/feed", include_in_schema=False)
def feed_form(request: Request, account: SignedIn) -> Response:
    return _page(request, account, new_feed=_feed_url(request, news.rotate_feed(request.app.state.store, account.id)))


@router.post("/inbox/feed/stop", include_in_schema=False)
def stop_feed_form(request: Request, account: SignedIn) -> Response:
    news.stop_feed(request.app.state.store, account.id)
    return RedirectResponse("/inbox", status_code=303)


@router.post("/inbox/webhooks", include_in_schema=False)
def webhook_form(request: Request, account: SignedIn, url: Annotated[str, Form()] = "") -> Response:
    try:
        hook = _register(request, account, url[: limits.WEBHOOK_URL_CHARS + 1])
    except HTTPException as exc:
        return _page(request, account, status_code=exc.status_code, error=str(exc.detail))
    return _page(request, account, status_code=201, new_hook=hook)


@router.post("/inbox/webhooks/{webhook_id}/delete", include_in_schema=False)
def remove_form(request: Request, account: SignedIn, webhook_id: Id) -> Response:
    webhooks.remove(request.app.state.store, _own_hook(request, account, webhook_id).id)
    return RedirectResponse("/inbox", status_code=303)


# -- the senders ----------------------------------------------------------------------------------
def start_senders(app: FastAPI) -> None:
    """Starts the threads that send webhook deliveries (whoever queued them: this server, a
    league run on the command line), if the settings want any."""
    settings = app.state.settings
    if settings.webhook_senders <= 0:
        return
    policy = webhooks.Policy(allow_private=settings.webhooks_to_private, attempts=settings.webhook_attempts,
                             retry_s=settings.webhook_retry_s, timeout_s=settings.webhook_timeout_s)
    senders = webhooks.Senders(app.state.store, policy, settings.webhook_senders)
    app.state.webhook_senders = senders
    senders.start()


def stop_senders(app: FastAPI) -> None:
    senders: webhooks.Senders | None = getattr(app.state, "webhook_senders", None)
    if senders is not None:
        senders.close()
        app.state.webhook_senders = None
