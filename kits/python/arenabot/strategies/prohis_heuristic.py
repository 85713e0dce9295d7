"""A simple Prohis player that knows the scoring table and weighs the risk of an inspection.

It banks Illegal Goods through convoys and claims whenever its Prohi would make it the Inspector;
it inspects, waives and takes bribes by what inspecting is worth (a bribe taken gives its Prohi
back to claim again); it keeps an Illegal Good in hand to buy off an Inspector while some rival
inspects silent convoys, and offers a bribe when the seizure it risks costs more; its convoy's
order is random; its last turn banks what it holds. ``bold`` keeps the rougher play of its first
version. Why it plays so (that first version lost to bold, and where the money went):
docs/search.md ("How the built-in players were tuned").
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from typing import Any, cast

from .base import Strategy

WAREHOUSE = {"legal": 1000, "illegal": 4000, "lieutenant": 3000, "captain": 4000, "major": 5000}
HAND = {"legal": 0, "illegal": -4000, "lieutenant": 1000, "captain": 2000, "major": 3000}
RANK = {"lieutenant": 1, "captain": 2, "major": 3}  # also how many cards each rank may flip
PROHIS = ("lieutenant", "captain", "major")
REUSE, REUSE_PILE = 4000, 20
LAST_CONVOY = ("illegal", "major", "captain", "lieutenant", "legal")
GOODS = ("illegal", "legal")
BANKED = 2000  # what an Inspector gains by banking the Prohi (warehouse minus hand value, every rank)
ILLEGAL_SHARE = 0.4  # a convoy card's chance of being contraband, as convoys are loaded
BRIBED_SHARE = 0.55  # the same once its Smuggler offers a bribe: a bribe says there is contraband
# What a card given as a bribe costs me: what it would have made me (a Prohi: also its claims).
BRIBE_COST = {"illegal": 1000, "legal": 1000, "lieutenant": 2000}


def catch_chance(flips: int, size: int, share: float) -> float:
    """The chance that ``flips`` random flips of a convoy of ``size`` cards, each contraband
    with chance ``share``, turn up an Illegal Good."""
    return 1 - (1 - share) ** min(flips, size)


class ProhisHeuristic(Strategy):
    """``bold``: a rougher style that claims with its best Prohi, never pays a bribe, and
    inspects whatever it can (the ``prohis-bold`` sample bot)."""

    def __init__(self, seed: int = 0, bold: bool = False) -> None:
        super().__init__(seed)
        self.bold = bold
        self.inspections: Counter[int] = Counter()  # by seat: inspections without a bribe offered
        self.waives: Counter[int] = Counter()  # and waived ones

    def start_game(self, info: dict[str, Any]) -> None:
        super().start_game(info)
        self.inspections, self.waives = Counter(), Counter()

    def inspects(self, seat: int) -> float:
        """How likely ``seat`` is to inspect a convoy whose Smuggler stays silent, from what it did."""
        return (self.inspections[seat] + 2) / (self.inspections[seat] + self.waives[seat] + 3)

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        for event in view["events"]:
            if event["type"] == "inspect":
                self.inspections[event["seat"]] += 1
            elif event["type"] == "waive":
                self.waives[event["seat"]] += 1
        handler = getattr(self, f"_{view['phase']}")
        action = handler(view, legal_actions)
        return action if action in legal_actions else legal_actions[0]

    # -- my turn -----------------------------------------------------------------------------
    def _turn(self, view: dict[str, Any], legal: list[str]) -> str:
        hand = view["hand"]
        if view["end_triggered"] and not self.bold:
            # My last turn: what stays in hand is worth little (an Illegal Good -$4,000), so
            # everything worth more in a warehouse goes into a convoy, or I take a Prohi card.
            if len(hand) >= 2:
                return self._next_convoy_card(view, legal)
            market = view["market"]
            for wanted in ("major", "captain", "lieutenant"):
                if wanted in market and f"take:{market.index(wanted)}" in legal:
                    return f"take:{market.index(wanted)}"
            return "pass"
        goods = sum(1 for c in hand if c in GOODS)
        last_chance = view["end_triggered"]
        if goods >= 3 or (goods >= 2 and (last_chance or len(hand) >= 7)):
            return self._next_convoy_card(view, legal)
        draw = self._best_pick(view, legal)
        if draw:
            return draw
        if "convoy:illegal" in legal or "convoy:legal" in legal:
            return self._next_convoy_card(view, legal)
        return "pass"

    def _draw(self, view: dict[str, Any], legal: list[str]) -> str:
        if view["end_triggered"] and not self.bold:
            return "done"
        return self._best_pick(view, legal) or "done"

    def _best_pick(self, view: dict[str, Any], legal: list[str]) -> str | None:
        market = view["market"]
        for wanted in ("illegal", "major", "captain"):
            if wanted in market and f"take:{market.index(wanted)}" in legal:
                return f"take:{market.index(wanted)}"
        if "pile" in legal:
            return "pile"
        takes = [a for a in legal if a.startswith("take:")]
        return takes[0] if takes else None

    def _convoy(self, view: dict[str, Any], legal: list[str]) -> str:
        return self._next_convoy_card(view, legal)

    def _next_convoy_card(self, view: dict[str, Any], legal: list[str]) -> str:
        convoy = view["convoy"]
        if self.bold:
            illegal_in = convoy.count("illegal")
            # Contraband hidden among legal goods: at most two Illegal Goods per convoy.
            order = ("illegal", "legal") if illegal_in < 2 else ("legal", "illegal")
            if len(convoy) < 4:
                for card in (*order, "lieutenant"):
                    if f"convoy:{card}" in legal and (card != "lieutenant" or len(convoy) < 2):
                        return f"convoy:{card}"
            return "done" if "done" in legal else legal[0]
        players = view["players"]
        watched = any(self.inspects(s) > 0.5 for s in range(len(players))
                      if s != view["seat"] and not players[s]["passed"])
        plan = self._convoy_plan(view["hand"] + convoy, view["end_triggered"], watched)
        missing = list((Counter(plan) - Counter(convoy)).elements())
        if not missing or f"convoy:{missing[0]}" not in legal:
            return "done" if "done" in legal else legal[0]
        # in a random order: where a card lies must tell an Inspector nothing
        return f"convoy:{self.rng.choice(missing)}"

    @staticmethod
    def _convoy_plan(cards: list[str], last_turn: bool, watched: bool) -> list[str]:
        """The convoy to run from ``cards`` (the hand as it was before loading); ``watched``:
        some rival inspects silent convoys."""
        count = Counter(cards)
        if last_turn:  # what stays in hand is worth little, an Illegal Good less than nothing
            return [card for card in LAST_CONVOY for _ in range(count[card])][:4]
        # One Illegal Good stays in hand to buy off an Inspector: worth $4,000 to them, it is
        # enough for a cautious one of any rank.
        keep = 1 if watched and count["illegal"] >= 2 else 0
        illegal = min(2, count["illegal"] - keep)
        plan = ["illegal"] * illegal + ["legal"] * min(count["legal"], 4 - illegal)
        if len(plan) < 2:
            plan = [card for card in ("illegal", "legal", "lieutenant") for _ in range(count[card])][:2]
        return plan

    # -- someone else's convoy ---------------------------------------------------------------
    def _claim(self, view: dict[str, Any], legal: list[str]) -> str:
        if self.bold:
            for rank in ("major", "captain", "lieutenant"):
                if f"claim:{rank}" in legal:
                    return f"claim:{rank}"
        best = max((RANK[c["rank"]] for c in view["claims"]), default=0)
        mine = [r for r in PROHIS if f"claim:{r}" in legal and RANK[r] > best]
        if not mine:
            return "decline"
        # the cheapest Prohi that takes the inspection and flips the whole convoy (up to 3)
        enough = [r for r in mine if RANK[r] >= min(len(view["convoy"]), 3)]
        return f"claim:{(enough or mine[-1:])[0]}"

    def _my_prohi(self, view: dict[str, Any]) -> str:
        return cast(str, next(c["rank"] for c in view["claims"] if c["seat"] == view["seat"]))

    def _inspection_value(self, view: dict[str, Any], share: float) -> float:
        """What inspecting is worth to me, against keeping my Prohi in hand."""
        rank, size = self._my_prohi(view), len(view["convoy"])
        caught = catch_chance(RANK[rank], size, share)
        seized = size * (WAREHOUSE["legal"] + share * (WAREHOUSE["illegal"] - WAREHOUSE["legal"]))
        return caught * (seized + BANKED) - (1 - caught) * HAND[rank]

    def _respond(self, view: dict[str, Any], legal: list[str]) -> str:
        offered = sum(WAREHOUSE[c] for c in view["bribe"])
        if self.bold:
            return "accept" if offered >= WAREHOUSE[self._my_prohi(view)] - 1000 else "reject"
        # Taking a bribe also gives me my Prohi back, to claim with again while the game lasts.
        reuse = REUSE * min(1.0, view["pile_size"] / REUSE_PILE)
        return "accept" if offered + reuse >= self._inspection_value(view, BRIBED_SHARE) else "reject"

    def _waive(self, view: dict[str, Any], legal: list[str]) -> str:
        if self.bold:
            return "inspect"
        return "inspect" if self._inspection_value(view, ILLEGAL_SHARE) > BANKED else "waive"

    def _flip(self, view: dict[str, Any], legal: list[str]) -> str:
        return self.rng.choice(legal)

    # -- my convoy under inspection ------------------------------------------------------------
    def _bribe(self, view: dict[str, Any], legal: list[str]) -> str:
        convoy = view["convoy"]
        if self.bold or "illegal" not in convoy:
            return "silent"  # let them inspect: a clean convoy wins their Prohi card
        rank = next(c["rank"] for c in view["claims"] if c["seat"] == view["inspector"])
        caught = seizure_chance(convoy, RANK[rank])
        value = sum(WAREHOUSE[c] for c in convoy)
        # What silence costs me, counting half of what it gives the Inspector, a rival.
        inspected = caught * (value + (value + BANKED) / 2) - (1 - caught) * (HAND[rank] + 1000) * 1.5
        inspects = self.inspects(view["inspector"])
        at_stake = inspects * inspected + (1 - inspects) * BANKED / 2
        # Ask what a cautious Inspector asks (its Prohi's worth less $1,000), then more.
        target = WAREHOUSE[rank] - 1000 + 2000 * view["offers"]
        plan = self._bribe_for(view["hand"] + view["bribe"], target)
        if plan is None or sum(BRIBE_COST[c] + WAREHOUSE[c] / 2 for c in plan) > at_stake:
            return "done" if view["bribe"] else "silent"
        missing = Counter(plan) - Counter(view["bribe"])
        if not missing:
            return "done"
        return f"bribe:{next(iter(missing))}"

    @staticmethod
    def _bribe_for(cards: list[str], target: int) -> list[str] | None:
        """The cheapest cards (by :data:`BRIBE_COST`) worth ``target`` in a warehouse, or None."""
        plan: list[str] = []
        for card in sorted((c for c in cards if c in BRIBE_COST), key=lambda c: BRIBE_COST[c] - WAREHOUSE[c] / 4):
            if sum(WAREHOUSE[c] for c in plan) >= target:
                break
            plan.append(card)
        return plan if sum(WAREHOUSE[c] for c in plan) >= target else None


def seizure_chance(convoy: list[str], flips: int) -> float:
    """The chance that an Inspector flipping ``flips`` cards of ``convoy`` at random finds an
    Illegal Good before a Prohi card stops the inspection."""
    orders = list(permutations(convoy))
    found = 0
    for order in orders:
        for card in order[:flips]:
            if card != "legal":
                found += card == "illegal"
                break
    return found / len(orders)
