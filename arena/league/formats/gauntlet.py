"""``gauntlet``: one bot, every version of it entered, against a fixed field.

The challenger is the bot name ``options.challenger``: each of its entered versions is a
challenger, every other entrant is the field. A table is one challenger version and k − 1 of the
field, every such combination, one match a round as a round robin's tables (k rounds make a
duplicate cycle of each table): the field never plays itself, and two versions of the
challenger never share a table, so each version meets exactly the same opposition on exactly the
same deals, and their boards compare like for like.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from math import comb
from typing import Any

from .. import LeagueError
from ..schedule import Slot
from .base import Field, Played


def sides(field: Field, ids: list[int] | tuple[int, ...]) -> tuple[list[int], list[int]]:
    """(the challenger's versions, the field) among ``ids``."""
    challengers = [b for b in ids if field.names.get(b) == field.options.challenger]
    return challengers, [b for b in ids if field.names.get(b) != field.options.challenger]


def tables(challengers: list[int], others: list[int], players: int) -> list[tuple[int, ...]]:
    """Every table of one challenger and ``players`` − 1 of the field, sorted."""
    return sorted(tuple(sorted((c, *rest))) for c in challengers
                  for rest in itertools.combinations(others, players - 1))


class Gauntlet:
    def draw(self, field: Field, ratings_of: Callable[[str], Mapping[int, float]]) -> dict[str, Any]:
        return {}

    def slots(self, field: Field, rounds: int, played: Played) -> list[Slot]:
        challengers, others = sides(field, field.playing_ids)
        missing = []
        if not challengers:
            missing.append(f"no version of the challenger {field.options.challenger!r} is entered (and playing)")
        if len(others) < field.players - 1:
            missing.append(f"the field has {len(others)} bot(s) playing; a table of {field.players} needs "
                           f"{field.players - 1} besides the challenger")
        if missing:
            raise LeagueError(f"this gauntlet cannot be played: {'; '.join(missing)}")
        every = tables(challengers, others, field.players)
        return [Slot(r, table) for r in range(rounds) for table in every]

    def planned_matches(self, field: Field, rounds: int) -> int | None:
        challengers, others = sides(field, field.playing_ids)
        return rounds * len(challengers) * comb(len(others), field.players - 1)

    def board(self, field: Field, played: Played) -> dict[str, Any] | None:
        """Each challenger version against each field bot, over the games they sat in together:
        games, the mean rank difference (the field bot's rank minus the challenger's: positive
        when the challenger finished ahead), and the games each finished ahead or level."""
        challengers, others = sides(field, field.entrants)
        pairs: dict[tuple[int, int], list[int]] = {}  # (challenger, field bot) -> rank differences
        for games in played.matches.values():
            for game in games:
                rank = dict(zip(game.seats, game.ranks, strict=True))
                for c in (b for b in game.seats if b in challengers):
                    for f in (b for b in game.seats if b not in challengers):
                        pairs.setdefault((c, f), []).append(rank[f] - rank[c])
        versions = []
        for c in challengers:
            against = []
            for f in others:
                diffs = pairs.get((c, f), [])
                if diffs:
                    against.append(_against(f, diffs))
            every = [d for f in others for d in pairs.get((c, f), [])]
            versions.append({"bot_id": c, "games": sum(a["games"] for a in against),
                             "mean_rank_difference": round(sum(every) / len(every), 4) if every else None,
                             "against": against})
        versions.sort(key=lambda v: (v["mean_rank_difference"] is None, -(v["mean_rank_difference"] or 0), v["bot_id"]))
        return {"challenger": field.options.challenger, "field": others, "versions": versions}

    def text(self, board: dict[str, Any], labels: Mapping[int, str]) -> list[str]:
        lines = [f"gauntlet of {board['challenger']} against {len(board['field'])} bot(s) "
                 "(rank difference: the field bot's rank minus the challenger's, positive when it finished ahead)"]
        for version in board["versions"]:
            mean = version["mean_rank_difference"]
            lines.append(f"{labels.get(version['bot_id'], version['bot_id'])}: {version['games']} game(s) against the "
                         "field" + ("" if mean is None else f", mean rank difference {mean:+.2f}"))
            for a in version["against"]:
                lines.append(f"  vs {labels.get(a['bot_id'], a['bot_id'])}: {a['games']} game(s), "
                             f"{a['mean_rank_difference']:+.2f}, ahead {a['ahead']}, behind {a['behind']}, "
                             f"level {a['level']}")
        if not board["versions"]:
            lines.append("no version of the challenger is entered")
        return lines


def _against(bot: int, diffs: list[int]) -> dict[str, Any]:
    return {"bot_id": bot, "games": len(diffs), "mean_rank_difference": round(sum(diffs) / len(diffs), 4),
            "ahead": sum(1 for d in diffs if d > 0), "behind": sum(1 for d in diffs if d < 0),
            "level": sum(1 for d in diffs if d == 0)}
