"""The rules of Sobek in play (``docs/games/sobek.md``): the state, in the order of the rules
(the setup of each round, a turn, the characters, the event tokens, the end of a round, the end
of the game), each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``; the
scores and the view of one seat. The package's docstring tables the phases and their actions."""

from __future__ import annotations

import random
from typing import Any

from ..cards import CardSet, deal, shuffled
from ..core import DONE, Action, GameSpec, PhasedState, View
from ..views import seat_view
from .components import (
    ADD,
    AMULET,
    AMULETS,
    APPLY,
    BACK_OF,
    BACKS,
    BURY,
    BURY_FACE,
    CARD,
    COURTESAN,
    COURTESAN_MAX,
    COURTESAN_SET,
    CURSE,
    CURSE_WEIGHT,
    DELIVERY,
    DISCARD,
    EARLY_END_ROUND,
    EARLY_END_SCORE,
    EMBALMING,
    EVENT,
    EXTEND,
    FAMILIES,
    FAMILY_OF,
    FAMILY_OF_ACT,
    FLOOD,
    GUILD,
    HIGH_PRIEST,
    HORIZONTAL,
    HORIZONTAL_SET,
    MARKET_REACH,
    MERCHANT_TAKE,
    NAMES,
    OVER,
    PARSED,
    PENALTY_STEP,
    PHASES,
    PICK,
    PICK_FACE,
    PLAY,
    PRIEST,
    PROSPERITY,
    PROSPERITY_BONUS,
    PROSPERITY_FAMILIES,
    PROSPERITY_ON,
    PUBLIC,
    QUEEN,
    QUEEN_DRAW,
    ROLE_OF,
    ROUND_TOKENS,
    ROUNDS,
    SCARABS_OF,
    SCRIBE,
    SCRIBE_LIMIT,
    SET,
    SET_MIN,
    SET_OF,
    START,
    START_AT,
    STARTING_HAND,
    STEAL,
    STEAL_BACK,
    TAKE,
    TARGET,
    THIEF,
    THIEF_TARGET,
    TOKEN,
    TOKEN_COPIES,
    TOKEN_OF,
    TOKENS,
    TRACK,
    TURN,
    TWO_PLAYER_REMOVAL,
    VIZIER,
    VIZIER_TARGET,
    SobekSettings,
    make_deck,
    parse_track,
)


class PlayedSet:
    """A set on the table: its family, its cards in the order laid, its Prosperity tokens."""

    __slots__ = ("family", "cards", "prosperity", "horizontal")

    def __init__(self, family: int, cards: list[int], horizontal: bool = False) -> None:
        self.family = family
        self.cards = cards
        self.prosperity: list[int] = []  # token ids
        self.horizontal = horizontal

    def score(self, face_of: tuple[int, ...]) -> int:
        """A set played during the round: (scarabs + 2 per Prosperity) x cards; horizontal: scarabs."""
        scarabs = sum(SCARABS_OF[face_of[c]] for c in self.cards)
        if self.horizontal:
            return scarabs
        return (scarabs + PROSPERITY_BONUS * len(self.prosperity)) * len(self.cards)

    def copy(self) -> PlayedSet:
        twin = PlayedSet.__new__(PlayedSet)
        twin.family, twin.cards, twin.prosperity, twin.horizontal = (
            self.family, self.cards.copy(), self.prosperity.copy(), self.horizontal)
        return twin


class SobekState(PhasedState):
    """A game of Sobek. Seats are numbered clockwise from 0."""

    PHASES = PHASES
    PARSED = PARSED

    settings: SobekSettings

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: SobekSettings) -> None:
        super().__init__(game, num_players, seed, settings)
        n = num_players
        deck = make_deck(settings.valued_cards, settings.green_cards, settings.characters)
        self.cards: CardSet = deck.cards
        self.face: tuple[int, ...] = deck.cards.face_of
        self.green_ids, self.deck_ids = deck.green, deck.others
        self.track = parse_track(settings.track_symbols)
        self.score = [0] * n
        self.round = 0
        self.phase = START
        self.active = self.to_act = self.start_player = 0
        self.queue: list[int] = []  # seats still to bury (Scribe) or to lay horizontal sets
        self.buried: list[int] = []  # faces buried so far by the seat in ``queue[0]``
        self._setup_round()

    # -- the state's chance, and copies for search ---------------------------------------
    # The rng is used only when a round is set up and by a Thief's steal, so a clone shares it
    # until either side needs it (copying a Mersenne Twister's state costs more than the rest of
    # a clone), and a drawn state seeds its own only if it gets that far.
    _rng: random.Random | None
    _rng_seed: int
    _rng_shared: bool

    @property
    def rng(self) -> random.Random:
        r = self._rng
        if r is None:
            r = self._rng = random.Random(self._rng_seed)
            self._rng_shared = False
        elif self._rng_shared:
            own = random.Random.__new__(random.Random)
            own.setstate(r.getstate())
            r = self._rng = own
            self._rng_shared = False
        return r

    @rng.setter
    def rng(self, value: random.Random) -> None:
        self._rng, self._rng_shared = value, False

    def clone(self) -> SobekState:
        """An independent copy: the lists of card ids and tokens are copied, the spec, settings,
        card tables and logged events shared; the rng is shared until one of the two uses it."""
        twin = object.__new__(type(self))
        d = twin.__dict__
        d.update(self.__dict__)
        if self._rng is not None:
            self._rng_shared = d["_rng_shared"] = True
        d["log"] = self.log.copy()
        d["score"] = self.score.copy()
        d["queue"] = self.queue.copy()
        d["buried"] = self.buried.copy()
        d["hands"] = [h.copy() for h in self.hands]
        d["corruption"] = [p.copy() for p in self.corruption]
        d["sets"] = [[st.copy() for st in ss] if ss else [] for ss in self.sets]
        d["curses"] = [c.copy() for c in self.curses]
        d["green_out"] = self.green_out.copy()
        d["deck"] = self.deck.copy()
        d["removed"] = self.removed.copy()
        d["discard"] = self.discard.copy()
        d["selection"] = self.selection.copy()
        d["market"] = self.market.copy()
        d["tokens"] = self.tokens.copy()
        d["tokens_out"] = self.tokens_out.copy()
        d["held"] = self.held.copy()
        d["tokens_used"] = self.tokens_used.copy()
        return twin

    # -- Setup of each round -------------------------------------------------------------
    def _setup_round(self) -> None:
        n, rng = self.num_players, self.rng
        self.round += 1
        # 1. Two green cards each; the rest are out this round.
        greens = shuffled(rng, self.green_ids)
        self.hands: list[list[int]] = [deal(greens, STARTING_HAND) for _ in range(n)]
        self.green_out: list[int] = greens
        # 2. The deck: beige goods and characters; with 2 players its top 9 are out this round.
        self.deck: list[int] = shuffled(rng, self.deck_ids)  # the top card is the last one
        self.removed: list[int] = deal(self.deck, TWO_PLAYER_REMOVAL) if n == 2 else []
        self.corruption: list[list[int]] = [[] for _ in range(n)]
        self.sets: list[list[PlayedSet]] = [[] for _ in range(n)]
        self.curses: list[list[int]] = [[] for _ in range(n)]  # Curse token ids, with the pile
        self.discard: list[int] = []
        self.selection: list[int] = []  # cards being laid in a set, or added by a Courtesan
        self.market: list[int] = []
        self.delivery = 0
        self.extra_turn = False
        self.target = -1  # the opponent a Thief or Vizier chose
        self.build_family, self.build_index = -1, -1  # the set being built; -1: a new set
        self.log.add({"type": "round", "round": self.round})
        # 3. The first delivery.
        self._deliver(-1)
        # 4. Five event tokens, face down; the other seven are out this round.
        tokens = shuffled(rng, range(len(TOKENS) * TOKEN_COPIES))
        self.tokens: list[int] = tokens[:ROUND_TOKENS]
        self.tokens_out: list[int] = tokens[ROUND_TOKENS:]  # face down, out this round
        self.held: list[int] = []  # the token being applied
        self.tokens_used: list[int] = []  # applied or discarded, face up (a Curse or a Prosperity stays)
        # 5. The start player.
        if self.round == 1:
            self._start(rng.randrange(n), -1)
            return
        low = min(self.score)
        tied = [s for s in range(n) if self.score[s] == low]
        chooser = tied[0] if self.settings.start_tie_break == "seat_order" else rng.choice(tied)
        self.phase, self.active, self.to_act = START, chooser, chooser

    def _deliver(self, seat: int) -> None:
        """Lays the next delivery along the Nile: goods face up, characters face down."""
        self.market = deal(self.deck, DELIVERY)
        self.delivery += 1
        face = self.face
        event: dict[str, Any] = {"type": "delivery", "cards": [PUBLIC[face[c]] for c in self.market]}
        if seat >= 0:
            event["seat"] = seat
        self.log.add(event)

    def _start(self, seat: int, chooser: int) -> None:
        self.start_player = seat
        event = {"type": "start", "seat": seat}
        if chooser >= 0:
            event["chooser"] = chooser
        self.log.add(event)
        self._begin_turn(seat)

    def _legal_start(self) -> list[Action]:
        """Rounds 2 and 3: the player with the lowest score chooses who starts."""
        return list(START_AT[: self.num_players])

    def _apply_start(self, seat: int, verb: str, arg: int) -> None:
        self._start(arg, seat)

    # A turn: A. take a card, B. play a character, or C. play a set ----------------------------
    def _legal_turn(self) -> list[Action]:
        seat, face = self.to_act, self.face
        hand = self.hands[seat]
        acts = list(TAKE[: min(MARKET_REACH, len(self.market))])
        fits = [0] * (len(FAMILIES) + 1)  # cards per family, Amulets last
        characters = set()
        for c in hand:
            f = face[c]
            fits[FAMILY_OF[f]] += 1
            if ROLE_OF[f] >= 0:
                characters.add(f)
        if characters:
            acts += [PLAY[f] for f in sorted(characters)]
        amulets = fits[AMULETS]
        if len(hand) >= SET_MIN:
            acts += [SET_OF[fam] for fam in range(len(FAMILIES))
                     if fits[fam] and fits[fam] + amulets >= SET_MIN]
            acts += [EXTEND[i] for i, st in enumerate(self.sets[seat])
                     if fits[st.family] + amulets >= SET_MIN]
        return acts

    def _apply_turn(self, seat: int, verb: str, arg: int) -> None:
        if verb == "take":
            self._take(seat, arg, corrupting=True)
        elif verb == "play":
            self._play(seat, arg)
        elif verb == "set":
            self._build(SET, arg, -1)
        else:  # extend
            self._build(SET, self.sets[seat][arg].family, arg)

    def _begin_turn(self, seat: int) -> None:
        self.phase, self.active, self.to_act = TURN, seat, seat
        self.log.add({"type": "turn", "seat": seat})

    def _end_turn(self) -> None:
        if self.extra_turn:  # Flood: the same player again
            self.extra_turn = False
            self._begin_turn(self.active)
        else:
            self._begin_turn((self.active + 1) % self.num_players)

    # A. Take a card (and the Merchant's take) ----------------------------------------------
    def _take(self, seat: int, position: int, corrupting: bool) -> None:
        market, face = self.market, self.face
        card = market[position]
        f = face[card]
        self.hands[seat].append(card)
        event = {"type": "take", "seat": seat, "position": position, "card": PUBLIC[f]}
        hidden = ROLE_OF[f] >= 0  # a face-down character: only the taker learns which
        secret: dict[str, Any] | None = None
        if corrupting and position:  # every card skipped goes under the taker's corruption tile
            skipped = market[:position]
            self.corruption[seat] += skipped
            event["skipped"] = [PUBLIC[face[c]] for c in skipped]
            if hidden or any(ROLE_OF[face[c]] >= 0 for c in skipped):
                secret = {"card": NAMES[f], "skipped": [NAMES[face[c]] for c in skipped]}
            del market[: position + 1]
        else:
            del market[position]
            if hidden:
                secret = {"card": NAMES[f]}
        self.log.add(event, secret, (seat,))
        if market:
            self._end_turn()
        elif self.deck:  # the taker lays the next delivery
            self._deliver(seat)
            self._end_turn()
        else:  # the last card of the last delivery: the round ends at once
            self._end_round(seat)

    # B. Play a character ---------------------------------------------------------------------
    def _play(self, seat: int, f: int) -> None:
        self.discard.append(self.cards.take_face(self.hands[seat], f))
        self.log.add({"type": "play", "seat": seat, "card": NAMES[f]})
        role, n = ROLE_OF[f], self.num_players
        others = [(seat + k) % n for k in range(1, n)]  # clockwise from the player's left
        if role == QUEEN:
            drawn = deal(self.deck, QUEEN_DRAW)
            self.hands[seat] += drawn
            secret = {"cards": [NAMES[self.face[c]] for c in drawn]} if drawn else None
            self.log.add({"type": "draw", "seat": seat, "count": len(drawn)}, secret, (seat,))
            self._end_turn()
        elif role == HIGH_PRIEST:
            self.phase = PRIEST
        elif role == THIEF:
            self._choose_or_end(THIEF_TARGET, any(self.hands[s] for s in others))
        elif role == VIZIER:
            self._choose_or_end(VIZIER_TARGET, any(self.corruption[s] for s in others))
        elif role == SCRIBE:
            self.queue = [s for s in others if len(self.hands[s]) > SCRIBE_LIMIT]
            self._next_bury()
        elif role == COURTESAN:
            self._choose_or_end(COURTESAN_SET, bool(self._courtesan_sets(seat)))
        else:  # Merchant
            self.phase = MERCHANT_TAKE

    def _choose_or_end(self, phase: int, possible: bool) -> None:
        """Asks for the power's choice, or ends the turn when the power can have no effect."""
        if possible:
            self.phase = phase
        else:
            self._end_turn()

    def _legal_priest(self) -> list[Action]:
        return list(FAMILY_OF_ACT)

    def _apply_priest(self, seat: int, verb: str, fam: int) -> None:
        """High Priest: the named family's cards (characters too) leave the corruption pile."""
        pile, face = self.corruption[seat], self.face
        purged = [c for c in pile if FAMILY_OF[face[c]] == fam]
        pile[:] = [c for c in pile if FAMILY_OF[face[c]] != fam]
        self.discard += purged  # face up, like every discard
        event = {"type": "purge", "seat": seat, "family": FAMILIES[fam], "count": len(purged)}
        if purged:
            event["cards"] = [NAMES[face[c]] for c in purged]
        self.log.add(event)
        self._end_turn()

    def _legal_thief(self) -> list[Action]:
        seat = self.to_act
        return [TARGET[s] for s in range(self.num_players) if s != seat and self.hands[s]]

    def _apply_thief(self, seat: int, verb: str, victim: int) -> None:
        self.target, self.phase = victim, STEAL

    def _legal_steal(self) -> list[Action]:
        face = self.face
        return [STEAL_BACK[b] for b in sorted({BACK_OF[face[c]] for c in self.hands[self.target]})]

    def _apply_steal(self, seat: int, verb: str, back: int) -> None:
        """Thief: one of the victim's cards with the chosen back, at random (they are face down)."""
        victim, face = self.target, self.face
        hand = self.hands[victim]
        candidates = [i for i, c in enumerate(hand) if BACK_OF[face[c]] == back]
        card = hand.pop(candidates[self.rng.randrange(len(candidates))])
        self.hands[seat].append(card)
        self.log.add({"type": "steal", "seat": seat, "target": victim, "card": BACKS[back]},
                     {"card": NAMES[face[card]]}, (seat, victim))
        self.target = -1
        self._end_turn()

    def _legal_vizier(self) -> list[Action]:
        seat = self.to_act
        return [TARGET[s] for s in range(self.num_players) if s != seat and self.corruption[s]]

    def _apply_vizier(self, seat: int, verb: str, victim: int) -> None:
        self.target, self.phase = victim, PICK

    def _legal_pick(self) -> list[Action]:
        return [PICK_FACE[f] for f in self.cards.faces_in(self.corruption[self.target])]

    def _apply_pick(self, seat: int, verb: str, f: int) -> None:
        """Vizier: the chosen card of the victim's corruption pile, into the Vizier's hand."""
        victim = self.target
        self.hands[seat].append(self.cards.take_face(self.corruption[victim], f))
        self.log.add({"type": "seize", "seat": seat, "target": victim}, {"card": NAMES[f]}, (seat, victim))
        self.target = -1
        self._end_turn()

    def _next_bury(self) -> None:
        """Scribe: the next opponent over 6 cards decides, or the turn ends."""
        if self.queue:
            self.phase, self.to_act, self.buried = BURY, self.queue[0], []
        else:
            self.to_act = self.active
            self._end_turn()

    def _legal_bury(self) -> list[Action]:
        return [BURY_FACE[f] for f in self.cards.faces_in(self.hands[self.to_act])]

    def _apply_bury(self, seat: int, verb: str, f: int) -> None:
        hand = self.hands[seat]
        self.corruption[seat].append(self.cards.take_face(hand, f))
        self.buried.append(f)
        if len(hand) <= SCRIBE_LIMIT:
            self.log.add({"type": "bury", "seat": seat, "count": len(self.buried)},
                         {"cards": [NAMES[b] for b in self.buried]}, (seat,))
            self.buried = []
            self.queue.pop(0)
            self._next_bury()

    def _legal_courtesan(self) -> list[Action]:
        return [EXTEND[i] for i in self._courtesan_sets(self.to_act)]

    def _apply_courtesan(self, seat: int, verb: str, index: int) -> None:
        self._build(ADD, self.sets[seat][index].family, index)

    def _courtesan_sets(self, seat: int) -> list[int]:
        """Sets of ``seat`` to which the hand holds at least one card to add."""
        families = {FAMILY_OF[self.face[c]] for c in self.hands[seat]}
        wild = AMULETS in families
        return [i for i, st in enumerate(self.sets[seat]) if wild or st.family in families]

    def _legal_merchant(self) -> list[Action]:
        return list(TAKE[: len(self.market)])

    def _apply_merchant(self, seat: int, verb: str, position: int) -> None:
        self._take(seat, position, corrupting=False)

    # C. Play a set (and horizontal sets, and the Courtesan's addition) ------------------
    def _build(self, phase: int, fam: int, index: int) -> None:
        self.phase, self.build_family, self.build_index = phase, fam, index

    def _legal_cards(self) -> list[Action]:
        acts = [CARD[f] for f in self._eligible(self.to_act)]
        if self._may_close():
            acts.append(DONE)
        return acts

    def _apply_cards(self, seat: int, verb: str, f: int) -> None:
        if verb == "card":
            self.selection.append(self.cards.take_face(self.hands[seat], f))
            # Close by itself when nothing is left to choose (or the Courtesan's 2 are in).
            if not self._eligible(seat) or (self.phase == ADD and len(self.selection) == COURTESAN_MAX):
                self._close_selection(seat)
        else:
            self._close_selection(seat)

    # A set, a horizontal set and the Courtesan's addition choose their cards alike.
    _legal_set = _legal_horizontal_set = _legal_add = _legal_cards
    _apply_set = _apply_horizontal_set = _apply_add = _apply_cards

    def _eligible(self, seat: int) -> list[int]:
        """Faces in ``seat``'s hand that may join the set being built: its family or Amulets."""
        fam, face = self.build_family, self.face
        return sorted({f for f in (face[c] for c in self.hands[seat]) if FAMILY_OF[f] == fam or f == AMULET})

    def _may_close(self) -> bool:
        """Whether the cards chosen so far make a complete set (or a Courtesan's addition)."""
        chosen = self.selection
        if self.phase == ADD:
            return len(chosen) >= 1
        if len(chosen) < SET_MIN:
            return False
        # A set needs a card that is not an Amulet; an extended set already has one.
        return self.build_index >= 0 or any(self.face[c] != AMULET for c in chosen)

    def _close_selection(self, seat: int) -> None:
        phase, face = self.phase, self.face
        cards = [NAMES[face[c]] for c in self.selection]
        fam, index = self.build_family, self.build_index
        if index < 0:
            self.sets[seat].append(PlayedSet(fam, list(self.selection), phase == HORIZONTAL_SET))
            index = len(self.sets[seat]) - 1
            kind = "horizontal" if phase == HORIZONTAL_SET else "set"
        else:
            self.sets[seat][index].cards += self.selection
            kind = "add" if phase == ADD else "extend"
        self.log.add({"type": kind, "seat": seat, "family": FAMILIES[fam], "set_index": index,
                      "cards": cards})
        self.selection.clear()
        self.build_family, self.build_index = -1, -1
        if phase == HORIZONTAL_SET:
            self.phase = HORIZONTAL  # the same player may lay another
        elif phase == SET and self.tokens:  # Event: playing a set earns a token
            self.phase = EVENT
        else:  # the Courtesan's addition is not playing a set: no event
            self._end_turn()

    # Event tokens ------------------------------------------------------------------------
    def _legal_event(self) -> list[Action]:
        return [TOKEN_OF[k] for k in sorted({t // TOKEN_COPIES for t in self.tokens})]

    def _apply_event(self, seat: int, verb: str, kind: int) -> None:
        seen = sorted(t // TOKEN_COPIES for t in self.tokens)
        token = next(t for t in self.tokens if t // TOKEN_COPIES == kind)
        self.tokens.remove(token)
        self.held.append(token)
        self.log.add({"type": "token", "seat": seat, "token": TOKENS[kind]},
                     {"tokens": [TOKENS[k] for k in seen]}, (seat,))
        self.phase = TOKEN

    def _legal_token(self) -> list[Action]:
        seat, kind = self.to_act, self.held[0] // TOKEN_COPIES
        if kind in (GUILD, CURSE):
            acts = [TARGET[s] for s in range(self.num_players) if s != seat]
        elif kind == PROSPERITY:
            acts = [PROSPERITY_ON[i] for i, st in enumerate(self.sets[seat])
                    if st.family in PROSPERITY_FAMILIES]
        else:
            acts = [APPLY]
        acts.append(DISCARD)
        return acts

    def _apply_token(self, seat: int, verb: str, arg: int) -> None:
        token = self.held.pop()
        kind = token // TOKEN_COPIES
        if verb == DISCARD:
            self.tokens_used.append(token)
            self.log.add({"type": "discard_token", "seat": seat, "token": TOKENS[kind]})
        elif kind == CURSE:  # it stays with the victim's corruption pile
            self.curses[arg].append(token)
            self.log.add({"type": "curse", "seat": seat, "target": arg})
        elif kind == PROSPERITY:
            self.sets[seat][arg].prosperity.append(token)
            self.log.add({"type": "prosperity", "seat": seat, "set_index": arg})
        else:
            self.tokens_used.append(token)
            if kind == GUILD:
                self.log.add({"type": "guild", "seat": seat, "target": arg})
                self._move(seat, self.next_same(self.score[seat]) - self.score[seat])
                self._move(arg, self.next_same(self.score[arg]) - self.score[arg])
            elif kind == FLOOD:
                self.extra_turn = True
                self.log.add({"type": "flood", "seat": seat})
            elif kind == EMBALMING:
                pile = self.corruption[seat]
                self.log.add({"type": "embalming", "seat": seat, "count": len(pile)})
                self.hands[seat] += pile
                pile.clear()
            else:  # Deception: a point per card in the pile; the cards stay
                self.log.add({"type": "deception", "seat": seat, "count": len(self.corruption[seat])})
                self._move(seat, len(self.corruption[seat]))
        self._end_turn()

    # The score track -----------------------------------------------------------------------
    def symbol(self, score: int) -> int:
        """The symbol of a score's space (the track wraps at 100)."""
        return self.track[score % TRACK]

    def next_same(self, score: int) -> int:
        """The next space with the same symbol as ``score``'s."""
        track, sym = self.track, self.track[score % TRACK]
        s = score + 1
        while track[s % TRACK] != sym:
            s += 1
        return s

    def previous_same(self, score: int) -> int:
        """The previous space with the same symbol as ``score``'s, never below 0."""
        track, sym = self.track, self.track[score % TRACK]
        s = score - 1
        while s > 0 and track[s % TRACK] != sym:
            s -= 1
        return max(s, 0)

    def _move(self, seat: int, points: int) -> None:
        self.score[seat] += points
        self.log.add({"type": "score", "seat": seat, "points": points, "score": self.score[seat]})

    # End of a round ------------------------------------------------------------------------
    def _end_round(self, ender: int) -> None:
        """1. The round ends; 2. everyone, in turn order, may lay horizontal sets."""
        n = self.num_players
        self.log.add({"type": "round_end", "seat": ender})
        self.queue = [(ender + k) % n for k in range(1, n + 1)]
        self._next_horizontal()

    def _next_horizontal(self) -> None:
        if self.queue:
            self.phase, self.active, self.to_act = HORIZONTAL, self.queue[0], self.queue[0]
        else:
            self._score_round()

    def _legal_horizontal(self) -> list[Action]:
        return [SET_OF[fam] for fam in self._new_set_families(self.to_act)] + [DONE]

    def _apply_horizontal(self, seat: int, verb: str, fam: int) -> None:
        if verb == "set":
            self._build(HORIZONTAL_SET, fam, -1)
        else:
            self.queue.pop(0)
            self._next_horizontal()

    def _new_set_families(self, seat: int) -> list[int]:
        """Families in which ``seat``'s hand holds a set: 3+ cards, at least one not an Amulet."""
        fits = [0] * (len(FAMILIES) + 1)
        face = self.face
        for c in self.hands[seat]:
            fits[FAMILY_OF[face[c]]] += 1
        return [fam for fam in range(len(FAMILIES)) if fits[fam] and fits[fam] + fits[AMULETS] >= SET_MIN]

    def _score_round(self) -> None:
        n, face = self.num_players, self.face
        # 3. Cards still in hand go under their owner's corruption tile.
        for s in range(n):
            if self.hands[s]:
                self.log.add({"type": "unplayed", "seat": s, "count": len(self.hands[s])})
                self.corruption[s] += self.hands[s]
                self.hands[s].clear()
        # 4. Scoring, set by set.
        points = [sum(st.score(face) for st in self.sets[s]) for s in range(n)]
        for s in range(n):
            self._move(s, points[s])
        # 5. Corruption: most cards (a Curse counts 2), then most scarabs; further ties all corrupt.
        counts = [len(self.corruption[s]) + CURSE_WEIGHT * len(self.curses[s]) for s in range(n)]
        scarabs = [sum(SCARABS_OF[face[c]] for c in self.corruption[s]) for s in range(n)]
        most = max(counts)
        tied = [s for s in range(n) if counts[s] == most]
        richest = max(scarabs[s] for s in tied)
        corrupt = [s in tied and scarabs[s] == richest and most > 0 for s in range(n)]
        for s in range(n):
            self.log.add({"type": "corruption", "seat": s, "count": counts[s], "scarabs": scarabs[s],
                          "corrupt": corrupt[s]})
        for s in range(n):
            if corrupt[s] and points[s] >= PENALTY_STEP:
                back = self.score[s]
                for _ in range(points[s] // PENALTY_STEP):
                    back = self.previous_same(back)
                self._move(s, back - self.score[s])
        # The end of the game, or 6. everything goes back for the next round.
        if self.round == ROUNDS or (self.round == EARLY_END_ROUND and max(self.score) > EARLY_END_SCORE):
            self._game_over()
        else:
            self._setup_round()

    # -- scoring -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.score)

    # -- information -----------------------------------------------------------------------
    def view(self, seat: int) -> View:
        phase, face, to_act = self.phase, self.face, self.to_act
        v = seat_view(self, seat, PHASES[phase], self.current_player(), self.log)
        hands, corruption, curses, sets = self.hands, self.corruption, self.curses, self.sets
        deciding = seat == to_act and phase != OVER
        v["round"] = self.round
        v["active"] = self.active
        v["start_player"] = self.start_player
        v["scores"] = list(self.score)
        v["hand"] = [NAMES[f] for f in sorted([face[c] for c in hands[seat]])]
        v["corruption"] = [NAMES[f] for f in sorted([face[c] for c in corruption[seat]])]
        v["players"] = [
            {"hand_size": len(hands[s]), "corruption_size": len(corruption[s]), "curses": len(curses[s]),
             "sets": [{"family": FAMILIES[st.family], "cards": [NAMES[face[c]] for c in st.cards],
                       "prosperity": len(st.prosperity), "horizontal": st.horizontal} for st in sets[s]]
             if sets[s] else []}
            for s in range(self.num_players)
        ]
        v["market"] = [PUBLIC[face[c]] for c in self.market]
        v["deck_size"] = len(self.deck)
        v["delivery"] = self.delivery
        v["discard"] = [NAMES[face[c]] for c in self.discard]
        v["tokens_left"] = len(self.tokens)
        # The remaining tokens are seen only by the player choosing one.
        v["tokens"] = ([TOKENS[k] for k in sorted([t // TOKEN_COPIES for t in self.tokens])]
                       if deciding and phase == EVENT else [])
        v["token"] = TOKENS[self.held[0] // TOKEN_COPIES] if self.held else "unspecified"
        v["selection"] = [NAMES[face[c]] for c in self.selection]
        v["family"] = FAMILIES[self.build_family] if self.build_family >= 0 else "unspecified"
        v["set_index"] = self.build_index
        v["target"] = self.target
        # A Thief sees the backs of the victim's hand; a Vizier sees the victim's pile.
        if deciding and phase == STEAL:
            v["shown"] = [BACKS[b] for b in sorted([BACK_OF[face[c]] for c in hands[self.target]])]
        elif deciding and phase == PICK:
            v["shown"] = [NAMES[f] for f in sorted([face[c] for c in corruption[self.target]])]
        else:
            v["shown"] = []
        v["extra_turn"] = self.extra_turn
        return v

    def card_places(self) -> dict[str, list[int]]:
        places = {"deck": self.deck, "market": self.market, "removed": self.removed,
                  "green_out": self.green_out, "discard": self.discard, "selection": self.selection}
        for s in range(self.num_players):
            places[f"hand{s}"] = self.hands[s]
            places[f"corruption{s}"] = self.corruption[s]
            for i, st in enumerate(self.sets[s]):
                places[f"set{s}.{i}"] = st.cards
        return places

    def token_places(self) -> dict[str, list[int]]:
        """Every event token id by place, as :meth:`card_places` does for cards."""
        places = {"tokens": self.tokens, "out": self.tokens_out, "held": self.held, "used": self.tokens_used}
        for s in range(self.num_players):
            places[f"curses{s}"] = self.curses[s]
            for i, st in enumerate(self.sets[s]):
                places[f"prosperity{s}.{i}"] = st.prosperity
        return places

