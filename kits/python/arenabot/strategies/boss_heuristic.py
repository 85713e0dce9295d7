"""A simple player of The Boss that deduces rewards from the cards it can see.

The reward under a city is one of that city's cards that is neither in its hand nor
revealed, each as likely as the others; so it values every boss by the mean of those
candidates (a penalty counts as lost points, and only while rounds are left to suffer
it), and Chicago by half the last cards revealed to its left. It takes the boss worth
most for the cubes it costs, with a spare cube while rivals may still answer, saves
its irreplaceable small cubes for its last turn, and reveals the card that tells its
rivals least about the bosses it holds.
"""

from __future__ import annotations

from typing import Any

from .base import Strategy

# What a penalty costs, in points, when rounds are still to be played after this one.
PENALTY = {"revolver": 3.0, "prison": 2.0, "hospital": 1.0, "banished": 1.0}
POLICE = {"gold": 2, "silver": 2, "double": 1}
UNSEEN_LAST_CARD = 1.5  # what a city with nothing revealed yet may show under Chicago's sum
BIG_COST, SMALL_COST = 0.6, 2.0  # per cube committed, before the last turn
MIN_GAIN = 0.4


def card_value(card: str, penalty_weight: float) -> float:
    kind = card.rsplit("_", 1)[1]
    return float(kind) if kind.isdigit() else -PENALTY[kind] * penalty_weight


def badges(police: list[str]) -> int:
    double = police.count("double")
    return max(police.count("gold"), police.count("silver")) + double


def chance_of_last_round(view: dict[str, Any]) -> float:
    """The probability that the game ends after this round (from the police cards)."""
    police = view["police"]
    if view["overtime"]:
        return 1.0
    if view["last_turn"]:  # this round's police card is already face up
        return 1.0 if badges(police) >= 3 else 0.0
    left = [card for card, count in POLICE.items() for _ in range(count - police.count(card))]
    if not left:
        return 1.0
    return sum(1 for card in left if badges([*police, card]) >= 3) / len(left)


class BossHeuristic(Strategy):
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        phase = view["phase"]
        if phase == "cubes":
            action = self._cube(view, legal_actions)
        elif phase == "reveal":
            action = self._reveal(view, legal_actions)
        else:  # turn (reveal or place first) and place (optional placement after revealing)
            action = self._placement(view, legal_actions) or (
                self._reveal(view, legal_actions) if phase == "turn" else "pass")
        return action if action in legal_actions else legal_actions[0]

    # -- what each boss is worth -------------------------------------------------------------
    def _worth(self, view: dict[str, Any], position: int) -> float:
        boss = view["bosses"][position]
        if boss["boss"] == "chicago":
            total = 0.0
            for left in view["bosses"][:position]:
                shown = left["revealed"]
                total += card_value(shown[-1], 0.0) if shown else UNSEEN_LAST_CARD
            return total / 2
        weight = 1.0 - chance_of_last_round(view)
        known = set(view["hand"]) | set(boss["revealed"])
        candidates = [c for c in boss["cards"] if c not in known]
        if not candidates:
            return 0.0
        return sum(card_value(c, weight) for c in candidates) / len(candidates)

    def _rivals_may_answer(self, view: dict[str, Any]) -> bool:
        """Whether a rival still has a turn this round and a big cube to place in it."""
        seat, players = view["seat"], view["players"]
        rivals = view["last_turns"] if view["last_turn"] else range(view["num_players"])
        return any(players[s]["big"] for s in rivals if s != seat)

    # -- placing cubes ---------------------------------------------------------------------------
    def _placement(self, view: dict[str, Any], legal: list[str]) -> str | None:
        """The boss worth most for the cubes it takes, if it is worth them."""
        seat = view["seat"]
        me = view["players"][seat]
        # Big cubes come back, so in the last turn they cost nothing but this round's chances.
        big_cost, small_cost = (0.05, 0.3) if view["last_turn"] else (BIG_COST, SMALL_COST)
        spare = 1 if self._rivals_may_answer(view) else 0
        best_action, best_gain = None, MIN_GAIN
        for position, boss in enumerate(view["bosses"]):
            action = f"place:{boss['boss']}"
            if action not in legal:
                continue
            totals = [b + s for b, s in zip(boss["big"], boss["small"], strict=True)]
            mine = totals[seat]
            best = max(t for s, t in enumerate(totals) if s != seat)
            if mine > best:
                continue  # already mine
            cubes = best - mine + 1
            if me["big"] + me["small"] > cubes:
                cubes += spare
            bigs = min(cubes, me["big"])
            cost = bigs * big_cost + (cubes - bigs) * small_cost
            worth = self._worth(view, position)
            if best and worth > 0:
                worth *= 1.25  # taking it from a rival also denies them
            if worth - cost > best_gain:
                best_action, best_gain = action, worth - cost
        return best_action

    def _cube(self, view: dict[str, Any], legal: list[str]) -> str:
        """Big cubes until the majority, plus a spare one while rivals may still answer."""
        seat = view["seat"]
        boss = view["bosses"][view["placing"]]
        totals = [b + s for b, s in zip(boss["big"], boss["small"], strict=True)]
        best = max(t for s, t in enumerate(totals) if s != seat)
        spare = 1 if self._rivals_may_answer(view) else 0
        if "done" in legal and (totals[seat] > best + spare or not view["players"][seat]["big"]):
            return "done"  # a spare is never worth a small cube
        return "big" if "big" in legal else "small"

    # -- revealing -------------------------------------------------------------------------------
    def _reveal(self, view: dict[str, Any], legal: list[str]) -> str:
        """Reveal what helps rivals least: in a city I hold, a high card (the reward looks
        poorer to them); elsewhere a low one; to the left of a Chicago I hold, a high one."""
        seat = view["seat"]
        held: set[str] = set()
        chicago_left: set[str] = set()  # the cities left of Chicago, if I hold Chicago
        for position, boss in enumerate(view["bosses"]):
            totals = [b + s for b, s in zip(boss["big"], boss["small"], strict=True)]
            if totals[seat] and totals[seat] == max(totals):
                held.add(boss["boss"])
                if boss["boss"] == "chicago":
                    chicago_left = {b["boss"] for b in view["bosses"][:position]}
        best, best_score = legal[0], None
        for action in legal:
            if not action.startswith("reveal:"):
                continue
            card = action.removeprefix("reveal:")
            city = card.rsplit("_", 1)[0]
            value = card_value(card, 1.0)
            score = value if city in held else -value
            if city in chicago_left:
                score += value
            if best_score is None or score > best_score:
                best, best_score = action, score
        return best
