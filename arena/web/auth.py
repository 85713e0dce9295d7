"""Who is asking: an API token (``Authorization: Bearer ...``) or a signed-in browser's session
cookie. Pages that change something check the session's CSRF token; token requests need none
(a browser never sends the header by itself).

Route functions take :func:`viewer` (anyone, maybe signed in), :func:`signed_in` or
:func:`admin` as a dependency. Not signed in, an API call gets 401 and a page a redirect to the
sign-in page.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from ..accounts import Account, account_for_session, account_for_token, check_password, close_session, open_session

COOKIE = "arena_session"
router = APIRouter()


class NotSignedIn(Exception):
    """Raised by :func:`signed_in`; the app answers 401 (API) or a redirect (pages)."""


def viewer(request: Request) -> Account | None:
    """The signed-in account, or None; looked up once per request."""
    if hasattr(request.state, "account"):
        return request.state.account
    store = request.app.state.store
    account = None
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        account = account_for_token(store, token.strip())
        if account is None:
            raise HTTPException(401, "that API token is not valid (revoked, or never issued)",
                                headers={"WWW-Authenticate": "Bearer"})
    elif cookie := request.cookies.get(COOKIE):
        account = account_for_session(store, cookie)
    request.state.account = account
    return account


def signed_in(account: Annotated[Account | None, Depends(viewer)]) -> Account:
    if account is None:
        raise NotSignedIn()
    return account


def admin(account: Annotated[Account, Depends(signed_in)]) -> Account:
    if not account.is_admin:
        raise HTTPException(403, "only an admin may do that")
    return account


def check_csrf(account: Account, token: str | None) -> None:
    """A form posted by a browser must carry its session's CSRF token; an API-token request has
    no session (``account.csrf`` is empty) and needs none."""
    if account.csrf and token != account.csrf:
        raise HTTPException(403, "the form is stale or was not sent by this site: reload the page and retry")


Viewer = Annotated[Account | None, Depends(viewer)]
SignedIn = Annotated[Account, Depends(signed_in)]
Admin = Annotated[Account, Depends(admin)]


def safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


@router.get("/login", include_in_schema=False)
def login_page(request: Request, next: str = "/", failed: bool = False) -> Response:  # noqa: A002
    from .app import render

    return render(request, "login.html", {"next": safe_next(next), "failed": failed},
                  status_code=401 if failed else 200)


@router.post("/login", include_in_schema=False)
def login(request: Request, name: Annotated[str, Form()] = "", password: Annotated[str, Form()] = "",
          next: Annotated[str, Form()] = "/") -> Response:  # noqa: A002
    store = request.app.state.store
    account = check_password(store, name, password) if name and password else None
    if account is None:
        return RedirectResponse(f"/login?failed=1&next={quote(safe_next(next))}", status_code=303)
    cookie, _ = open_session(store, account)
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="lax", path="/",
                        secure=request.app.state.settings.secure_cookies, max_age=14 * 24 * 3600)
    return response


@router.post("/logout", include_in_schema=False)
def logout(request: Request, account: SignedIn, csrf: Annotated[str, Form()] = "") -> Response:
    check_csrf(account, csrf)
    if cookie := request.cookies.get(COOKIE):
        close_session(request.app.state.store, cookie)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/api/v1/me", tags=["accounts"])
def me(account: SignedIn) -> dict:
    """The account the request's token belongs to."""
    return {"name": account.name, "admin": account.is_admin}
