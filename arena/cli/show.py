"""``arena show``: one stored match or game, in detail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from referee.textlog import printable

from .. import access
from ..bots.registry import BotRef
from ..league.cycles import Cycle
from ..league.results import StoredGame, stored_game, stored_match
from .options import user_errors, with_store
from .output import echo_json, iso, json_option, print_table
from .replay import replay


@click.group()
def show() -> None:
    """Details of stored matches and games."""


@show.command("match")
@click.argument("match_id", type=int)
@json_option
@with_store(create=False)
@user_errors
def show_match(match_id: int, as_json: bool, store) -> None:
    """Match MATCH_ID: its slot, bots and every game."""
    match = stored_match(store, match_id)
    if as_json:
        echo_json({"id": match.id, "league": match.league, "game": match.game, "round": match.round,
                   "cycle": match.cycle, "cycle_complete": match.cycle_state.complete,
                   "bots": [_bot(ref) for ref in match.refs], "restarts": match.restarts,
                   "record_dir": match.record_dir, "started_at": iso(match.started_at),
                   "finished_at": iso(match.finished_at), "games": [_game(game) for game in match.games]})
        return
    click.echo(f"match {match.id}: league {printable(match.league)} ({match.game}), round {match.round} "
               f"(cycle {match.cycle})")
    bots = ", ".join(f"{printable(ref.label)} ({printable(ref.language, 16)})" for ref in match.refs)
    click.echo(f"bots: {bots}; restarts: {match.restarts}")
    click.echo(f"records: {printable(match.record_dir, 1024)}")
    click.echo(f"played {match.started_at:%Y-%m-%d %H:%M:%S} - {match.finished_at:%H:%M:%S}")
    _open_cycle(match.cycle_state)
    seats = max((len(game.refs) for game in match.games), default=0)
    print_table(["game", "#", "deal", *(f"seat {s}" for s in range(seats))],
                [[game.id, game.index, game.deal, *(_seat_cell(game, s) for s in range(len(game.refs)))]
                 for game in match.games], right=[0, 1], hostile={2: 64})


def _seat_cell(game: StoredGame, seat: int) -> str:
    failure = game.failures[seat]
    return (f"{printable(game.refs[seat].label)} {game.scores[seat]} (#{game.ranks[seat]})"
            + (f" [{printable(failure, 40)}]" if failure else ""))


@show.command("game")
@click.argument("game_id", type=int)
@click.option("--log", is_flag=True, help="Also print the game, replayed from its record, with the bots' debug texts.")
@json_option
@with_store(create=False)
@user_errors
def show_game(game_id: int, log: bool, as_json: bool, store) -> None:
    """Game GAME_ID: seats, scores, ranks, failures, and its record."""
    if log and as_json:
        raise click.UsageError("--log goes without --json (`arena replay` prints the record)")
    game = stored_game(store, game_id)
    if as_json:
        echo_json(_game(game))
        return
    click.echo(f"game {game.id}: match {game.match_id}, index {game.index}, deal {printable(game.deal)}, "
               f"seed {game.seed}")
    print_table(["seat", "bot", "version", "language", "score", "rank", "failure"],
                [[seat, ref.name, ref.version, ref.language, game.scores[seat], game.ranks[seat],
                  game.failures[seat] or "-"] for seat, ref in enumerate(game.refs)],
                right=[0, 4, 5], hostile={1: 64, 2: 24, 3: 16, 6: 40})
    click.echo(f"record: {printable(game.record_path, 1024)}")
    _open_cycle(game.cycle_state)
    if log:
        click.get_current_context().invoke(replay, record_file=Path(game.record_path), seat=None, check=True,
                                           show_debug=True)


def _open_cycle(cycle: Cycle) -> None:
    """The operator sees everything here; what the public may not see yet is said so."""
    if not access.may_see_table(None, access.Game(public=cycle.complete)):
        click.echo(f"not public yet: its {cycle.describe()}. Its other matches deal these cards in other seats: "
                   "`arena serve` and `arena watch` hide its games until the whole cycle is stored; do not publish "
                   "them before")


def _bot(ref: BotRef) -> dict[str, Any]:
    return {"bot_id": ref.id, "bot": ref.name, "version": ref.version, "language": ref.language}


def _game(game: StoredGame) -> dict[str, Any]:
    """A game as ``show game --json`` gives it (arena/schemas/games.py's ``StoredGameOut``)."""
    return {"id": game.id, "match_id": game.match_id, "index": game.index, "deal": game.deal, "seed": game.seed,
            "record_path": game.record_path, "cycle_complete": game.cycle_state.complete,
            "seats": [{"seat": seat, **_bot(ref), "score": game.scores[seat], "rank": game.ranks[seat],
                       "failure": game.failures[seat]} for seat, ref in enumerate(game.refs)]}
