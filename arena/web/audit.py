"""The audit log's side of the web server: a middleware that records every state-changing request
(``arena/audit.py`` says which and what), whatever module's route it reaches, so that no route
can forget it; and the context (``web``/``api``, the client's address) that a domain action's own
entry (``audit.record``) takes from the request it runs in.

What an entry holds is read from the ASGI scope once the answer's status is known: the account that
``auth.identify`` found (``request.state.account``), the route the router matched (its template:
``/api/v1/bots/{bot_id}/retire``) and its path parameters whose names say they are ids or names,
the method, and the status. The body, the query string, headers and cookies are never read.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import audit
from .answers import API

log = logging.getLogger(__name__)
CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
PRUNE_EVERY_S = 3600.0
# path parameters recorded as the request's target: ids and names; any other (a code, a token in
# a path some route may take) is recorded as redacted
TARGET_PARAM = re.compile(r"(.*_id|id|name|league|bot|game|version|user|team)")


def target_of(path_params: dict[str, Any]) -> str:
    parts = []
    for key, value in sorted(path_params.items()):
        shown = str(value)[:64] if TARGET_PARAM.fullmatch(key) else audit.REDACTED
        parts.append(f"{key}={shown}")
    return " ".join(parts)


class AuditMiddleware:
    """Records each state-changing request once its answer's status is known, before the answer's
    last byte is sent."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.pruned = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        context = audit.Context(via="api" if scope["path"].startswith(API) else "web",
                                address=str(client[0]) if client else "unknown")
        if scope["method"] not in CHANGING:
            with audit.acting(context):  # a GET changes nothing, but a route may still record
                await self.app(scope, receive, send)
            return
        status: list[int] = []
        recorded = False

        async def sending(message: Message) -> None:
            nonlocal recorded
            if message["type"] == "http.response.start":
                status.append(message["status"])
            elif message["type"] == "http.response.body" and not message.get("more_body") and not recorded:
                # written before the answer's end: a client that has its answer finds its entry
                recorded = True
                await self._record(scope, context, status[0] if status else 500)
            await send(message)

        try:
            with audit.acting(context):
                await self.app(scope, receive, sending)
        except BaseException:
            if not recorded:
                recorded = True
                await self._record(scope, context, 500)
            raise
        if not recorded:
            await self._record(scope, context, status[0] if status else 500)

    async def _record(self, scope: Scope, context: audit.Context, status: int) -> None:
        state = scope.get("state") or {}
        account = state.get("account")
        if account is None and status >= 400:
            return  # nobody signed in, and nothing changed: not recorded (anyone could fill the log)
        route = scope.get("route")
        template = getattr(route, "path", None) or "(no route)"
        state_of_app = getattr(scope.get("app"), "state", None)
        store = getattr(state_of_app, "store", None)
        if store is None:
            return
        entry = {"method": scope["method"], "route": template, "status": status,
                 "target": target_of(scope.get("path_params") or {})}
        try:
            await run_in_threadpool(self._write, store, context, account.id if account else None, entry,
                                    getattr(state_of_app, "settings", None))
        except Exception:  # the change is made: a failure here is the log's, not the request's
            log.exception("could not write the audit entry of %s %s", scope["method"], template)

    def _write(self, store: Any, context: audit.Context, actor_id: int | None, entry: dict[str, Any],
               settings: Any) -> None:
        with audit.acting(context), store() as session, session.begin():
            audit.record(session, actor_id, "http", entry["target"], method=entry["method"], route=entry["route"],
                         status=entry["status"])
        now = time.monotonic()
        if settings is not None and now - self.pruned > PRUNE_EVERY_S:
            self.pruned = now
            audit.prune(store, settings.audit_days, settings.audit_max_rows)
