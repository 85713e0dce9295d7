"""How the search plays Bandits: a short rollout by the heuristic's rules of thumb, then each
seat judged by what it would score if the round ended now.

Only loot under a hideout scores, at a round's end, and a game of two usually ends with its first
round. So a cut-off state is judged by each seat's *projected total*: its total so far, the loot
under its hideout (and in its stash being made), and half the loot in its hand (it may still be
stashed, or lost to an attack). Before that, the fight or stash the rollout stopped in is played
out by the same rules of thumb: a state judged mid-fight would count the cards at stake on the
wrong side. A seat's value mixes its odds against each other seat, a logistic of the difference of
projected totals, with its lead itself, which the logistic flattens once a game looks decided.

The rollout plays as the heuristic would (stash any three of a kind, attack with a few guns,
defend when the stars suffice): random attacks and stashes say little about a move. The win rates
that chose this configuration: docs/search.md ("How the built-in players were tuned").
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

HAND_SHARE = 0.5  # of the loot in hand, counted in a projected total
SCALE = 8.0  # loot: a lead of this much gives odds of 0.73
MARGIN = 0.3  # the share of a seat's value given by its lead itself ...
MARGIN_SCALE = 60.0  # ... which is whole with a lead of this much loot
SETTLE_LIMIT = 30  # decisions played out at most to settle a cut-off fight or stash
ATTACK_GUNS = 4  # the policy's thresholds, the heuristic's: guns in hand to attack a hand,
RAID_GUNS = 3  # to raid a hideout with a Tracker,
ENOUGH_GUNS = 8  # and the strength at which an attack stops adding cards


def projected(state: BanditsState) -> list[float]:
    """Each seat's total if the round ended now, with a share of the loot in its hand."""
    value, face = VALUE.__getitem__, state.face.__getitem__
    out = []
    for seat, (hand, hideout, total) in enumerate(zip(state.hands, state.hideouts, state.totals, strict=True)):
        score = total + sum(map(value, map(face, hideout))) + HAND_SHARE * sum(map(value, map(face, hand)))
        if state.phase == STASH and seat == state.active:
            score += sum(map(value, map(face, state.stash)))
        out.append(score)
    return out


def evaluate(state: State) -> list[float]:
    """Each seat's value in [0, 1]: by the final ranks once the game is over, else by projected
    totals, once the fight or stash in progress is settled by :func:`policy`."""
    assert isinstance(state, BanditsState)
    steps = 0
    while state.phase != TURN and steps < SETTLE_LIMIT and not state.is_terminal():
        state.apply(policy(state))  # the search is done with this state: it may be played on
        steps += 1
    if state.is_terminal():
        return rank_values(state)
    scores = projected(state)
    n, total, exp = len(scores), sum(scores), math.exp
    values = []
    for mine in scores:
        # the seat itself is among ``scores``: a logistic of 0, a half, taken off
        odds = (sum(1 / (1 + exp((other - mine) / SCALE)) for other in scores) - 0.5) / (n - 1)
        lead = min(1.0, max(-1.0, (mine - (total - mine) / (n - 1)) / MARGIN_SCALE))
        values.append((1 - MARGIN) * odds + MARGIN * (1 + lead) / 2)
    return values


def rollout(state: State, rng: random.Random) -> str:
    assert isinstance(state, BanditsState)
    return policy(state)


def policy(state: BanditsState) -> str:
    """The heuristic's rules of thumb, on the state itself (no view to build); without chance,
    so that a search with a fixed budget stays reproducible."""
    actions = state.legal_actions()
    if len(actions) == 1:
        return actions[0]
    phase, face = state.phase, state.face
    if phase == TURN:
        stash = [a for a in actions if a.startswith("stash:")]
        if stash:
            return stash[-1]  # loot of a kind held 3 times: the rest of the stash follows
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
            return [a for a in actions if a.startswith("star:")][-1]  # the strongest star
        return BACKFIRE_ACT if BACKFIRE_ACT in actions else DONE
    # A stash: every card of its kind, and the Booby Trap.
    return actions[0]


CONFIG = SearchConfig(evaluate=evaluate, rollout=rollout, rollout_depth=10, exploration=1.0)
