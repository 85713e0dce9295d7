"""Prohis: smuggling and bluffing, 3 to 6 players.

The rules are those of ``docs/games/prohis.md``; the methods follow them in their
order, each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``.
Names follow the rulebook: a *convoy* is run past the other players, who may
*claim* with a Prohi card; the highest claim makes the *Inspector*, who may be
*bribed*, may *waive*, or *inspects* by turning convoy cards face up.

Decisions are fine-grained; each lists every legal action:

========  =====================  ==================================================
phase     who decides            actions
========  =====================  ==================================================
turn      the active player      ``take:<i>`` (market slot i), ``pile``,
                                 ``convoy:<card>`` (first convoy card), ``pass``
draw      the active player      second pick: ``take:<i>``, ``pile``, or ``done``
convoy    the Smuggler           ``convoy:<card>`` (next card), ``done`` (2 to 4 cards)
claim     each other player      ``claim:<rank>`` or ``decline``
bribe     the Smuggler           ``bribe:<card>`` (one card at a time), then ``done``
                                 to offer; or ``silent``
respond   the Inspector          ``accept`` or ``reject``
waive     the Inspector          ``waive`` or ``inspect`` (only if no bribe was offered)
flip      the Inspector          ``flip:<position>``
========  =====================  ==================================================

``<card>`` is one of ``legal``, ``illegal``, ``lieutenant``, ``captain``, ``major``;
``<rank>`` one of the last three.

Where the rulebook is silent, this engine decides (the page lists these too):

* Flips are not optional: the Inspector turns cards until one stops the
  inspection or the rank's allowance (capped by the convoy size) is used up.
  Stopping early could never help the Inspector.
* A second draw pick with nothing left to take ends the turn without a decision.
"""

from __future__ import annotations

import dataclasses
import random
from array import array
from collections.abc import Callable
from typing import Any, Literal

from ..cards import CardSet, deal, shuffled
from ..core import DONE, Action, BadSettings, GameSpec, PhasedState, Settings, View, action_table, ranks_from_scores
from ..views import UNKNOWN, EventLog, MutedLog, restore_log, seat_view

# -- cards -------------------------------------------------------------------------------
LEGAL, ILLEGAL, LIEUTENANT, CAPTAIN, MAJOR = range(5)
CARDS = CardSet(
    [("legal", 58), ("illegal", 30), ("lieutenant", 8), ("captain", 6), ("major", 6)]
)
FACE = CARDS.face_of
NAMES = CARDS.names

# With 3 or 4 players these are removed at random before the game: (face, count).
REMOVED_FOR_SMALL_GAMES = ((LEGAL, 18), (ILLEGAL, 10), (LIEUTENANT, 2))
STARTING_DEAL = 4
MARKET_SIZE = 4
MAX_HAND_TO_DRAW = 7  # a player holding 8 or more cards may not draw
CONVOY_MIN, CONVOY_MAX = 2, 4
FLIPS = {LIEUTENANT: 1, CAPTAIN: 2, MAJOR: 3}

# Scoring, in dollars: (in the warehouse, left in hand).
WAREHOUSE_VALUE = (1000, 4000, 3000, 4000, 5000)
HAND_VALUE = (0, -4000, 1000, 2000, 3000)


@dataclasses.dataclass(frozen=True)
class ProhisSettings(Settings):
    """The [house] rules of Prohis, with the defaults of its page."""

    pass_anytime: bool = True
    """A player may pass at any time. Off: only once the end is triggered, or when forced."""

    max_bribe_offers: int = 3
    """At most this many bribe offers per inspection."""

    reclaim_on_waive: bool = False
    """An Inspector who waives takes the Prohi back into hand (the rulebook's variant)
    instead of banking it face down in their warehouse."""

    seizure_takes_prohi: bool = True
    """After the published French rules: an Inspector who seizes a convoy banks their own
    Prohi card with it. Off: the Prohi goes back to the Inspector's hand."""

    tie_break: Literal["none", "most_illegal"] = "none"
    """Equal money shares the place (``none``), or ``most_illegal``: more Illegal Goods
    in the warehouse ranks higher, and only a further tie shares the place."""

    def __post_init__(self) -> None:
        if self.max_bribe_offers < 1:
            raise BadSettings(f"setting max_bribe_offers: must be at least 1, got {self.max_bribe_offers}")


# -- phases and actions ------------------------------------------------------------------
TURN, DRAW, CONVOY, CLAIM, BRIBE, RESPOND, WAIVE, FLIP, OVER = range(9)
PHASES = ("turn", "draw", "convoy", "claim", "bribe", "respond", "waive", "flip", "over")

TAKE = tuple(f"take:{i}" for i in range(MARKET_SIZE))
PILE = "pile"
PASS = "pass"
CONVOY_CARD = tuple(f"convoy:{n}" for n in NAMES)
CLAIM_CARD = tuple(f"claim:{n}" for n in NAMES)  # legal for Prohi cards only
DECLINE = "decline"
BRIBE_CARD = tuple(f"bribe:{n}" for n in NAMES)
SILENT = "silent"
ACCEPT, REJECT = "accept", "reject"
WAIVE_ACT, INSPECT = "waive", "inspect"
FLIP_AT = tuple(f"flip:{i}" for i in range(CONVOY_MAX))
PARSED = action_table(TAKE, CONVOY_CARD, CLAIM_CARD, BRIBE_CARD, FLIP_AT)


class ProhisState(PhasedState):
    """A game of Prohis. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: ProhisSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: ProhisSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n, rng = num_players, self.rng

        # Setup 1: one Captain and one Major each; the others leave the game.
        captains, majors = CARDS.ids("captain"), CARDS.ids("major")
        self.hands: list[list[int]] = [[captains[s], majors[s]] for s in range(n)]
        self.removed: list[int] = captains[n:] + majors[n:]
        # Setup 2 (and the 3-4 player removal): goods and Lieutenants make the deck.
        deck: list[int] = []
        for face in (LEGAL, ILLEGAL, LIEUTENANT):
            ids = CARDS.ids(NAMES[face])
            if n <= 4:
                drop = dict(REMOVED_FOR_SMALL_GAMES)[face]
                ids = shuffled(rng, ids)
                self.removed += ids[:drop]
                ids = ids[drop:]
            deck += ids
        self.pile: list[int] = shuffled(rng, deck)  # the top card is the last one
        # Setup 3: four cards each, face down.
        for s in range(n):
            self.hands[s] += deal(self.pile, STARTING_DEAL)
        # Setup 4: the market.
        self.market: list[int] = deal(self.pile, MARKET_SIZE)
        # Setup 5: a random first player.
        first = rng.randrange(n)

        self.warehouses: list[list[int]] = [[] for _ in range(n)]
        self.passed = [False] * n
        self.end_triggered = False
        self.final_turns: list[int] = []  # seats still to take their last turn, in order
        self.phase = TURN
        self.active = first  # whose turn it is: the Smuggler once a convoy is run
        self.to_act = first
        self.first_pick = ""  # "market" or "pile" during the second draw pick
        # The convoy and its inspection.
        self.convoy: list[int] = []
        self.revealed: list[bool] = []
        self.claim_order: list[int] = []  # seats still to claim or decline
        self.claims: list[tuple[int, int]] = []  # (seat, Prohi card id) on the table
        self.inspector = -1
        self.bribe: list[int] = []
        self.offers = 0
        self.flips_left = 0
        self.log.add({"type": "turn", "seat": first})

    # -- decisions, phase by phase, in the order of the rules -------------------------------
    # A turn: A. draw, B. run a convoy, or C. pass.
    def _legal_turn(self) -> list[Action]:
        hand = self.hands[self.active]
        acts: list[Action] = []
        if len(hand) <= MAX_HAND_TO_DRAW:
            acts += TAKE[: len(self.market)]
            if self.pile:
                acts.append(PILE)
        if len(hand) >= CONVOY_MIN:
            acts += [CONVOY_CARD[f] for f in CARDS.faces_in(hand)]
        if not acts or self.settings.pass_anytime or self.end_triggered:
            acts.append(PASS)  # a player with no legal draw and fewer than 2 cards must pass
        return acts

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == "take":
            self._take_market(seat, arg)
        elif verb == PILE:
            self._take_pile(seat)
        elif verb == "convoy":
            self._load(seat, arg)
            self.phase = CONVOY
        else:  # pass
            self.passed[seat] = True
            self.log.add({"type": "pass", "seat": seat})
            self._end_turn()

    # A. Draw ------------------------------------------------------------------------------
    def _legal_draw(self) -> list[Action]:
        """The optional second pick."""
        acts = list(TAKE[: len(self.market)])
        if self.pile and self.first_pick == "market":
            acts.append(PILE)  # never two cards from the pile
        acts.append(DONE)
        return acts

    def _apply_draw(self, seat: int, verb: str, arg: int) -> None:
        if verb == DONE:
            self._end_turn()
        else:  # a second take or pile, picked as the first was
            self._apply_turn(seat, verb, arg)

    def _take_market(self, seat: int, slot: int) -> None:
        card = self.market[slot]
        self.hands[seat].append(card)
        self.log.add({"type": "take", "seat": seat, "position": slot, "card": NAMES[FACE[card]]})
        if self.pile:  # the face-up card is replaced at once
            new = self.pile.pop()
            self.market[slot] = new
            self.log.add({"type": "refill", "position": slot, "card": NAMES[FACE[new]]})
        else:
            del self.market[slot]
        self._after_pick("market")

    def _take_pile(self, seat: int) -> None:
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.log.add({"type": "pile", "seat": seat}, {"card": NAMES[FACE[card]]}, to=(seat,))
        self._after_pick("pile")

    def _after_pick(self, source: str) -> None:
        if self.phase == DRAW:  # that was the second pick
            self._end_turn()
            return
        self.phase, self.first_pick = DRAW, source
        if not self.market and not (self.pile and source == "market"):
            self._end_turn()  # nothing left for a second pick

    # B. Run a convoy ------------------------------------------------------------------------
    def _legal_convoy(self) -> list[Action]:
        acts: list[Action] = []
        if len(self.convoy) < CONVOY_MAX:
            acts += [CONVOY_CARD[f] for f in CARDS.faces_in(self.hands[self.active])]
        if len(self.convoy) >= CONVOY_MIN:
            acts.append(DONE)
        return acts

    def _apply_convoy(self, seat: int, verb: str, arg: int) -> None:
        if verb == "convoy":
            self._load(seat, arg)
        else:
            self._close_convoy()

    def _load(self, seat: int, face: int) -> None:
        """Lays a card of ``face`` from the Smuggler's hand face down at the end of the convoy."""
        self.convoy.append(CARDS.take_face(self.hands[seat], face))
        self.revealed.append(False)

    def _close_convoy(self) -> None:
        smuggler, n = self.active, self.num_players
        self.log.add(
            {"type": "convoy", "seat": smuggler, "count": len(self.convoy)},
            {"cards": [NAMES[FACE[c]] for c in self.convoy]},
            to=(smuggler,),
        )
        self.claim_order = [
            s for s in ((smuggler + k) % n for k in range(1, n)) if not self.passed[s]
        ]
        self._next_claim()

    # Inspection 1-3: claims, then the Inspector ----------------------------------------
    def _legal_claim(self) -> list[Action]:
        hand = self.hands[self.to_act]
        return [CLAIM_CARD[f] for f in CARDS.faces_in(hand) if f >= LIEUTENANT] + [DECLINE]

    def _apply_claim(self, seat: int, verb: str, arg: int) -> None:
        if verb == "claim":
            self.claims.append((seat, CARDS.take_face(self.hands[seat], arg)))
            self.log.add({"type": "claim", "seat": seat, "rank": NAMES[arg]})
        else:
            self.log.add({"type": "decline", "seat": seat})
        self._next_claim()

    def _next_claim(self) -> None:
        if self.claim_order:
            self.phase, self.to_act = CLAIM, self.claim_order.pop(0)
            return
        if not self.claims:
            self._convoy_succeeds("unchallenged")
            return
        # Highest rank wins; on equal rank, whoever played first (strictly greater replaces).
        best_seat, best_card = self.claims[0]
        for seat, card in self.claims[1:]:
            if FACE[card] > FACE[best_card]:
                best_seat, best_card = seat, card
        for seat, card in self.claims:  # every other claimant takes their Prohi back
            if seat != best_seat:
                self.hands[seat].append(card)
        self.claims = [(best_seat, best_card)]
        self.inspector = best_seat
        self.log.add({"type": "inspector", "seat": best_seat, "rank": NAMES[FACE[best_card]]})
        self.phase, self.to_act = BRIBE, self.active

    def _inspector_card(self) -> int:
        """Takes the Inspector's Prohi card off the table."""
        card = self.claims[0][1]
        self.claims = []
        return card

    # Inspection 4-5: bribes, waiving ---------------------------------------------------
    def _legal_bribe(self) -> list[Action]:
        acts = [BRIBE_CARD[f] for f in CARDS.faces_in(self.hands[self.active])]
        acts.append(DONE if self.bribe else SILENT)
        return acts

    def _apply_bribe(self, seat: int, verb: str, arg: int) -> None:
        if verb == "bribe":
            self.bribe.append(CARDS.take_face(self.hands[seat], arg))
        elif verb == DONE:
            self.offers += 1
            self.log.add(
                {"type": "bribe", "seat": seat, "count": len(self.bribe)},
                {"cards": CARDS.sorted_names(self.bribe)},
                to=(seat, self.inspector),
            )
            self.phase, self.to_act = RESPOND, self.inspector
        else:  # silent
            self.log.add({"type": "silent", "seat": seat})
            if self.offers == 0:
                self.phase, self.to_act = WAIVE, self.inspector
            else:
                self._start_inspection()

    def _legal_respond(self) -> list[Action]:
        return [ACCEPT, REJECT]

    def _apply_respond(self, seat: int, verb: str, arg: int) -> None:
        inspector, smuggler = self.inspector, self.active
        accept = verb == ACCEPT
        self.log.add({"type": "accept" if accept else "reject", "seat": inspector})
        if accept:
            self.warehouses[inspector] += self.bribe
            self.bribe = []
            self.hands[inspector].append(self._inspector_card())
            self._convoy_succeeds("bribed")
            return
        self.hands[smuggler] += self.bribe
        self.bribe = []
        if self.offers < self.settings.max_bribe_offers:
            self.phase, self.to_act = BRIBE, smuggler
        else:
            self._start_inspection()

    def _legal_waive(self) -> list[Action]:
        return [WAIVE_ACT, INSPECT]

    def _apply_waive(self, seat: int, verb: str, arg: int) -> None:
        self.log.add({"type": verb, "seat": seat})
        if verb == WAIVE_ACT:
            prohi = self._inspector_card()
            if self.settings.reclaim_on_waive:
                self.hands[seat].append(prohi)
            else:
                self.warehouses[seat].append(prohi)
            self._convoy_succeeds("waived")
        else:
            self._start_inspection()

    # Inspection 6 ------------------------------------------------------------------------
    def _start_inspection(self) -> None:
        rank = FACE[self.claims[0][1]]
        self.flips_left = min(FLIPS[rank], len(self.convoy))
        self.phase, self.to_act = FLIP, self.inspector

    def _legal_flip(self) -> list[Action]:
        return [FLIP_AT[i] for i, up in enumerate(self.revealed) if not up]

    def _apply_flip(self, seat: int, verb: str, position: int) -> None:
        inspector, smuggler = self.inspector, self.active
        self.revealed[position] = True
        self.flips_left -= 1
        face = FACE[self.convoy[position]]
        self.log.add({"type": "flip", "seat": inspector, "position": position, "card": NAMES[face]})
        if face == ILLEGAL:  # the convoy fails: the Inspector seizes it
            prohi = self._inspector_card()
            self.warehouses[inspector] += self.convoy
            if self.settings.seizure_takes_prohi:
                self.warehouses[inspector].append(prohi)
            else:
                self.hands[inspector].append(prohi)
            self.convoy, self.revealed = [], []
            self._resolve("seized")
        elif face != LEGAL or self.flips_left == 0:  # a Prohi card, or only Legal Goods
            self.hands[smuggler].append(self._inspector_card())
            self._convoy_succeeds("cleared")

    def _convoy_succeeds(self, outcome: str) -> None:
        self.warehouses[self.active] += self.convoy
        self.convoy, self.revealed = [], []
        self._resolve(outcome)

    def _resolve(self, outcome: str) -> None:
        self.log.add(
            {"type": "outcome", "seat": self.active, "outcome": outcome, "inspector": self.inspector}
        )
        self.inspector, self.offers, self.flips_left = -1, 0, 0
        self._end_turn()

    # End of a turn, end of the game ------------------------------------------------------
    def _end_turn(self) -> None:
        n, active = self.num_players, self.active
        if all(self.passed):
            self._game_over()
            return
        if not self.end_triggered and not self.pile and len(self.market) < MARKET_SIZE:
            self.end_triggered = True
            order = [(active + k) % n for k in range(1, n + 1)]  # the trigger goes last
            self.final_turns = [s for s in order if not self.passed[s]]
            self.log.add({"type": "end_triggered", "seat": active})
        if self.end_triggered:
            if not self.final_turns:
                self._game_over()
                return
            nxt = self.final_turns.pop(0)
        else:
            nxt = next(s for s in ((active + k) % n for k in range(1, n + 1)) if not self.passed[s])
        self.phase, self.active, self.to_act, self.first_pick = TURN, nxt, nxt, ""
        self.log.add({"type": "turn", "seat": nxt})

    # -- scoring -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return [
            sum(WAREHOUSE_VALUE[FACE[c]] for c in self.warehouses[s])
            + sum(HAND_VALUE[FACE[c]] for c in self.hands[s])
            for s in range(self.num_players)
        ]

    def ranks(self) -> list[int]:
        scores = self.scores()
        if self.settings.tie_break == "most_illegal":
            keys = [
                (score, sum(1 for c in self.warehouses[s] if FACE[c] == ILLEGAL))
                for s, score in enumerate(scores)
            ]
            return ranks_from_scores(keys)
        return super().ranks()

    # -- simulation ------------------------------------------------------------------------
    def clone(self) -> ProhisState:
        """An independent copy, fast: the card lists are copied, the rest shared or copied by value.

        The ``random.Random`` is shared, not copied (a copy costs more than the rest together):
        Prohis draws from it only at setup (the removal, the deal, the first player); after that,
        the pile's order is all its chance.
        """
        new = _new_state()
        new.game, new.num_players, new.seed, new.settings = self.game, self.num_players, self.seed, self.settings
        new.rng, new.removed = self.rng, self.removed[:]
        log = self.log
        new.log = log if isinstance(log, MutedLog) else _copy_log(log)
        new._legal = self._legal  # a cached list is never changed, only replaced
        new.hands = [hand[:] for hand in self.hands]
        new.warehouses = [warehouse[:] for warehouse in self.warehouses]
        new.pile, new.market, new.passed = self.pile[:], self.market[:], self.passed[:]
        new.end_triggered, new.final_turns = self.end_triggered, self.final_turns[:]
        new.phase, new.active, new.to_act, new.first_pick = self.phase, self.active, self.to_act, self.first_pick
        new.convoy, new.revealed = self.convoy[:], self.revealed[:]
        new.claim_order, new.claims = self.claim_order[:], self.claims[:]
        new.inspector, new.bribe = self.inspector, self.bribe[:]
        new.offers, new.flips_left = self.offers, self.flips_left
        return new

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        smuggler, inspector, phase = self.active, self.inspector, self.phase
        v = seat_view(self, seat, PHASES[phase], self.current_player(), self.log)
        hands, warehouses, passed = self.hands, self.warehouses, self.passed
        sees_convoy = seat == smuggler
        sees_bribe = seat == smuggler or (seat == inspector and phase == RESPOND)
        v["active"] = smuggler
        v["hand"] = CARDS.sorted_names(hands[seat])
        v["warehouse"] = CARDS.sorted_names(warehouses[seat])
        v["players"] = [
            {"hand_size": len(hands[s]), "warehouse_size": len(warehouses[s]), "passed": passed[s]}
            for s in range(self.num_players)
        ]
        v["market"] = [NAMES[FACE[c]] for c in self.market]
        v["pile_size"] = len(self.pile)
        v["convoy"] = [
            NAMES[FACE[c]] if (sees_convoy or up) else UNKNOWN
            for c, up in zip(self.convoy, self.revealed, strict=True)
        ]
        v["revealed"] = list(self.revealed)
        v["claims"] = [{"seat": s, "rank": NAMES[FACE[c]]} for s, c in self.claims]
        v["inspector"] = inspector
        v["bribe"] = CARDS.sorted_names(self.bribe) if sees_bribe else []
        v["bribe_card_count"] = len(self.bribe)
        v["offers"] = self.offers
        v["flips_left"] = self.flips_left
        v["first_pick"] = self.first_pick
        v["end_triggered"] = self.end_triggered
        v["final_turns"] = list(self.final_turns)
        return v

    def card_places(self) -> dict[str, list[int]]:
        places = {"pile": self.pile, "market": self.market, "removed": self.removed,
                  "convoy": self.convoy, "bribe": self.bribe}
        places["claims"] = [c for _, c in self.claims]  # a copy: claims pair cards with seats
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
            places[f"warehouse{s}"] = self.warehouses[s]
        return places


# -- determinisation: states drawn from a seat's view ---------------------------------------------
# See "Sampling a state" in docs/games/prohis.md for the facts a drawn state honours.
FACES = len(NAMES)
DECK_SIZE = {False: 40 + 20 + 6, True: 58 + 30 + 8}  # goods and Lieutenants, by "5 or 6 players"
_KEY_BYTES = array("I").itemsize  # random sort keys of this many bytes each


def _new_state() -> ProhisState:
    return ProhisState.__new__(ProhisState)


def _copy_log(log: EventLog) -> EventLog:
    new = EventLog.__new__(EventLog)
    new.entries, new.cursor = log.entries[:], log.cursor[:]
    return new


class _Facts:
    """Where a seat's history puts hidden cards of the other seats (``seat`` itself sees its own).

    ``hand[s]`` and ``warehouse[s]`` count, by face, cards known to be in seat ``s``'s hand or
    warehouse. A known card of a hand becomes *loose* when its owner next moves cards out of
    that hand face down (a convoy, a bribe the seat does not see): ``loose[s]`` counts those,
    and ``reach[s]`` lists the places where they may be since (the owner's hand and warehouse,
    the warehouse of an Inspector who seized its convoy or took its bribe).
    """

    def __init__(self, n: int, seat: int) -> None:
        self.n, self.seat = n, seat
        self.hand = [[0] * FACES for _ in range(n)]
        self.warehouse = [[0] * FACES for _ in range(n)]
        self.loose = [[0] * FACES for _ in range(n)]
        self.reach: list[set[int]] = [{s, n + s} for s in range(n)]  # places: hand s is s, warehouse s is n + s
        for s in range(n):
            if s != seat:  # Setup 1: a Captain and a Major in every hand
                self.hand[s][CAPTAIN] = self.hand[s][MAJOR] = 1
        # The sizes the events imply, to check that the history is the whole game's.
        self.hand_size = [STARTING_DEAL + 2] * n
        self.warehouse_size = [0] * n
        self.pile_size = DECK_SIZE[n >= 5] - STARTING_DEAL * n - MARKET_SIZE

    def seen_leaving(self, s: int, face: int) -> None:
        """A card of ``face`` left ``s``'s hand face up (or for this seat's eyes)."""
        if s == self.seat:
            return
        if self.hand[s][face]:
            self.hand[s][face] -= 1
        elif self.loose[s][face]:  # it may have been one of the loose ones: forget one
            self.loose[s][face] -= 1

    def hidden_move(self, s: int) -> None:
        """``s`` moves cards out of its hand face down: what was known of its hand is loose."""
        if s != self.seat:
            self.loose[s] = [a + b for a, b in zip(self.loose[s], self.hand[s], strict=True)]
            self.hand[s] = [0] * FACES

    def to_hand(self, s: int, faces: list[int]) -> None:
        self.hand_size[s] += len(faces)
        if s != self.seat:
            for face in faces:
                self.hand[s][face] += 1

    def to_warehouse(self, s: int, faces: list[int], hidden: int = 0) -> None:
        """``faces`` known, and ``hidden`` unknown cards, go into ``s``'s warehouse."""
        self.warehouse_size[s] += len(faces) + hidden
        if s != self.seat:
            for face in faces:
                self.warehouse[s][face] += 1


def _read_history(view: View, history: list[dict[str, Any]], settings: ProhisSettings) -> _Facts | None:
    """The facts of a seat's whole history, or None if the history is not the whole game's (its
    counts do not lead to the view's)."""
    n, seat = view["num_players"], view["seat"]
    facts = _Facts(n, seat)
    face = CARDS.index
    claims: list[tuple[int, int]] = []
    smuggler = inspector = prohi = -1
    convoy: list[int] | None = None  # the convoy's faces, if this seat knows them
    revealed: list[int] = []
    count = bribe_count = 0
    bribe: list[int] | None = None
    for event in history:
        kind = event["type"]
        if kind == "take":
            facts.to_hand(event["seat"], [face[event["card"]]])
        elif kind == "refill":
            facts.pile_size -= 1
        elif kind == "pile":
            facts.pile_size -= 1
            facts.hand_size[event["seat"]] += 1  # a card this seat may not know, if another's
        elif kind == "convoy":
            smuggler, count = event["seat"], event["count"]
            facts.hand_size[smuggler] -= count
            convoy = [face[c] for c in event["cards"]] if "cards" in event else None
            revealed, claims = [], []
            facts.hidden_move(smuggler)
        elif kind == "claim":
            claims.append((event["seat"], face[event["rank"]]))
            facts.hand_size[event["seat"]] -= 1
            facts.seen_leaving(event["seat"], face[event["rank"]])
        elif kind == "inspector":
            inspector, prohi = event["seat"], face[event["rank"]]
            for s, f in claims:
                if s != inspector:
                    facts.to_hand(s, [f])
        elif kind == "bribe":
            bribe_count = event["count"]
            facts.hand_size[smuggler] -= bribe_count
            bribe = [face[c] for c in event["cards"]] if "cards" in event else None
            if bribe is None:
                facts.hidden_move(smuggler)
            else:
                for f in bribe:
                    facts.seen_leaving(smuggler, f)
        elif kind == "accept":
            facts.to_hand(inspector, [prohi])
            facts.to_warehouse(inspector, bribe or [], 0 if bribe is not None else bribe_count)
            if bribe is None:
                facts.reach[smuggler].add(n + inspector)
        elif kind == "reject":
            if bribe is None:
                facts.hand_size[smuggler] += bribe_count
            else:
                facts.to_hand(smuggler, bribe)
        elif kind == "flip":
            revealed.append(face[event["card"]])
            facts.seen_leaving(smuggler, face[event["card"]])
        elif kind == "outcome":
            outcome = event["outcome"]
            if outcome == "seized":
                if convoy is not None:  # this seat's own convoy: it knows every card
                    facts.to_warehouse(inspector, convoy)
                else:
                    facts.to_warehouse(inspector, revealed, count - len(revealed))
                    if count == len(revealed):
                        pass  # every card was seen
                    elif inspector == seat:  # its warehouse shows the whole convoy: forget the loose ones
                        facts.loose[smuggler] = [0] * FACES
                    else:
                        facts.reach[smuggler].add(n + inspector)
                if settings.seizure_takes_prohi:
                    facts.to_warehouse(inspector, [prohi])
                else:
                    facts.to_hand(inspector, [prohi])
            else:
                facts.to_warehouse(smuggler, revealed, count - len(revealed))
                if outcome == "cleared":
                    facts.to_hand(smuggler, [prohi])
                elif outcome == "waived":
                    if settings.reclaim_on_waive:
                        facts.to_hand(inspector, [prohi])
                    else:
                        facts.to_warehouse(inspector, [prohi])
            smuggler = inspector = prohi = -1
            convoy, bribe, claims = None, None, []
    # A convoy being loaded, or a bribe being made up, left the Smuggler's hand unannounced.
    active = view["active"]
    if view["phase"] == "convoy":
        facts.hand_size[active] -= len(view["convoy"])
        facts.hidden_move(active)
    elif view["phase"] == "bribe" and view["bribe_card_count"]:
        facts.hand_size[active] -= view["bribe_card_count"]
        facts.hidden_move(active)
    players = view["players"]
    if (facts.pile_size != view["pile_size"]
            or facts.hand_size != [p["hand_size"] for p in players]
            or facts.warehouse_size != [p["warehouse_size"] for p in players]):
        return None
    return facts


def sampler(view: View, history: list[dict[str, Any]], settings: Settings) -> Callable[[random.Random], ProhisState]:
    """Draws states consistent with ``view`` and ``history`` (see docs/games/prohis.md, "Sampling
    a state"): the known cards go where they are known to be, once, in a template; each draw
    clones it and deals the unknown ones into the hidden places at random."""
    assert isinstance(settings, ProhisSettings)
    facts = _read_history(view, history, settings)
    try:
        return _Sampler(view, history, settings, facts).draw
    except _Inconsistent:
        if facts is None:
            raise ValueError("the view is not one of a game of Prohis") from None
        return _Sampler(view, history, settings, None).draw  # the view alone, then


class _Inconsistent(Exception):
    """The facts read from a history do not fit the view's cards."""


class _Sampler:
    """What a drawn state needs, worked out once per decision: a template state holding every
    known card, the places with hidden cards and how many, the loose cards and where each may go,
    and the ids of the unknown cards."""

    def __init__(self, view: View, history: list[dict[str, Any]], settings: ProhisSettings,
                 facts: _Facts | None) -> None:
        n, seat = view["num_players"], view["seat"]
        players, face = view["players"], CARDS.index
        free = [CARDS.ids(name) for name in NAMES]  # ids not placed yet, by face

        def take(f: int) -> int:
            if not free[f]:
                raise _Inconsistent(NAMES[f])
            return free[f].pop()

        t = _new_state()
        t.game, t.num_players, t.seed, t.settings = GAME, n, 0, settings
        t.rng = random.Random(0)  # never drawn from after setup (see clone)
        t.log = restore_log(seat, view, history, n)
        t._legal = None
        t.phase, t.active, t.to_act = PHASES.index(view["phase"]), view["active"], view["to_act"]
        t.first_pick, t.end_triggered = view["first_pick"], view["end_triggered"]
        t.final_turns = list(view["final_turns"])
        t.passed = [p["passed"] for p in players]
        t.market = [take(face[c]) for c in view["market"]]
        t.pile = []
        t.hands = [[] for _ in range(n)]
        t.warehouses = [[] for _ in range(n)]
        t.hands[seat] = [take(face[c]) for c in view["hand"]]
        t.warehouses[seat] = [take(face[c]) for c in view["warehouse"]]
        t.claims = [(c["seat"], take(face[c["rank"]])) for c in view["claims"]]
        t.inspector, t.offers, t.flips_left = view["inspector"], view["offers"], view["flips_left"]
        t.revealed = list(view["revealed"])
        t.convoy = [-1 if c == UNKNOWN else take(face[c]) for c in view["convoy"]]
        self.convoy_holes = [i for i, c in enumerate(t.convoy) if c == -1]
        bribe_hidden = 0 if view["bribe"] else view["bribe_card_count"]
        t.bribe = [take(face[c]) for c in view["bribe"]]
        t.claim_order = []
        if t.phase == CLAIM:  # the seats after this claimant, clockwise to the Smuggler
            order = [s for s in ((t.active + k) % n for k in range(1, n)) if not t.passed[s]]
            t.claim_order = order[order.index(t.to_act) + 1:]
        # Setup 1 and the 3-4 player removal: the unused Captains and Majors are known.
        t.removed = [take(CAPTAIN) for _ in range(6 - n)] + [take(MAJOR) for _ in range(6 - n)]
        # Places with hidden cards: hand s is s, warehouse s is n + s, then the convoy, the
        # bribe and the pile; and how many hidden cards each holds.
        convoy_place, bribe_place, pile_place = 2 * n, 2 * n + 1, 2 * n + 2
        holes = [0] * (2 * n + 3)
        loose: list[tuple[int, tuple[int, ...]]] = []  # (card id, the places it may be in)
        for s in range(n):
            if s == seat:
                continue
            known_hand = facts.hand[s] if facts else [0] * FACES
            known_warehouse = facts.warehouse[s] if facts else [0] * FACES
            for f in range(FACES):
                t.hands[s] += [take(f) for _ in range(known_hand[f])]
                t.warehouses[s] += [take(f) for _ in range(known_warehouse[f])]
            holes[s] = players[s]["hand_size"] - len(t.hands[s])
            holes[n + s] = players[s]["warehouse_size"] - len(t.warehouses[s])
        holes[convoy_place], holes[bribe_place] = len(self.convoy_holes), bribe_hidden
        holes[pile_place] = view["pile_size"]
        if min(holes) < 0:
            raise _Inconsistent("more cards known in a place than it holds")
        for s in range(n):
            if s == seat or facts is None:
                continue
            reach = set(facts.reach[s])
            if s == t.active:  # its convoy, or its bribe, may hold them
                reach |= {convoy_place, bribe_place}
            places = tuple(p for p in sorted(reach) if holes[p])
            for f in range(FACES):
                loose += [(take(f), places) for _ in range(facts.loose[s][f])]
        # Captains and Majors unaccounted for are in some hidden place, never the pile.
        anywhere = tuple(p for p in range(pile_place) if holes[p])
        for f in (CAPTAIN, MAJOR):
            loose += [(take(f), anywhere) for _ in range(len(free[f]))]
        loose.sort(key=lambda card: len(card[1]))  # the most constrained first
        # With 3 or 4 players, goods and Lieutenants were removed: any of the unknown ones.
        if n <= 4:
            for f, removed in REMOVED_FOR_SMALL_GAMES:
                t.removed += [take(f) for _ in range(removed)]
        self.pool = [c for ids in free for c in ids]
        if len(self.pool) + len(loose) != sum(holes):
            raise _Inconsistent("the unknown cards do not fill the hidden places")
        self.template, self.holes, self.loose = t, holes, loose
        self.with_history = facts is not None  # else the view alone
        self.fallback = self._assign_loose()  # a placement of the loose cards that fits
        if self.fallback is None:
            raise _Inconsistent("the loose cards do not fit where they may be")
        self.others = [s for s in range(n) if s != seat]

    def _assign_loose(self) -> list[int] | None:
        """A place for each loose card, among those it may be in, that fits them all: a
        bipartite matching of cards to hidden slots, by augmenting paths. One exists whenever
        the facts are true. None: none does."""
        room = self.holes
        slots: dict[int, list[int]] = {p: [] for p in range(len(room))}  # place -> its cards' indices
        placed = [-1] * len(self.loose)

        def augment(i: int, seen: set[int]) -> bool:
            for p in self.loose[i][1]:
                if p in seen:
                    continue
                seen.add(p)
                if len(slots[p]) < room[p]:
                    slots[p].append(i)
                    placed[i] = p
                    return True
                for j in slots[p]:
                    if augment(j, seen):  # j moves elsewhere, i takes its slot
                        slots[p].remove(j)
                        slots[p].append(i)
                        placed[i] = p
                        return True
            return False

        return placed if all(augment(i, set()) for i in range(len(self.loose))) else None

    def draw(self, rng: random.Random) -> ProhisState:
        state = self.template.clone()
        room = self.holes[:]
        cards: list[list[int]] = [[] for _ in room]
        # Each loose card into a hidden slot of its places, uniformly, while there is room.
        rand = rng.random
        for card, places in self.loose:
            if len(places) == 2:  # the usual case (a hand and a warehouse), made quick
                a, b = places
                if room[a] + room[b]:
                    p = a if rand() * (room[a] + room[b]) < room[a] else b
                    room[p] -= 1
                    cards[p].append(card)
                    continue
            total = 0
            for p in places:
                total += room[p]
            if not total:  # the choices so far left no room for this one: a placement that fits
                room = self.holes[:]
                cards = [[] for _ in room]
                for (card, _), p in zip(self.loose, self.fallback, strict=True):
                    cards[p].append(card)
                    room[p] -= 1
                break
            r = int(rand() * total)
            for p in places:
                r -= room[p]
                if r < 0:
                    break
            room[p] -= 1
            cards[p].append(card)
        # The unknown cards, shuffled (by sorting on random keys: faster than random.shuffle).
        pool = self.pool
        keys = array("I", rng.randbytes(_KEY_BYTES * len(pool)))
        start = 0
        shuffled_pool = [pool[i] for i in sorted(range(len(pool)), key=keys.__getitem__)]
        for p, k in enumerate(room):
            if k:
                cards[p] += shuffled_pool[start:start + k]
                start += k
        n = state.num_players
        for s in self.others:
            state.hands[s] += cards[s]
            state.warehouses[s] += cards[n + s]
        if self.convoy_holes:
            hidden = cards[2 * n]
            rng.shuffle(hidden)
            for i, card in zip(self.convoy_holes, hidden, strict=True):
                state.convoy[i] = card
        state.bribe += cards[2 * n + 1]
        state.pile = cards[2 * n + 2]
        return state

# -- readable logs -------------------------------------------------------------------------
def describe_event(event: dict, name: Callable[[int], str]) -> str | None:
    """One line of English for a game log; ``name(seat)`` labels a seat. None: not worth a line."""
    kind, who = event["type"], name(event["seat"]) if "seat" in event else ""
    card = event.get("card")
    match kind:
        case "turn":
            return f"-- {who}'s turn"
        case "take":
            return f"{who} takes the {card} from market slot {event['position']}"
        case "refill":
            return f"   market slot {event['position']} refilled: {card}"
        case "pile":
            return f"{who} draws from the pile" + (f" ({card})" if card else "")
        case "pass":
            return f"{who} passes and leaves the game"
        case "convoy":
            cards = event.get("cards")
            return f"{who} runs a convoy of {event['count']}" + (f": {', '.join(cards)}" if cards else "")
        case "claim":
            return f"   {who} claims with a {event['rank']}"
        case "decline":
            return f"   {who} declines"
        case "inspector":
            return f"   {who} is the Inspector ({event['rank']})"
        case "bribe":
            cards = event.get("cards")
            return f"   {who} offers a bribe of {event['count']} card(s)" + (
                f": {', '.join(cards)}" if cards else ""
            )
        case "silent":
            return f"   {who} stays silent"
        case "accept" | "reject" | "waive" | "inspect":
            return f"   {who} {kind}s" if kind != "waive" else f"   {who} waives the inspection"
        case "flip":
            return f"   {who} turns up position {event['position']}: {card}"
        case "outcome":
            return f"   convoy {OUTCOME_TEXT[event['outcome']]}"
        case "end_triggered":
            return "** the pile is empty and the market short: everyone takes one last turn"
        case "game_over":
            return "** game over"
    return None


OUTCOME_TEXT = {
    "unchallenged": "passes unchallenged into the smuggler's warehouse",
    "bribed": "passes: the bribe was taken",
    "waived": "passes: the Inspector waived, banking their Prohi",
    "cleared": "passes inspection; the smuggler takes the Inspector's Prohi",
    "seized": "seized by the Inspector",
}


GAME = GameSpec(
    name="prohis",
    title="Prohis",
    min_players=3,
    max_players=6,
    settings=ProhisSettings,
    state=ProhisState,
    version="1.2.0",
    cards=CARDS,
    score_unit="$",
    describe_event=describe_event,
    # A failed seat leaves the game at its next turn and otherwise stays out of the way.
    fallback_preference=(PASS, DECLINE, SILENT, DONE, REJECT, WAIVE_ACT),
    sampler=sampler,
)
