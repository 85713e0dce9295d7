"""An admin's moderation: disqualifying a bot (and undoing it) from its page, disabling and
enabling accounts on the users page, and the audit log's page; each with its JSON twin under
``/api/v1/``. Every route asks for a :data:`~arena.web.auth.Moderator`: anyone else gets 403
(nobody signed in, 401 or the sign-in page) before anything is looked up, so learns nothing.
What each action does is ``arena/moderation.py``'s; the audit log is ``arena/audit.py``'s."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Body, Form, HTTPException, Query, Request
from fastapi.responses import RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from .. import audit, moderation
from ..schemas.accounts import UserListed
from ..schemas.moderation import AuditEntryOut, AuditPage, Disqualified, DisqualifyIn, UsersOut
from .answers import API, render
from .auth import Moderator
from .ids import Id

router = APIRouter()
PAGE = 50  # audit entries per page
MAX_PAGE = 500


def _disqualified(state: moderation.BotState) -> Disqualified:
    return Disqualified(id=state.id, name=state.name, version=state.version, retired_at=state.retired_at,
                        disqualified_at=state.disqualified_at, reason=state.reason)


@router.post(API + "/bots/{bot_id}/disqualify", tags=["moderation"])
def api_disqualify(request: Request, account: Moderator, bot_id: Id,
                   body: Annotated[DisqualifyIn | None, Body()] = None) -> Disqualified:
    """Disqualifies the bot (admins only): it plays no new match (not even one its league's run
    scheduled but has not started); its games stay; leaderboards and its page mark it; its owner
    cannot undo it nor submit new versions of the name until an admin requalifies it."""
    reason = body.reason if body is not None else ""
    return _disqualified(moderation.disqualify_bot(request.app.state.store, bot_id, reason, account))


@router.post(API + "/bots/{bot_id}/requalify", tags=["moderation"])
def api_requalify(request: Request, account: Moderator, bot_id: Id) -> Disqualified:
    """Undoes a disqualification (admins only): the bot plays again, unless it was retired before."""
    return _disqualified(moderation.requalify_bot(request.app.state.store, bot_id, account))


@router.post("/bots/{bot_id}/disqualify", include_in_schema=False)
def disqualify_form(request: Request, account: Moderator, bot_id: Id,
                    reason: Annotated[str, Form()] = "") -> Response:
    moderation.disqualify_bot(request.app.state.store, bot_id, reason, account)
    return RedirectResponse(f"/bots/{bot_id}", status_code=303)


@router.post("/bots/{bot_id}/requalify", include_in_schema=False)
def requalify_form(request: Request, account: Moderator, bot_id: Id) -> Response:
    moderation.requalify_bot(request.app.state.store, bot_id, account)
    return RedirectResponse(f"/bots/{bot_id}", status_code=303)


# -- accounts ---------------------------------------------------------------------------------------
def _user_out(user: moderation.UserRow) -> UserListed:
    return UserListed(name=user.name, admin=user.is_admin, created_at=user.created_at,
                         disabled_at=user.disabled_at)


def _one(request: Request, name: str) -> UserListed:
    user = next((u for u in moderation.all_users(request.app.state.store) if u.name == name), None)
    if user is None:
        raise HTTPException(404, "no such user")
    return _user_out(user)


@router.get(API + "/admin/users", tags=["moderation"])
def api_users(request: Request, account: Moderator) -> UsersOut:
    """Every account, with whether it is disabled (admins only)."""
    return UsersOut(users=[_user_out(u) for u in moderation.all_users(request.app.state.store)])


@router.post(API + "/admin/users/{name}/disable", tags=["moderation"])
def api_disable(request: Request, account: Moderator, name: str) -> UserListed:
    """Disables the account (admins only): its web sessions end and its API tokens are refused
    from the next request on; it cannot sign in; its bots stay. The last enabled admin cannot be."""
    moderation.disable_user(request.app.state.store, name, account)
    return _one(request, name)


@router.post(API + "/admin/users/{name}/enable", tags=["moderation"])
def api_enable(request: Request, account: Moderator, name: str) -> UserListed:
    """Enables the account again (admins only): its API tokens work again."""
    moderation.enable_user(request.app.state.store, name, account)
    return _one(request, name)


@router.get("/admin/users", include_in_schema=False)
def users_page(request: Request, account: Moderator) -> Response:
    return render(request, "users.html", {"users": moderation.all_users(request.app.state.store)})


@router.post("/admin/users/{name}/disable", include_in_schema=False)
def disable_form(request: Request, account: Moderator, name: str) -> Response:
    moderation.disable_user(request.app.state.store, name, account)
    return RedirectResponse("/admin/users", status_code=303)


@router.post("/admin/users/{name}/enable", include_in_schema=False)
def enable_form(request: Request, account: Moderator, name: str) -> Response:
    moderation.enable_user(request.app.state.store, name, account)
    return RedirectResponse("/admin/users", status_code=303)


# -- the audit log ----------------------------------------------------------------------------------
UserFilter = Annotated[str | None, Query(max_length=128,
                                         description="only this account's (operator: the command line)")]
ActionFilter = Annotated[str | None, Query(max_length=64, description="only this action, or those it starts "
                                                                      "(bot: bot.disqualify, bot.retire, ...)")]
Before = Annotated[int | None, Query(ge=1, description="only entries older than this id (the next page)")]
Since = Annotated[datetime | None, Query(description="only entries since this time (ISO 8601)")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="entries per page")]


async def _audit(request: Request, user: str | None, action: str | None, since: datetime | None,
                 before: int | None, limit: int) -> AuditPage:
    rows = await run_in_threadpool(audit.entries, request.app.state.store, user or None, action or None, since,
                                   before, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return AuditPage(entries=[AuditEntryOut(id=e.id, at=e.at, actor=e.actor, via=e.via, address=e.address,
                                            action=e.action, method=e.method, route=e.route, target=e.target,
                                            status=e.status, detail=e.detail or {}) for e in rows],
                     next_before=rows[-1].id if more and rows else None)


@router.get(API + "/admin/audit", tags=["moderation"])
async def api_audit(request: Request, account: Moderator, user: UserFilter = None, action: ActionFilter = None,
                    since: Since = None, before: Before = None, limit: Limit = PAGE) -> AuditPage:
    """The audit log, newest first (admins only): every change made through the site, the API
    and the command line; filtered by account and action, a page at a time."""
    return await _audit(request, user, action, since, before, limit)


@router.get("/admin/audit", include_in_schema=False)
async def audit_page(request: Request, account: Moderator, user: UserFilter = None, action: ActionFilter = None,
                     before: Before = None) -> Response:
    page = await _audit(request, user, action, None, before, PAGE)
    filters = {k: v for k, v in (("user", user), ("action", action)) if v}
    older = f"/admin/audit?{urlencode({**filters, 'before': page.next_before})}" if page.next_before else None
    return render(request, "audit.html", {"page": page, "user": user or "", "action": action or "", "older": older})
