"""``arena serve``: the web server on the store (see ``arena/web/``)."""

from __future__ import annotations

from pathlib import Path

import click

from .options import with_store


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--runs", "runs_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Where leagues run from the server, and uploads, are kept.")
@click.option("--secure-cookies", is_flag=True, help="Send the session cookie over HTTPS only (behind TLS).")
@click.option("--no-worker", is_flag=True, help="Do not build submissions in this process.")
@with_store()
def serve(host: str, port: int, runs_dir: Path, secure_cookies: bool, no_worker: bool, store) -> None:
    """Serve the web leaderboard, bot pages, replays and submissions (and their JSON API)."""
    import uvicorn

    from ..web import WebSettings, create_app

    settings = WebSettings(runs_dir=runs_dir, uploads_dir=runs_dir / "uploads", secure_cookies=secure_cookies,
                           worker=not no_worker)
    click.echo(f"Arena on http://{host}:{port}/ (API: /api/v1/, schema: /api/v1/openapi.json)")
    uvicorn.run(create_app(store, settings), host=host, port=port, log_level="warning", proxy_headers=False)
