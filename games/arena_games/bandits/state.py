"""The rules of Bandits in play (``docs/games/bandits.md``): the state, each kind of decision by its
pair ``_legal_<phase>`` and ``_apply_<phase>`` in the order of the rules, fights, stashes, refills
and rounds, the scores and the view of one seat. The package's docstring tables the phases and
their actions."""

from __future__ import annotations

import random

from ..cards import deal, shuffled
from ..core import DONE, Action, BadSettings, GameSpec, PhasedState, View
from ..views import UNKNOWN, seat_view
from .components import (
    ATTACK,
    ATTACKS,
    BACKFIRE,
    BACKFIRE_ACT,
    BACKFIRED,
    BAGS,
    BOOBY_TRAP,
    DEFEND,
    DRAW,
    GOLD,
    GUN_CARD,
    GUN_FACES,
    GUNS,
    HAND_SIZE,
    KIND,
    LOOT_FACES,
    NAMES,
    NOT_LOOT,
    PARSED,
    PHASES,
    RAID_TAKE,
    RAIDS,
    STAR_CARD,
    STAR_FACES,
    STARS,
    STASH,
    STASH_CARD,
    STASH_MIN,
    TRACKER,
    TURN,
    VALUE,
    WINNING_TOTALS,
    BanditsSettings,
    make_deck,
)


class BanditsState(PhasedState):
    """A game of Bandits. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: BanditsSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: BanditsSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n, rng = num_players, self.rng
        self._rng_shared = False  # with a clone: see clone()
        self.winning_total = settings.winning_total or WINNING_TOTALS[n]

        # Setup: shuffle the deck, deal 6 each; the rest is the draw pile.
        self.cards, self.face, self.card_name = make_deck(settings.deck_counts())
        deck = list(range(len(self.cards)))
        self.removed: list[int] = []  # out of the game: the Backfires, if that rule is off
        if not settings.backfire:
            self.removed = self.cards.ids("backfire")
            deck = [c for c in deck if self.face[c] != BACKFIRE]
        if len(deck) <= HAND_SIZE * n:
            raise BadSettings(f"the deck settings give {len(deck)} cards in play; {n} players need more than "
                              f"{HAND_SIZE * n}: {HAND_SIZE} each and a draw pile")
        self.pile: list[int] = shuffled(rng, deck)  # the top card is the last one
        self.hands: list[list[int]] = [deal(self.pile, HAND_SIZE) for _ in range(n)]
        self.hideouts: list[list[int]] = [[] for _ in range(n)]
        self.boneyard: list[int] = []
        self.totals = [0] * n
        self.round = 1
        first = rng.randrange(n) if settings.first_player == "random" else 0

        self.phase = TURN
        self.active = first  # whose turn it is; the attacker during a fight
        self.to_act = first  # who decides: the defender during a defence
        # The fight in progress: the attacker's cards (a Tracker first, in a raid), the
        # defender's stars or Backfire, and the attacker's stars after a Backfire.
        self.defender = -1
        self.raid = False
        self.attack: list[int] = []
        self.defence: list[int] = []
        self.counter: list[int] = []
        # The stash in progress, and its kind once a loot card fixes it.
        self.stash: list[int] = []
        self.stash_kind = NOT_LOOT
        self.log.add({"type": "new_round", "round": 1, "pile_size": len(self.pile)})
        self.log.add({"type": "turn", "seat": first})

    def clone(self) -> BanditsState:
        """An independent copy, field by field: the card lists are copied; the spec, the
        settings, the deck tables, ``removed`` (never changed after the deal), the cached legal
        actions (replaced, never changed, by :meth:`apply`) and the logged events (read-only)
        are shared. So is the random source, until either state needs it (:meth:`_chance`):
        most simulated games end before a raid or a new round does."""
        new = object.__new__(type(self))
        fields = new.__dict__
        fields.update(self.__dict__)
        self._rng_shared = fields["_rng_shared"] = True
        fields["log"] = self.log.copy()
        fields["pile"] = self.pile[:]
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["hideouts"] = [hideout[:] for hideout in self.hideouts]
        fields["boneyard"] = self.boneyard[:]
        fields["totals"] = self.totals[:]
        fields["attack"] = self.attack[:]
        fields["defence"] = self.defence[:]
        fields["counter"] = self.counter[:]
        fields["stash"] = self.stash[:]
        return new

    def _chance(self) -> random.Random:
        """The game's random source, made this state's own first if a clone shares it."""
        if self._rng_shared:
            rng = random.Random.__new__(random.Random)
            rng.setstate(self.rng.getstate())
            self.rng, self._rng_shared = rng, False
        return self.rng

    # -- cards ---------------------------------------------------------------------------
    def _sorted_names(self, cards: list[int]) -> list[str]:
        """Face names of ``cards`` in face order, as views list them (never ids)."""
        return list(map(self.card_name.__getitem__, sorted(cards)))

    def _names(self, cards: list[int]) -> list[str]:
        """Face names of ``cards`` in their own order (cards played in a fight)."""
        return list(map(self.card_name.__getitem__, cards))

    def _guns(self, cards: list[int]) -> int:
        face_of = self.face
        return sum(GUNS[face_of[c]] for c in cards)

    def _stars(self, cards: list[int]) -> int:
        face_of = self.face
        return sum(STARS[face_of[c]] for c in cards)

    # -- decisions, phase by phase, in the order of the rules -------------------------------
    # A turn: 1. draw, 2. attack a hand, 3. stash, or 4. raid a hideout ---------------------
    def _legal_turn(self) -> list[Action]:
        active = self.active
        counts = self.cards.counts(self.hands[active])
        acts = [DRAW]  # the pile is never empty at a turn: its last card ends the round
        if any(counts[f] for f in GUN_FACES):
            acts += ATTACKS[self.num_players][active]
            if counts[TRACKER]:
                acts += RAIDS[self.num_players][active]
        kinds = self._stashable_kinds(counts)
        acts += [STASH_CARD[f] for kind in kinds for f in LOOT_FACES[kind] if counts[f]]
        if kinds and counts[BOOBY_TRAP]:
            acts.append(STASH_CARD[BOOBY_TRAP])
        return acts

    @staticmethod
    def _stashable_kinds(counts: list[int]) -> tuple[int, ...]:
        """The loot kinds (GOLD, BAGS) of which ``counts`` holds enough for a stash."""
        return tuple(kind for kind in (GOLD, BAGS)
                     if sum(counts[f] for f in LOOT_FACES[kind]) >= STASH_MIN)

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == DRAW:
            self._draw(seat)
        elif verb == "stash":
            self.phase = STASH
            self._stash_card(seat, arg)
        else:
            self._declare(seat, arg, raid=verb == "raid")

    # 1. Draw ------------------------------------------------------------------------------
    def _draw(self, seat: int) -> None:
        card = self.pile.pop()
        self.hands[seat].append(card)
        self.log.add({"type": "draw", "seat": seat}, {"card": self.card_name[card]}, to=(seat,))
        self._end_turn(())

    # 2 and 4. Attack a hand, raid a hideout ---------------------------------------------------
    def _declare(self, seat: int, target: int, raid: bool) -> None:
        self.defender, self.raid = target, raid
        if raid:
            self.attack.append(self.cards.take_face(self.hands[seat], TRACKER))
        self.log.add({"type": "raid" if raid else "attack", "seat": seat, "target": target})
        self.phase = ATTACK

    def _legal_attack(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.active])
        acts = [GUN_CARD[f] for f in GUN_FACES if counts[f]]
        if self._guns(self.attack):  # at least one gun card is down
            acts.append(DONE)
        return acts

    def _apply_attack(self, seat: int, verb: str, face: int) -> None:
        if verb == "gun":
            self._play(self.attack, seat, face, "gun")
        else:
            self.phase, self.to_act = DEFEND, self.defender
            self.log.add({"type": "guns", "seat": seat, "guns": self._guns(self.attack)})

    def _play(self, pile: list[int], seat: int, face: int, kind: str) -> None:
        """One gun or star card from ``seat``'s hand, face up into the fight."""
        pile.append(self.cards.take_face(self.hands[seat], face))
        self.log.add({"type": kind, "seat": seat, "card": NAMES[face]})

    # Fights ---------------------------------------------------------------------------------
    def _legal_defend(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.defender])
        acts = [STAR_CARD[f] for f in STAR_FACES if counts[f]]
        if counts[BACKFIRE] and not self.defence:
            acts.append(BACKFIRE_ACT)  # instead of stars, and never against a Backfire
        acts.append(DONE)
        return acts

    def _apply_defend(self, seat: int, verb: str, face: int) -> None:
        if verb == "star":
            self._play(self.defence, seat, face, "star")
        elif verb == BACKFIRE_ACT:
            self.defence.append(self.cards.take_face(self.hands[seat], BACKFIRE))
            self.log.add({"type": "backfire", "seat": seat})
            self.phase, self.to_act = BACKFIRED, self.active
        else:
            self._settle()

    def _legal_backfire(self) -> list[Action]:
        """After a Backfire the attacker defends against their own guns."""
        counts = self.cards.counts(self.hands[self.active])
        return [STAR_CARD[f] for f in STAR_FACES if counts[f]] + [DONE]

    def _apply_backfire(self, seat: int, verb: str, face: int) -> None:
        if verb == "star":
            self._play(self.counter, seat, face, "star")
        else:
            self._settle()

    def _settle(self) -> None:
        attacker, defender = self.active, self.defender
        guns = self._guns(self.attack)
        if self.phase == BACKFIRED:  # roles turned: the attacker defended
            defending, claimant, stars = attacker, defender, self._stars(self.counter)
        else:
            defending, claimant, stars = defender, attacker, self._stars(self.defence)
        if stars >= guns:
            self.log.add({"type": "defended", "seat": defending, "guns": guns, "stars": stars})
        else:
            self.log.add({"type": "beaten", "seat": defending, "guns": guns, "stars": stars})
            if self.raid:
                self._rob_hideout(claimant, defending)
            else:
                self._take_hand(claimant, defending)
        # Every card played in the fight goes to the Boneyard.
        self.boneyard += self.attack + self.defence + self.counter
        self.attack.clear()
        self.defence.clear()
        self.counter.clear()
        self.defender, self.raid = -1, False
        self._end_turn((attacker, defender))

    def _take_hand(self, winner: int, loser: int) -> None:
        """A hand attack lost: the loser gives every card left in hand to the winner."""
        taken = list(self.hands[loser])
        self.hands[loser].clear()
        self.hands[winner] += taken
        self._log_transfer("take_hand", winner, loser, taken)

    def _rob_hideout(self, winner: int, loser: int) -> None:
        """A raid lost: 6 random cards of the loser's hideout go into the winner's, unless
        the hideout is booby-trapped."""
        hideout = self.hideouts[loser]
        if self.settings.booby_trap_goes_off:
            for i, c in enumerate(hideout):
                if self.face[c] == BOOBY_TRAP:
                    self.boneyard.append(hideout.pop(i))
                    self.log.add({"type": "trap", "seat": winner, "target": loser})
                    return
        self._chance().shuffle(hideout)  # a hideout is an unordered heap: take from a random order
        taken = deal(hideout, RAID_TAKE)
        self.hideouts[winner] += taken
        self._log_transfer("take_hideout", winner, loser, taken)

    def _log_transfer(self, kind: str, winner: int, loser: int, taken: list[int]) -> None:
        # Only the two players involved see the cards; everyone sees the count.
        secret = {"cards": self._sorted_names(taken)} if taken else None
        self.log.add({"type": kind, "seat": winner, "target": loser, "count": len(taken)},
                     secret, to=(winner, loser))

    # 3. Stash -------------------------------------------------------------------------------
    def _legal_stash(self) -> list[Action]:
        counts = self.cards.counts(self.hands[self.active])
        kinds = (self.stash_kind,) if self.stash_kind != NOT_LOOT else self._stashable_kinds(counts)
        acts = [STASH_CARD[f] for kind in kinds for f in LOOT_FACES[kind] if counts[f]]
        if counts[BOOBY_TRAP]:
            acts.append(STASH_CARD[BOOBY_TRAP])
        if self.stash_kind != NOT_LOOT and len(self.stash) - self._trap_in_stash() >= STASH_MIN:
            acts.append(DONE)
        return acts

    def _apply_stash(self, seat: int, verb: str, face: int) -> None:
        if verb == "stash":
            self._stash_card(seat, face)
        else:
            self._close_stash(seat)

    def _stash_card(self, seat: int, face: int) -> None:
        self.stash.append(self.cards.take_face(self.hands[seat], face))
        if KIND[face] != NOT_LOOT:
            self.stash_kind = KIND[face]

    def _close_stash(self, seat: int) -> None:
        self.log.add({"type": "stash", "seat": seat, "count": len(self.stash)},
                     {"cards": self._sorted_names(self.stash)}, to=(seat,))
        self.hideouts[seat] += self.stash
        self.stash.clear()
        self.stash_kind = NOT_LOOT
        self._end_turn((seat,))

    def _trap_in_stash(self) -> int:
        return sum(1 for c in self.stash if self.face[c] == BOOBY_TRAP)

    # Hands, rounds, the end ---------------------------------------------------------------
    def _end_turn(self, refills: tuple[int, ...]) -> None:
        """Refills ``refills`` in order, ends the round whenever the pile runs out, and
        passes the turn on."""
        order = refills
        while True:
            for seat in order:
                if not self.pile:
                    break
                self._refill(seat)
            if self.pile:
                break
            # The last card of the pile has been taken: the round ends at once.
            if not self._end_round():
                self._game_over()
                return
            n = self.num_players
            order = tuple((self.active + k) % n for k in range(n))
        self.active = self.to_act = (self.active + 1) % self.num_players
        self.phase = TURN
        self.log.add({"type": "turn", "seat": self.active})

    def _refill(self, seat: int) -> None:
        hand = self.hands[seat]
        if len(hand) < HAND_SIZE:
            drawn = deal(self.pile, HAND_SIZE - len(hand))
            hand += drawn
            self.log.add({"type": "refill", "seat": seat, "count": len(drawn)},
                         {"cards": self._sorted_names(drawn)}, to=(seat,))

    def _end_round(self) -> bool:
        """Scores the round and starts the next one; False when the game ends instead."""
        round_scores = [sum(VALUE[self.face[c]] for c in hideout) for hideout in self.hideouts]
        self.totals = [t + r for t, r in zip(self.totals, round_scores, strict=True)]
        self.log.add({"type": "round_over", "round": self.round, "round_scores": round_scores,
                      "totals": list(self.totals)})
        best = max(self.totals)
        if best >= self.winning_total and self.totals.count(best) == 1:
            return False  # enough, and alone at the top: a tie plays another round
        if self.round >= self.settings.max_rounds:
            return False
        # The Boneyard and every hideout are shuffled together into the new pile.
        heap = self.boneyard + [c for hideout in self.hideouts for c in hideout]
        self.boneyard.clear()
        for hideout in self.hideouts:
            hideout.clear()
        self.pile += shuffled(self._chance(), heap)
        if len(self.pile) < self.settings.min_new_pile:
            return False
        self.round += 1
        self.log.add({"type": "new_round", "round": self.round, "pile_size": len(self.pile)})
        return True

    # -- scoring -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Each seat's total over the rounds played (loot in hideouts counts at a round's end)."""
        return list(self.totals)

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        phase, active, hands, hideouts = self.phase, self.active, self.hands, self.hideouts
        stash, removed = self.stash, self.removed
        v = seat_view(self, seat, PHASES[phase], self.current_player(), self.log)
        v.update({
            "active": active,
            "round": self.round,
            "hand": self._sorted_names(hands[seat]),
            "hideout": self._sorted_names(hideouts[seat]),
            "players": [{"hand_size": len(hand), "hideout_size": len(hideout), "total": total}
                        for hand, hideout, total in zip(hands, hideouts, self.totals, strict=True)],
            "pile_size": len(self.pile),
            "boneyard": self._sorted_names(self.boneyard),
            "removed": self._sorted_names(removed) if removed else [],
            # A stash goes face down: only the stasher sees its cards.
            "stash": self._sorted_names(stash) if seat == active else [UNKNOWN] * len(stash),
            "winning_total": self.winning_total,
            "max_rounds": self.settings.max_rounds,
        })
        if phase in (ATTACK, DEFEND, BACKFIRED):
            # Cards played in a fight are face up, in the order played.
            attack, defence, counter = self.attack, self.defence, self.counter
            v.update({
                "attacker": active, "defender": self.defender, "raid": self.raid,
                "attack": self._names(attack), "guns": self._guns(attack),
                "defence": self._names(defence), "stars": self._stars(defence),
                "counter": self._names(counter), "counter_stars": self._stars(counter),
            })
        else:
            v.update({"attacker": -1, "defender": -1, "raid": False, "attack": [], "guns": 0,
                      "defence": [], "stars": 0, "counter": [], "counter_stars": 0})
        return v

    def card_places(self) -> dict[str, list[int]]:
        places = {"pile": self.pile, "boneyard": self.boneyard, "removed": self.removed,
                  "attack": self.attack, "defence": self.defence, "counter": self.counter,
                  "stash": self.stash}
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
            places[f"hideout{s}"] = self.hideouts[s]
        return places
