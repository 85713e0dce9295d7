"""``arena serve``: the web server on the store (see ``arena/web/``)."""

from __future__ import annotations

from pathlib import Path

import click

from referee import limits

from ..web.settings import JOIN_MODES, Join, WebSettings, origin_of
from .options import with_store

DEFAULTS = WebSettings()


def _public_url(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str | None:
    if value is not None and origin_of(value) is None:
        raise click.BadParameter(f"{value!r} is not an http:// or https:// URL of a host (https://arena.example.org)")
    return value


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--runs", "runs_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Where leagues run from the server, and uploads, are kept.")
@click.option("--secure-cookies", is_flag=True, help="Send the session cookie over HTTPS only (behind TLS).")
@click.option("--no-worker", is_flag=True, help="Do not build submissions in this process.")
@click.option("--join", type=click.Choice(JOIN_MODES), default=DEFAULTS.join, show_default=True,
              help="Who may make an account on the site's /signup: anyone (open), whoever has an invite code an "
                   "admin made (invite: arena user invite), or nobody (closed: arena user add only).")
@click.option("--builds", "builds_at_once", type=click.IntRange(min=1), default=limits.BUILDS_AT_ONCE,
              show_default=True, help="Submissions built and checked at once (default: half the cores, 2 to 8); "
                                      "one author's take all but one of them.")
@click.option("--build-seconds", type=click.FloatRange(min=1), default=limits.BUILD_TIMEOUT_S, show_default=True,
              help="A submission's build is stopped and refused after this long.")
@click.option("--queued-per-author", type=click.IntRange(min=1), default=limits.QUEUED_PER_AUTHOR,
              show_default=True, help="An author's submissions not finished yet (queued, building, checking).")
@click.option("--submissions-per-day", type=click.IntRange(min=1), default=limits.SUBMISSIONS_PER_DAY,
              show_default=True, help="An author's submissions in any 24 hours.")
@click.option("--uploads-in-flight-mb", type=click.IntRange(min=1), default=limits.UPLOADS_IN_FLIGHT_MB,
              show_default=True, help="Uploads unpacked and not yet built, every author's together.")
@click.option("--unpacks", "unpacks_at_once", type=click.IntRange(min=1), default=limits.UNPACKS_AT_ONCE,
              show_default=True, help="Uploads unpacked at once; the others wait (up to "
                                      f"{limits.UNPACK_WAIT_S} s, then 429).")
@click.option("--scrimmages", "scrimmages_at_once", type=click.IntRange(min=0), default=limits.SCRIMMAGES_AT_ONCE,
              show_default=True, help="Scrimmages played at once (each one match at a time); the others wait. 0: this "
                                      "server plays none.")
@click.option("--scrimmage-games-per-day", type=click.IntRange(min=1), default=limits.SCRIMMAGE_GAMES_PER_DAY,
              show_default=True, help="An account's scrimmage games in any 24 hours.")
@click.option("--scrimmages-per-author", type=click.IntRange(min=1), default=limits.SCRIMMAGES_PENDING_PER_AUTHOR,
              show_default=True, help="An account's scrimmages queued or being played.")
@click.option("--scrimmage-max-games", type=click.IntRange(min=1), default=limits.SCRIMMAGE_MAX_GAMES,
              show_default=True, help="Games of one scrimmage at most.")
@click.option("--public-url", callback=_public_url, metavar="URL",
              help="The address browsers use (https://arena.example.org): a signed-in browser's requests that change "
                   "something must come from it. Default: the request's own scheme and Host. Set it behind a proxy.")
@click.option("--proxy", "proxies", multiple=True, metavar="ADDRESS",
              help="A reverse proxy's address (repeatable): its X-Forwarded-For and X-Forwarded-Proto are believed "
                   "(the client's address for the sign-in throttle; https).")
@click.option("--sign-in-concurrency", type=click.IntRange(0), default=DEFAULTS.sign_in_concurrency,
              show_default=True, help="Password checks at once (argon2id, 64 MiB each); past it, 503. 0: no cap.")
@click.option("--max-header-bytes", type=click.IntRange(1024), default=DEFAULTS.max_header_bytes,
              show_default=True, help="A request's head (request line and headers) at most; past it, 431.")
@click.option("--header-timeout", type=click.FloatRange(0.1), default=DEFAULTS.header_timeout,
              show_default=True, help="Seconds a client has to send a request's whole head; then 408.")
@click.option("--max-connections", type=click.IntRange(1), default=DEFAULTS.max_connections,
              show_default=True, help="Open connections at most; past it, requests get 503.")
@click.option("--audit-days", type=click.IntRange(1), default=DEFAULTS.audit_days, show_default=True,
              help="Audit log entries are kept this many days.")
@click.option("--audit-max-rows", type=click.IntRange(1000), default=DEFAULTS.audit_max_rows, show_default=True,
              help="The audit log's newest entries kept at most.")
@click.option("--webhooks-to-private", is_flag=True,
              help="Let webhooks reach loopback, private, link-local and other non-public addresses (checked at "
                   "registration and at each delivery). Only on a network you trust: an author's webhook could "
                   "otherwise reach what only this server can (its database, a cloud's metadata service).")
@click.option("--webhook-senders", type=click.IntRange(0), default=DEFAULTS.webhook_senders, show_default=True,
              help="Threads sending webhook deliveries; 0: none in this process (another server sends them).")
@click.option("--webhook-attempts", type=click.IntRange(1, 50), default=DEFAULTS.webhook_attempts, show_default=True,
              help="A webhook delivery is tried this often, then given up.")
@click.option("--webhook-retry-seconds", "webhook_retry_s", type=click.FloatRange(0.01), show_default=True,
              default=DEFAULTS.webhook_retry_s, help="The wait before a delivery's first retry; doubled at each next.")
@with_store()
def serve(host: str, port: int, runs_dir: Path, secure_cookies: bool, no_worker: bool, join: Join,
          public_url: str | None,
          proxies: tuple[str, ...], sign_in_concurrency: int, max_header_bytes: int, header_timeout: float,
          max_connections: int, webhooks_to_private: bool, webhook_senders: int, webhook_attempts: int,
          webhook_retry_s: float, store, **quotas) -> None:
    """Serve the web leaderboard, bot pages, replays and submissions (and their JSON API).

    Authors are held to the quotas below (docs/deploy.md, "Quotas"): over one, an upload is
    refused with 429 and what to do.
    """
    from ..web import create_app
    from ..web.server import serve as run_server

    settings = WebSettings(runs_dir=runs_dir, uploads_dir=runs_dir / "uploads", secure_cookies=secure_cookies,
                           worker=not no_worker, join=join, public_url=public_url, proxies=proxies,
                           sign_in_concurrency=sign_in_concurrency, max_header_bytes=max_header_bytes,
                           header_timeout=header_timeout, max_connections=max_connections,
                           webhooks_to_private=webhooks_to_private, webhook_senders=webhook_senders,
                           webhook_attempts=webhook_attempts, webhook_retry_s=webhook_retry_s, **quotas)
    click.echo(f"Arena on http://{host}:{port}/ (API: /api/v1/, schema: /api/v1/openapi.json)")
    run_server(create_app(store, settings), host, port)
