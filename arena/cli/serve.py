"""``arena serve``: the web server on the store (see ``arena/web/``)."""

from __future__ import annotations

from pathlib import Path

import click

from referee import limits

from ..web.settings import WebSettings, origin_of
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
@with_store()
def serve(host: str, port: int, runs_dir: Path, secure_cookies: bool, no_worker: bool, public_url: str | None,
          proxies: tuple[str, ...], sign_in_concurrency: int, max_header_bytes: int, header_timeout: float,
          max_connections: int, store, **quotas) -> None:
    """Serve the web leaderboard, bot pages, replays and submissions (and their JSON API).

    Authors are held to the quotas below (docs/deploy.md, "Quotas"): over one, an upload is
    refused with 429 and what to do.
    """
    from ..web import create_app
    from ..web.server import serve as run_server

    settings = WebSettings(runs_dir=runs_dir, uploads_dir=runs_dir / "uploads", secure_cookies=secure_cookies,
                           worker=not no_worker, public_url=public_url, proxies=proxies,
                           sign_in_concurrency=sign_in_concurrency, max_header_bytes=max_header_bytes,
                           header_timeout=header_timeout, max_connections=max_connections, **quotas)
    click.echo(f"Arena on http://{host}:{port}/ (API: /api/v1/, schema: /api/v1/openapi.json)")
    run_server(create_app(store, settings), host, port)
