"""Who may do what: the platform's rules, in one place. The web server, the command line and the
submissions' workers ask here; nothing else decides.

Each rule takes **who is asking** (an :class:`~arena.accounts.Account`, or None: nobody signed
in, the public) and **what is asked about** (a bot, a game, a submission), and answers yes or no:

- A game is *public* once it is over and its table's whole duplicate cycle is stored (the k
  matches that deal the same cards in other rotations: ``arena/league/cycles.py`` says when).
  A public game shows everything to everyone: every seat's view, the full table, the actions,
  times and result. A game being played is never public.
- Before, a seat's view (its hidden cards) is shown only to the owner of the bot in that seat,
  and the full table to nobody: not even an admin. The game's result (scores, ranks, failure
  reasons) and its length (the number of decisions) go to the owners of its seats' bots (each
  seat is told them at the game's end), and to nobody else: they narrow the deal.
- A bot's captured output (its stderr, a failure's detail) is shown only to the bot's owner,
  ever: bots print their reasoning, and that is their author's. So is its debug text for each
  decision (``Reply.debug``), in public games too: it is output, tied to a step.
- Only a bot's owner submits new versions of its name or retires it; a bot registered on the
  command line (no owner) is the operator's, so an admin's. A new name is anyone's who is
  signed in. A submission (its log, its report) is its author's alone.
- Only an admin creates and runs leagues.

The command line on the league's machine is the operator, who holds the store: it registers
bots with no owner, and what it shows to be published (``arena watch``, ``arena bundle``,
``arena show``'s warning) is what the public may see, asked as None.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # not at run time: accounts loads argon2, and this module is asked on every page
    from .accounts import Account


class Owned(Protocol):
    """A bot, as the rules see it (a store row will do): whose it is, None for the operator's."""

    @property
    def owner_id(self) -> int | None: ...


class Submitted(Protocol):
    """A submission, as the rules see it: the account that uploaded it."""

    @property
    def user_id(self) -> int: ...


@dataclass(frozen=True)
class Game:
    """A game (or a match's games), as the rules see it."""

    public: bool  # over, and its table's whole duplicate cycle stored
    bots: Sequence[Owned] = ()  # the bot in each seat; for a match, each of its bots


def _owns(asker: Account | None, bot: Owned) -> bool:
    return asker is not None and bot.owner_id is not None and asker.id == bot.owner_id


def _manages(asker: Account | None, bot: Owned) -> bool:
    if bot.owner_id is None:  # the operator's
        return asker is not None and asker.is_admin
    return _owns(asker, bot)


def may_submit(asker: Account | None, versions: Iterable[Owned]) -> bool:
    """A new version of a bot name, whose registered ``versions`` are these (none: a new name)."""
    return asker is not None and all(_manages(asker, bot) for bot in versions)


def may_retire(asker: Account | None, bot: Owned) -> bool:
    return _manages(asker, bot)


def may_see_seat(asker: Account | None, game: Game, seat: int) -> bool:
    """Seat ``seat``'s view of ``game``: its cards, its actions and think times, step by step."""
    return game.public or _owns(asker, game.bots[seat])


def may_see_table(asker: Account | None, game: Game) -> bool:
    """The full table: every seat's view, every action and event."""
    return game.public


def may_see_result(asker: Account | None, game: Game) -> bool:
    """The result (scores, ranks, failure reasons) and the length of a game, or of a match's games."""
    return game.public or any(_owns(asker, bot) for bot in game.bots)


def may_read_output(asker: Account | None, bot: Owned) -> bool:
    """What ``bot`` printed (its captured stderr, a failure's detail quoting it)."""
    return _owns(asker, bot)


def may_read_debug(asker: Account | None, bot: Owned) -> bool:
    """The debug text ``bot`` sent with its decisions, shown beside them in a replay: its
    output, so whoever may read that (:func:`may_read_output`), in a public game as well."""
    return may_read_output(asker, bot)


def may_see_submission(asker: Account | None, submission: Submitted) -> bool:
    return asker is not None and asker.id == submission.user_id


def may_manage_leagues(asker: Account | None) -> bool:
    """Create a league, run it from the server, see its runs."""
    return asker is not None and asker.is_admin
