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
@click.option("--league", "name", help="Default: GAME-demo.")
@click.option("--rounds", type=click.IntRange(min=1), default=None,
              help="Default: the player count, one whole duplicate cycle.")
@click.option("--jobs", "-j", default=2, show_default=True)
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/leagues"),
              show_default=True)
@with_store()
@user_errors
def demo(game: str, name: str | None, rounds: int | None, jobs: int, runs_dir: Path, store) -> None:
    """Enter the Python sample bots that play GAME in a league at its smallest player count,
    run it, and show the leaderboard.

    Rerunning it reuses what exists: registered bots, the league and its played matches.
    """
    name = name or f"{game}-demo"
    with submission_errors():
        players = demo_league(store, game, name, SAMPLES, say=click.echo, check_say=echo_line)
    run_with_progress(store, name, rounds or players, jobs, runs_dir)
    click.echo()
    print_leaderboard(leaderboard(store, name))
