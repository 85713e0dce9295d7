"""``arena ratings`` and ``arena leaderboard``."""

from __future__ import annotations

import json

import click

from referee.textlog import printable

from ..league import standings
from ..league.confidence import LEVEL, SAMPLES, TOP_K
from .completion import complete_leagues
from .options import user_errors, with_store


@click.group()
def ratings() -> None:
    """TrueSkill ratings of a league."""


@ratings.command()
@click.argument("name", shell_complete=complete_leagues())
@with_store(create=False)
@user_errors
def rebuild(name: str, store) -> None:
    """Recompute the ratings of league NAME from its stored games (deterministic)."""
    rated = standings.rebuild_ratings(store, name)
    click.echo(f"rebuilt the ratings of {len(rated)} bot(s) in {name}")


@click.command()
@click.argument("name", shell_complete=complete_leagues())
@click.option("--top", "top", type=click.IntRange(min=1), default=TOP_K, show_default=True,
              help="P(top K): the chance of ranking K-th or better (K at most the entrants).")
@click.option("--json", "as_json", is_flag=True, help="The same data as JSON.")
@with_store(create=False)
@user_errors
def leaderboard(name: str, top: int, as_json: bool, store) -> None:
    """The standings of league NAME, best conservative rating (mu - 3 sigma) first.

    P(1st), P(top K) and the 90% rank interval come from drawing every bot's skill from its
    rating's posterior; a rank marked ~ is not settled: more games could still move it.
    """
    rows = standings.leaderboard(store, name, top)
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    print_leaderboard(rows)


def print_leaderboard(rows: list[dict]) -> None:
    names = [printable(r["bot"]) for r in rows]  # authors' text: escaped
    width = max([3, *map(len, names)])
    top = f"P(top {rows[0]['top_k']})" if rows else "P(top)"
    click.echo(f"{'#':>3}  {'bot':<{width}}  {'version':<9} {'language':<8} {'mu-3s':>7} {'mu':>7} {'sigma':>6} "
               f"{'games':>6} {'wins':>5} {'avg score':>10} {'fail %':>6} {'P(1st)':>7} {top:>9} {'90% ranks':>9}")
    for name, r in zip(names, rows, strict=True):
        version, language = printable(r["version"], 24), printable(r["language"], 16)
        rank = f"{r['rank']}{'' if r['settled'] else '~'}"
        click.echo(f"{rank:>3}  {name:<{width}}  {version:<9} {language:<8} {r['exposure']:>7.2f} "
                   f"{r['mu']:>7.2f} {r['sigma']:>6.2f} {r['games']:>6} {r['wins']:>5} {r['average_score']:>10.1f} "
                   f"{100 * r['failure_rate']:>6.1f} {100 * r['p_first']:>6.1f}% {100 * r['p_top']:>8.1f}% "
                   f"{str(r['rank_low']) + '-' + str(r['rank_high']):>9}")
    if not all(r["settled"] for r in rows):
        click.echo(f"~ rank not settled: its {LEVEL:.0%} rank interval ({SAMPLES:,} draws from the rating posteriors) "
                   "is not its rank alone")
