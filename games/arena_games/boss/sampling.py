"""States of The Boss drawn from what one seat has seen, for search (:mod:`arena_games.determinise`).

Every round deals the city cards afresh, so what a seat knows of the hidden cards is the
snapshot its view gives: the values of its own hand, the cards revealed this round, the
cities (backs) of every hand, and the cards of each city in the game. Everything public
(cubes, penalties, points, police cards face up, whose turn) is copied from the view. A deal
gives every assignment of the city cards equally likely, so given those facts the unknown
cards of each city are uniformly shuffled among its reward and the slots of that city in the
other hands: that is the draw, and the exact posterior (nothing is inferred from how the others
played). The police cards still face down are in uniform random order.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..core import TERMINAL, GameSpec, Settings, View
from ..views import UNKNOWN, restore_log
from .components import (
    BOSSES,
    CARDS,
    CHICAGO,
    CITIES,
    CITY_CARDS,
    CITY_OF,
    DOUBLE,
    GOLD,
    OVER,
    PHASES,
    SILVER,
    BossSettings,
)
from .state import BossState

POLICE_IDS = {face: CARDS.ids(name) for face, name in ((GOLD, "gold"), (SILVER, "silver"), (DOUBLE, "double"))}
# A draw sorts the unknown cards by this key plus a random fraction: by city, shuffled within
# each, and the police cards after them.
_DRAW_KEY = (*CITY_OF, *[len(CITIES)] * (len(CARDS) - CITY_CARDS))


def sampler(game: GameSpec, view: View, history: list[dict[str, Any]],
            settings: Settings) -> Callable[[random.Random], BossState]:
    """Prepares the draws of states consistent with ``view`` (see the module's docstring)."""
    assert isinstance(settings, BossSettings)
    template = _template(game, view, history, settings)
    hidden_police = _police(template, view)
    unknown, targets = _unknown_cities(template, view)
    n = template.num_players
    unknown += hidden_police
    targets += [n] * len(hidden_police)
    key = _DRAW_KEY

    def draw(rng: random.Random) -> BossState:
        state = template.clone()
        state.rng = rng.getrandbits(64)  # the seed of its future chance: the next rounds' deals
        def by_city(c: int, r: Callable[[], float] = rng.random) -> float:
            return key[c] + r()

        cards = sorted(unknown, key=by_city)
        hands, rewards, deck = state.hands, state.rewards, state.deck
        for card, target in zip(cards, targets, strict=True):
            if target < 0:
                rewards[~target] = card
            elif target < n:
                hands[target].append(card)
            else:
                deck.append(card)
        return state

    return draw


def _template(game: GameSpec, view: View, history: list[dict[str, Any]], settings: BossSettings) -> BossState:
    """The state with everything the view shows: the row and the cities' cards, the board (cubes,
    revealed cards, rewards face up once the game is over), the players, whose turn; the seat's
    own hand. The other hands, the rewards face down and the police deck are left to each draw."""
    n, seat = view["num_players"], view["seat"]
    index = CARDS.index
    t = BossState.__new__(BossState)
    t.game, t.num_players, t.seed, t.settings = game, n, 0, settings
    t.rng = 0
    t.log = restore_log(seat, view, history, n)
    t._legal = None

    row = [BOSSES.index(b["boss"]) for b in view["bosses"]]
    by_boss = {BOSSES.index(b["boss"]): b for b in view["bosses"]}
    cities = tuple(sorted(b for b in row if b != CHICAGO))
    t.cities, t.row = cities, row
    t.city_cards = tuple(list(by_boss[b]["cards"]) if b in by_boss and b != CHICAGO else []
                         for b in range(len(BOSSES)))
    in_game = {index[name] for b in cities for name in t.city_cards[b]}
    t.removed = [c for c in range(CITY_CARDS) if c not in in_game]
    t.reward_slot = {city: i for i, city in enumerate(cities)}

    # The board: cubes, revealed cards, rewards (face up only once the game is over).
    t.big_on = [list(by_boss[b]["big"]) if b in by_boss else [0] * n for b in range(len(BOSSES))]
    t.small_on = [list(by_boss[b]["small"]) if b in by_boss else [0] * n for b in range(len(BOSSES))]
    t.revealed = [[index[name] for name in by_boss[b]["revealed"]] if b in by_boss else []
                  for b in range(len(BOSSES))]
    rewards = [by_boss[city]["reward"] for city in cities]
    t.rewards_up = any(r != UNKNOWN for r in rewards)
    t.rewards = [-1 if r == UNKNOWN else index[r] for r in rewards]

    players = view["players"]
    t.hands = [[index[name] for name in view["hand"]] if s == seat else [] for s in range(n)]
    t.big = [p["big"] for p in players]
    t.small = [p["small"] for p in players]
    t.dead = [p["dead"] for p in players]
    t.prison = [list(p["prison"]) for p in players]
    t.hospital = [p["hospital"] for p in players]
    t.banished = [p["banished"] for p in players]
    t.points = [p["points"] for p in players]
    t.last_round_points = [p["last_round_points"] for p in players]

    t.round, t.overtime, t.dealer, t.active = view["round"], view["overtime"], view["dealer"], view["active"]
    t.phase = PHASES.index(view["phase"])
    t.to_act = view["to_act"] if t.phase != OVER else TERMINAL
    t.last_turn, t.last_turns, t.turn_revealed = view["last_turn"], list(view["last_turns"]), view["turn_revealed"]
    t.placing = row[view["placing"]] if view["placing"] >= 0 else -1
    t.added_big, t.added_small = view["added_big"], view["added_small"]
    t._player_views, t._boss_views = [None] * n, [None] * len(BOSSES)
    return t


def _police(t: BossState, view: View) -> list[int]:
    """Puts the police cards face up, which are known; returns the others (the deck, drawn in a
    random order), by id."""
    police_ids = {face: list(ids) for face, ids in POLICE_IDS.items()}
    t.police = [police_ids[CARDS.index[name]].pop(0) for name in view["police"]]
    hidden_police = sorted(c for ids in police_ids.values() for c in ids)
    if len(hidden_police) != view["police_left"]:
        raise ValueError("the view's police cards do not add up")
    t.deck = []
    return hidden_police


def _unknown_cities(t: BossState, view: View) -> tuple[list[int], list[int]]:
    """The unknown city cards, and the places they fill, in the same order: by city, its reward
    (target -1 - its slot), then its slots in the other hands (target: the seat)."""
    seat, players = view["seat"], view["players"]
    in_game = set(range(CITY_CARDS)).difference(t.removed)
    known = set(t.hands[seat]).union(*t.revealed, t.rewards)
    unknown: list[int] = []
    targets: list[int] = []
    hidden = sorted(in_game - known)
    for city in t.cities:
        cards = [c for c in hidden if CITY_OF[c] == city]
        places = [-1 - t.reward_slot[city]] if t.rewards[t.reward_slot[city]] < 0 else []
        for s in range(t.num_players):
            if s != seat:
                places += [s] * players[s]["hand"].count(CITIES[city])
        if len(cards) != len(places):
            raise ValueError(f"the view does not add up: {CITIES[city]} has {len(cards)} unknown cards "
                             f"for {len(places)} hidden places")
        unknown += cards
        targets += places
    return unknown, targets
