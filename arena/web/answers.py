"""What every area answers with: its pages, drawn by :func:`render`; and the API's prefix (an API
request is answered in JSON, errors included: :func:`is_api`; the answers' shapes are
``arena/schemas``'s). The app (``app.py``) and every area's router import these; nothing here imports a
router, so the import graph has no circle."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse

from ..notifications import unread_count
from .auth import identify

API = "/api/v1"


def is_api(request: Request) -> bool:
    return request.url.path.startswith(API)


def render(request: Request, template: str, context: dict[str, Any], status_code: int = 200) -> HTMLResponse:
    """A page: ``template`` with ``context``, plus who is asking (``account``) and their unread
    notifications (``unread``) for the header."""
    try:
        account = identify(request)
    except HTTPException:
        account = None
    unread = unread_count(request.app.state.store, account.id) if account is not None else 0
    return request.app.state.templates.TemplateResponse(
        request, template, {"account": account, "unread": unread, **context}, status_code=status_code)
