"""Who may do what: the platform's rules, in one place. The web server, the command line and the
submissions' workers ask here; nothing else decides.

Each rule takes **who is asking** (an :class:`~arena.accounts.Account`, or None: nobody signed
in, the public) and **what is asked about** (a bot, a game, a submission), and answers yes or no:

- A game is *public* once it is over and its table's whole duplicate cycle is stored (the k
  matches that deal the same cards in other rotations: ``arena/league/cycles.py`` says when).
  A public game shows everything to everyone: every seat's view, the full table, the actions,
  times and result. A game being played is never public.
- Before, a seat's view (its hidden cards) is shown only to the holders of the bot in that seat,
  and the full table to nobody: not even an admin. The game's result (scores, ranks, failure
  reasons) and its length (the number of decisions) go to the holders of its seats' bots (each
  seat is told them at the game's end), and to nobody else: they narrow the deal.
- A bot's *holders*: for an author's bot, its owner (the account that submitted it); for a team's
  bot, every member of the team, whatever their role, and nobody else (not who submitted that
  version once they have left). The asker's teams are read from the membership rows with the
  account on every request (``arena/accounts.py``), so a member removed loses them at once.
- A bot's captured output (its stderr, a failure's detail) is shown only to the bot's holders,
  ever: bots print their reasoning, and that is their author's. So is its debug text for each
  decision (``Reply.debug``), in public games too: it is output, tied to a step.
- A bot name is a person's or a team's for all its versions. Only its holders submit new versions
  of it (a team's: for the team, never for themselves); a bot registered on the command line (no
  owner) is the operator's, so an admin's. A new name is anyone's who is signed in, for themselves
  or for a team they are in. Only the owner of an author's bot, or an owner of the team (role
  "owner") of a team's bot, retires it. A submission (its log, its report) is its author's, and
  for a team's, its members'.
- A team: anyone signed in creates one (and is its first owner). Its owners add and remove
  members and change roles; a member may leave; its members, and admins, see who its members are.
- Only an admin creates and runs leagues.
- Only an admin moderates: disqualifies any author's bot (and undoes it), disables an account
  (and enables it), reads the audit log. The last enabled admin cannot be disabled. A bot name
  with a disqualified version takes no new version, from anyone, until an admin undoes the
  disqualification (else a new version would undo it). A bot plays new matches only if it is
  neither retired nor disqualified (``Bot.plays``, an SQL clause too: the predicate every
  matchmaker asks).
- Only an admin makes, lists and revokes invite codes.
- Who may sign up is the server's setting (``arena serve --join``): anyone (``open``), whoever
  has an invite code (``invite``; the code itself is checked by ``arena/accounts.py``), nobody
  (``closed``: an admin makes accounts on the command line).
- An account's API tokens and password are its own: only it lists, makes and revokes its tokens
  and changes its password (an admin's command line may issue and revoke any account's tokens).
- An account's notifications (its inbox, its feed) and its webhooks (their URLs, secrets and
  deliveries) are its own alone; an admin's included.
- A scrimmage (an unrated series an author asks for, ``arena/scrimmage.py``) is asked for with
  a bot of one's own or one's team's (:func:`may_scrimmage`). Its games are **never public**: each seat's view
  goes to the holders of that seat's bot only, the results to the holders of its bots, the full
  table to nobody, whatever is stored (its duplicate cycle deals the opponents' hands to the
  challenger's own bot in other rotations, but what the pages show of a game is only the
  asker's own seats). The scrimmage itself (that it happened, its bots, its state) is shown to
  whoever asked for it and to the holders of its bots (:func:`may_see_scrimmage`), and to
  nobody else: a scrimmage is private practice.

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
    """A bot, as the rules see it (a store row will do): whose it is (None and no team: the
    operator's), and its team's id if its name is a team's."""

    @property
    def owner_id(self) -> int | None: ...

    @property
    def team_id(self) -> int | None: ...


class Submitted(Protocol):
    """A submission, as the rules see it: the account that uploaded it, and the team it is for."""

    @property
    def user_id(self) -> int: ...

    @property
    def team_id(self) -> int | None: ...


class Personal(Protocol):
    """A thing of one account's alone (a notification, a webhook): the account."""

    @property
    def user_id(self) -> int: ...


@dataclass(frozen=True)
class Game:
    """A game (or a match's games), as the rules see it."""

    public: bool  # over, and its table's whole duplicate cycle stored
    bots: Sequence[Owned] = ()  # the bot in each seat; for a match, each of its bots


def _holds(asker: Account | None, bot: Owned) -> bool:
    """The bot is the asker's: their own, or their team's (any role)."""
    if asker is None:
        return False
    if bot.team_id is not None:
        return bot.team_id in asker.teams
    return bot.owner_id is not None and asker.id == bot.owner_id


def _manages(asker: Account | None, bot: Owned) -> bool:
    """The asker answers for the bot: its owner, an owner of its team, or for the operator's an admin."""
    if asker is None:
        return False
    if bot.team_id is not None:
        return bot.team_id in asker.owned_teams
    if bot.owner_id is None:  # the operator's
        return asker.is_admin
    return asker.id == bot.owner_id


def is_own(asker: Account | None, bot: Owned) -> bool:
    """``bot`` is the asker's own (or their team's): its rows are highlighted on boards (the
    operator's bots are nobody's)."""
    return _holds(asker, bot)


def _continues(asker: Account, bot: Owned, team: int | None) -> bool:
    """A version for ``team`` (None: the asker's own) continues this registered version's name."""
    if bot.team_id is not None or team is not None:
        return bot.team_id == team  # a team's name stays the team's; an author's is no team's
    if bot.owner_id is None:
        return asker.is_admin
    return asker.id == bot.owner_id


def may_submit(asker: Account | None, versions: Iterable[Owned], team: int | None = None) -> bool:
    """A new version of a bot name, whose registered ``versions`` are these (none: a new name), for
    ``team`` (a team's id; None: for the asker themselves)."""
    if asker is None or (team is not None and team not in asker.teams):
        return False
    return all(_continues(asker, bot, team) for bot in versions)


def may_retire(asker: Account | None, bot: Owned) -> bool:
    return _manages(asker, bot)


def may_see_seat(asker: Account | None, game: Game, seat: int) -> bool:
    """Seat ``seat``'s view of ``game``: its cards, its actions and think times, step by step."""
    return game.public or _holds(asker, game.bots[seat])


def may_see_table(asker: Account | None, game: Game) -> bool:
    """The full table: every seat's view, every action and event."""
    return game.public


def may_see_result(asker: Account | None, game: Game) -> bool:
    """The result (scores, ranks, failure reasons) and the length of a game, or of a match's games."""
    return game.public or any(_holds(asker, bot) for bot in game.bots)


def may_read_output(asker: Account | None, bot: Owned) -> bool:
    """What ``bot`` printed (its captured stderr, a failure's detail quoting it)."""
    return _holds(asker, bot)


def may_read_debug(asker: Account | None, bot: Owned) -> bool:
    """The debug text ``bot`` sent with its decisions, shown beside them in a replay: its
    output, so whoever may read that (:func:`may_read_output`), in a public game as well."""
    return may_read_output(asker, bot)


def may_see_submission(asker: Account | None, submission: Submitted) -> bool:
    """A submission with its build log and check report: its author's, and its team's members'."""
    if asker is None:
        return False
    return asker.id == submission.user_id or (submission.team_id is not None and submission.team_id in asker.teams)


def may_create_team(asker: Account | None) -> bool:
    return asker is not None


def may_manage_team(asker: Account | None, team: int) -> bool:
    """Add members to team ``team`` (an id), remove them, change their roles: its owners."""
    return asker is not None and team in asker.owned_teams


def may_remove_member(asker: Account | None, team: int, user_id: int) -> bool:
    """Take account ``user_id`` out of team ``team``: its owners, or that member (leaving)."""
    return may_manage_team(asker, team) or (asker is not None and asker.id == user_id and team in asker.teams)


def may_see_members(asker: Account | None, team: int) -> bool:
    """Who is in team ``team``, and their roles (its name and bots are public, as any bot's owner is)."""
    return asker is not None and (team in asker.teams or asker.is_admin)


def may_manage_leagues(asker: Account | None) -> bool:
    """Create a league, run it from the server, see its runs."""
    return asker is not None and asker.is_admin


def may_moderate(asker: Account | None) -> bool:
    """Disqualify a bot or undo it, disable or enable an account, read the audit log."""
    return asker is not None and asker.is_admin


class Role(Protocol):
    """An account, as the moderation rules see it (a store row will do)."""

    @property
    def is_admin(self) -> bool: ...


def may_disable(account: Role, other_admins: int) -> bool:
    """Whether ``account`` may be disabled (by whoever may moderate), when ``other_admins`` admins
    besides it are enabled: never the last enabled admin, who alone could enable anyone again."""
    return not account.is_admin or other_admins > 0


def may_see_disqualification(asker: Account | None, bot: Owned) -> bool:
    """The admin's reason for disqualifying ``bot`` (that it is disqualified is public)."""
    return may_moderate(asker) or _holds(asker, bot)


def may_enter_name(disqualified: Iterable[bool]) -> bool:
    """A new version of a bot name whose versions are disqualified or not (``disqualified``)."""
    return not any(disqualified)


def may_sign_up(join: str, has_code: bool) -> bool:
    """A new account from the site's sign-up, under the server's ``join`` setting."""
    return join == "open" or (join == "invite" and has_code)


def may_manage_invites(asker: Account | None) -> bool:
    """Make, list and revoke invite codes."""
    return asker is not None and asker.is_admin


def may_manage_token(asker: Account | None, owner_id: int) -> bool:
    """See and revoke an API token (never the token itself: its hint, dates and id)."""
    return asker is not None and asker.id == owner_id


def may_manage_webhook(asker: Account | None, webhook: Personal) -> bool:
    """See a webhook and its deliveries, remove it."""
    return asker is not None and asker.id == webhook.user_id


def may_read_notification(asker: Account | None, notification: Personal) -> bool:
    """Read a notification, mark it read (the inbox and the feed list only the account's own)."""
    return asker is not None and asker.id == notification.user_id


class Challenged(Protocol):
    """A scrimmage, as the rules see it: who asked for it."""

    @property
    def user_id(self) -> int: ...


def may_scrimmage(asker: Account | None, bot: Owned) -> bool:
    """Ask for a scrimmage with ``bot`` as one's own player (its opponents may be anyone's)."""
    return _holds(asker, bot)


def may_see_scrimmage(asker: Account | None, scrimmage: Challenged, bots: Iterable[Owned]) -> bool:
    """That ``scrimmage`` happened, its bots and its state (what each game shows is
    :func:`may_see_seat`'s and :func:`may_see_result`'s, with ``Game(public=False)``)."""
    return asker is not None and (asker.id == scrimmage.user_id or any(_holds(asker, bot) for bot in bots))
