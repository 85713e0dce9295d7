"""``arena play``: one game between built-in players, printed as a readable log."""

from __future__ import annotations

import click

from arena_games import GameError, get_game
from arenabot.strategies import KINDS, make_strategy
from referee.selfplay import play as play_game
from referee.textlog import event_lines, result_lines

from .options import GAME, parse_settings


@click.command()
@click.option("--game", "game_name", type=GAME, default="prohis", show_default=True)
@click.option("--players", "num_players", type=int, default=4, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--player", "kinds", multiple=True, type=click.Choice(KINDS),
    help="Player kind for each seat in order (repeat); the rest alternate heuristic and random.",
)
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="A [house] setting.")
@click.option("--quiet", is_flag=True, help="Print only the result.")
def play(game_name: str, num_players: int, seed: int, kinds: tuple[str, ...],
         overrides: tuple[str, ...], quiet: bool) -> None:
    """Play one game between built-in players and print its log."""
    spec = get_game(game_name)
    try:
        settings = spec.validate(num_players, parse_settings(overrides))
    except GameError as exc:
        raise click.UsageError(str(exc)) from exc
    kinds = tuple(kinds) + tuple(("heuristic", "random")[s % 2] for s in range(len(kinds), num_players))
    if len(kinds) != num_players:
        raise click.UsageError(f"{len(kinds)} --player options for {num_players} players")
    players = [make_strategy(kind, game_name, seed * 100 + s) for s, kind in enumerate(kinds)]
    names = [f"{kind}#{s}" for s, kind in enumerate(kinds)]
    state = play_game(spec, players, seed, settings)
    click.echo(f"{spec.title}, {num_players} players, seed {seed}: " + ", ".join(names))
    if not quiet:
        for line in event_lines(spec, state.history(), names):
            click.echo(line)
    for line in result_lines(spec, state.scores(), state.ranks(), names):
        click.echo(line)
