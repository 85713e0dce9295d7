"""Who is asking, and whether a request that changes something is the user's own.

- **An API token** (``Authorization: Bearer arena_...``): a program. A browser never sends that
  header by itself, so such a request needs nothing more. Tokens that are not valid are
  throttled by client address (``throttle.py``).
- **The session cookie** of a signed-in browser. A browser sends it with requests that other
  pages make too: a page on another port of the same host is "same-site", so SameSite=Lax does
  not stop it. So every state-changing request (any method but GET, HEAD and OPTIONS)
  authenticated by the cookie must (1) come from this site: its ``Origin`` header, or without one
  its ``Referer``, is the site's own origin (``WebSettings.public_url``, or else the request's
  scheme and ``Host``), and neither missing; and (2) carry the session's CSRF token, in the
  ``X-CSRF-Token`` header or a form's ``csrf`` field. Both are checked in one place,
  :func:`viewer`, through which every route gets its account (:data:`Viewer`,
  :data:`SignedIn`, :data:`Admin`; :data:`Uploader` for a multipart upload, whose ``csrf`` field
  the route compares itself once it has read it, with :func:`check_csrf`). Not signed in, an
  API call gets 401 and a page a redirect to the sign-in page.
- **Signing in** (``/login``) has no session yet: the form carries the token of a pre-session
  cookie that the sign-in page sets, and the Origin check applies too, so that no other site
  can sign a browser in to an account of its choosing. Failed sign-ins are throttled by name
  and by address, and password checks capped (``throttle.py``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import secrets
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from ..accounts import (
    Account,
    account_for_session,
    account_for_token,
    check_password,
    close_session,
    device_cookie,
    known_device,
    open_session,
)
from .settings import origin_of
from .throttle import HOLD, held, in_words, longest_wait, seconds

COOKIE = "arena_session"
LOGIN_COOKIE = "arena_login"  # the pre-session: its value is the sign-in form's token
DEVICE_COOKIE = "arena_device"  # this browser signed in to that name before (throttle.py trusts it more)
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
STALE = "the form is stale or was not sent by this site: reload the page and retry"
router = APIRouter()


class NotSignedIn(Exception):
    """Raised by :func:`signed_in`; the app answers 401 (API) or a redirect (pages)."""


def client_address(request: Request) -> str:
    """The client's address: the peer's, or behind a trusted proxy (``--proxy``) the one it names."""
    return request.client.host if request.client else "unknown"


def identify(request: Request) -> Account | None:
    """The account of the request's API token or session cookie, or None; looked up once per
    request. Routes never take this as their dependency, but :data:`Viewer` and its kin, which
    check what a cookie request that changes something must show."""
    if hasattr(request.state, "account"):
        return request.state.account
    request.state.account = None  # an error page drawn for this request asks again: count once
    store = request.app.state.store
    account = None
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        throttle, address = request.app.state.guard.token, client_address(request)
        if wait := throttle.wait(address):
            raise HTTPException(429, f"too many API tokens that are not valid came from your address: wait "
                                     f"{in_words(wait)}", headers={"Retry-After": str(seconds(wait))})
        account = account_for_token(store, token.strip())
        if account is None:
            throttle.failed(address)
            raise HTTPException(401, "that API token is not valid (revoked, or never issued)",
                                headers={"WWW-Authenticate": "Bearer"})
    elif cookie := request.cookies.get(COOKIE):
        account = account_for_session(store, cookie)
    request.state.account = account
    return account


async def _checked(request: Request, account: Account | None, token_in_body: bool) -> Account | None:
    """``account``, once a cookie request that changes something has shown where it comes from
    and its CSRF token; the account returned then has ``csrf`` "": nothing more to show."""
    if account is None or not account.csrf or request.method in SAFE_METHODS:
        return account
    check_origin(request)
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    header = request.headers.get(CSRF_HEADER)
    if header is not None:
        check_csrf(account, header)
    elif kind == "application/x-www-form-urlencoded":
        field = (await request.form()).get("csrf")  # parsed once: a route with Form fields reads the same
        check_csrf(account, field if isinstance(field, str) else None)
    elif kind == "multipart/form-data" and token_in_body:
        return account  # the route reads the body, then compares its csrf field (check_csrf)
    else:
        raise HTTPException(403, "a request signed in with the session cookie carries the session's CSRF token "
                                 "(the X-CSRF-Token header, or a form's csrf field); programs use an API token")
    return dataclasses.replace(account, csrf="")


async def viewer(request: Request, account: Annotated[Account | None, Depends(identify)]) -> Account | None:
    """The signed-in account, or None; for a cookie request that changes something, checked."""
    return await _checked(request, account, token_in_body=False)


def signed_in(account: Annotated[Account | None, Depends(viewer)]) -> Account:
    if account is None:
        raise NotSignedIn()
    return account


def admin(account: Annotated[Account, Depends(signed_in)]) -> Account:
    if not account.is_admin:
        raise HTTPException(403, "only an admin may do that")
    return account


async def uploader(request: Request, account: Annotated[Account | None, Depends(identify)]) -> Account:
    """As :func:`signed_in`, for a route that reads a multipart body itself: a form's token is in
    that body, so the route compares it (:func:`check_csrf`) once read. The Origin is checked here,
    before a byte of the body is read."""
    account = await _checked(request, account, token_in_body=True)
    if account is None:
        raise NotSignedIn()
    return account


def check_csrf(account: Account, token: str | None) -> None:
    """A token the request carries must be its session's; an API-token request has no session,
    and one checked already has nothing more to show (``account.csrf`` is empty)."""
    if account.csrf and not hmac.compare_digest((token or "").encode(), account.csrf.encode()):
        raise HTTPException(403, STALE)


Viewer = Annotated[Account | None, Depends(viewer)]
SignedIn = Annotated[Account, Depends(signed_in)]
Admin = Annotated[Account, Depends(admin)]
Uploader = Annotated[Account, Depends(uploader)]


# -- where a request comes from -----------------------------------------------------------------
def site_origin(request: Request) -> str | None:
    """This site's origin: ``--public-url``'s, or else what the request says of itself (its
    scheme and Host: a browser's request to this site names this site, whatever page made it)."""
    public = request.app.state.settings.public_url
    if public:
        return origin_of(public)
    return origin_of(f"{request.url.scheme}://{request.headers.get('host', '')}")


def check_origin(request: Request) -> None:
    """A browser's request that changes something must come from a page of this site."""
    sent = request.headers.get("origin")
    origin = origin_of(sent) if sent is not None else origin_of(request.headers.get("referer"))
    if sent is None and origin is None:
        raise HTTPException(403, "refused: a browser's request that changes something must say where it comes "
                                 "from (the Origin or Referer header), and this one says neither")
    expected = site_origin(request)
    if origin is None or origin != expected:
        raise HTTPException(403, f"refused: this request comes from {origin or sent!r}, not from this site "
                                 f"({expected}): a page of another site cannot act for you (a server behind a "
                                 "proxy needs its public address: arena serve --public-url)")


# -- signing in and out -------------------------------------------------------------------------
def safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _login_page(request: Request, next_: str, message: str = "", message_id: str = "login-failed",
                status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    from .app import render

    token = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(32)
    response = render(request, "login.html", {"next": safe_next(next_), "message": message,
                                              "message_id": message_id, "login_token": token},
                      status_code=status_code)
    response.headers.update(headers or {})
    if request.cookies.get(LOGIN_COOKIE) != token:
        response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict", path="/login",
                            secure=request.app.state.settings.secure_cookies, max_age=24 * 3600)
    return response


@router.get("/login", include_in_schema=False)
def login_page(request: Request, next: str = "/", failed: bool = False) -> Response:  # noqa: A002
    if failed:
        return _login_page(request, next, "Wrong name or password.", status_code=401)
    return _login_page(request, next)


@router.post("/login", include_in_schema=False)
async def login(request: Request, name: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "",
                next: Annotated[str, Form()] = "/", csrf: Annotated[str, Form()] = "") -> Response:  # noqa: A002
    # async: the password check runs in the thread pool only past the throttles and the gate, so a
    # flood of sign-ins holds neither threads nor argon2's memory
    try:
        check_origin(request)
    except HTTPException as refused:
        return _login_page(request, next, str(refused.detail), "login-refused", 403)
    presession = request.cookies.get(LOGIN_COOKIE, "")
    if not presession or not hmac.compare_digest(csrf.encode(), presession.encode()):
        return _login_page(request, next, "This sign-in form is stale, or was not sent by this site (or the browser "
                                          "refuses this site's cookies): sign in again.", "login-refused", 403)
    failed = RedirectResponse(f"/login?failed=1&next={quote(safe_next(next))}", status_code=303)
    if not name or not password:
        return failed
    store, guard = request.app.state.store, request.app.state.guard
    device = request.cookies.get(DEVICE_COOKIE)
    device_key = await run_in_threadpool(known_device, store, name, device) if device else None
    # the name's own throttle, unless this browser signed in to it before: then the browser's, so
    # that others' failures on a name do not lock its owner out (OWASP's device cookies)
    own = (guard.device, device_key) if device_key else (guard.account, name[:128])
    checks = [(guard.address, client_address(request)), own]
    # a sign-in that must wait is held a while first (a coroutine: no thread, no argon2 memory), so
    # that a client sending one after another is slowed to one a second, not answered at once
    if wait := longest_wait(checks):
        await asyncio.sleep(min(wait, held()))
        if wait > HOLD:
            wait = max(longest_wait(checks), 1.0)
            return _login_page(request, next, f"Too many failed sign-ins: wait {in_words(wait)}, then try again.",
                               "login-wait", 429, {"Retry-After": str(seconds(wait))})
    if not guard.gate.enter():
        await asyncio.sleep(held())
        if not guard.gate.enter():
            return _login_page(request, next, "The server is busy checking other sign-ins: try again in a moment.",
                               "login-busy", 503, {"Retry-After": "1"})
    try:
        account = await guard.gate.run(check_password, store, name, password)
    finally:
        guard.gate.leave()
    if account is None:
        for throttle, key in checks:
            throttle.failed(key)
        return failed
    own[0].succeeded(own[1])  # not the address's failures: an attacker's own account must not clear them
    cookie, device = await run_in_threadpool(_open_session, store, account, request.cookies.get(COOKIE))
    response = RedirectResponse(safe_next(next), status_code=303)
    secure = request.app.state.settings.secure_cookies
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="lax", path="/", secure=secure,
                        max_age=14 * 24 * 3600)
    if device:
        response.set_cookie(DEVICE_COOKIE, device, httponly=True, samesite="strict", path="/login", secure=secure,
                            max_age=180 * 24 * 3600)
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


def _open_session(store, account: Account, old: str | None) -> tuple[str, str | None]:
    if old:
        close_session(store, old)  # the browser's earlier session, if any, ends here
    return open_session(store, account)[0], device_cookie(store, account.name)


@router.post("/logout", include_in_schema=False)
def logout(request: Request, account: SignedIn) -> Response:
    if cookie := request.cookies.get(COOKIE):
        close_session(request.app.state.store, cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/api/v1/me", tags=["accounts"])
def me(account: SignedIn) -> dict:
    """The account the request's token belongs to."""
    return {"name": account.name, "admin": account.is_admin}
