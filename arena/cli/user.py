"""``arena user``: accounts for the web server (authors and admins)."""

from __future__ import annotations

import functools
import sys

import click

from .options import with_store
from .output import echo_json, iso, json_option, print_table


def account_errors(command):
    from ..accounts import AccountError
    from ..league import LeagueError  # a moderation's refusal (arena/moderation.py)

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (AccountError, LeagueError) as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\n")
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@click.group()
def user() -> None:
    """Accounts of the web server (`arena serve`)."""


@user.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="May create and run leagues.")
@click.option("--password-stdin", is_flag=True, help="Read the password from standard input (default: make one).")
@with_store()
@account_errors
def add(name: str, admin: bool, password_stdin: bool, store) -> None:
    """Make account NAME; print its API token and its password (shown once)."""
    from ..accounts import add_user, new_password

    password = read_password(True) if password_stdin else new_password()
    if len(password) < 8:
        raise click.ClickException("a password needs at least 8 characters")
    _, token = add_user(store, name, admin=admin, password=password)
    click.echo(f"user {name}{' (admin)' if admin else ''} added")
    click.echo(f"API token: {token}")
    if not password_stdin:
        click.echo(f"password: {password}")


@user.command("token")
@click.argument("name")
@click.option("--revoke", is_flag=True, help="Revoke every token of NAME instead.")
@with_store(create=False)
@account_errors
def token(name: str, revoke: bool, store) -> None:
    """Issue a new API token for NAME (or revoke all its tokens)."""
    from ..accounts import issue_token, revoke_tokens

    if revoke:
        click.echo(f"revoked {revoke_tokens(store, name)} token(s) of {name}")
    else:
        click.echo(f"API token: {issue_token(store, name)}")


@user.command("password")
@click.argument("name")
@click.option("--stdin", "from_stdin", is_flag=True, help="Read the password from standard input.")
@with_store(create=False)
@account_errors
def password(name: str, from_stdin: bool, store) -> None:
    """Set NAME's password (for signing in to the pages)."""
    from ..accounts import set_password

    set_password(store, name, read_password(from_stdin))
    click.echo(f"password of {name} set")


@user.command("list")
@json_option
@with_store(create=False)
def list_users(as_json: bool, store) -> None:
    """Every account."""
    from ..accounts import users

    accounts = users(store)
    if as_json:
        echo_json([{"name": u.name, "admin": u.is_admin, "created_at": iso(u.created_at),
                    "disabled_at": iso(u.disabled_at)} for u in accounts])
        return
    print_table(["user", "role", "created", "disabled"],
                [[u.name, "admin" if u.is_admin else "author", f"{u.created_at:%Y-%m-%d}",
                  f"{u.disabled_at:%Y-%m-%d}" if u.disabled_at else "-"] for u in accounts],
                hostile=[0])


@user.command("disable")
@click.argument("name")
@with_store(create=False)
@account_errors
def disable(name: str, store) -> None:
    """Disable account NAME: its web sessions end and its API tokens are refused at once, and it
    cannot sign in; its bots stay (disqualify them with `arena bot retire --disqualify`). The
    last enabled admin cannot be disabled. The operator's twin of the users page."""
    from ..moderation import disable_user

    disable_user(store, name, None)
    click.echo(f"user {name} disabled: its tokens and sessions are refused; `arena user enable {name}` undoes it")


@user.command("enable")
@click.argument("name")
@with_store(create=False)
@account_errors
def enable(name: str, store) -> None:
    """Enable account NAME again: its API tokens work again; its browsers sign in again."""
    from ..moderation import enable_user

    enable_user(store, name, None)
    click.echo(f"user {name} enabled")
