"""The platform's access rules (arena/access.py), one row per question asked of them, each answered
for every kind of asker: nobody signed in, a signed-in stranger, the owner of what is asked about,
an admin. The web pages and API (tests/web/test_disclosure.py, test_hidden.py, test_submissions.py)
show the same answers end to end."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena import access
from arena.accounts import Account

ROOT = Path(__file__).resolve().parents[1]

ALICE, BOB, CAROL = 1, 2, 4
ASKERS: dict[str, Account | None] = {
    "anonymous": None,
    "stranger": Account(BOB, "bob", is_admin=False),
    "owner": Account(ALICE, "alice", is_admin=False),  # of ALICES_BOT, its submission, its seat
    "admin": Account(3, "root", is_admin=True),
}


@dataclass(frozen=True)
class Bot:
    owner_id: int | None


@dataclass(frozen=True)
class Submission:
    user_id: int


ALICES_BOT, CAROLS_BOT, OPERATORS_BOT = Bot(ALICE), Bot(CAROL), Bot(None)  # the operator's: the command line's
HIDDEN = access.Game(public=False, bots=(ALICES_BOT, CAROLS_BOT))  # over or not, its cycle not all stored
PUBLIC = access.Game(public=True, bots=(ALICES_BOT, CAROLS_BOT))

Ask = Callable[[Account | None], bool]
# (the question, how it is asked, the answer for: anonymous, stranger, owner, admin)
RULES: list[tuple[str, Ask, tuple[bool, bool, bool, bool]]] = [
    ("submit a version of an author's name", lambda a: access.may_submit(a, [ALICES_BOT]), (False, False, True, False)),
    ("submit a version of the operator's name", lambda a: access.may_submit(a, [OPERATORS_BOT]),
     (False, False, False, True)),
    ("submit a version of a name held by two", lambda a: access.may_submit(a, [ALICES_BOT, CAROLS_BOT]),
     (False, False, False, False)),
    ("submit a new name", lambda a: access.may_submit(a, []), (False, True, True, True)),
    ("retire an author's bot", lambda a: access.may_retire(a, ALICES_BOT), (False, False, True, False)),
    ("retire the operator's bot", lambda a: access.may_retire(a, OPERATORS_BOT), (False, False, False, True)),
    ("see a seat of a game not public", lambda a: access.may_see_seat(a, HIDDEN, 0), (False, False, True, False)),
    ("see another's seat of a game not public", lambda a: access.may_see_seat(a, HIDDEN, 1),
     (False, False, False, False)),
    ("see a seat of a public game", lambda a: access.may_see_seat(a, PUBLIC, 1), (True, True, True, True)),
    ("see the full table of a game not public", lambda a: access.may_see_table(a, HIDDEN),
     (False, False, False, False)),
    ("see the full table of a public game", lambda a: access.may_see_table(a, PUBLIC), (True, True, True, True)),
    ("see the result of a game not public", lambda a: access.may_see_result(a, HIDDEN), (False, False, True, False)),
    ("see the result of a public game", lambda a: access.may_see_result(a, PUBLIC), (True, True, True, True)),
    ("read a bot's output", lambda a: access.may_read_output(a, ALICES_BOT), (False, False, True, False)),
    ("read the operator's bot's output", lambda a: access.may_read_output(a, OPERATORS_BOT),
     (False, False, False, False)),
    ("read a bot's debug texts", lambda a: access.may_read_debug(a, ALICES_BOT), (False, False, True, False)),
    ("read the operator's bot's debug texts", lambda a: access.may_read_debug(a, OPERATORS_BOT),
     (False, False, False, False)),
    ("see a submission", lambda a: access.may_see_submission(a, Submission(ALICE)), (False, False, True, False)),
    ("create and run leagues", access.may_manage_leagues, (False, False, False, True)),
]


@pytest.mark.parametrize(("question", "ask", "answers"), RULES, ids=[rule[0] for rule in RULES])
def test_each_asker_gets_the_rules_answer(question: str, ask: Ask, answers: tuple[bool, bool, bool, bool]) -> None:
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
