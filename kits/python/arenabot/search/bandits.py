"""How the search plays Bandits: a short rollout by the heuristic's rules of thumb, then each
seat judged by what it would score if the round ended now.

Only loot under a hideout scores, at a round's end; a game of two usually ends with its first
round. So a cut-off state is judged by each seat's *projected total*: its total so far, the loot
under its hideout (and in its stash being made), and a part of the loot in its hand (it may still
be stashed, or lost to an attack). Seats are compared pairwise: a seat's value is its mean, over
the others, of a logistic of the difference of projected totals (1: far ahead of everyone).

The rollout plays a few decisions as the heuristic would (stash any three of a kind, attack with
a few guns, defend when the stars suffice), enough to settle the fight or stash the tree stopped
in; a random rollout attacks and stashes at random, which says little about a move.
"""

from __future__ import annotations

import math
import random

from arena_games.bandits import (
    ATTACK,
    BACKFIRE_ACT,
    BACKFIRED,
    DEFEND,
    DRAW,
    GUNS,
    STARS,
    STASH,
    TRACKER,
    TURN,
    VALUE,
    BanditsState,
)
from arena_games.core import DONE, State

from .ismcts import SearchConfig, rank_values

HAND_SHARE = 0.5  # of the loot in hand, counted in a projected total ...
HAND_PILE = 0  # ... in full with this many cards left in the pile, less with fewer (0: always in full)
SCALE = 8.0  # loot: a lead of this much is worth a logistic's 0.73
MARGIN = 0.0  # the share of a seat's value given by its lead itself, which a logistic flattens
MARGIN_SCALE = 60.0  # loot: a lead of this much is worth the whole margin share
SETTLE = False  # a cut-off state's fight or stash is played out by the policy before it is judged
SETTLE_LIMIT = 30
ATTACK_GUNS = 4  # guns in hand to attack a hand
RAID_GUNS = 3  # guns in hand to raid a hideout, with a Tracker
ENOUGH_GUNS = 8  # an attack stops adding cards at this strength


def projected(state: BanditsState) -> list[float]:
    """Each seat's total if the round ended now, with a share of the loot in its hand."""
    value, face = VALUE.__getitem__, state.face.__getitem__
    share = HAND_SHARE if not HAND_PILE else HAND_SHARE * min(1.0, len(state.pile) / HAND_PILE)
    out = []
    for seat, (hand, hideout, total) in enumerate(zip(state.hands, state.hideouts, state.totals, strict=True)):
        score = total + sum(map(value, map(face, hideout))) + share * sum(map(value, map(face, hand)))
        if state.phase == STASH and seat == state.active:
            score += sum(map(value, map(face, state.stash)))
        out.append(score)
    return out


def evaluate(state: State) -> list[float]:
    """Each seat's value in [0, 1]: by the final ranks once the game is over, else pairwise by
    projected totals, once the fight or stash in progress is settled by :func:`policy`."""
    assert isinstance(state, BanditsState)
    steps = 0
    while SETTLE and state.phase != TURN and steps < SETTLE_LIMIT and not state.is_terminal():
        state.apply(policy(state))
        steps += 1
    if state.is_terminal():
        return rank_values(state)
    scores = projected(state)
    n = len(scores)
    exp = math.exp
    # the seat itself is among the others: a logistic of 0, a half, taken off
    odds = [(sum(1 / (1 + exp((other - mine) / SCALE)) for other in scores) - 0.5) / (n - 1) for mine in scores]
    if not MARGIN:
        return odds
    leads = [min(1.0, max(-1.0, (mine - (sum(scores) - mine) / (n - 1)) / MARGIN_SCALE)) for mine in scores]
    return [(1 - MARGIN) * odd + MARGIN * (1 + lead) / 2 for odd, lead in zip(odds, leads, strict=True)]


def rollout(state: State, rng: random.Random) -> str:
    assert isinstance(state, BanditsState)
    return policy(state)


def policy(state: BanditsState) -> str:
    """The heuristic's rules of thumb, on the state itself (no view to build); no chance, so a
    search with a fixed budget stays reproducible."""
    actions = state.legal_actions()
    if len(actions) == 1:
        return actions[0]
    phase, face = state.phase, state.face
    if phase == TURN:
        stash = [a for a in actions if a.startswith("stash:")]
        if stash:
            return stash[-1]  # loot of the best kind held, and the best face: the rest follows
        hand = state.hands[state.active]
        guns = sum(GUNS[face[c]] for c in hand)
        if guns >= RAID_GUNS and any(face[c] == TRACKER for c in hand):
            raids = [a for a in actions if a.startswith("raid:")]
            target = max(raids, key=lambda a: len(state.hideouts[int(a[5:])]))
            if len(state.hideouts[int(target[5:])]) >= 3:
                return target
        if guns >= ATTACK_GUNS:
            attacks = [a for a in actions if a.startswith("attack:")]
            return max(attacks, key=lambda a: len(state.hands[int(a[7:])]))  # the biggest hand
        return DRAW
    if phase == ATTACK:
        if DONE in actions and sum(GUNS[face[c]] for c in state.attack) >= ENOUGH_GUNS:
            return DONE
        # the strongest Outlaw; Two-Faced cards, which also defend, last
        outlaws = [a for a in actions if a.startswith("gun:outlaw_")]
        return outlaws[-1] if outlaws else actions[-2] if actions[-1] == DONE else actions[-1]
    if phase in (DEFEND, BACKFIRED):
        guns = sum(GUNS[face[c]] for c in state.attack)
        played = state.defence if phase == DEFEND else state.counter
        stars = sum(STARS[face[c]] for c in played)
        if stars >= guns:
            return DONE
        seat = state.defender if phase == DEFEND else state.active
        if stars + sum(STARS[face[c]] for c in state.hands[seat]) >= guns:
            plays = [a for a in actions if a.startswith("star:")]
            return plays[-1]
        return BACKFIRE_ACT if BACKFIRE_ACT in actions else DONE
    # A stash: every card of its kind, and the Booby Trap.
    return actions[0] if actions[0] != DONE else DONE


CONFIG = SearchConfig(evaluate=evaluate, rollout=rollout, rollout_depth=10, exploration=0.7)
