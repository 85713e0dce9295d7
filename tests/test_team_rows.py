"""arena/teams.py on SQLite and on a PostgreSQL of the test's own: names unique whatever their case
and apart from accounts', a team that keeps an owner, and the account the access rules see (its
teams read from the membership rows) following every change at once."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.accounts import Account, account_of, add_user
from arena.league import NotAllowed
from arena.store import Store, User, open_store
from arena.teams import OPERATOR, TeamError, add_member, create_team, remove_member, set_role, team_info, teams_of


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path) -> Store:
    if request.param == "sqlite":
        return open_store(f"sqlite:///{tmp_path}/arena.db")
    server = request.getfixturevalue("private_postgres")
    return open_store(server.url)


def account(store: Store, name: str) -> Account:
    with store() as session:
        user = session.scalar(select(User).where(User.name == name))
        assert user is not None
        return account_of(session, user)


def test_teams_and_the_account_the_rules_see(store):
    for name in ("ann", "ben", "cy"):
        add_user(store, name)
    ann = account(store, "ann")
    team = create_team(store, "Owls", ann)
    assert (account(store, "ann").teams, account(store, "ann").owned_teams) == ({team.id}, {team.id})
    for name, why in (("owls", "is taken"), ("OWLS", "is taken"), ("Ann", "is taken"), ("a b", "not a team name"),
                      ("x" * 65, "not a team name")):
        with pytest.raises(TeamError, match=why):
            create_team(store, name, account(store, "ben"))
    with pytest.raises(NotAllowed, match="only an owner"):
        add_member(store, "owls", "cy", account(store, "ben"))
    ann = account(store, "ann")  # an Account is one request's: read again, it has the team
    add_member(store, "owls", "ben", ann)
    assert account(store, "ben").teams == {team.id} and account(store, "ben").owned_teams == frozenset()
    with pytest.raises(TeamError, match="at least one owner"):
        set_role(store, "Owls", "ann", "member", ann)
    with pytest.raises(TeamError, match="at least one owner"):
        remove_member(store, "Owls", "ann", ann)
    set_role(store, "Owls", "ben", "owner", ann)
    remove_member(store, "Owls", "ann", ann)  # leaving, now that ben owns it too
    ann = account(store, "ann")
    assert ann.teams == frozenset() and teams_of(store, ann.id) == []
    with pytest.raises(NotAllowed):
        add_member(store, "Owls", "ann", ann)
    info = team_info(store, "OWLS", account(store, "cy"))
    assert (info.name, info.members) == ("Owls", None)
    assert [(m.name, m.role) for m in team_info(store, "Owls", account(store, "ben")).members or []] == \
        [("ben", "owner")]
    create_team(store, "Ops", OPERATOR, owner="cy")
    with pytest.raises(TeamError, match="no team"):
        add_member(store, "nosuch", "cy", OPERATOR)
    assert [(t.name, role) for t, role in teams_of(store, account(store, "cy").id)] == [("Ops", "owner")]
