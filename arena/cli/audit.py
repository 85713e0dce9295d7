"""``arena audit``: the audit log, on the store (``arena/audit.py``)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import click

from .options import with_store
from .output import echo_json, iso, json_option, print_table

AGO = re.compile(r"(\d+)([dhm])")
UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def parse_since(value: str | None) -> datetime | None:
    """``2026-12-01``, ``2026-12-01T10:00`` (UTC unless it says) or ``3d``/``12h``/``30m`` ago."""
    if value is None:
        return None
    if found := AGO.fullmatch(value.strip()):
        return datetime.now(UTC) - timedelta(**{UNITS[found[2]]: int(found[1])})
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a time: 2026-12-01, 2026-12-01T10:00, or 3d, 12h, 30m ago",
                                 param_hint="--since") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@click.command()
@click.option("--user", metavar="NAME", help="Only this account's entries (operator: the command line's).")
@click.option("--action", metavar="ACTION", help="Only this action, or those it starts (bot: bot.disqualify, ...; "
                                                 "http: every request; cli: every command).")
@click.option("--since", metavar="TIME", help="Only entries since TIME: 2026-12-01, 2026-12-01T10:00 (UTC), or "
                                              "3d, 12h, 30m ago.")
@click.option("--limit", type=click.IntRange(1), default=100, show_default=True, help="Entries at most, newest first.")
@json_option
@with_store(create=False)
def audit(user: str | None, action: str | None, since: str | None, limit: int, as_json: bool, store) -> None:
    """The audit log: every change made through the site, the API and the command line (who,
    what, when, from where), newest first, so that an operator can see who did what."""
    from .. import audit as log

    rows = log.entries(store, user, action, parse_since(since), limit=limit)
    if as_json:
        echo_json([{"id": e.id, "at": iso(e.at), "actor": e.actor, "via": e.via, "address": e.address,
                    "action": e.action, "method": e.method, "route": e.route, "target": e.target,
                    "status": e.status, "detail": e.detail or {}} for e in rows])
        return
    print_table(["id", "when (UTC)", "who", "via", "from", "action", "what", "status"],
                [[e.id, f"{e.at:%Y-%m-%d %H:%M:%S}", e.actor, e.via, e.address, e.action,
                  " ".join(x for x in (e.method, e.route, e.target) if x)
                  + (f" {e.detail}" if e.detail else ""), e.status if e.status is not None else "-"] for e in rows],
                right=[0, 7], hostile={2: 64, 4: 64, 6: 120}, optional=[4, 3])
