"""Signing in and out: the sign-in page and form, signing out, and ``/api/v1/me``.

The form has no session yet: it carries the token of a pre-session cookie that the sign-in page
sets, and the Origin check applies (``auth.py``), so that no other site can sign a browser in to
an account of its choosing. Failed sign-ins are throttled by name and by address, and password
checks capped (``throttle.py``).
"""

from __future__ import annotations

import asyncio
import hmac
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import audit
from ..accounts import (
    Account,
    AccountDisabled,
    check_password,
    close_session,
    device_cookie,
    known_device,
    open_session,
)
from ..schemas.accounts import AccountOut
from .answers import API, render
from .auth import (
    COOKIE,
    DEVICE_COOKIE,
    LOGIN_COOKIE,
    SignedIn,
    check_origin,
    client_address,
    keep_presession,
    presession,
)
from .throttle import HOLD, held, in_words, longest_wait, seconds

router = APIRouter()


def safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def _login_page(request: Request, next_: str, message: str = "", message_id: str = "login-failed",
                status_code: int = 200, headers: dict[str, str] | None = None) -> Response:
    token = presession(request, LOGIN_COOKIE)
    response = render(request, "login.html", {"next": safe_next(next_), "message": message,
                                              "message_id": message_id, "login_token": token},
                      status_code=status_code)
    response.headers.update(headers or {})
    keep_presession(request, response, LOGIN_COOKIE, token, "/login")
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
    except AccountDisabled as exc:  # the right password: say so, and count no failure
        return _login_page(request, next, f"{exc}.", "login-disabled", 403)
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
    with store() as session, session.begin():  # the request's own entry has no account yet: this one names it
        audit.record(session, account.id, "account.sign_in", f"user {account.name}")
    return open_session(store, account)[0], device_cookie(store, account.name)


@router.post("/logout", include_in_schema=False)
def logout(request: Request, account: SignedIn) -> Response:
    if cookie := request.cookies.get(COOKIE):
        close_session(request.app.state.store, cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get(API + "/me", tags=["accounts"])
def me(account: SignedIn) -> AccountOut:
    """The account the request's token belongs to."""
    return AccountOut(name=account.name, admin=account.is_admin)
