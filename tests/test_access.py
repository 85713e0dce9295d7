"""The platform's access rules (arena/access.py), one row per question asked of them, each answered
for every kind of asker: nobody signed in, a signed-in stranger, the owner of what is asked about,
an owner and a plain member of the team whose bot it is, a former member of that team (who
submitted a version of its bot while in it), an admin. The web pages and API
(tests/web/test_disclosure.py, test_hidden.py, test_submissions.py, test_teams.py) show the same
answers end to end."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import access
from arena.accounts import Account

ROOT = Path(__file__).resolve().parents[1]

ALICE, BOB, CAROL, DAVE, ERIN, FRANK = 1, 2, 4, 5, 6, 7
TEAM, OTHER_TEAM = 20, 21  # DAVE owns TEAM and is a member of OTHER_TEAM; ERIN is a member of TEAM
ROOT_ADMIN, ALICE_ACCOUNT = Account(3, "root", is_admin=True), Account(ALICE, "alice", is_admin=False)
ASKERS: dict[str, Account | None] = {
    "public": None,
    "stranger": Account(BOB, "bob", is_admin=False),
    "owner": ALICE_ACCOUNT,  # of ALICES_BOT, its submission, its seat
    "team owner": Account(DAVE, "dave", is_admin=False, teams=frozenset({TEAM, OTHER_TEAM}),
                          owned_teams=frozenset({TEAM})),
    "team member": Account(ERIN, "erin", is_admin=False, teams=frozenset({TEAM})),
    "former member": Account(FRANK, "frank", is_admin=False),  # submitted TEAMS_BOT, then left TEAM
    "admin": ROOT_ADMIN,
}


@dataclass(frozen=True)
class Bot:
    owner_id: int | None
    team_id: int | None = None


@dataclass(frozen=True)
class Submission:
    user_id: int
    team_id: int | None = None


ALICES_BOT, CAROLS_BOT, OPERATORS_BOT = Bot(ALICE), Bot(CAROL), Bot(None)  # the operator's: the command line's
TEAMS_BOT = Bot(FRANK, TEAM)  # a version FRANK submitted for TEAM while in it
HIDDEN = access.Game(public=False, bots=(ALICES_BOT, CAROLS_BOT, TEAMS_BOT))  # its cycle not all stored
PUBLIC = access.Game(public=True, bots=(ALICES_BOT, CAROLS_BOT, TEAMS_BOT))

Ask = Callable[[Account | None], bool]
Answers = tuple[bool, bool, bool, bool, bool, bool, bool]
T, F = True, False
# (the question, how it is asked, the answer for: public, stranger, owner, team owner, team member, former member,
# admin)
RULES: list[tuple[str, Ask, Answers]] = [
    ("submit a version of an author's name", lambda a: access.may_submit(a, [ALICES_BOT]), (F, F, T, F, F, F, F)),
    ("submit a version of an author's name for a team", lambda a: access.may_submit(a, [ALICES_BOT], TEAM),
     (F, F, F, F, F, F, F)),
    ("submit a version of a team's name for the team", lambda a: access.may_submit(a, [TEAMS_BOT], TEAM),
     (F, F, F, T, T, F, F)),
    ("submit a version of a team's name for oneself", lambda a: access.may_submit(a, [TEAMS_BOT]),
     (F, F, F, F, F, F, F)),
    ("submit a version of a team's name for another team", lambda a: access.may_submit(a, [TEAMS_BOT], OTHER_TEAM),
     (F, F, F, F, F, F, F)),
    ("submit a version of the operator's name", lambda a: access.may_submit(a, [OPERATORS_BOT]),
     (F, F, F, F, F, F, T)),
    ("submit a version of a name held by two", lambda a: access.may_submit(a, [ALICES_BOT, CAROLS_BOT]),
     (F, F, F, F, F, F, F)),
    ("submit a new name", lambda a: access.may_submit(a, []), (F, T, T, T, T, T, T)),
    ("submit a new name for a team", lambda a: access.may_submit(a, [], TEAM), (F, F, F, T, T, F, F)),
    ("retire an author's bot", lambda a: access.may_retire(a, ALICES_BOT), (F, F, T, F, F, F, F)),
    ("retire a team's bot", lambda a: access.may_retire(a, TEAMS_BOT), (F, F, F, T, F, F, F)),
    ("retire the operator's bot", lambda a: access.may_retire(a, OPERATORS_BOT), (F, F, F, F, F, F, T)),
    ("see a seat of a game not public", lambda a: access.may_see_seat(a, HIDDEN, 0), (F, F, T, F, F, F, F)),
    ("see a team's seat of a game not public", lambda a: access.may_see_seat(a, HIDDEN, 2), (F, F, F, T, T, F, F)),
    ("see another's seat of a game not public", lambda a: access.may_see_seat(a, HIDDEN, 1), (F, F, F, F, F, F, F)),
    ("see a seat of a public game", lambda a: access.may_see_seat(a, PUBLIC, 1), (T, T, T, T, T, T, T)),
    ("see the full table of a game not public", lambda a: access.may_see_table(a, HIDDEN), (F, F, F, F, F, F, F)),
    ("see the full table of a public game", lambda a: access.may_see_table(a, PUBLIC), (T, T, T, T, T, T, T)),
    ("see the result of a game not public", lambda a: access.may_see_result(a, HIDDEN), (F, F, T, T, T, F, F)),
    ("see the result of a public game", lambda a: access.may_see_result(a, PUBLIC), (T, T, T, T, T, T, T)),
    ("read a bot's output", lambda a: access.may_read_output(a, ALICES_BOT), (F, F, T, F, F, F, F)),
    ("read a team's bot's output", lambda a: access.may_read_output(a, TEAMS_BOT), (F, F, F, T, T, F, F)),
    ("read the operator's bot's output", lambda a: access.may_read_output(a, OPERATORS_BOT), (F, F, F, F, F, F, F)),
    ("see a submission", lambda a: access.may_see_submission(a, Submission(ALICE)), (F, F, T, F, F, F, F)),
    # its author keeps their own upload's log after leaving; the team's members see it while they are members
    ("see a team's submission", lambda a: access.may_see_submission(a, Submission(FRANK, TEAM)),
     (F, F, F, T, T, T, F)),
    ("create a team", access.may_create_team, (F, T, T, T, T, T, T)),
    ("manage a team's members and roles", lambda a: access.may_manage_team(a, TEAM), (F, F, F, T, F, F, F)),
    ("remove a plain member (or leave)", lambda a: access.may_remove_member(a, TEAM, ERIN), (F, F, F, T, T, F, F)),
    ("remove a team's owner", lambda a: access.may_remove_member(a, TEAM, DAVE), (F, F, F, T, F, F, F)),
    ("remove a former member", lambda a: access.may_remove_member(a, TEAM, FRANK), (F, F, F, T, F, F, F)),
    ("see a team's members", lambda a: access.may_see_members(a, TEAM), (F, F, F, T, T, F, T)),
    ("create and run leagues", access.may_manage_leagues, (F, F, F, F, F, F, T)),
    ("moderate: disqualify, disable, read the audit log", access.may_moderate, (F, F, F, F, F, F, T)),
    ("see why an author's bot was disqualified", lambda a: access.may_see_disqualification(a, ALICES_BOT),
     (F, F, T, F, F, F, T)),
    ("see why a team's bot was disqualified", lambda a: access.may_see_disqualification(a, TEAMS_BOT),
     (F, F, F, T, T, F, T)),
    ("see why the operator's bot was disqualified", lambda a: access.may_see_disqualification(a, OPERATORS_BOT),
     (F, F, F, F, F, F, T)),
    # whoever asks (an admin, the owner): a name with a disqualified version takes no new version
    ("enter a new version of a name with a disqualified version", lambda a: access.may_enter_name([False, True]),
     (F,) * 7),
    ("enter a new version of a name with none disqualified", lambda a: access.may_enter_name([False]), (T,) * 7),
    # whoever moderates: never the last enabled admin
    ("disable the last enabled admin", lambda a: access.may_disable(ROOT_ADMIN, 0), (F,) * 7),
    ("disable an admin while another is enabled", lambda a: access.may_disable(ROOT_ADMIN, 1), (T,) * 7),
    ("disable an author", lambda a: access.may_disable(ALICE_ACCOUNT, 0), (T,) * 7),
    ("make, list and revoke invite codes", access.may_manage_invites, (F, F, F, F, F, F, T)),
    ("see and revoke an author's token", lambda a: access.may_manage_token(a, ALICE), (F, F, T, F, F, F, F)),
    ("sign up when sign-up is open", lambda a: access.may_sign_up("open", False), (T,) * 7),
    ("sign up by invite with a code", lambda a: access.may_sign_up("invite", True), (T,) * 7),
    ("sign up by invite without a code", lambda a: access.may_sign_up("invite", False), (F,) * 7),
    ("sign up when sign-up is closed, even with a code", lambda a: access.may_sign_up("closed", True), (F,) * 7),
    ("see or remove a webhook", lambda a: access.may_manage_webhook(a, Submission(ALICE)), (F, F, T, F, F, F, F)),
    ("read a notification", lambda a: access.may_read_notification(a, Submission(ALICE)), (F, F, T, F, F, F, F)),
    # not a permission: whose rows a board highlights as the asker's own (an admin's are not the operator's)
    ("an author's bot is one's own", lambda a: access.is_own(a, ALICES_BOT), (F, F, T, F, F, F, F)),
    ("a team's bot is its members' own", lambda a: access.is_own(a, TEAMS_BOT), (F, F, F, T, T, F, F)),
    ("the operator's bot is one's own", lambda a: access.is_own(a, OPERATORS_BOT), (F,) * 7),
    ("scrimmage with an author's bot", lambda a: access.may_scrimmage(a, ALICES_BOT), (F, F, T, F, F, F, F)),
    ("scrimmage with a team's bot", lambda a: access.may_scrimmage(a, TEAMS_BOT), (F, F, F, T, T, F, F)),
    ("scrimmage with the operator's bot", lambda a: access.may_scrimmage(a, OPERATORS_BOT), (F, F, F, F, F, F, F)),
    ("see a scrimmage one asked for", lambda a: access.may_see_scrimmage(a, Submission(ALICE), [CAROLS_BOT]),
     (F, F, T, F, F, F, F)),
    ("see a scrimmage one's bot played in", lambda a: access.may_see_scrimmage(a, Submission(CAROL), [ALICES_BOT]),
     (F, F, T, F, F, F, F)),
    ("see a scrimmage a team's bot played in", lambda a: access.may_see_scrimmage(a, Submission(CAROL), [TEAMS_BOT]),
     (F, F, F, T, T, F, F)),
    ("read a bot's debug texts", lambda a: access.may_read_debug(a, ALICES_BOT), (F, F, T, F, F, F, F)),
    ("read a team's bot's debug texts", lambda a: access.may_read_debug(a, TEAMS_BOT), (F, F, F, T, T, F, F)),
    ("read the operator's bot's debug texts", lambda a: access.may_read_debug(a, OPERATORS_BOT), (F,) * 7),
]


@pytest.mark.parametrize(("question", "ask", "answers"), RULES, ids=[rule[0] for rule in RULES])
def test_each_asker_gets_the_rules_answer(question: str, ask: Ask, answers: Answers) -> None:
    got = {asker: ask(account) for asker, account in ASKERS.items()}
    assert got == dict(zip(ASKERS, answers, strict=True)), question


def test_every_rule_has_its_rows() -> None:
    def asked(ask: Ask) -> set[str]:
        names = ask.__code__.co_names if ask.__name__ == "<lambda>" else (ask.__name__,)
        return {name for name in names if name.startswith("may_")}

    assert set().union(*(asked(ask) for _, ask, _ in RULES)) == {name for name in vars(access)
                                                                 if name.startswith("may_")}


def test_nothing_else_decides_on_is_admin() -> None:
    """Whether an account is an admin decides something in arena/access.py only: no ``if`` elsewhere
    asks it (it is read to be stored, or shown: ``"admin" if user.is_admin else "author"``)."""
    deciding = []
    for path in (ROOT / "arena").rglob("*.py"):
        if path == ROOT / "arena" / "access.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            tests = [node.test] if isinstance(node, ast.If | ast.While | ast.Assert) else \
                list(node.ifs) if isinstance(node, ast.comprehension) else []
            deciding += [f"{path.relative_to(ROOT)}:{n.lineno}" for t in tests for n in ast.walk(t)
                         if isinstance(n, ast.Attribute) and n.attr == "is_admin"]
    assert deciding == []
