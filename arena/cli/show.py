"""``arena show``: one stored match or game, in detail."""

from __future__ import annotations

from pathlib import Path

import click

from referee.textlog import printable

from ..store import Bot, Game, League, Match
from .options import with_store
from .replay import replay


@click.group()
def show() -> None:
    """Details of stored matches and games."""


def _labels(session, ids) -> dict[int, str]:
    """Each bot's name@version, escaped for printing."""
    return {b.id: printable(b.label) for b in session.query(Bot).filter(Bot.id.in_(set(ids)))}


@show.command("match")
@click.argument("match_id", type=int)
@with_store
def show_match(match_id: int, store) -> None:
    """Match MATCH_ID: its slot, bots and every game."""
    with store() as session:
        match = session.get(Match, match_id)
        if match is None:
            raise click.ClickException(f"no match {match_id}")
        league = session.get(League, match.league_id)
        names = _labels(session, match.bots)
        click.echo(f"match {match.id}: league {printable(league.name)} ({league.game}), round {match.round} "
                   f"(cycle {match.round // league.players})")
        click.echo(f"bots: {', '.join(names[b] for b in match.bots)}; restarts: {match.restarts}")
        click.echo(f"records: {match.record_dir}")
        click.echo(f"played {match.started_at:%Y-%m-%d %H:%M:%S} - {match.finished_at:%H:%M:%S}")
        for game in match.games:
            seats = ", ".join(f"{names[b]} {game.scores[s]} (#{game.ranks[s]})"
                              + (f" [{game.failures[s]}]" if game.failures[s] else "")
                              for s, b in enumerate(game.seats))
            click.echo(f"  game {game.id} (#{game.index}, deal {game.deal}): {seats}")


@show.command("game")
@click.argument("game_id", type=int)
@click.option("--log", is_flag=True, help="Also print the game, replayed from its record.")
@with_store
def show_game(game_id: int, log: bool, store) -> None:
    """Game GAME_ID: seats, scores, ranks, failures, and its record."""
    with store() as session:
        game = session.get(Game, game_id)
        if game is None:
            raise click.ClickException(f"no game {game_id}")
        names = _labels(session, game.seats)
        click.echo(f"game {game.id}: match {game.match_id}, index {game.index}, deal {game.deal}, seed {game.seed}")
        for seat, bot in enumerate(game.seats):
            failure = f"  failed: {game.failures[seat]}" if game.failures[seat] else ""
            click.echo(f"  seat {seat}: {names[bot]:<24} score {game.scores[seat]:>8}  "
                       f"rank {game.ranks[seat]}{failure}")
        click.echo(f"record: {game.record_path}")
        record_path = game.record_path
    if log:
        click.get_current_context().invoke(replay, record_file=Path(record_path), seat=None, check=True)
