"""``arena ratings`` and ``arena leaderboard``."""

from __future__ import annotations

import click

from ..league import standings
from ..league.confidence import LEVEL, SAMPLES, TOP_K
from .completion import complete_leagues
from .options import user_errors, with_store
from .output import echo_json, json_option, print_table


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
@json_option
@with_store(create=False)
@user_errors
def leaderboard(name: str, top: int, as_json: bool, store) -> None:
    """The standings of league NAME, best conservative rating (mu - 3 sigma) first.

    P(1st), P(top K) and the 90% rank interval come from drawing every bot's skill from its
    rating's posterior; a rank marked ~ is not settled: more games could still move it.
    """
    rows = standings.leaderboard(store, name, top)
    if as_json:
        echo_json(rows)
        return
    print_leaderboard(rows)


def print_leaderboard(rows: list[dict]) -> None:
    top = f"P(top {rows[0]['top_k']})" if rows else "P(top)"
    headers = ["#", "bot", "version", "language", "mu-3s", "mu", "sigma", "games", "wins", "avg score", "fail %",
               "P(1st)", top, "90% ranks"]
    print_table(headers, [
        [f"{r['rank']}{'' if r['settled'] else '~'}", r["bot"], r["version"], r["language"], f"{r['exposure']:.2f}",
         f"{r['mu']:.2f}", f"{r['sigma']:.2f}", r["games"], r["wins"], f"{r['average_score']:.1f}",
         f"{100 * r['failure_rate']:.1f}", f"{100 * r['p_first']:.1f}%", f"{100 * r['p_top']:.1f}%",
         f"{r['rank_low']}-{r['rank_high']}"] for r in rows],
        right=[0, *range(4, len(headers))], hostile={1: 64, 2: 24, 3: 16},
        optional=[9, 5, 6, 8, 12, 10, 7])  # avg score, mu, sigma, wins, P(top K), fail %, games
    if not all(r["settled"] for r in rows):
        click.echo(f"~ rank not settled: its {LEVEL:.0%} rank interval ({SAMPLES:,} draws from the rating posteriors) "
                   "is not its rank alone")
