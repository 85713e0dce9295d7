"""The demo: a league of the sample bots that play a game, at its smallest player count."""

from __future__ import annotations

from pathlib import Path

from arena_games import get_game

from .bots import load_bot_config
from .league import LeagueError, create_league, entrants, get_league, join_league, registered
from .league.schedule import ScheduleOptions
from .store import Store
from .submissions import Say, submit_bot

DEALS = 2  # a match of the demo plays each of 2 deals in every rotation


def demo_league(store: Store, game: str, name: str, samples: Path, say: Say = lambda line: None,
                check_say: Say = lambda line: None) -> int:
    """Makes the league ``name`` of ``game`` unless it exists, and enters every bot folder of
    ``samples`` that plays the game: submitted (built, checked, registered; see
    :func:`~arena.submissions.submit_bot`, which ``say`` and ``check_say`` are passed to)
    unless it is registered already. Rerunning reuses what exists. Returns the players per table.
    """
    spec = get_game(game)
    players = spec.min_players
    try:
        with store() as session:
            get_league(session, name)
    except LeagueError:
        create_league(store, name, game, players, {}, ScheduleOptions(deals=DEALS))
        say(f"created league {name}: {spec.title}, {players} per table, {DEALS * players} games per match; "
            f"each deal is played in all {players} rotations over a cycle of {players} rounds")
    entered = entrants(store, name)
    for folder in sorted(p.parent for p in samples.glob("*/bot.toml")):
        config = load_bot_config(folder)
        if config.games and game not in config.games:
            continue
        known = registered(store, config.name, config.version)
        if known is None:
            submit_bot(store, folder, name, say=say, check_say=check_say)
        elif known.label not in entered:
            join_league(store, name, known.label)
    return players
