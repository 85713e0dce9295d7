"""The Boss's search tuning: each simulation plays its round out by the heuristic's rules, then
a judge estimates the final scores.

A Boss round is won at its resolution: a boss taken early is often taken back in a later turn,
above all in the last turns, so a game cut off mid-round and judged as the bosses stand would
reward whoever placed last. So the evaluation first plays the round on to its resolution (at most
:data:`ROUND_LIMIT` decisions) by :func:`policy`, the heuristic player's rules written on the
engine's fields (each seat values a boss by the mean of the rewards it may hide, as that seat sees
them, never by the drawn reward). The tree's rollouts are therefore empty (``rollout_depth`` 0).

Then :func:`estimates` says what each seat ends the game with: its points, plus what the bosses
would give if the round resolved as they stand (a drawn state knows its rewards; a penalty costs
the cube-rounds it takes), plus what its cubes are still worth: this round's reserve, every big
cube free in the rounds the police cards leave (the drawn state knows their order too), each small
cube once. Each seat's estimate is compared with every rival's through a logistic: its value is its
mean chance of finishing ahead of each, which at the end of a game is the rank value the search
backs up (1 first alone, 0 last). Against the heuristic this wins 52 of 54 two-player games; the
alternatives measured: docs/search.md ("How the built-in players were tuned").
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from operator import add

from arena_games.boss import (
    BADGES_TO_END,
    BANISHED,
    BIG_CUBES,
    CARDS,
    CHICAGO,
    CINCINNATI,
    CUBES,
    DOUBLE,
    FACE,
    GOLD,
    HOSPITAL,
    KIND_OF,
    PARSED,
    PASS,
    PLACE,
    PRISON,
    REVEAL,
    REVOLVER,
    SILVER,
    TURN,
    VALUE_OF,
    VALUES,
    BossState,
)
from arena_games.core import DONE, State

from .ismcts import SearchConfig, rank_values

CUBE_ROUND = 0.8  # points a big cube free for a whole future round is worth
SMALL_CUBE = 0.8  # points a small cube in reserve is worth while rounds remain to use it
RESERVE = 0.4  # points a cube still in reserve this round is worth (it may yet take a boss)
BANISHED_COST = 0.5  # points per future round of never again placing in Cincinnati
SCALE = 3.0  # points of estimated lead that make finishing ahead about 73% likely


def rounds_after(state: BossState) -> int:
    """The rounds still to be played after this one, from the police cards in the drawn order."""
    if state.overtime:
        return 0
    faces = [FACE[c] for c in state.police]
    deck = state.deck[:]
    if not state.last_turn and deck:
        faces.append(FACE[deck.pop()])  # this round's flip
    rounds = 0
    while _badges(faces) < BADGES_TO_END and deck:
        rounds += 1
        faces.append(FACE[deck.pop()])
    return rounds


def _badges(faces: list[int]) -> int:
    return max(faces.count(GOLD), faces.count(SILVER)) + faces.count(DOUBLE)


def estimates(state: BossState) -> list[float]:
    """Each seat's estimated final score, if this round resolved as the bosses stand now."""
    n = state.num_players
    later = rounds_after(state)
    # Big cubes each seat has free in each later round (1-based), before this round's penalties.
    free = []
    for s in range(n):
        alive = BIG_CUBES - state.dead[s]
        jailed = state.prison[s]
        free.append([alive - sum(1 for r in jailed if r > k) - (state.hospital[s] if k == 0 else 0)
                     for k in range(later)])
    value = [float(p) for p in state.points]
    reserve = [b + x for b, x in zip(state.big, state.small, strict=True)]
    if not state.is_terminal():
        big_on, small_on, rewards, slot = state.big_on, state.small_on, state.rewards, state.reward_slot
        for position, boss in enumerate(state.row):
            bigs, smalls = big_on[boss], small_on[boss]
            totals = [b + x for b, x in zip(bigs, smalls, strict=True)]
            top = max(totals)
            if boss == state.placing:  # a placement under way ends with the majority (engine's rule)
                seat = state.active
                if totals[seat] < top or totals.count(top) > 1:
                    reserve[seat] -= top + 1 - totals[seat]
                    totals[seat] = top = top + 1
            if not top:
                continue
            controller = totals.index(top)
            if totals.count(top) > 1:
                continue  # cannot happen between placements; mid-placement, nobody yet
            if boss == CHICAGO:
                value[controller] += state.chicago_sum(position)
                continue
            card = rewards[slot[boss]]
            kind = KIND_OF[card]
            if kind < len(VALUES):
                value[controller] += VALUE_OF[card]
            elif kind == REVOLVER:
                free[controller] = [f - 1 for f in free[controller]]
            elif kind == PRISON:
                free[controller] = [f - 1 if k < 2 else f for k, f in enumerate(free[controller])]
            elif kind == HOSPITAL:
                free[controller] = [f - 1 if k < 1 else f for k, f in enumerate(free[controller])]
            elif kind == BANISHED and not state.banished[controller] and CINCINNATI in state.cities:
                value[controller] -= BANISHED_COST * later
        for s in range(n):
            value[s] += RESERVE * max(reserve[s], 0)
    for s in range(n):
        value[s] += CUBE_ROUND * sum(free[s]) + (SMALL_CUBE * state.small[s] if later else 0.0)
    return value


def judge(state: BossState) -> Sequence[float]:
    """Each seat's value in [0, 1]: its mean chance of finishing ahead of each rival."""
    if state.is_terminal():
        return rank_values(state)
    n = state.num_players
    value = estimates(state)
    exp = math.exp
    out = []
    for s in range(n):
        mine = value[s]
        out.append(sum(1.0 / (1.0 + exp((value[o] - mine) / SCALE)) for o in range(n) if o != s) / (n - 1))
    return out


# -- the rollout policy: the heuristic player's rules, on the engine's fields ---------------------
PENALTY = {REVOLVER: 3.0, PRISON: 2.0, HOSPITAL: 1.0, BANISHED: 1.0}  # points, while rounds remain
UNSEEN_LAST_CARD = 1.5  # what a city with nothing revealed yet may add to Chicago's sum
BIG_COST, SMALL_COST = 0.6, 2.0  # per cube committed before the last turn
LAST_BIG_COST, LAST_SMALL_COST = 0.05, 0.3  # in the last turn big cubes come back anyway
MIN_GAIN = 0.4
DENIAL = 1.25  # a boss taken from a rival is worth more: it is also theirs no more
EPSILON = 0.1  # the share of a rollout's decisions played at random
MAX_WORTH = 5.0 * DENIAL  # no city is worth more (a 5, taken from a rival)
ROUND_LIMIT = 30  # decisions a judge plays at most to finish a round (2 players need about 30 for a whole one)

_CARD_WORTH = tuple(
    (float(VALUE_OF[c]), PENALTY.get(KIND_OF[c], 0.0)) for c in range(len(KIND_OF))
)  # by city card id: (points, penalty)
_cities_cache: dict[int, tuple[object, list[list[int]]]] = {}
_remain_cache: dict[tuple[tuple[int, ...], bool, bool], float] = {}  # by police ids: few keys
_POLICE_FACES = (GOLD, GOLD, SILVER, SILVER, DOUBLE)


def _rounds_remain(state: BossState) -> float:
    """The chance, from the police cards face up, that another round follows this one."""
    key = (tuple(state.police), state.last_turn, state.overtime)
    chance = _remain_cache.get(key)
    if chance is None:
        faces = tuple(FACE[c] for c in state.police)
        if state.overtime:
            chance = 0.0
        elif state.last_turn:
            chance = 0.0 if _badges(list(faces)) >= BADGES_TO_END else 1.0
        else:
            left = list(_POLICE_FACES)
            for face in faces:
                left.remove(face)
            chance = sum(_badges([*faces, f]) < BADGES_TO_END for f in left) / len(left) if left else 0.0
        _remain_cache[key] = chance
    return chance


def _city_cards(state: BossState) -> list[list[int]]:
    """The ids of each boss's city cards in the game (shared by every state drawn in a decision)."""
    table = state.city_cards
    entry = _cities_cache.get(id(table))
    if entry is None or entry[0] is not table:
        if len(_cities_cache) > 64:
            _cities_cache.clear()
        index = CARDS.index
        entry = _cities_cache[id(table)] = (table, [[index[name] for name in names] for names in table])
    return entry[1]


def _worth(state: BossState, seat: int, boss: int, weight: float) -> float:
    """What ``boss`` is worth to ``seat``: the mean of the rewards it may hide, as the seat sees them."""
    if boss == CHICAGO:
        total = 0.0
        row = state.row
        for left in row[:row.index(CHICAGO)]:
            shown = state.revealed[left]
            total += VALUE_OF[shown[-1]] if shown else UNSEEN_LAST_CARD
        return total / 2
    shown, hand = state.revealed[boss], state.hands[seat]
    total, count = 0.0, 0
    for card in _city_cards(state)[boss]:
        if card not in shown and card not in hand:
            points, penalty = _CARD_WORTH[card]
            total += points - penalty * weight
            count += 1
    return total / count if count else 0.0


def policy(state: BossState, rng: random.Random) -> str:
    """The heuristic player's choice, made fast: the boss worth most for the cubes it takes (the
    minimal majority, plus a spare one while a rival may answer), else a random reveal or a pass;
    one decision in ten (EPSILON) at random."""
    actions = state.legal_actions()
    if rng.random() < EPSILON:
        return actions[int(rng.random() * len(actions))]
    seat, phase = state.active, state.phase
    if phase == REVEAL:
        return actions[int(rng.random() * len(actions))]
    last, big = state.last_turn, state.big
    if last:
        spare = 1 if any(big[s] for s in state.last_turns) else 0
    else:
        spare = 1 if any(big[s] for s in range(state.num_players) if s != seat) else 0
    if phase == CUBES:
        totals = list(map(add, state.big_on[state.placing], state.small_on[state.placing]))
        mine = totals[seat]
        totals[seat] = 0
        if actions[-1] == DONE and (mine > max(totals) + spare or not big[seat]):
            return DONE
        return actions[0]  # big, else small
    # A turn (its reveals come first, one per card in hand), or the optional placement after it.
    reveals = len(state.hands[seat]) if phase == TURN else 0
    mine_big, reach = big[seat], big[seat] + state.small[seat]
    big_cost, small_cost = (LAST_BIG_COST, LAST_SMALL_COST) if last else (BIG_COST, SMALL_COST)
    weight = -1.0
    best, best_gain = None, MIN_GAIN
    big_on, small_on = state.big_on, state.small_on
    for action in actions[reveals:]:
        if action == PASS:
            break
        boss = PARSED[action][1]
        totals = list(map(add, big_on[boss], small_on[boss]))
        mine = totals[seat]
        totals[seat] = 0
        top = max(totals)
        if mine > top:
            continue  # already mine
        cubes = top - mine + 1
        if reach > cubes:
            cubes += spare
        bigs = min(cubes, mine_big)
        cost = bigs * big_cost + (cubes - bigs) * small_cost
        if cost + best_gain >= MAX_WORTH and boss != CHICAGO:
            continue  # no city's card is worth that much
        if weight < 0:
            weight = _rounds_remain(state)
        worth = _worth(state, seat, boss, weight)
        if top and worth > 0:
            worth *= DENIAL
        if worth - cost > best_gain:
            best, best_gain = action, worth - cost
    if best is not None:
        return best
    if phase == PLACE:
        return PASS
    return actions[int(rng.random() * reveals)]


def play_round(state: BossState) -> None:
    """Plays the round on to its resolution (at most ROUND_LIMIT decisions) by :func:`policy`."""
    rng = state.rng  # the drawn state's own chance, drawn from the search's rng: deterministic
    start, steps = state.round, 0
    while state.round == start and steps < ROUND_LIMIT and not state.is_terminal():
        state.apply(policy(state, rng))
        steps += 1


def evaluate(state: State) -> Sequence[float]:
    """Plays the round out by the heuristic's rules, then judges (:func:`judge`). The state is
    the simulation's own, spent here."""
    assert isinstance(state, BossState)
    if not state.is_terminal():
        play_round(state)
    return judge(state)


CONFIG = SearchConfig(evaluate=evaluate, rollout=None, rollout_depth=0, exploration=0.7)
