"""A simple Sobek player that collects families, lays sets, and keeps its corruption pile small.

It takes the market card worth most once the cards it would skip into corruption are counted,
lays a set when it is worth it (or before the round runs out), grows its sets, uses each
character where the power pays, picks the event token worth most, and at the end of a round
lays every horizontal set it can, since cards left in hand only add to its corruption.
"""

from __future__ import annotations

import functools
from typing import Any, cast

from .base import Strategy

FAMILIES = ("ivory", "ebony", "marble", "cattle", "fish", "wheat")
ROLES = ("queen", "high_priest", "scribe", "vizier", "thief", "courtesan", "merchant")
HIDDEN_CHARACTER = "back_orange"
PROSPERITY_FAMILIES = ("wheat", "fish", "cattle")


@functools.cache
def parse(face: str) -> tuple[str | None, int, str | None]:
    """A face -> (family, scarabs, character role); the family is None for Amulets and backs."""
    if face == "amulet" or face.startswith("back_") or face == "unknown":
        return None, 0, None
    head, _, family = face.rpartition("_")
    if head in ROLES:
        return family, 0, head
    family, _, value = face.partition("_")
    return family, (int(value) if value.isdigit() else 0), None


class SobekHeuristic(Strategy):
    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        handler = getattr(self, f"_{view['phase']}")
        action = handler(view, legal_actions)
        return action if action in legal_actions else legal_actions[0]

    # -- what things are worth -------------------------------------------------------------
    def _mine(self, view: dict[str, Any]) -> dict[str, Any]:
        return cast(dict[str, Any], view["players"][view["seat"]])

    def _family_counts(self, view: dict[str, Any]) -> dict[str, int]:
        """Cards of each family in hand and in this player's sets: what a new card would join."""
        counts = dict.fromkeys(FAMILIES, 0)
        for face in view["hand"]:
            family = parse(face)[0]
            if family:
                counts[family] += 1
        for s in self._mine(view)["sets"]:
            counts[s["family"]] += 2  # a set on the table is a sure home for more cards
        return counts

    def _card_value(self, face: str, counts: dict[str, int]) -> float:
        if face == HIDDEN_CHARACTER:
            return 2.5
        if face == "amulet":
            return 2.2
        family, scarabs, role = parse(face)
        if role:
            return 2.5
        if family is None:
            return 0.5
        return 0.8 + 1.6 * scarabs + 0.5 * min(counts[family], 6)

    def _corruption_cost(self, view: dict[str, Any]) -> float:
        """What one more card in the corruption pile costs: more when this player leads the count."""
        def load(p: dict[str, Any]) -> int:
            return cast(int, p["corruption_size"] + 2 * p["curses"])

        me = view["seat"]
        mine = load(view["players"][me])
        others = max(load(p) for s, p in enumerate(view["players"]) if s != me)
        return 1.0 + (0.8 if mine >= others - 1 else 0.0)

    def _late(self, view: dict[str, Any]) -> bool:
        """Few cards left in the round: what is in hand soon goes to corruption."""
        return cast(bool, view["deck_size"] == 0 and len(view["market"]) <= view["num_players"] + 1)

    def _set_plan(self, hand: list[str], family: str) -> tuple[int, int]:
        """(scarabs, cards) of a new set of ``family`` from ``hand`` without spending characters
        or Amulets beyond the 3 cards needed."""
        goods = [parse(f)[1] for f in hand if parse(f)[0] == family and not parse(f)[2]]
        extra = sum(1 for f in hand if f == "amulet" or (parse(f)[0] == family and parse(f)[2]))
        return sum(goods), max(len(goods), min(3, len(goods) + extra))

    # -- my turn -----------------------------------------------------------------------------
    def _turn(self, view: dict[str, Any], legal: list[str]) -> str:
        hand, counts = view["hand"], self._family_counts(view)
        late, token_bonus = self._late(view), (3.0 if view["tokens_left"] else 0.0)
        cost = self._corruption_cost(view)
        best, best_value = legal[0], -1e9
        for action in legal:
            verb, _, arg = action.partition(":")
            if verb == "take":
                i = int(arg)
                market = view["market"]
                value = self._card_value(market[i], counts) - cost * i
                value -= 0.3 * sum(parse(f)[1] for f in market[:i])  # scarabs there break ties badly
            elif verb == "set":
                scarabs, cards = self._set_plan(hand, arg)
                score = scarabs * cards
                worth = cards >= 4 or score >= 6 or late or len(hand) >= 7
                value = score + token_bonus if worth else -1
            elif verb == "extend":
                s = self._mine(view)["sets"][int(arg)]
                old = sum(parse(f)[1] for f in s["cards"]) + 2 * s["prosperity"]
                fits = [f for f in hand if parse(f)[0] == s["family"] and not parse(f)[2]]
                added = sum(parse(f)[1] for f in fits)
                n_add = max(len(fits), 3)
                value = (old + added) * (len(s["cards"]) + n_add) - old * len(s["cards"]) + token_bonus
                value = value if value >= 6 or late else -1
            else:  # play a character
                value = self._power_value(view, arg)
            if value > best_value:
                best, best_value = action, value
        return best

    def _power_value(self, view: dict[str, Any], face: str) -> float:
        role = parse(face)[2]
        me, players = view["seat"], view["players"]
        others = [p for s, p in enumerate(players) if s != me]
        if role == "queen":
            return 3.5 if view["deck_size"] >= 3 else 0.5
        if role == "high_priest":
            per_family: dict[str, int] = {}
            for f in view["corruption"]:
                family = parse(f)[0]
                if family:
                    per_family[family] = per_family.get(family, 0) + 1
            return 1.5 * max(per_family.values(), default=0) - 0.5
        if role == "thief":
            return 2.5 if any(p["hand_size"] for p in others) else 0.0
        if role == "vizier":
            return 2.3 if any(p["corruption_size"] for p in others) else 0.0
        if role == "scribe":
            return 1.2 * sum(max(0, cast(int, p["hand_size"]) - 6) for p in others)
        if role == "courtesan":
            best = 0.0
            for s in self._mine(view)["sets"]:
                fits = sorted((parse(f)[1] for f in view["hand"] if parse(f)[0] == s["family"]
                               and not parse(f)[2]), reverse=True)[:2]
                if fits:
                    old = sum(parse(f)[1] for f in s["cards"]) + 2 * s["prosperity"]
                    new = (old + sum(fits)) * (len(s["cards"]) + len(fits))
                    best = max(best, new - old * len(s["cards"]))
            return best
        if role == "merchant":
            counts = self._family_counts(view)
            return max((self._card_value(f, counts) for f in view["market"]), default=0.0) - 0.5
        return 0.0

    # -- laying sets -------------------------------------------------------------------------
    def _set(self, view: dict[str, Any], legal: list[str]) -> str:
        return self._next_card(view, legal, dump=self._late(view))

    def _horizontal_set(self, view: dict[str, Any], legal: list[str]) -> str:
        return self._next_card(view, legal, dump=True)  # anything left in hand becomes corruption

    def _add(self, view: dict[str, Any], legal: list[str]) -> str:
        return self._next_card(view, legal, dump=False)

    def _next_card(self, view: dict[str, Any], legal: list[str], dump: bool) -> str:
        """Goods of the family first, best first; then Amulets, then characters, only when needed
        (or when ``dump``: the hand is about to go to corruption)."""
        cards = [a.partition(":")[2] for a in legal if a.startswith("card:")]
        goods = sorted((c for c in cards if parse(c)[0] and not parse(c)[2]), key=lambda c: -parse(c)[1])
        if goods:
            return f"card:{goods[0]}"
        if "done" in legal and not dump:
            return "done"
        for card in ("amulet", *(c for c in cards if parse(c)[2])):
            if card in cards:
                return f"card:{card}"
        return "done"

    def _horizontal(self, view: dict[str, Any], legal: list[str]) -> str:
        sets = [a for a in legal if a.startswith("set:")]
        return sets[0] if sets else "done"

    # -- event tokens --------------------------------------------------------------------------
    def _token_values(self, view: dict[str, Any]) -> dict[str, float]:
        mine = self._mine(view)
        prosperity = max((2 * len(s["cards"]) for s in mine["sets"] if s["family"] in PROSPERITY_FAMILIES),
                         default=0)
        return {
            "prosperity": prosperity,
            "deception": mine["corruption_size"],
            "flood": 3.0,
            "curse": 2.5,
            "guild": 1.0,
            "embalming": 0.0 if self._late(view) else 0.6 * mine["corruption_size"],
        }

    def _event(self, view: dict[str, Any], legal: list[str]) -> str:
        values = self._token_values(view)
        return max(legal, key=lambda a: values[a.partition(":")[2]])

    def _token(self, view: dict[str, Any], legal: list[str]) -> str:
        token, me, players = view["token"], view["seat"], view["players"]
        if self._token_values(view)[token] <= 0:
            return "discard"
        if token == "curse":  # onto the most corrupt opponent, to keep them ahead of me
            return max((a for a in legal if a.startswith("target:")),
                       key=lambda a: players[int(a[7:])]["corruption_size"], default="discard")
        if token == "guild":  # the opponent furthest behind gains least from it
            return min((a for a in legal if a.startswith("target:")),
                       key=lambda a: view["scores"][int(a[7:])], default="discard")
        if token == "prosperity":
            return max((a for a in legal if a.startswith("prosperity:")),
                       key=lambda a: len(players[me]["sets"][int(a[11:])]["cards"]), default="discard")
        return "apply"

    # -- character powers ----------------------------------------------------------------------
    def _priest(self, view: dict[str, Any], legal: list[str]) -> str:
        per_family = dict.fromkeys(FAMILIES, 0)
        for f in view["corruption"]:
            family = parse(f)[0]
            if family:
                per_family[family] += 1
        return f"family:{max(FAMILIES, key=lambda f: per_family[f])}"

    def _thief(self, view: dict[str, Any], legal: list[str]) -> str:
        return max(legal, key=lambda a: view["players"][int(a[7:])]["hand_size"])

    def _steal(self, view: dict[str, Any], legal: list[str]) -> str:
        for back in ("back_beige", "back_orange", "back_green"):
            if f"steal:{back}" in legal:
                return f"steal:{back}"
        return legal[0]

    def _vizier(self, view: dict[str, Any], legal: list[str]) -> str:
        return max(legal, key=lambda a: view["players"][int(a[7:])]["corruption_size"])

    def _pick(self, view: dict[str, Any], legal: list[str]) -> str:
        counts = self._family_counts(view)
        return max(legal, key=lambda a: self._card_value(a[5:], counts))

    def _bury(self, view: dict[str, Any], legal: list[str]) -> str:
        counts = self._family_counts(view)
        return min(legal, key=lambda a: self._card_value(a[5:], counts))

    def _courtesan(self, view: dict[str, Any], legal: list[str]) -> str:
        sets = self._mine(view)["sets"]
        return max(legal, key=lambda a: sum(parse(f)[1] for f in sets[int(a[7:])]["cards"]))

    def _merchant(self, view: dict[str, Any], legal: list[str]) -> str:
        counts = self._family_counts(view)
        return max(legal, key=lambda a: self._card_value(view["market"][int(a[5:])], counts))

    def _start(self, view: dict[str, Any], legal: list[str]) -> str:
        return f"start:{view['seat']}"  # first pick of the market
