"""Who may see and do what: every page and API call asks here, so the rules live in one place.

- A game that is over is public: every seat's view, the full table, the actions and times.
- Before the game is over, a seat's view (its hidden cards) is shown only to the owner of the bot
  in that seat, and the full table to nobody: not even an admin.
- A bot's captured output (its stderr) is shown only to the bot's owner, ever: bots print their
  reasoning, and that is their author's.
- Only a bot's owner submits new versions of its name or retires it; a bot registered on the
  command line (no owner) is the operator's, so an admin's.
"""

from __future__ import annotations

from ..accounts import Account


def owns(account: Account | None, owner_id: int | None) -> bool:
    return account is not None and owner_id is not None and account.id == owner_id


def may_see_seat(account: Account | None, game_over: bool, seat_owner_id: int | None) -> bool:
    return game_over or owns(account, seat_owner_id)


def may_see_table(game_over: bool) -> bool:
    return game_over


def may_read_output(account: Account | None, bot_owner_id: int | None) -> bool:
    return owns(account, bot_owner_id)


def may_manage_bot(account: Account | None, bot_owner_id: int | None) -> bool:
    if bot_owner_id is None:
        return account is not None and account.is_admin
    return owns(account, bot_owner_id)
