"""``arena ratings`` and ``arena leaderboard``."""

from __future__ import annotations

import json

import click

from referee.textlog import printable

from ..league import standings
from .options import user_errors, with_store


@click.group()
def ratings() -> None:
    """TrueSkill ratings of a league."""


@ratings.command()
@click.argument("name")
@with_store(create=False)
@user_errors
def rebuild(name: str, store) -> None:
    """Recompute the ratings of league NAME from its stored games (deterministic)."""
    rated = standings.rebuild_ratings(store, name)
    click.echo(f"rebuilt the ratings of {len(rated)} bot(s) in {name}")


@click.command()
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="The same data as JSON.")
@with_store(create=False)
@user_errors
def leaderboard(name: str, as_json: bool, store) -> None:
    """The standings of league NAME, best conservative rating (mu - 3 sigma) first."""
    rows = standings.leaderboard(store, name)
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    print_leaderboard(rows)


def print_leaderboard(rows: list[dict]) -> None:
    names = [printable(r["bot"]) for r in rows]  # authors' text: escaped
    width = max([3, *map(len, names)])
    click.echo(f"{'#':>2}  {'bot':<{width}}  {'version':<9} {'language':<8} {'mu-3s':>7} {'mu':>7} {'sigma':>6} "
               f"{'games':>6} {'wins':>5} {'avg score':>10} {'fail %':>6}")
    for name, r in zip(names, rows, strict=True):
        version, language = printable(r["version"], 24), printable(r["language"], 16)
        click.echo(f"{r['rank']:>2}  {name:<{width}}  {version:<9} {language:<8} {r['exposure']:>7.2f} "
                   f"{r['mu']:>7.2f} {r['sigma']:>6.2f} {r['games']:>6} {r['wins']:>5} {r['average_score']:>10.1f} "
                   f"{100 * r['failure_rate']:>6.1f}")
