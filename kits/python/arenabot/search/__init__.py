"""Search: strategies that simulate the game with its engine (``arena-games``, in every Python
bot's image) on states drawn from what the seat has seen (:mod:`arena_games.determinise`).

:class:`ISMCTS` plays any of the four games; each game's module here (``arenabot.search.prohis``
and so on) holds its :class:`SearchConfig`: how a rollout plays, where it stops, how a stopped
game is judged. See docs/search.md.
"""

from .ismcts import ISMCTS, SearchConfig, config_for, rank_values

__all__ = ["ISMCTS", "SearchConfig", "config_for", "rank_values"]
