"""A simple Prohis player that knows the scoring table and a little about risk.

It banks Illegal Goods through convoys, claims only when its Prohi would become the
Inspector, buys off inspections of convoys that carry contraband, takes bribes worth
more than its Prohi card, and inspects large convoys.
"""

from __future__ import annotations

from typing import Any

from .base import Strategy

WAREHOUSE = {"legal": 1000, "illegal": 4000, "lieutenant": 3000, "captain": 4000, "major": 5000}
RANK = {"lieutenant": 1, "captain": 2, "major": 3}
GOODS = ("illegal", "legal")


class ProhisHeuristic(Strategy):
    """``bold``: a rougher style that claims with its best Prohi, never pays a bribe, and
    inspects whatever it can (the ``prohis-bold`` sample bot)."""

    def __init__(self, seed: int = 0, bold: bool = False) -> None:
        super().__init__(seed)
        self.bold = bold

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        handler = getattr(self, f"_{view['phase']}")
        action = handler(view, legal_actions)
        return action if action in legal_actions else legal_actions[0]

    # -- my turn -----------------------------------------------------------------------------
    def _turn(self, view: dict[str, Any], legal: list[str]) -> str:
        hand = view["hand"]
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
        illegal_in = convoy.count("illegal")
        # Contraband hidden among legal goods: at most two Illegal Goods per convoy.
        order = ("illegal", "legal") if illegal_in < 2 else ("legal", "illegal")
        if len(convoy) < 4:
            for card in (*order, "lieutenant"):
                if f"convoy:{card}" in legal and (card != "lieutenant" or len(convoy) < 2):
                    return f"convoy:{card}"
        return "done" if "done" in legal else legal[0]

    # -- someone else's convoy ---------------------------------------------------------------
    def _claim(self, view: dict[str, Any], legal: list[str]) -> str:
        if self.bold:
            for rank in ("major", "captain", "lieutenant"):
                if f"claim:{rank}" in legal:
                    return f"claim:{rank}"
        best = max((RANK[c["rank"]] for c in view["claims"]), default=0)
        size = len(view["convoy"])
        for rank in ("lieutenant", "captain", "major"):
            # the cheapest Prohi that takes the inspection, and that can flip enough
            if RANK[rank] > best and f"claim:{rank}" in legal and RANK[rank] >= min(size, 3) - 1:
                return f"claim:{rank}"
        return "decline"

    def _respond(self, view: dict[str, Any], legal: list[str]) -> str:
        offered = sum(WAREHOUSE[c] for c in view["bribe"])
        my_prohi = next(c["rank"] for c in view["claims"] if c["seat"] == view["seat"])
        return "accept" if offered >= WAREHOUSE[my_prohi] - 1000 else "reject"

    def _waive(self, view: dict[str, Any], legal: list[str]) -> str:
        return "inspect" if self.bold or len(view["convoy"]) >= 3 else "waive"

    def _flip(self, view: dict[str, Any], legal: list[str]) -> str:
        return self.rng.choice(legal)

    # -- my convoy under inspection ------------------------------------------------------------
    def _bribe(self, view: dict[str, Any], legal: list[str]) -> str:
        if self.bold or "illegal" not in view["convoy"]:
            return "silent"  # let them inspect: a clean convoy wins their Prohi card
        if view["bribe"]:
            return "done"
        if view["offers"] == 0:
            for card in ("legal", "lieutenant"):
                if f"bribe:{card}" in legal:
                    return f"bribe:{card}"
        elif view["offers"] == 1 and "bribe:illegal" in legal:
            return "bribe:illegal"
        return "silent"
