"""``arena show``: one stored match or game, in detail."""

from __future__ import annotations

from pathlib import Path

import click

from referee.textlog import printable

from ..league.results import stored_game, stored_match
from .options import user_errors, with_store
from .replay import replay


@click.group()
def show() -> None:
    """Details of stored matches and games."""


@show.command("match")
@click.argument("match_id", type=int)
@with_store(create=False)
@user_errors
def show_match(match_id: int, store) -> None:
    """Match MATCH_ID: its slot, bots and every game."""
    match = stored_match(store, match_id)
    click.echo(f"match {match.id}: league {printable(match.league)} ({match.game}), round {match.round} "
               f"(cycle {match.cycle})")
    bots = ", ".join(f"{printable(bot)} ({printable(language, 16)})" for bot, language in zip(
        match.bots, match.languages, strict=True))
    click.echo(f"bots: {bots}; restarts: {match.restarts}")
    click.echo(f"records: {match.record_dir}")
    click.echo(f"played {match.started_at:%Y-%m-%d %H:%M:%S} - {match.finished_at:%H:%M:%S}")
    for game in match.games:
        seats = ", ".join(f"{printable(bot)} {game.scores[s]} (#{game.ranks[s]})"
                          + (f" [{game.failures[s]}]" if game.failures[s] else "")
                          for s, bot in enumerate(game.bots))
        click.echo(f"  game {game.id} (#{game.index}, deal {game.deal}): {seats}")


@show.command("game")
@click.argument("game_id", type=int)
@click.option("--log", is_flag=True, help="Also print the game, replayed from its record.")
@with_store(create=False)
@user_errors
def show_game(game_id: int, log: bool, store) -> None:
    """Game GAME_ID: seats, scores, ranks, failures, and its record."""
    game = stored_game(store, game_id)
    click.echo(f"game {game.id}: match {game.match_id}, index {game.index}, deal {game.deal}, seed {game.seed}")
    for seat, bot in enumerate(game.bots):
        failure = f"  failed: {game.failures[seat]}" if game.failures[seat] else ""
        click.echo(f"  seat {seat}: {printable(bot):<24} {printable(game.languages[seat], 16):<10} "
                   f"score {game.scores[seat]:>8}  rank {game.ranks[seat]}{failure}")
    click.echo(f"record: {game.record_path}")
    if log:
        click.get_current_context().invoke(replay, record_file=Path(game.record_path), seat=None, check=True)
