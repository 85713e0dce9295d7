"""``arena demo``: the main job. A league of the sample bots, run, and its leaderboard."""

from __future__ import annotations

from pathlib import Path

import click

from ..demo import demo_league
from ..league.standings import leaderboard
from .bot import echo_line, submission_errors
from .league import run_with_progress
from .options import GAME, user_errors, with_store
from .ratings import print_leaderboard

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots" / "python"


@click.command()
@click.option("--game", type=GAME, default="prohis", show_default=True)
@click.option("--league", "name", help="Default: GAME-demo, or GAME-reference.")
@click.option("--reference", is_flag=True,
              help="The reference league: random, first-legal, GAME's heuristic and its search bot.")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="Default: the player count, one whole duplicate cycle.")
@click.option("--jobs", "-j", default=2, show_default=True)
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/leagues"),
              show_default=True)
@with_store()
@user_errors
def demo(game: str, name: str | None, reference: bool, rounds: int | None, jobs: int, runs_dir: Path,
         store) -> None:
    """Enter the Python sample bots that play GAME in a league at its smallest player count,
    run it, and show the leaderboard.

    The search bots play only with --reference: the league a new bot is measured against,
    from random up to the search bot (docs/search.md shows each game's). Rerunning reuses what
    exists: registered bots, the league and its played matches.
    """
    name = name or f"{game}-{'reference' if reference else 'demo'}"
    with submission_errors():
        players = demo_league(store, game, name, SAMPLES, say=click.echo, check_say=echo_line, reference=reference)
    run_with_progress(store, name, rounds or players, jobs, runs_dir)
    click.echo()
    print_leaderboard(leaderboard(store, name))
