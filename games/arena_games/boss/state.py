"""The rules of The Boss in play (``docs/games/boss.md``): the state, each kind of decision by its
pair ``_legal_<phase>`` and ``_apply_<phase>`` in the order of the rules, the resolution of a
round, the scores and the view of one seat. The package's docstring tables the phases and their
actions."""

from __future__ import annotations

import random
from operator import add, itemgetter
from typing import Any

from ..cards import deal, shuffled
from ..core import DONE, TERMINAL, Action, BadSettings, GameSpec, PhasedState, View, ranks_from_scores
from ..views import UNKNOWN, seat_view
from .components import (
    BACK,
    BADGES_TO_END,
    BANISHED,
    BIG,
    BIG_CUBES,
    BOSSES,
    CARDS,
    CHICAGO,
    CINCINNATI,
    CITIES,
    CITY_CARDS,
    CITY_OF,
    CUBES,
    DOUBLE,
    EFFECTS,
    FACE,
    GOLD,
    HAND_SIZE,
    KIND_OF,
    NAME,
    NONE,
    OVER,
    PARSED,
    PASS,
    PHASES,
    PLACE,
    PLACE_ON,
    PRISON,
    PRISON_ROUNDS,
    REVEAL,
    REVEAL_CARD,
    REVOLVER,
    SILVER,
    SMALL,
    SMALL_CUBES,
    TURN,
    VALUE_OF,
    VALUES,
    BossSettings,
    card_id,
    city_combinations,
    sorted_backs,
)


class BossState(PhasedState):
    """A game of The Boss. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: BossSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: BossSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n, rng = num_players, self.rng
        if settings.first_dealer >= n:
            raise BadSettings(f"setting first_dealer: seat {settings.first_dealer} does not exist "
                              f"with {n} players")

        # Setup 1: the cities in play.
        table = settings.table()
        combos = city_combinations(table, n)
        if settings.cities:
            chosen = tuple(sorted(CITIES.index(c.strip()) for c in settings.cities.split(",")))
            if chosen not in combos:
                raise BadSettings(f"setting cities: {settings.cities!r} does not fit {n} players "
                                  f"({2 * n - 1} cities with {7 * n - 1} cards)")
        elif combos:
            chosen = rng.choice(combos)
        else:
            raise BadSettings(f"setting city_cards: no {2 * n - 1} cities have {7 * n - 1} cards "
                              f"between them, as {n} players need")
        self.cities: tuple[int, ...] = chosen
        in_game = {card_id(c, k) for c in chosen for k in table[c]}
        self.removed: list[int] = [c for c in range(CITY_CARDS) if c not in in_game]
        self.city_cards: tuple[list[str], ...] = tuple(
            [NAME[card_id(c, k)] for k in table[c]] if c in chosen else [] for c in range(len(BOSSES))
        )  # the cards of each city in play: public, shared by every view
        # Setup 2: the boss cards in a row by number, Chicago second.
        self.row: list[int] = [chosen[0], CHICAGO, *chosen[1:]]
        # Setup 3: the police cards, face down (the top card is the last one).
        self.deck: list[int] = shuffled(rng, range(CITY_CARDS, len(CARDS)))
        self.police: list[int] = []
        self.dealer = settings.first_dealer

        # The city cards of a round: one reward per city (in ``cities`` order), the hands,
        # and the cards revealed under each city, in the order they were revealed.
        self.rewards: list[int] = []
        self.rewards_up = False
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.revealed: list[list[int]] = [[] for _ in BOSSES]  # Chicago's stays empty
        self.reward_slot = {city: i for i, city in enumerate(chosen)}  # a city's index in rewards

        # Cubes: in reserve, on each boss (by seat), and out of play.
        self.big = [BIG_CUBES] * n
        self.small = [SMALL_CUBES] * n
        self.big_on: list[list[int]] = [[0] * n for _ in BOSSES]
        self.small_on: list[list[int]] = [[0] * n for _ in BOSSES]
        self.dead = [0] * n
        self.prison: list[list[int]] = [[] for _ in range(n)]  # per jailed cube: rounds to sit out
        self.hospital = [0] * n
        self.banished = [False] * n

        self.points = [0] * n
        self.last_round_points = [0] * n
        self.round = 0
        self.overtime = False
        self.phase = TURN
        self.active = self.to_act = self.dealer
        self.last_turn = False  # the round's last turns have begun
        self.last_turns: list[int] = []  # seats still to take their last turn, in order
        self.turn_revealed = False
        self.placing = -1  # the boss receiving cubes in the current placement
        self.added_big = self.added_small = 0
        # Each seat's and each boss card's part of a view, built when first needed after a change.
        self._player_views: list[dict[str, Any] | None] = [None] * n
        self._boss_views: list[dict[str, Any] | None] = [None] * len(BOSSES)
        self._start_round(sorted(in_game))
        self._settle()

    # -- simulation: a fast clone, whose random source is copied only once it draws ---------
    # A search clones a state per simulation, and most simulations end before the next deal
    # (the only draw from the rng after setup), while copying a random.Random costs more than
    # the rest of a clone. So a clone and its original share the source until one of them
    # draws: that one draws from its own copy (or from a new source, when ``_chance`` is the
    # int seed a determinisation gave it). The shared source itself is then never drawn from.
    _chance: random.Random | int
    _chance_own: bool  # False: shared with a clone, or an int seed

    @property
    def rng(self) -> random.Random:
        chance = self._chance
        if isinstance(chance, random.Random):
            if self._chance_own:
                return chance
            fork = random.Random.__new__(random.Random)
            fork.setstate(chance.getstate())
            chance = fork
        else:
            chance = random.Random(chance)
        self._chance, self._chance_own = chance, True
        return chance

    @rng.setter
    def rng(self, value: random.Random | int) -> None:
        self._chance, self._chance_own = value, type(value) is not int

    def clone(self) -> BossState:
        """Copies the lists a game changes; shares the rest (see :meth:`State.clone`)."""
        new = BossState.__new__(BossState)
        fields = new.__dict__ = self.__dict__.copy()  # shares the spec, settings, tables, the legal list
        self._chance_own = fields["_chance_own"] = False
        fields["log"] = self.log.copy()
        fields["hands"] = [hand[:] for hand in self.hands]
        fields["revealed"] = [cards[:] for cards in self.revealed]
        fields["big_on"] = [cubes[:] for cubes in self.big_on]
        fields["small_on"] = [cubes[:] for cubes in self.small_on]
        fields["prison"] = [jailed[:] for jailed in self.prison]
        for name in ("big", "small", "dead", "hospital", "banished", "points", "last_round_points", "row",
                     "deck", "police", "rewards", "last_turns", "removed", "_player_views", "_boss_views"):
            fields[name] = fields[name][:]
        return new

    # -- applying actions ----------------------------------------------------------------
    def _apply(self, action: Action) -> None:
        seat = self.to_act  # PhasedState's _apply, written out (a call fewer on the hot path) ...
        self.log.mark(seat)
        self._act(seat, action)
        self._settle()  # ... then the forced decisions

    def _settle(self) -> None:
        """Plays every decision that has a single legal action, and caches the next list."""
        while self.phase != OVER:
            legal = self._legal_actions()
            if len(legal) != 1:
                self._legal = legal
                return
            self._act(self.to_act, legal[0])

    # A round 1-2: rewards and the deal -------------------------------------------------
    def _start_round(self, cards: list[int]) -> None:
        """Starts a round with ``cards``, every city card in play, gathered from the table."""
        rng, n = self.rng, self.num_players
        self.round += 1
        self._forget_views()
        # One random card of each city goes face down under its boss; nobody looks. The rest
        # are shuffled again: what is left after taking the first card of each city is not
        # in a uniformly random order (a city's later cards sit towards the end).
        pile = shuffled(rng, cards)
        rewards = []
        for city in self.cities:
            card = next(c for c in pile if CITY_OF[c] == city)
            pile.remove(card)
            rewards.append(card)
        self.rewards[:] = rewards  # in place: card_places() hands out the state's own lists
        self.rewards_up = False
        pile = shuffled(rng, pile)
        self.log.add({"type": "round", "round": self.round, "seat": self.dealer,
                      "position": self.row.index(CHICAGO)}
                     | ({"overtime": True} if self.overtime else {}))
        # Five cards each; the cities of every hand are public, their values are not.
        for k in range(n):
            seat = (self.dealer + k) % n
            hand = self.hands[seat]
            hand += deal(pile, HAND_SIZE)
            self.log.add({"type": "deal", "seat": seat, "cards": sorted_backs(hand)},
                         {"cards": CARDS.sorted_names(hand)}, to=(seat,))
        self.last_turn, self.last_turns = False, []
        self._start_turn(self.dealer)

    # A round 3: turns ----------------------------------------------------------------------
    def _start_turn(self, seat: int) -> None:
        self.phase, self.active, self.to_act = TURN, seat, seat
        self.turn_revealed = False
        self.log.add({"type": "turn", "seat": seat} | ({"last": True} if self.last_turn else {}))

    def _legal_turn(self) -> list[Action]:
        return [REVEAL_CARD[c] for c in sorted(self.hands[self.active])] + self._placements()

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == "reveal":
            self._reveal(seat, arg)
        else:
            self._place(arg)

    def _placements(self) -> list[Action]:
        """``place:<boss>`` for every boss where the active player can complete a placement."""
        seat = self.active
        if not self.big[seat]:  # small cubes only go with a big one
            return []
        reach = self.big[seat] + self.small[seat]
        big_on, small_on = self.big_on, self.small_on
        acts = []
        for boss in self.row:
            bigs, smalls = big_on[boss], small_on[boss]
            # A majority is in reach unless another player has ``reach`` or more cubes above mine.
            if max(map(add, bigs, smalls)) - bigs[seat] - smalls[seat] >= reach:
                continue
            if boss == CINCINNATI and self.banished[seat]:
                continue
            if (boss == CHICAGO and self.settings.chicago_needs_other_boss
                    and sum(map(itemgetter(seat), big_on)) == big_on[CHICAGO][seat]):
                continue  # no cubes elsewhere: every placement has a big cube, so big cubes say where
            acts.append(PLACE_ON[boss])
        return acts

    def _place(self, boss: int) -> None:
        """Starts a placement on ``boss``: cubes are then added one at a time."""
        self.placing, self.added_big, self.added_small = boss, 0, 0
        self.phase = CUBES

    def _legal_cubes(self) -> list[Action]:
        seat, boss = self.active, self.placing
        acts: list[Action] = []
        if self.big[seat]:
            acts.append(BIG)
        if self.small[seat]:
            acts.append(SMALL)
        if self.added_big and self._has_majority(seat, boss):
            acts.append(DONE)
        return acts

    def _apply_cubes(self, seat: int, verb: str, arg: int) -> None:
        if verb == BIG:
            self.big[seat] -= 1
            self.big_on[self.placing][seat] += 1
            self.added_big += 1
            self._player_views[seat] = self._boss_views[self.placing] = None
        elif verb == SMALL:
            self.small[seat] -= 1
            self.small_on[self.placing][seat] += 1
            self.added_small += 1
            self._player_views[seat] = self._boss_views[self.placing] = None
        else:  # done
            self.log.add({"type": "place", "seat": seat, "boss": BOSSES[self.placing],
                          "big": self.added_big, "small": self.added_small})
            self.placing, self.added_big, self.added_small = -1, 0, 0
            if self.turn_revealed:
                self._end_turn()
            else:
                self.phase = REVEAL

    def _has_majority(self, seat: int, boss: int) -> bool:
        totals: list[int] = list(map(add, self.big_on[boss], self.small_on[boss]))
        mine = totals[seat]
        totals[seat] = -1
        return mine > max(totals)

    def _legal_reveal(self) -> list[Action]:
        """The reveal a turn owes after its placement."""
        return [REVEAL_CARD[c] for c in sorted(self.hands[self.active])]

    def _apply_reveal(self, seat: int, verb: str, card: int) -> None:
        self._reveal(seat, card)

    def _reveal(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.revealed[CITY_OF[card]].append(card)
        self._player_views[seat] = self._boss_views[CITY_OF[card]] = None
        self.log.add({"type": "reveal", "seat": seat, "card": NAME[card]})
        if self.phase == REVEAL:  # the placement came first: the turn is over
            self._end_turn()
        else:
            self.turn_revealed, self.phase = True, PLACE

    def _legal_place(self) -> list[Action]:
        """The optional placement after the turn's reveal."""
        acts = self._placements()
        acts.append(PASS)
        return acts

    def _apply_place(self, seat: int, verb: str, boss: int) -> None:
        if verb == "place":
            self._place(boss)
        else:  # pass
            self._end_turn()

    def _end_turn(self) -> None:
        n = self.num_players
        if self.last_turn:
            if self.last_turns:
                self._start_turn(self.last_turns.pop(0))
            else:
                self._resolve()
            return
        if set(map(len, self.hands)) != {1}:
            self._start_turn((self.active + 1) % n)
            return
        # A round 4: the last turn. Flip a police card; most cubes in reserve go first,
        # equal reserves clockwise from the dealer (sorted() is stable).
        if self.deck:
            card = self.deck.pop()
            self.police.append(card)
            self.log.add({"type": "police", "card": NAME[card]})
        clockwise = [(self.dealer + k) % n for k in range(n)]
        order = sorted(clockwise, key=lambda s: -(self.big[s] + self.small[s]))
        self.log.add({"type": "last_turns", "seats": order})
        self.last_turn, self.last_turns = True, order[1:]
        self._start_turn(order[0])

    # A round 5: resolution, left to right --------------------------------------------------
    def _resolve(self) -> None:
        n = self.num_players
        self._forget_views()
        self.last_round_points = [0] * n
        lost = [0] * n  # big cubes this round's penalties took
        new_prison, new_hospital = [0] * n, [0] * n
        self.rewards_up = True
        on_board = [sum(column) for column in zip(*self.big_on, strict=True)]  # big cubes, by seat
        for position, boss in enumerate(self.row):
            totals = list(map(add, self.big_on[boss], self.small_on[boss]))
            top = max(totals)
            controller = totals.index(top) if top else -1  # placements keep the majority strict
            event: dict[str, Any] = {"type": "resolve", "boss": BOSSES[boss]}
            if boss == CHICAGO:
                if controller >= 0:
                    points = self.chicago_sum(position)
                    self._score(controller, points)
                    event |= {"seat": controller, "points": points, "effect": "points"}
                self.log.add(event)
                continue
            card = self.rewards[self.reward_slot[boss]]
            event["card"] = NAME[card]
            if controller >= 0:
                event["seat"] = controller
                kind = KIND_OF[card]
                if kind < len(VALUES):
                    self._score(controller, VALUE_OF[card])
                    event |= {"points": VALUE_OF[card], "effect": "points"}
                elif kind == BANISHED:
                    self.banished[controller] = True
                    event["effect"] = "banished"
                elif self.big[controller] + on_board[controller] - lost[controller] > 0:
                    lost[controller] += 1
                    if kind == REVOLVER:
                        self.dead[controller] += 1
                    elif kind == PRISON:
                        new_prison[controller] += 1
                    else:
                        new_hospital[controller] += 1
                    event["effect"] = EFFECTS[kind]
                else:
                    event["effect"] = "no_cube"  # no big cube left to lose: no effect
            self.log.add(event)

        # A round 6: big cubes come back, small ones are gone; Chicago moves right.
        for s in range(n):
            back = self.hospital[s] + self.prison[s].count(1)
            self.prison[s] = [r - 1 for r in self.prison[s] if r > 1] + [PRISON_ROUNDS] * new_prison[s]
            self.hospital[s] = new_hospital[s]
            self.big[s] += on_board[s] - lost[s] + back
        for cubes in (*self.big_on, *self.small_on):
            cubes[:] = [0] * n
        chicago = self.row.index(CHICAGO)
        if chicago < len(self.row) - 1:
            self.row[chicago], self.row[chicago + 1] = self.row[chicago + 1], CHICAGO
        self.dealer = (self.dealer + 1) % n
        self.log.add({"type": "round_end", "round": self.round, "scores": list(self.points)})

        # A round 7, and the end of the game.
        if self.overtime or self.badges() >= BADGES_TO_END:
            keys = self.rank_keys()
            if not self.overtime and self.settings.overtime and keys.count(max(keys)) > 1:
                self.overtime = True
                self.log.add({"type": "overtime", "seats": [s for s in range(n) if keys[s] == max(keys)]})
                self._start_round(self._gather())
                return
            self.active = TERMINAL
            self._game_over()
            return
        self._start_round(self._gather())

    def _gather(self) -> list[int]:
        """Takes every city card in play off the table, in a fixed order, for the next round."""
        cards = list(self.rewards)
        self.rewards.clear()
        for hand in self.hands:  # empty after the last turns, but for completeness
            cards += hand
            hand.clear()
        for city in self.cities:
            cards += self.revealed[city]
            self.revealed[city].clear()
        return sorted(cards)

    def chicago_sum(self, position: int) -> int:
        """Half the last revealed card under each city left of ``position``, rounded down."""
        total = 0
        for boss in self.row[:position]:
            shown = self.revealed[boss]
            if shown:
                total += VALUE_OF[shown[-1]]  # a penalty counts 0
        return total // 2

    def _score(self, seat: int, points: int) -> None:
        self.points[seat] += points
        self.last_round_points[seat] += points

    def badges(self) -> int:
        """The most badges of one colour among the police cards face up (the double has both)."""
        faces = [FACE[c] for c in self.police]
        double = faces.count(DOUBLE)
        return max(faces.count(GOLD), faces.count(SILVER)) + double

    # -- the end -----------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.points)

    def rank_keys(self) -> list[tuple[int, int, int]]:
        """Most points; then most points in the last round; then most cubes in reserve."""
        return [(self.points[s], self.last_round_points[s], self.big[s] + self.small[s])
                for s in range(self.num_players)]

    def ranks(self) -> list[int]:
        return ranks_from_scores(self.rank_keys())

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        v = seat_view(self, seat, PHASES[self.phase], self.current_player(), self.log)
        v["round"] = self.round
        v["overtime"] = self.overtime
        v["dealer"] = self.dealer
        v["active"] = self.active
        v["hand"] = [NAME[c] for c in sorted(self.hands[seat])]  # ids sort like faces
        player_views, boss_views = self._player_views, self._boss_views
        v["players"] = [player_views[s] or self._player_view(s) for s in range(self.num_players)]
        v["bosses"] = [boss_views[b] or self._boss_view(b) for b in self.row]
        v["chicago"] = self.row.index(CHICAGO)
        v["police"] = [NAME[c] for c in self.police]
        v["police_left"] = len(self.deck)
        v["last_turn"] = self.last_turn
        v["last_turns"] = self.last_turns[:]
        v["turn_revealed"] = self.turn_revealed
        v["placing"] = self.row.index(self.placing) if self.placing >= 0 else -1
        v["added_big"] = self.added_big
        v["added_small"] = self.added_small
        return v

    # A view's parts for one seat and one boss card are the same for every seat, and most
    # decisions change one of each: they are cached, shared by the views that show them
    # (views are read-only), and rebuilt after a change.
    def _player_view(self, s: int) -> dict[str, Any]:
        part = self._player_views[s] = {
            "hand": [BACK[c] for c in sorted(self.hands[s])], "big": self.big[s], "small": self.small[s],
            "dead": self.dead[s], "prison": self.prison[s][:], "hospital": self.hospital[s],
            "banished": self.banished[s], "points": self.points[s],
            "last_round_points": self.last_round_points[s],
        }
        return part

    def _boss_view(self, b: int) -> dict[str, Any]:
        reward = NONE if b == CHICAGO else NAME[self.rewards[self.reward_slot[b]]] if self.rewards_up else UNKNOWN
        part = self._boss_views[b] = {
            "boss": BOSSES[b], "big": self.big_on[b][:], "small": self.small_on[b][:],
            "revealed": [NAME[c] for c in self.revealed[b]], "reward": reward, "cards": self.city_cards[b],
        }
        return part

    def _forget_views(self) -> None:
        self._player_views[:] = [None] * self.num_players
        self._boss_views[:] = [None] * len(BOSSES)

    def invalidate_caches(self) -> None:
        super().invalidate_caches()
        self._forget_views()

    def card_places(self) -> dict[str, list[int]]:
        places = {"removed": self.removed, "deck": self.deck, "police": self.police,
                  "rewards": self.rewards}
        for city in self.cities:
            places[f"revealed_{CITIES[city]}"] = self.revealed[city]
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
        return places
