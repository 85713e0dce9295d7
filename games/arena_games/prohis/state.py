"""The rules of Prohis in play (``docs/games/prohis.md``): the state, each kind of decision by its
pair ``_legal_<phase>`` and ``_apply_<phase>`` in the order of the rules, the scores and the view
of one seat. The package's docstring tables the phases and their actions."""

from __future__ import annotations

from ..cards import deal, shuffled
from ..core import DONE, Action, GameSpec, PhasedState, View, ranks_from_scores
from ..views import UNKNOWN, seat_view
from .components import (
    ACCEPT,
    BRIBE,
    BRIBE_CARD,
    CARDS,
    CLAIM,
    CLAIM_CARD,
    CONVOY,
    CONVOY_CARD,
    CONVOY_MAX,
    CONVOY_MIN,
    DECLINE,
    DRAW,
    FACE,
    FLIP,
    FLIP_AT,
    FLIPS,
    HAND_VALUE,
    ILLEGAL,
    INSPECT,
    LEGAL,
    LIEUTENANT,
    MARKET_SIZE,
    MAX_HAND_TO_DRAW,
    NAMES,
    PARSED,
    PASS,
    PHASES,
    PILE,
    REJECT,
    REMOVED_FOR_SMALL_GAMES,
    RESPOND,
    SILENT,
    STARTING_DEAL,
    TAKE,
    TURN,
    WAIVE,
    WAIVE_ACT,
    WAREHOUSE_VALUE,
    ProhisSettings,
)


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
        new = ProhisState.__new__(ProhisState)
        new.game, new.num_players, new.seed, new.settings = self.game, self.num_players, self.seed, self.settings
        new.rng, new.removed = self.rng, self.removed[:]
        new.log = self.log.copy()
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

