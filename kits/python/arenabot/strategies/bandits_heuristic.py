"""A simple Bandits player that knows that only loot under a hideout scores.

It stashes loot as soon as it holds three of a kind (with the Booby Trap, to spoil
raids), raids the fullest hideout when it carries a Tracker and some guns, attacks the
biggest hand whenever it holds a few guns, and otherwise draws. It defends with the fewest
stars that hold, answers a fight it cannot win with a Backfire, and, as the rulebook
advises, throws its Lawmen away rather than hand them to a winning attacker.
"""

from __future__ import annotations

from typing import Any

from .base import Strategy

# Fights are cheap: the cards played go to the Boneyard and the hand refills to 6, so a lost
# fight costs little unless it is Backfired, and a won one takes a hand or a hideout's loot.
RAID_GUNS = 3  # guns in hand to raid a hideout
ATTACK_GUNS = 4  # guns in hand to attack a hand
ENOUGH_GUNS = 8  # an attack stops adding cards at this strength (a 6-card hand averages 4.6 stars)


def _split(card: str) -> tuple[str, int]:
    """``"outlaw_3"`` -> ``("outlaw", 3)``; ``"tracker"`` -> ``("tracker", 0)``."""
    kind, _, value = card.rpartition("_")
    return (kind, int(value)) if value.isdigit() else (card, 0)


def _guns(card: str) -> int:
    kind, value = _split(card)
    return value if kind in ("outlaw", "two_faced") else 0


def _stars(card: str) -> int:
    kind, value = _split(card)
    return value if kind in ("lawman", "two_faced") else 0


class BanditsHeuristic(Strategy):
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        handler = getattr(self, f"_{view['phase']}")
        action = handler(view, legal_actions)
        return action if action in legal_actions else legal_actions[0]

    # -- my turn -----------------------------------------------------------------------------
    def _turn(self, view: dict[str, Any], legal: list[str]) -> str:
        hand, me = view["hand"], view["seat"]
        for kind in ("gold", "bag"):  # gold first: it is worth more
            stash = [a for a in legal if a.startswith(f"stash:{kind}_")]
            if stash:
                return stash[-1]
        guns = sum(_guns(c) for c in hand)
        others = [s for s in range(view["num_players"]) if s != me]
        players = view["players"]
        if "tracker" in hand and guns >= RAID_GUNS:
            fullest = max(others, key=lambda s: (players[s]["hideout_size"], players[s]["total"]))
            if players[fullest]["hideout_size"] >= 3 and f"raid:{fullest}" in legal:
                return f"raid:{fullest}"
        if guns >= ATTACK_GUNS:
            biggest = max(others, key=lambda s: (players[s]["hand_size"], -s))
            return f"attack:{biggest}"
        return "draw"

    def _attack(self, view: dict[str, Any], legal: list[str]) -> str:
        if view["guns"] >= ENOUGH_GUNS and "done" in legal:
            return "done"
        # Outlaws first, strongest first; Two-Faced cards are kept for defence when possible.
        outlaws = [a for a in legal if a.startswith("gun:outlaw_")]
        if outlaws:
            return outlaws[-1]
        two_faced = [a for a in legal if a.startswith("gun:two_faced_")]
        if two_faced and (view["guns"] < ATTACK_GUNS or "done" not in legal):
            return two_faced[-1]
        return "done"

    def _stash(self, view: dict[str, Any], legal: list[str]) -> str:
        # Everything of the kind, and the Booby Trap.
        cards = [a for a in legal if a.startswith("stash:")]
        return cards[-1] if cards else "done"

    # -- in a fight ------------------------------------------------------------------------------
    def _defend(self, view: dict[str, Any], legal: list[str]) -> str:
        if view["raid"] and not view["defence"]:
            hideout = view["hideout"]
            if not hideout or "booby_trap" in hideout:
                return "done"  # nothing to lose: the raid takes nothing, keep the cards
        return self._hold(view, legal, view["stars"], can_backfire=True)

    def _backfire(self, view: dict[str, Any], legal: list[str]) -> str:
        return self._hold(view, legal, view["counter_stars"], can_backfire=False)

    def _hold(self, view: dict[str, Any], legal: list[str], stars: int, can_backfire: bool) -> str:
        guns = view["guns"]
        if stars >= guns:
            return "done"
        plays = [a for a in legal if a.startswith("star:")]
        if stars + sum(_stars(c) for c in view["hand"]) >= guns:
            # The weakest card that closes the gap alone, else the strongest, and go on;
            # Lawmen before Two-Faced cards, which also make guns.
            closing = [a for a in plays if stars + _stars(a[5:]) >= guns]
            if closing:
                return min(closing, key=lambda a: (_stars(a[5:]), not a.startswith("star:lawman_")))
            return max(plays, key=lambda a: (_stars(a[5:]), a.startswith("star:lawman_")))
        if can_backfire and "backfire" in legal:
            return "backfire"
        if not view["raid"] and plays:
            return plays[0]  # the hand is lost anyway: the Lawmen go to the Boneyard, not to the winner
        return "done"
