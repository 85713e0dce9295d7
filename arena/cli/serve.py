"""``arena serve``: the web server on the store (see ``arena/web/``)."""

from __future__ import annotations

from pathlib import Path

import click

from referee import limits

from .options import with_store


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
@with_store()
def serve(host: str, port: int, runs_dir: Path, secure_cookies: bool, no_worker: bool, store, **quotas) -> None:
    """Serve the web leaderboard, bot pages, replays and submissions (and their JSON API).

    Authors are held to the quotas below (docs/deploy.md, "Quotas"): over one, an upload is
    refused with 429 and what to do.
    """
    import uvicorn

    from ..web import WebSettings, create_app

    settings = WebSettings(runs_dir=runs_dir, uploads_dir=runs_dir / "uploads", secure_cookies=secure_cookies,
                           worker=not no_worker, **quotas)
    click.echo(f"Arena on http://{host}:{port}/ (API: /api/v1/, schema: /api/v1/openapi.json)")
    uvicorn.run(create_app(store, settings), host=host, port=port, log_level="warning", proxy_headers=False)
