"""``arena team``: teams of the web server's accounts, for the operator (authors use the site's
/teams pages or the API, where the access rules apply; here, on the store's machine, the operator
holds the store: e.g. to give a team whose owners are gone a new one)."""

from __future__ import annotations

import functools

import click

from .options import with_store
from .output import echo_json, iso, json_option, print_table


def team_errors(command):
    from ..league import LeagueError

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except LeagueError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


@click.group()
def team() -> None:
    """Teams of the web server's accounts (`arena serve`): bot names held by several authors."""


@team.command("create")
@click.argument("name")
@click.option("--owner", required=True, metavar="USER", help="The account that owns the new team.")
@with_store(create=False)
@team_errors
def create(name: str, owner: str, store) -> None:
    """Make team NAME, owned by account USER (authors make their own on the site)."""
    from ..teams import OPERATOR, create_team

    create_team(store, name, OPERATOR, owner=owner)
    click.echo(f"team {name} created, owned by {owner}")


@team.command("add")
@click.argument("name")
@click.argument("user")
@click.option("--role", type=click.Choice(["member", "owner"]), default="member", show_default=True,
              help="An owner manages the team; a member submits and reads its bots.")
@with_store(create=False)
@team_errors
def add(name: str, user: str, role: str, store) -> None:
    """Put account USER in team NAME (or, if USER is in it already, give them ROLE), e.g. a new owner
    for a team whose owners have gone."""
    from ..teams import OPERATOR, TeamError, add_member, set_role

    try:
        add_member(store, name, user, OPERATOR, role)
        click.echo(f"{user} added to team {name} as {role}")
    except TeamError as exc:
        if "already" not in str(exc):
            raise
        set_role(store, name, user, role, OPERATOR)
        click.echo(f"{user} is now {role} of team {name}")


@team.command("remove")
@click.argument("name")
@click.argument("user")
@with_store(create=False)
@team_errors
def remove(name: str, user: str, store) -> None:
    """Take account USER out of team NAME: they lose its bots at once (a team keeps an owner)."""
    from ..teams import OPERATOR, remove_member

    remove_member(store, name, user, OPERATOR)
    click.echo(f"{user} removed from team {name}")


@team.command("list")
@json_option
@with_store(create=False)
def list_teams(as_json: bool, store) -> None:
    """Every team, with its members and their roles."""
    from ..teams import all_teams

    teams = all_teams(store)
    if as_json:
        echo_json([{"name": t.name, "created_at": iso(t.created_at),
                    "members": [{"name": m.name, "role": m.role, "added_at": iso(m.added_at)} for m in members]}
                   for t, members in teams])
        return
    print_table(["team", "owners", "members", "created"],
                [[t.name, ", ".join(m.name for m in members if m.role == "owner"),
                  ", ".join(m.name for m in members if m.role != "owner"), f"{t.created_at:%Y-%m-%d}"]
                 for t, members in teams], hostile=[0, 1, 2])
