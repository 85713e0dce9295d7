"""``arena demo``: the main job. A league of the sample bots, run, and its leaderboard."""

from __future__ import annotations

from pathlib import Path

import click
from sqlalchemy import select

from referee.games import get_game

from ..bots import load_bot_config
from ..league import LeagueError, create_league, get_league, join_league
from ..league import leaderboard as league_leaderboard
from ..league.schedule import ScheduleOptions
from ..store import Bot
from .bot import submit_bot
from .league import run_with_progress
from .options import GAME, league_errors, with_store
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
@with_store
@league_errors
def demo(game: str, name: str | None, rounds: int | None, jobs: int, runs_dir: Path, store) -> None:
    """Enter the Python sample bots that play GAME in a league at its smallest player count,
    run it, and show the leaderboard.

    Rerunning it reuses what exists: registered bots, the league and its played matches.
    """
    spec = get_game(game)
    name = name or f"{game}-demo"
    players = spec.min_players
    try:
        with store() as session:
            get_league(session, name)
    except LeagueError:
        create_league(store, name, game, players, {}, ScheduleOptions(deals=2))
        click.echo(f"created league {name}: {spec.title}, {players} per table, {2 * players} games per match; "
                   f"each deal is played in all {players} rotations over a cycle of {players} rounds")
    with store() as session:
        entered = {e.bot.label for e in get_league(session, name).entries}
    for folder in sorted(p.parent for p in SAMPLES.glob("*/bot.toml")):
        config = load_bot_config(folder, SAMPLES)
        if config.games and game not in config.games:
            continue
        with store() as session:
            known = session.scalar(select(Bot).where(Bot.name == config.name, Bot.version == config.version))
        if known is None:
            submit_bot(store, folder, name, root=SAMPLES)
        elif known.label not in entered:
            join_league(store, name, known.label)
    run_with_progress(store, name, rounds or players, jobs, runs_dir)
    click.echo()
    print_leaderboard(league_leaderboard(store, name))
