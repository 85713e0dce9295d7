"""The demo: a league of the sample bots that play a game, at its smallest player count.

Two line-ups: the plain demo enters every Python sample bot of the game but the search bots
(which think for a tenth of a second a decision, and make a league minutes longer); the
*reference* league enters the ladder of skill a new bot is measured against: random,
first-legal, the game's heuristic and its search bot.
"""

from __future__ import annotations

from pathlib import Path

from arena_games import get_game

from .bots.config import load_bot_config
from .bots.registry import registered
from .bots.submit import Say, submit_bot
from .league import LeagueError, create_league, get_league
from .league.entries import entrants, join_league
from .league.schedule import ScheduleOptions
from .store import Store

DEALS = 2  # a match of the demo plays each of 2 deals in every rotation


def reference_bots(game: str) -> tuple[str, ...]:
    """The names of a game's reference league, weakest first."""
    return ("random", "first-legal", f"{game}-heuristic", f"{game}-search")


def lineup(config, game: str, reference: bool) -> bool:
    """Whether the sample bot of ``config`` enters the demo (``reference``: the reference league)."""
    if config.games and game not in config.games:
        return False
    if reference:
        return config.name in reference_bots(game)
    return not config.name.endswith("-search")


def demo_league(store: Store, game: str, name: str, samples: Path, say: Say = lambda line: None,
                check_say: Say = lambda line: None, reference: bool = False) -> int:
    """Makes the league ``name`` of ``game`` unless it exists, and enters every bot folder of
    ``samples`` that plays the game (but the search bots), or with ``reference`` the game's
    reference bots (:func:`reference_bots`): submitted (built, checked, registered; see
    :func:`~arena.bots.submit.submit_bot`, which ``say`` and ``check_say`` are passed to)
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
        if not lineup(config, game, reference):
            continue
        known = registered(store, config.name, config.version)
        if known is None:
            submit_bot(store, folder, name, say=say, check_say=check_say)
        elif known.label not in entered:
            join_league(store, name, known.label)
    return players
