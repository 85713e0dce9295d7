"""An account's own pages: signing up, its API tokens, its password; and the admin's invite codes.

**Signing up** (``/signup``, ``POST /api/v1/signup``) is what ``--join`` allows
(``arena/access.py``): anyone, whoever brings an invite code, or nobody. Like signing in it has
no session yet: the page's form carries the token of a pre-session cookie the page sets, and the
Origin check applies, so another site cannot make a browser sign up (and be signed in to an
account of that site's choosing). The API's twin takes JSON only (a form of another site cannot
send it without a preflight, which the API never allows) and refuses a browser's request from
another origin. Sign-ups are throttled by client address (``throttle.py``: made, or refused for
the code or the name), and the password's hash takes one of the password checks' places
(``Gate``), as a sign-in's check does.

**Tokens and password** are the account's own (``access.may_manage_token``): a token is listed by
its hint, dates and id, never itself, and a new one is shown once. A password change needs the
current password (its failures count as a sign-in's, by name and address) and ends the
account's other browser sessions.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from referee import limits

from .. import access
from ..accounts import (
    NAME,
    Account,
    AccountError,
    BadInvite,
    NameTaken,
    TooManyTokens,
    WeakPassword,
    WrongPassword,
    change_password,
    check_name,
    check_password_strength,
    check_sign_up,
    close_session,
    hash_password,
    invite_out,
    invites,
    make_invite,
    new_api_token,
    open_session,
    revoke_invite,
    revoke_token,
    sign_up,
    tokens_of,
)
from ..schemas.accounts import InviteOut, NewInvite, NewToken, PasswordChanged, SignedUp, TokenOut
from ..store import ApiToken
from .answers import API, render
from .auth import COOKIE, SignedIn, check_origin, client_address, keep_presession, presession, site_origin
from .ids import Id
from .settings import origin_of
from .throttle import HOLD, held, in_words, longest_wait, seconds

router = APIRouter()
SIGNUP_COOKIE = "arena_signup"  # the sign-up page's pre-session: its value is the form's token
NO_STORE = "no-store"  # on an answer that holds a secret shown once (pages have it already: app.py)
T = TypeVar("T")


# -- what the API takes ----------------------------------------------------------------------------
class SignUpIn(BaseModel):
    name: str = Field(max_length=64, description="the account's name: 1-64 letters, digits, '_', '.' or '-', "
                                                 "starting with a letter or digit; unique whatever its case",
                      json_schema_extra={"pattern": f"^{NAME.pattern}$"})
    password: str = Field(max_length=limits.PASSWORD_MAX_CHARS,
                          description=f"at least {limits.PASSWORD_MIN_CHARS} characters, not the name, not a "
                                      "common password")
    invite: str | None = Field(None, max_length=256, description="an invite code (needed when sign-up is by invite)")


class PasswordIn(BaseModel):
    current: str = Field(max_length=limits.PASSWORD_MAX_CHARS, description="the account's password now")
    new: str = Field(max_length=limits.PASSWORD_MAX_CHARS, description="the new password (as for signing up)")


class InviteIn(BaseModel):
    uses: int = Field(limits.INVITE_USES, ge=1, le=limits.INVITE_MAX_USES, description="sign-ups it allows")
    days: float = Field(limits.INVITE_DAYS, gt=0, le=limits.INVITE_MAX_DAYS, description="days it works")


# -- the password checks' gate, and the throttles ---------------------------------------------------
async def gated(request: Request, function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` (an argon2 hash or check) in one of the password checks' places: held a
    while if they are all busy, then 503, as a sign-in is (``signin.py``)."""
    gate = request.app.state.guard.gate
    if not gate.enter():
        await asyncio.sleep(held())
        if not gate.enter():
            raise HTTPException(503, "the server is busy checking other passwords: try again in a moment",
                                headers={"Retry-After": "1"})
    try:
        return await gate.run(function, *args)
    finally:
        gate.leave()


async def wait_out(checks: list, what: str) -> None:
    """Holds a request whose keys must wait, as a sign-in is; past the hold, 429 with the wait."""
    if wait := longest_wait(checks):
        await asyncio.sleep(min(wait, held()))
        if wait > HOLD:
            wait = max(longest_wait(checks), 1.0)
            raise HTTPException(429, f"too many {what}: wait {in_words(wait)}, then try again",
                                headers={"Retry-After": str(seconds(wait))})


# -- signing up ------------------------------------------------------------------------------------
ERRORS: dict[type[AccountError], int] = {NameTaken: 409, BadInvite: 403, WeakPassword: 422, WrongPassword: 403,
                                         TooManyTokens: 409}


def refused(exc: AccountError) -> HTTPException:
    return HTTPException(ERRORS.get(type(exc), 422), str(exc))


async def _sign_up(request: Request, name: str, password: str, code: str | None,
                   with_token: bool = True) -> tuple[Account, str]:
    """The account a sign-up makes, and its first token (if ``with_token``; else ""); HTTPException
    for every refusal."""
    join = request.app.state.settings.join
    code = (code or "").strip() or None
    if not access.may_sign_up(join, code is not None):
        if join == "invite":
            raise HTTPException(403, "sign-up on this server is by invite: enter the invite code an admin gave you")
        raise HTTPException(403, "sign-up is closed on this server: an admin makes accounts (arena user add)")
    if join != "invite":
        code = None  # an open server takes no code: one sent along is not checked, nor used up
    try:  # the name and the password are checked before anything costs: refusals here are not counted
        sign_up_checks(name, password)
    except AccountError as exc:
        raise refused(exc) from None
    guard, address = request.app.state.guard, client_address(request)
    await wait_out([(guard.signup, address)], "sign-ups from your address")
    guard.signup.failed(address)  # every sign-up that got this far counts, made or not
    try:
        await run_in_threadpool(check_sign_up, request.app.state.store, name, code)  # before the hash costs
        password_hash = await gated(request, hash_password, password)
        user, token = await run_in_threadpool(sign_up, request.app.state.store, name, password, code,
                                              password_hash, with_token)
    except AccountError as exc:
        raise refused(exc) from None
    return Account(user.id, user.name, user.is_admin), token


def sign_up_checks(name: str, password: str) -> None:
    check_name(name)
    check_password_strength(name, password)


def _check_api_origin(request: Request) -> None:
    """A browser's sign-up through the API must come from this site: a browser always names the
    origin of a page's request that changes something; a program names none."""
    sent = request.headers.get("origin")
    if sent is not None and origin_of(sent) != site_origin(request):
        raise HTTPException(403, f"refused: this request comes from {sent[:100]!r}, not from this site: a page of "
                                 "another site cannot sign up for you")


@router.post(API + "/signup", tags=["accounts"], status_code=201)
async def api_sign_up(request: Request, response: Response, body: SignUpIn) -> SignedUp:
    """Makes an account, if the server's sign-up allows it (``arena serve --join``); answers its
    first API token, shown once. Throttled by client address."""
    if request.headers.get("content-type", "").partition(";")[0].strip().lower() != "application/json":
        raise HTTPException(415, "send the sign-up as JSON (Content-Type: application/json)")
    _check_api_origin(request)
    account, token = await _sign_up(request, body.name, body.password, body.invite)
    response.headers["cache-control"] = NO_STORE
    return SignedUp(name=account.name, token=token)


def _signup_page(request: Request, message: str = "", status_code: int = 200, name: str = "",
                 invite: str = "", headers: Mapping[str, str] | None = None) -> Response:
    token = presession(request, SIGNUP_COOKIE)
    response = render(request, "signup.html", {
        "join": request.app.state.settings.join, "message": message, "name": name[:64], "invite": invite[:256],
        "signup_token": token, "min_chars": limits.PASSWORD_MIN_CHARS}, status_code=status_code)
    response.headers.update(headers or {})
    keep_presession(request, response, SIGNUP_COOKIE, token, "/signup")
    return response


@router.get("/signup", include_in_schema=False)
def signup_page(request: Request, invite: str = "") -> Response:
    status = 403 if request.app.state.settings.join == "closed" else 200
    return _signup_page(request, invite=invite, status_code=status)


@router.post("/signup", include_in_schema=False)
async def signup_form(request: Request, name: Annotated[str, Form(max_length=64)] = "",
                      password: Annotated[str, Form(max_length=limits.PASSWORD_MAX_CHARS)] = "",
                      password2: Annotated[str, Form(max_length=limits.PASSWORD_MAX_CHARS)] = "",
                      invite: Annotated[str, Form(max_length=256)] = "",
                      csrf: Annotated[str, Form()] = "") -> Response:
    try:
        check_origin(request)
    except HTTPException as exc:
        return _signup_page(request, str(exc.detail), 403)
    presession = request.cookies.get(SIGNUP_COOKIE, "")
    if not presession or not hmac.compare_digest(csrf.encode(), presession.encode()):
        return _signup_page(request, "This sign-up form is stale, or was not sent by this site (or the browser "
                                     "refuses this site's cookies): fill it in again.", 403, name, invite)
    if password != password2:
        return _signup_page(request, "The two passwords differ: type the same one twice.", 422, name, invite)
    try:
        account, _ = await _sign_up(request, name, password, invite, with_token=False)
    except HTTPException as exc:
        return _signup_page(request, str(exc.detail)[:1].upper() + str(exc.detail)[1:] + ".", exc.status_code,
                            name, invite, exc.headers)
    # signed in at once; the first API token is not shown here (a page would have to hold it):
    # the account page makes one on request, shown once
    if old := request.cookies.get(COOKIE):  # the browser's earlier session, if any, ends here (as on signing in)
        await run_in_threadpool(close_session, request.app.state.store, old)
    cookie, _csrf = await run_in_threadpool(open_session, request.app.state.store, account)
    response = RedirectResponse("/account?welcome=1", status_code=303)
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="lax", path="/",
                        secure=request.app.state.settings.secure_cookies, max_age=14 * 24 * 3600)
    response.delete_cookie(SIGNUP_COOKIE, path="/signup")
    return response


# -- the account page: tokens and password ---------------------------------------------------------
def token_out(row: ApiToken) -> TokenOut:
    return TokenOut(id=row.id, hint=f"arena_{row.hint}…" if row.hint else "", created_at=row.created_at,
                    last_used_at=row.last_used_at)


def _account_page(request: Request, account: Account, message: str = "", new_token: str = "",
                  status_code: int = 200, welcome: bool = False) -> Response:
    tokens = [token_out(row) for row in tokens_of(request.app.state.store, account.id)]
    return render(request, "account.html", {"tokens": tokens, "message": message, "new_token": new_token,
                                            "welcome": welcome, "min_chars": limits.PASSWORD_MIN_CHARS},
                  status_code=status_code)


@router.get("/account", include_in_schema=False)
def account_page(request: Request, account: SignedIn, welcome: bool = False) -> Response:
    return _account_page(request, account, welcome=welcome)


@router.get(API + "/me/tokens", tags=["accounts"])
def api_tokens(request: Request, account: SignedIn) -> list[TokenOut]:
    """The account's API tokens, newest first: their ids, hints and dates, never the tokens."""
    return [token_out(row) for row in tokens_of(request.app.state.store, account.id)]


@router.post(API + "/me/tokens", tags=["accounts"], status_code=201)
def api_new_token(request: Request, response: Response, account: SignedIn) -> NewToken:
    """A new API token for the account, shown this once. An account holds at most 50."""
    row, token = _new_token(request, account)
    response.headers["cache-control"] = NO_STORE
    return NewToken(**token_out(row).model_dump(), token=token)


def _new_token(request: Request, account: Account) -> tuple[ApiToken, str]:
    try:
        return new_api_token(request.app.state.store, account.id)
    except AccountError as exc:
        raise refused(exc) from None


@router.post("/account/tokens", include_in_schema=False)
def new_token_form(request: Request, account: SignedIn) -> Response:
    try:
        _row, token = _new_token(request, account)
    except HTTPException as exc:
        return _account_page(request, account, str(exc.detail)[:1].upper() + str(exc.detail)[1:] + ".",
                             status_code=exc.status_code)
    return _account_page(request, account, "A new API token: copy it now, it is not shown again.", token)


def _revoke_token(request: Request, account: Account, token_id: int) -> TokenOut:
    rows = {row.id: row for row in tokens_of(request.app.state.store, account.id)}
    row = rows.get(token_id)
    # another account's token is "not found" like one that never was: ids tell nothing
    if row is None or not access.may_manage_token(account, row.user_id):
        raise HTTPException(404, f"no token {token_id} of yours")
    revoke_token(request.app.state.store, account.id, token_id)
    return token_out(row)


@router.delete(API + "/me/tokens/{token_id}", tags=["accounts"])
def api_revoke_token(request: Request, account: SignedIn, token_id: Id) -> TokenOut:
    """Revokes one of the account's API tokens: it stops working at once."""
    return _revoke_token(request, account, token_id)


@router.post("/account/tokens/{token_id}/revoke", include_in_schema=False)
def revoke_token_form(request: Request, account: SignedIn, token_id: Id) -> Response:
    _revoke_token(request, account, token_id)
    return RedirectResponse("/account", status_code=303)


async def _change_password(request: Request, account: Account, current: str, new: str) -> int:
    guard = request.app.state.guard
    checks = [(guard.address, client_address(request)), (guard.account, account.name)]
    await wait_out(checks, "wrong passwords for this account or from your address")
    try:
        check_password_strength(account.name, new)
    except AccountError as exc:
        raise refused(exc) from None
    try:
        return await gated(request, change_password, request.app.state.store, account, current, new,
                           request.cookies.get(COOKIE))
    except WrongPassword as exc:
        for throttle, key in checks:
            throttle.failed(key)
        raise refused(exc) from None
    except AccountError as exc:
        raise refused(exc) from None


@router.post(API + "/me/password", tags=["accounts"])
async def api_password(request: Request, account: SignedIn, body: PasswordIn) -> PasswordChanged:
    """Changes the account's password (the current one needed); its other browser sessions end.
    Wrong current passwords are throttled as sign-ins are."""
    return PasswordChanged(sessions_ended=await _change_password(request, account, body.current, body.new))


@router.post("/account/password", include_in_schema=False)
async def password_form(request: Request, account: SignedIn,
                        current: Annotated[str, Form(max_length=limits.PASSWORD_MAX_CHARS)] = "",
                        new: Annotated[str, Form(max_length=limits.PASSWORD_MAX_CHARS)] = "",
                        new2: Annotated[str, Form(max_length=limits.PASSWORD_MAX_CHARS)] = "") -> Response:
    if new != new2:
        return _account_page(request, account, "The two new passwords differ: type the same one twice.",
                             status_code=422)
    try:
        ended = await _change_password(request, account, current, new)
    except HTTPException as exc:
        detail = str(exc.detail)
        return _account_page(request, account, detail[:1].upper() + detail[1:] + ".", status_code=exc.status_code)
    return _account_page(request, account, f"Password changed; {ended} other session{'s' if ended != 1 else ''} "
                                           "signed out.")


# -- invite codes (an admin's) -----------------------------------------------------------------------
def _inviter(account: SignedIn) -> Account:
    if not access.may_manage_invites(account):
        raise HTTPException(403, "only an admin may make, list or revoke invite codes")
    return account


def _new_invite(request: Request, account: Account, uses: int, days: float) -> NewInvite:
    try:
        invite, code = make_invite(request.app.state.store, uses, days, by=account.id)
    except AccountError as exc:
        raise HTTPException(422, str(exc)) from None
    return NewInvite(**invite_out(invite).model_dump(), code=code)


def _revoke_invite(request: Request, invite_id: int) -> InviteOut:
    try:
        return invite_out(revoke_invite(request.app.state.store, invite_id))
    except AccountError as exc:
        raise HTTPException(404, str(exc)) from None


@router.get(API + "/invites", tags=["accounts"])
def api_invites(request: Request, account: SignedIn) -> list[InviteOut]:
    """Every invite code, newest first (an admin only): never the codes, their hints and counts."""
    _inviter(account)
    return [invite_out(invite) for invite in invites(request.app.state.store)]


@router.post(API + "/invites", tags=["accounts"], status_code=201)
def api_new_invite(request: Request, response: Response, account: SignedIn, body: InviteIn) -> NewInvite:
    """A new invite code (an admin only), shown this once."""
    response.headers["cache-control"] = NO_STORE
    return _new_invite(request, _inviter(account), body.uses, body.days)


@router.delete(API + "/invites/{invite_id}", tags=["accounts"])
def api_revoke_invite(request: Request, account: SignedIn, invite_id: Id) -> InviteOut:
    """Revokes an invite code (an admin only): no more sign-ups with it; its accounts stay."""
    _inviter(account)
    return _revoke_invite(request, invite_id)


def _invites_page(request: Request, new: NewInvite | None = None, message: str = "",
                  status_code: int = 200) -> Response:
    return render(request, "invites.html", {
        "invites": [invite_out(invite) for invite in invites(request.app.state.store)], "new": new,
        "message": message, "join": request.app.state.settings.join, "default_uses": limits.INVITE_USES,
        "default_days": limits.INVITE_DAYS, "max_uses": limits.INVITE_MAX_USES, "max_days": limits.INVITE_MAX_DAYS},
        status_code=status_code)


@router.get("/invites", include_in_schema=False)
def invites_page(request: Request, account: SignedIn) -> Response:
    _inviter(account)
    return _invites_page(request)


@router.post("/invites", include_in_schema=False)
def new_invite_form(request: Request, account: SignedIn,
                    uses: Annotated[int, Form(ge=1, le=limits.INVITE_MAX_USES)] = limits.INVITE_USES,
                    days: Annotated[float, Form(gt=0, le=limits.INVITE_MAX_DAYS)] = limits.INVITE_DAYS) -> Response:
    new = _new_invite(request, _inviter(account), uses, days)
    return _invites_page(request, new, "A new invite code: copy it (or its link) now, it is not shown again.")


@router.post("/invites/{invite_id}/revoke", include_in_schema=False)
def revoke_invite_form(request: Request, account: SignedIn, invite_id: Id) -> Response:
    _inviter(account)
    _revoke_invite(request, invite_id)
    return RedirectResponse("/invites", status_code=303)
