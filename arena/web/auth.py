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
- **Signing in** (``/login``, ``signin.py``) has no session yet: the form carries the token of a
  pre-session cookie that the sign-in page sets, and the Origin check applies too, so that no
  other site can sign a browser in to an account of its choosing. Failed sign-ins are throttled
  by name and by address, and password checks capped (``throttle.py``).

What the account may do is ``arena/access.py``'s to say.
"""

from __future__ import annotations

import dataclasses
import hmac
import secrets
from typing import Annotated

from fastapi import Depends, HTTPException, Request, Response

from .. import access
from ..accounts import Account, AccountDisabled, account_for_session, account_for_token
from .settings import origin_of
from .throttle import in_words, seconds

COOKIE = "arena_session"
LOGIN_COOKIE = "arena_login"  # the pre-session: its value is the sign-in form's token
DEVICE_COOKIE = "arena_device"  # this browser signed in to that name before (throttle.py trusts it more)
CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def presession(request: Request, cookie: str) -> str:
    """The token of a form shown before any session (signing in, signing up): the browser's
    pre-session cookie ``cookie`` holds it, and the form echoes it (the CSRF check of a form
    that has no session yet). A browser without one gets a new one."""
    return request.cookies.get(cookie) or secrets.token_urlsafe(32)


def keep_presession(request: Request, response: Response, cookie: str, token: str, path: str) -> None:
    """Sets the pre-session cookie to ``token`` (for a day, on ``path`` only), unless it holds it."""
    if request.cookies.get(cookie) != token:
        response.set_cookie(cookie, token, httponly=True, samesite="strict", path=path,
                            secure=request.app.state.settings.secure_cookies, max_age=24 * 3600)
STALE = "the form is stale or was not sent by this site: reload the page and retry"


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
        try:
            account = account_for_token(store, token.strip())
        except AccountDisabled as exc:  # a right token: not the address's failure
            raise HTTPException(403, str(exc)) from None
        if account is None:
            throttle.failed(address)
            raise HTTPException(401, "that API token is not valid (revoked, or never issued)",
                                headers={"WWW-Authenticate": "Bearer"})
    elif cookie := request.cookies.get(COOKIE):
        try:
            account = account_for_session(store, cookie)
        except AccountDisabled:  # its sessions were ended when it was disabled: this is a race's
            account = None
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


def moderator(account: Annotated[Account, Depends(signed_in)]) -> Account:
    """An admin moderating (``access.may_moderate``): anyone else gets 403 and learns nothing more."""
    if not access.may_moderate(account):
        raise HTTPException(403, "only an admin may do that")
    return account


def admin(account: Annotated[Account, Depends(signed_in)]) -> Account:
    """The asker of a league command (create, run, a run's state): one who may manage leagues."""
    if not access.may_manage_leagues(account):
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
Moderator = Annotated[Account, Depends(moderator)]
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
