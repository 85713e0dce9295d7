"""``arena scrimmage``: an unrated series of games of your bot against opponents of your choice,
played by an Arena server (``arena/scrimmage.py``), from the terminal."""

from __future__ import annotations

from typing import Any

import click

from referee.textlog import printable

from .output import echo_json, json_option, print_table


@click.command()
@click.argument("bot")
@click.argument("opponents", nargs=-1, required=True)
@click.option("--game", help="The game (default: the game of a league your bot is in that every bot plays).")
@click.option("--games", type=click.IntRange(min=1),
              help="Games to play: a multiple of the seats, at most what the server allows (default: one duplicate "
                   "cycle, seats x seats).")
@click.option("--server", envvar="ARENA_SERVER", metavar="URL", required=True,
              help="The Arena server (default $ARENA_SERVER).")
@click.option("--token", envvar="ARENA_TOKEN", metavar="TOKEN", help="Your API token there (default $ARENA_TOKEN).")
@json_option
def scrimmage(bot: str, opponents: tuple[str, ...], game: str | None, games: int | None, server: str,
              token: str | None, as_json: bool) -> None:
    """Play BOT (yours, NAME or NAME@VERSION) against OPPONENTS (bots on the server's
    leaderboards), unrated, and print the result table.

    Other authors' images are private, so `arena compare` cannot pit your bot against theirs on
    your machine: the server plays it, in fresh containers with duplicate deals, and changes no
    rating. You see your bot's seats of each game (the replay links), never the others' cards.
    """
    from ..remote import ServerError, scrimmage_on_server

    say = (lambda line: click.echo(line, err=True)) if as_json else click.echo
    try:
        result = scrimmage_on_server(server, token or "", bot, opponents, game, games, say=say)
    except ServerError as exc:
        raise click.ClickException(str(exc)) from exc
    if as_json:
        echo_json(result)
    else:
        print_result(result, server)
    if result["status"] != "done":
        raise SystemExit(1)


def print_result(result: dict[str, Any], server: str) -> None:
    if result["error"]:
        click.echo(f"failed: {printable(result['error'])}", err=True)

    def cell(value: Any, form: str = "{}") -> str:
        return "" if value is None else form.format(value)

    print_table(["bot", "version", "owner", "games", "wins", "mean rank", "total score", "failures"],
                [[printable(b["bot"], 40) + (" *" if b["index"] == 0 else ""), printable(b["version"], 30),
                  printable(b["owner"] or "operator", 30), cell(b["games"]), cell(b["wins"], "{:g}"),
                  cell(b["mean_rank"], "{:.2f}"), cell(b["total_score"]), cell(b["failures"])]
                 for b in result["bots"]], right=(3, 4, 5, 6, 7))
    base = server.strip().rstrip("/")
    click.echo(f"* your bot · {result['game']} · {result['played']} of {result['games']} games · unrated")
    if result["results"]:
        click.echo(f"replays: {base}{result['url']} (first: {base}{result['results'][0]['url']})")
