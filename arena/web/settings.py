"""The web server's settings, in a module of their own: ``arena serve`` reads their defaults
without loading the web stack (``arena --help`` lists it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from referee import limits

from .throttle import Throttles

DEFAULT_PORTS = {"http": 80, "https": 443}
# who may sign up on the site (``arena serve --join``): anyone, whoever has an invite code, nobody
Join = Literal["open", "invite", "closed"]
JOIN_MODES: tuple[Join, ...] = ("open", "invite", "closed")


def origin_of(url: str | None) -> str | None:
    """``scheme://host[:port]`` of ``url`` as a browser writes an ``Origin`` (lower case, no
    default port); None for anything else (``null``, a path, garbage)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    return f"{scheme}://{host}" + (f":{port}" if port is not None and port != DEFAULT_PORTS[scheme] else "")


@dataclass(frozen=True)
class WebSettings:
    """The server's settings; ``arena serve``'s options set them (docs/api.md, docs/deploy.md)."""

    runs_dir: Path = Path("runs")  # where leagues run from the server keep their records
    uploads_dir: Path = Path("runs/uploads")  # unpacked submissions, until they are built
    secure_cookies: bool = False  # set behind HTTPS
    # who may make an account on the site's sign-up: anyone, whoever has an invite code, nobody
    join: Join = "closed"
    worker: bool = True  # build and check submissions in this process
    # quotas (defaults in referee/limits.py, "Quotas of a server"; docs/deploy.md): refused with 429
    unpacks_at_once: int = limits.UNPACKS_AT_ONCE  # uploads unpacked at once; the others wait
    unpack_wait_s: float = limits.UNPACK_WAIT_S  # for an unpack slot, then 429
    uploads_in_flight_mb: int = limits.UPLOADS_IN_FLIGHT_MB  # unpacked, not yet built: every author's
    queued_per_author: int = limits.QUEUED_PER_AUTHOR  # submissions not finished yet
    submissions_per_day: int = limits.SUBMISSIONS_PER_DAY  # in any 24 hours
    builds_at_once: int = limits.BUILDS_AT_ONCE  # builds and checks at once; an author's take all but one
    build_seconds: float = limits.BUILD_TIMEOUT_S  # one submission's build, then refused
    # scrimmages (arena/scrimmage.py): played in this process, ``scrimmages_at_once`` at a time (0: none)
    scrimmages_at_once: int = limits.SCRIMMAGES_AT_ONCE
    scrimmage_games_per_day: int = limits.SCRIMMAGE_GAMES_PER_DAY  # an account's, in any 24 hours
    scrimmages_per_author: int = limits.SCRIMMAGES_PENDING_PER_AUTHOR  # queued or being played
    scrimmage_max_games: int = limits.SCRIMMAGE_MAX_GAMES  # in one scrimmage
    # the origin browsers see (https://arena.example.org): a state-changing request signed in with
    # the session cookie must come from it. None: the request's own scheme and Host (docs/api.md)
    public_url: str | None = None
    proxies: tuple[str, ...] = ()  # addresses of reverse proxies whose X-Forwarded-For/-Proto are believed
    sign_in_concurrency: int = 2  # password checks (argon2id, 64 MiB each) at once; past it 503. 0: no cap
    throttles: Throttles = field(default_factory=Throttles)
    # the audit log (arena/audit.py): entries older than this many days are dropped, and all but the newest rows
    audit_days: int = 400
    audit_max_rows: int = 1_000_000
    # the HTTP server's limits (server.py)
    max_header_bytes: int = 32 * 1024  # a request's head (request line and headers); past it 431
    max_headers: int = 100  # header fields in a request; past it 431
    header_timeout: float = 10.0  # seconds for a request's whole head, from its first byte (or the connection)
    max_connections: int = 1000  # open connections; past it, requests get 503
    # webhooks (arena/webhooks.py; defaults in referee/limits.py, "Notifications"; docs/deploy.md)
    webhook_senders: int = limits.WEBHOOK_SENDERS  # threads sending deliveries; 0: none in this process
    # deliveries (and registrations) to loopback, private, link-local... addresses: only on a closed
    # network the operator trusts, or for tests: a webhook could otherwise reach what only the server can
    webhooks_to_private: bool = False
    webhook_attempts: int = limits.WEBHOOK_ATTEMPTS
    webhook_retry_s: float = limits.WEBHOOK_RETRY_S  # the first retry's wait, doubled at each next
    webhook_timeout_s: float = limits.WEBHOOK_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.join not in JOIN_MODES:
            raise ValueError(f"join is one of {', '.join(JOIN_MODES)}, not {self.join!r}")
        if self.public_url is not None and origin_of(self.public_url) is None:
            raise ValueError(f"{self.public_url!r} is not an http:// or https:// URL of a host "
                             "(https://arena.example.org)")
