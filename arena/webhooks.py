"""Outgoing webhooks: an account's URLs, and the deliveries :func:`arena.notifications.notify`
queues for them, sent by the server's senders (:func:`deliver_due`, from the store: a server that
restarts goes on where it stopped).

A webhook URL is the author's, so hostile: the server must not be made to reach what only it can
reach (its loopback, the private network, the cloud's metadata at 169.254.169.254). So, unless the
operator allows it (``arena serve --webhooks-to-private``):

- a URL is http(s), with a host, no user name or password, and a port of 80, 443 or 1024 and up
  (no mail or SSH server is a webhook receiver); checked when registered (:func:`check_url`);
- at each delivery the name is resolved again, **every** address it has must be a global one
  (:func:`inside`), and the connection goes to the address checked (never resolved a second time:
  a name that answers a public address to the check and a private one to the connection, "DNS
  rebinding", gets nowhere); TLS is still checked against the name.
- redirects are not followed (an answer 3xx is a failed attempt), the whole attempt is bounded
  (``WEBHOOK_TIMEOUT_S``), and of the answer only the status and a few bytes are read.

Each delivery is signed (:func:`signature`): ``X-Arena-Signature: sha256=HEX``, the HMAC-SHA256
under the webhook's secret of ``TIMESTAMP.BODY`` (the ``X-Arena-Timestamp`` header, a dot, the raw
body), with ``X-Arena-Delivery`` (the same id on every attempt, also in the body) so a receiver can
refuse old and repeated deliveries (docs/api.md shows how).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import http.client
import ipaddress
import logging
import secrets
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, func, select, update

from referee import limits
from referee.textlog import printable

from .store import Store, Webhook, WebhookDelivery, rows_changed
from .store.models import now

log = logging.getLogger("arena.webhooks")
USER_AGENT = "Arena-Webhooks/1"
ANSWER_BYTES = 1024  # of a receiver's answer, read for the delivery's error
CLAIM_S = 60.0  # a claimed delivery is another sender's to try again after this long
BATCH = 10
MAX_DELAY_S = 6 * 3600
KEPT_DAYS = 30  # deliveries delivered or given up are deleted this long after they were queued


class WebhookRefused(Exception):
    """A URL or an address a webhook may not use; the message says why."""


@dataclass(frozen=True)
class Policy:
    """How deliveries are made: the server's settings (``arena serve``'s options)."""

    allow_private: bool = False  # loopback, private, link-local... addresses allowed (tests, a closed network)
    attempts: int = limits.WEBHOOK_ATTEMPTS
    retry_s: float = limits.WEBHOOK_RETRY_S
    timeout_s: float = limits.WEBHOOK_TIMEOUT_S


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # the name (or address) as written, lower case, IPv6 without brackets
    port: int
    path: str  # path and query

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


# -- which URLs and addresses -----------------------------------------------------------------------
def parse_url(url: str) -> Target:
    """The target of a webhook URL, or :class:`WebhookRefused` saying what is wrong with it."""
    if len(url) > limits.WEBHOOK_URL_CHARS:
        raise WebhookRefused(f"the URL is longer than {limits.WEBHOOK_URL_CHARS} characters")
    if any(not c.isprintable() or c.isspace() for c in url):
        raise WebhookRefused("the URL has spaces or control characters in it")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookRefused(f"the URL cannot be read ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise WebhookRefused(f"the URL must start with https:// or http://, not {printable(scheme or url, 20)!r}")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise WebhookRefused("the URL may not hold a user name or password (the signature says it is Arena)")
    host = (parts.hostname or "").rstrip(".").lower()
    if not host:
        raise WebhookRefused("the URL names no host")
    if not host.isascii():
        raise WebhookRefused("write the host name in its ASCII form (xn--..., as the browser's address bar shows "
                             "it), or use a name of plain letters")
    if not url.isascii():
        raise WebhookRefused("the URL has characters that are not ASCII: percent-encode them (%C3%A9)")
    if port is None:
        port = 443 if scheme == "https" else 80
    if port not in (80, 443) and port < 1024:
        raise WebhookRefused(f"port {port} is not one for a web server: use 80, 443, or 1024 and up")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(scheme, host, port, path)


def inside(address: str) -> str | None:
    """Why ``address`` is not a global one (loopback, private, link-local, multicast, reserved,
    unspecified, shared, documentation...), or None when it is. An IPv6 address that carries an
    IPv4 one (mapped, 6to4, NAT64) is judged by that one too."""
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address):  # the IPv4 address it carries says more
        embedded = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if embedded is None and ip in ipaddress.ip_network("64:ff9b::/96"):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and (why := inside(str(embedded))):
            return why
    for name in ("loopback", "link_local", "unspecified", "multicast", "reserved", "private"):  # the most telling first
        if getattr(ip, f"is_{name}"):
            return name.replace("_", "-")
    if not ip.is_global:
        return "not global"
    return None


def resolve(target: Target) -> list[str]:
    """Every address ``target``'s host has now (an address as written: itself)."""
    try:
        infos = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise WebhookRefused(f"the name {printable(target.host)} does not resolve ({exc.args[-1]})") from None
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked_addresses(target: Target, allow_private: bool) -> list[str]:
    """The addresses to connect to, all of them checked; :class:`WebhookRefused` if any is inside."""
    addresses = resolve(target)
    if not allow_private:
        for address in addresses:
            if why := inside(address):
                shown = printable(target.host)
                named = f"{shown} is" if shown == address else f"{shown} resolves to {address},"
                article = "an" if why[0] in "aeiou" else "a"
                raise WebhookRefused(f"{named} {article} {why} address: webhooks go to public addresses only (the "
                                     "server's operator can allow others)")
    return addresses


def check_url(url: str, allow_private: bool) -> Target:
    """A URL fit to register: :func:`parse_url`'s rules, and (unless allowed) its name resolves to
    public addresses only, now (it is checked again at each delivery)."""
    target = parse_url(url)
    checked_addresses(target, allow_private)
    return target


# -- registering ------------------------------------------------------------------------------------
def register(store: Store, user_id: int, url: str, allow_private: bool) -> tuple[Webhook, str]:
    """Registers ``url`` for the account; returns the row and its secret (shown once)."""
    url = url.strip()
    check_url(url, allow_private)
    secret = "whsec_" + secrets.token_urlsafe(32)
    with store() as session, session.begin():
        count = session.scalar(select(func.count(Webhook.id)).where(Webhook.user_id == user_id)) or 0
        if count >= limits.WEBHOOKS_PER_ACCOUNT:
            raise WebhookRefused(f"you have {count} webhooks, the most an account may have: remove one first")
        row = Webhook(user_id=user_id, url=url, secret=secret)
        session.add(row)
    return row, secret


def webhooks_of(store: Store, user_id: int) -> list[tuple[Webhook, dict[str, int], str]]:
    """The account's webhooks, each with its deliveries counted by status and its last error."""
    with store() as session:
        hooks = list(session.scalars(select(Webhook).where(Webhook.user_id == user_id).order_by(Webhook.id)))
        out = []
        for hook in hooks:
            counts: dict[str, int] = {status: count for status, count in session.execute(
                select(WebhookDelivery.status, func.count()).where(WebhookDelivery.webhook_id == hook.id)
                .group_by(WebhookDelivery.status))}
            error = session.scalar(select(WebhookDelivery.last_error).where(
                WebhookDelivery.webhook_id == hook.id, WebhookDelivery.last_error != "")
                .order_by(WebhookDelivery.id.desc()).limit(1)) or ""
            out.append((hook, counts, error))
        return out


def webhook_of(store: Store, webhook_id: int) -> Webhook | None:
    with store() as session:
        return session.get(Webhook, webhook_id)


def deliveries(store: Store, webhook_id: int, limit: int = 100) -> list[WebhookDelivery]:
    with store() as session:
        return list(session.scalars(select(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook_id)
                                    .order_by(WebhookDelivery.id.desc()).limit(limit)))


def remove(store: Store, webhook_id: int) -> None:
    """Removes a webhook and its deliveries (those not sent yet are dropped)."""
    with store() as session, session.begin():
        session.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == webhook_id))
        session.execute(delete(Webhook).where(Webhook.id == webhook_id))


# -- signing and sending ----------------------------------------------------------------------------
def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=`` and the hex HMAC-SHA256 under ``secret`` of ``TIMESTAMP.BODY``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


class _PinnedHTTP(http.client.HTTPConnection):
    """A connection to ``address``, the address checked, for a request that names the host."""

    def __init__(self, target: Target, address: str, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, address: str, timeout: float) -> None:
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)  # type: ignore[attr-defined]


def send(url: str, secret: str, delivery_id: str, event: str, body: bytes, policy: Policy) -> int:
    """POSTs one delivery; returns the receiver's HTTP status (2xx: delivered). Raises
    :class:`WebhookRefused` for an address it may not reach, OSError or HTTPException for a
    connection that failed or took longer than ``policy.timeout_s`` in all."""
    target = parse_url(url)
    address = checked_addresses(target, policy.allow_private)[0]
    timestamp = str(int(time.time()))
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target, address, policy.timeout_s)

    def cut() -> None:  # the whole attempt's bound: a receiver that drips its answer is cut off
        sock = connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(policy.timeout_s, cut)
    timer.daemon = True
    timer.start()
    try:
        connection.request("POST", target.path, body=body, headers={
            "Content-Type": "application/json", "User-Agent": USER_AGENT, "X-Arena-Event": event,
            "X-Arena-Delivery": delivery_id, "X-Arena-Timestamp": timestamp,
            "X-Arena-Signature": signature(secret, timestamp, body)})
        answer = connection.getresponse()
        answer.read(ANSWER_BYTES)
        return answer.status
    finally:
        timer.cancel()
        connection.close()


def deliver_due(store: Store, policy: Policy, stop: threading.Event | None = None) -> int:
    """Sends the deliveries that are due, each claimed first (another sender, in this process or
    another, skips it); returns how many were tried."""
    tried = 0
    with store() as session:
        due = list(session.scalars(select(WebhookDelivery.id).where(
            WebhookDelivery.status == "pending", WebhookDelivery.next_attempt_at <= now())
            .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.id).limit(BATCH)))
    for delivery_id in due:
        if stop is not None and stop.is_set():
            break
        claimed = _claim(store, delivery_id)
        if claimed is None:
            continue
        tried += 1
        row, url, secret = claimed
        status: int | None = None
        error = ""
        try:
            status = send(url, secret, row.delivery_id, row.event, row.body.encode(), policy)
            if not 200 <= status < 300:
                error = f"the receiver answered {status}" + (" (a redirect: not followed)" if 300 <= status < 400
                                                             else "")
        except WebhookRefused as exc:
            error = f"refused: {exc}"
        except (OSError, http.client.HTTPException) as exc:
            error = f"the request failed: {printable(str(exc) or type(exc).__name__, 200)}"
        except Exception as exc:  # anything else still counts as an attempt: a delivery never sticks
            log.exception("webhook delivery %s failed", row.delivery_id)
            error = f"the request failed ({type(exc).__name__})"
        _record(store, row, status, error, policy)
    return tried


def _claim(store: Store, delivery_id: int) -> tuple[WebhookDelivery, str, str] | None:
    with store() as session, session.begin():
        moment = now()
        changed = rows_changed(session, update(WebhookDelivery).where(
            WebhookDelivery.id == delivery_id, WebhookDelivery.status == "pending",
            WebhookDelivery.next_attempt_at <= moment).values(next_attempt_at=moment + timedelta(seconds=CLAIM_S)))
        if not changed:
            return None
        row = session.get(WebhookDelivery, delivery_id)
        hook = session.get(Webhook, row.webhook_id) if row is not None else None
        if row is None or hook is None:
            return None
        return row, hook.url, hook.secret


def _record(store: Store, row: WebhookDelivery, status: int | None, error: str, policy: Policy) -> None:
    attempts = row.attempts + 1
    values: dict[str, Any] = {"attempts": attempts, "last_status": status, "last_error": error}
    if not error:
        values.update(status="delivered", delivered_at=now())
    elif attempts >= policy.attempts:
        values.update(status="failed")
    else:
        delay = min(MAX_DELAY_S, policy.retry_s * 2 ** (attempts - 1))
        values.update(next_attempt_at=now() + timedelta(seconds=delay))
    with store() as session, session.begin():
        session.execute(update(WebhookDelivery).where(WebhookDelivery.id == row.id).values(**values))
    if error:
        log.info("webhook delivery %s (attempt %d): %s", row.delivery_id, attempts, error)


def prune(store: Store, days: float = KEPT_DAYS) -> int:
    """Deletes deliveries that are done (delivered or failed) and older than ``days``."""
    with store() as session, session.begin():
        return rows_changed(session, delete(WebhookDelivery).where(
            WebhookDelivery.status != "pending", WebhookDelivery.created_at < now() - timedelta(days=days)))


class Senders:
    """``count`` threads sending due deliveries until stopped; :meth:`wake` makes them look now."""

    IDLE_S = 1.0

    def __init__(self, store: Store, policy: Policy, count: int = limits.WEBHOOK_SENDERS) -> None:
        self.store, self.policy = store, policy
        self.stop = threading.Event()
        self.wakeup = threading.Event()
        self.threads = [threading.Thread(target=self.run, name=f"arena-webhooks-{i}", daemon=True)
                        for i in range(max(1, count))]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def wake(self) -> None:
        self.wakeup.set()

    def run(self) -> None:
        pruned = 0.0
        while not self.stop.is_set():
            try:
                if self.threads[0] is threading.current_thread() and time.monotonic() - pruned > 3600:
                    pruned = time.monotonic()
                    prune(self.store)
                if deliver_due(self.store, self.policy, self.stop):
                    continue
            except Exception:  # a store that is briefly away: try again, do not die
                log.exception("sending webhooks failed; trying again")
            self.wakeup.wait(self.IDLE_S)
            self.wakeup.clear()

    def close(self, wait: float = 10.0) -> None:
        self.stop.set()
        self.wakeup.set()
        deadline = time.monotonic() + wait
        for thread in self.threads:
            thread.join(max(0.0, deadline - time.monotonic()))
