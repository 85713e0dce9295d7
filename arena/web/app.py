"""The ASGI app: settings, templates, security headers, errors, and the areas' routers (this module
alone imports them)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import quote

import jinja2
from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import access
from ..league import LeagueError, NotAllowed
from ..owners import owner_label
from ..scrimmage import Player
from ..store import Store
from . import (
    accounts,
    bots,
    formats,
    games,
    leagues,
    moderation,
    notifications,
    scrimmages,
    signin,
    submissions,
    teams,
)
from .answers import API, is_api, render
from .audit import AuditMiddleware
from .auth import NotSignedIn
from .settings import WebSettings
from .throttle import Guard

HERE = Path(__file__).parent

# No inline script or style anywhere: a name or a log that slipped past escaping still cannot run.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {"content-security-policy": CSP, "x-content-type-options": "nosniff", "x-frame-options": "DENY",
           "referrer-policy": "same-origin"}


class Arena(FastAPI):
    def build_middleware_stack(self) -> ASGIApp:
        # outermost, so that the 500 Starlette's ServerErrorMiddleware sends carries them too
        return SecurityHeaders(super().build_middleware_stack())


def create_app(store: Store, settings: WebSettings | None = None) -> FastAPI:
    settings = settings or WebSettings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.worker:
            submissions.start_worker(app)
        notifications.start_senders(app)
        if settings.scrimmages_at_once > 0:  # played here, in threads (arena/scrimmage.py)
            app.state.scrimmages = Player(store, settings.runs_dir / "scrimmages", settings.scrimmages_at_once)
            app.state.scrimmages.resume()
        try:
            yield
        finally:
            submissions.stop_worker(app)
            notifications.stop_senders(app)
            if getattr(app.state, "scrimmages", None) is not None:
                app.state.scrimmages.close()
            app.state.guard.gate.close()

    app = Arena(title="Arena", version="1", lifespan=lifespan, docs_url=None, redoc_url=None,
                openapi_url=f"{API}/openapi.json",
                description="Leagues, leaderboards, bots, games and submissions of an Arena server.")
    app.state.store = store
    app.state.settings = settings
    app.state.guard = Guard(settings.throttles, settings.sign_in_concurrency)
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True,
                                     undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    environment.globals["may_manage_leagues"] = access.may_manage_leagues  # the admin's forms
    environment.globals["may_moderate"] = access.may_moderate
    environment.globals["may_manage_invites"] = access.may_manage_invites
    environment.globals["join"] = settings.join  # the header's "Sign up" link
    environment.globals["owner_label"] = owner_label  # who a bot is shown as belonging to
    app.state.templates = Jinja2Templates(env=environment)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @app.exception_handler(NotSignedIn)
    async def not_signed_in(request: Request, _exc: NotSignedIn) -> Response:
        if is_api(request):
            return JSONResponse({"detail": "sign in: send an API token (Authorization: Bearer ...)"},
                                status_code=401, headers={"WWW-Authenticate": "Bearer"})
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='/')}", status_code=303)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if is_api(request):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        return render(request, "error.html", {"status": exc.status_code, "message": str(exc.detail)},
                      status_code=exc.status_code)

    @app.exception_handler(LeagueError)
    async def league_error(request: Request, exc: LeagueError) -> Response:
        status = 403 if isinstance(exc, NotAllowed) else 404 if str(exc).startswith(("unknown", "no ")) else 400
        return await http_error(request, HTTPException(status, str(exc)))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        # a path that names nothing (an id out of range, a word for a number) is not found
        if path := next((e for e in exc.errors() if e["loc"][:1] == ("path",)), None):
            what = str(path["loc"][-1]).removesuffix("_id").strip("_").replace("_", " ")
            return await http_error(request, HTTPException(404, f"no {what} {str(path.get('input'))[:40]}"))
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        return await http_error(request, HTTPException(422, problems or "malformed request"))

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        # sent by Starlette's ServerErrorMiddleware, which logs the exception; nothing of it is shown
        # (and closes the connection after it, as uvicorn will: the client must not reuse it)
        message, close = "the server failed to answer this request (its log says why)", {"connection": "close"}
        if is_api(request):
            return JSONResponse({"detail": message}, status_code=500, headers=close)
        try:  # without the store, which may be what failed
            return request.app.state.templates.TemplateResponse(
                request, "error.html", {"account": None, "status": 500, "message": message}, status_code=500,
                headers=close)
        except Exception:
            return PlainTextResponse(message, status_code=500, headers=close)

    @app.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse("/leagues", status_code=303)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    for module in (signin, accounts, leagues, formats, bots, games, submissions, teams, moderation, notifications,
                   scrimmages):
        app.include_router(module.router)
    # every state-changing request, of every router (those added later too), leaves an audit entry
    app.add_middleware(AuditMiddleware)
    return app


class SecurityHeaders:
    """Adds :data:`HEADERS` to every answer, and ``cache-control: no-store`` to pages that set
    none (a page may hold a seat's cards). A plain ASGI middleware: Starlette's
    ``@app.middleware("http")`` wraps each request in a task and a stream, which costs about as
    much as a small endpoint."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        page = not scope["path"].startswith((API, "/static"))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if page and "cache-control" not in headers:
                    headers["cache-control"] = "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
