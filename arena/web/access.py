"""Who may see and do what: every page and API call asks here, so the rules live in one place.

- A game is *public* once it is over and its whole duplicate cycle is stored (the k matches of
  its table that deal the same cards in other rotations: ``arena/league/cycles.py``). A public
  game shows everything: every seat's view, the full table, the actions, times and result.
- Before, a seat's view (its hidden cards) is shown only to the owner of the bot in that seat,
  and the full table to nobody: not even an admin. The game's result (scores, ranks, failure
  reasons) and its length (the number of decisions) go to the owners of its seats' bots (each
  seat is told them at the game's end), and to nobody else: they narrow the deal.
- A bot's captured output (its stderr) is shown only to the bot's owner, ever: bots print their
  reasoning, and that is their author's.
- Only a bot's owner submits new versions of its name or retires it; a bot registered on the
  command line (no owner) is the operator's, so an admin's.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..accounts import Account


def owns(account: Account | None, owner_id: int | None) -> bool:
    return account is not None and owner_id is not None and account.id == owner_id


def may_see_seat(account: Account | None, public: bool, seat_owner_id: int | None) -> bool:
    return public or owns(account, seat_owner_id)


def may_see_table(public: bool) -> bool:
    return public


def may_see_result(account: Account | None, public: bool, seat_owner_ids: Iterable[int | None]) -> bool:
    """The result and the length of a game (or of a match's games): public, or one of its seats
    is the asker's."""
    return public or any(owns(account, owner) for owner in seat_owner_ids)


def may_read_output(account: Account | None, bot_owner_id: int | None) -> bool:
    return owns(account, bot_owner_id)


def may_manage_bot(account: Account | None, bot_owner_id: int | None) -> bool:
    if bot_owner_id is None:
        return account is not None and account.is_admin
    return owns(account, bot_owner_id)
