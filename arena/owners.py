"""Who a bot is shown as belonging to: one function, so every page and listing says it the same way.

A bot's author is whoever owns it on this server (the account that submitted it over HTTP), never
bot.toml's ``author``, which is anyone's free text (anyone could write "Arena" or another author's
name there: it is shown, if at all, as secondary and quoted). A bot registered on the command line
has no owner: it is the operator's.
"""

from __future__ import annotations

from referee.limits import OWNER_LABEL_CHARS

OPERATOR = "operator"


def owner_label(owner: str | None) -> str:
    """The label of a bot's owner, ``owner`` the owning account's name (None: the operator's), capped
    at :data:`~referee.limits.OWNER_LABEL_CHARS` characters. Plain text: the pages escape it.

    Teams: a bot owned by a team is labelled with the team's name; pass it here (this is the one
    place that turns an owner into words)."""
    if owner is None:
        return OPERATOR
    owner = " ".join(owner.split())  # no line breaks or runs of blanks in a table cell
    return owner if len(owner) <= OWNER_LABEL_CHARS else owner[:OWNER_LABEL_CHARS - 1] + "…"
