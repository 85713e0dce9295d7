"""Information-Set Monte Carlo Tree Search: a strategy that simulates with the engines.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012), the search OpenSpiel's
``ismcts.py`` implements: one tree for the deciding seat, whose nodes are the action sequences
played from its decision. Each iteration draws a fresh state consistent with the seat's view
(:func:`arena_games.determinise.sampler`: its own cards, the public cards and events, known
facts), then walks the tree in that state: at each node only the actions legal in the drawn state
compete, by UCB with *availability* counts (how often an action was legal when its node was
visited, which keeps rare actions from looking under-explored); the first action not yet in the
tree is added, a rollout plays on for a few decisions, and the game's evaluation of where the
rollout stops is backed up, each node crediting the seat that chose its action. The answer is
the root's most visited legal action.

Every seat's value is in [0, 1] (1: first place alone), so a node of any seat is judged by what
its seat gets: the search is max-n over the seats, not two-player minimax.

Time: with ``iterations`` fixed the search is deterministic for a seed (tests, reference leagues).
Otherwise it stops at a wall-clock deadline well inside the referee's ``time_left_ms`` (a share of
it, at most ``max_ms``), checked between iterations: an iteration takes about a millisecond, so
the answer is never late, even when a busy neighbour halves the CPU the bot gets.
"""

from __future__ import annotations

import importlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena_games import GameSpec, State, get_game

from ..strategies.base import Strategy


def rank_values(state: State) -> list[float]:
    """Each seat's value from the ranks of its current scores: 1 for first place alone, 0 for
    last; seats that share places share their values (two tied for first with two players: 0.5
    each). The default evaluation, right for a finished game, and a rough one for a cut-off."""
    n = state.num_players
    ranks = state.ranks()
    values = []
    for r in ranks:
        tied = ranks.count(r)
        # places r .. r+tied-1 shared: the mean of their values (n - place) / (n - 1)
        values.append(sum(n - p for p in range(r, r + tied)) / (tied * (n - 1)))
    return values


@dataclass(frozen=True)
class SearchConfig:
    """How the search plays one game: what each game's module (``arenabot.search.<game>``)
    tunes, as ``CONFIG``."""

    evaluate: Callable[[State], Sequence[float]] = rank_values
    """Each seat's value in [0, 1] of a state where a rollout stopped (finished or cut off)."""
    rollout: Callable[[State, random.Random], str] | None = None
    """The action a rollout plays in a state; None: a uniformly random legal action."""
    rollout_depth: int = 40
    """Decisions a rollout plays past the tree before :attr:`evaluate` (fewer if the game ends)."""
    exploration: float = 0.7
    """UCB's exploration constant c: a child's score is mean + c * sqrt(ln(available) / visits)."""


def config_for(game: str) -> SearchConfig:
    """``CONFIG`` of ``arenabot.search.<game>``, or the defaults for a game without one."""
    try:
        module = importlib.import_module(f"{__package__}.{game}")
    except ModuleNotFoundError:
        return SearchConfig()
    return getattr(module, "CONFIG", SearchConfig())


class Node:
    """An action sequence from the root, as reached by one seat's action."""

    __slots__ = ("seat", "children", "visits", "available", "total")

    def __init__(self, seat: int) -> None:
        self.seat = seat  # who chose the action that leads here: it is credited with the value
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class ISMCTS(Strategy):
    """An ISMCTS player of any game with an engine sampler (all four).

    ``iterations``: a fixed budget per decision (deterministic for a seed). Otherwise the search
    runs for ``share`` of the referee's ``time_left_ms``, at most ``max_ms``, less ``margin_ms``
    for the answer's trip; with no time given (in process), for ``max_ms``.
    """

    def __init__(self, seed: int = 0, *, iterations: int | None = None, max_ms: float = 250, share: float = 0.3,
                 margin_ms: float = 15, config: SearchConfig | None = None) -> None:
        super().__init__(seed)
        self.iterations, self.max_ms, self.share, self.margin_ms = iterations, max_ms, share, margin_ms
        self.config = config
        self.settings: dict[str, str] = {}
        self.history: list[dict[str, Any]] = []
        self.last_iterations = 0  # of the last decision: for benchmarks and logs

    def start_game(self, info: dict[str, Any]) -> None:
        super().start_game(info)
        self.settings = dict(info.get("settings", {}))
        self.history = []

    def decide(self, view: dict[str, Any], legal_actions: list[str]) -> str:
        start = time.perf_counter()
        self.history += view["events"]
        if len(legal_actions) == 1:
            self.last_iterations = 0
            return legal_actions[0]
        spec = get_game(view["game"])
        config = self.config or config_for(spec.name)
        settings = self.settings or None
        from arena_games.determinise import sampler

        draw = sampler(view, history=self.history, settings=settings)
        return self.search(spec, draw, view["seat"], legal_actions, config, self._deadline(start))

    def _deadline(self, start: float) -> float | None:
        if self.iterations is not None:
            return None
        budget = self.max_ms
        if self.time_left_ms is not None:
            budget = min(budget, self.time_left_ms * self.share - self.margin_ms)
        return start + max(budget, 1.0) / 1000

    def search(self, spec: GameSpec, draw: Callable[[random.Random], State], seat: int, legal: list[str],
               config: SearchConfig, deadline: float | None) -> str:
        rng = self.rng
        root = Node(seat)
        evaluate, rollout, depth, c = config.evaluate, config.rollout, config.rollout_depth, config.exploration
        log, sqrt, clock = math.log, math.sqrt, time.perf_counter
        limit = self.iterations if self.iterations is not None else 10**9  # a budget, or a deadline (_deadline)
        done = 0
        while done < limit and (deadline is None or clock() < deadline):
            done += 1
            state = draw(rng)
            state.mute()
            node, path = root, []
            # Selection and expansion, in the drawn state.
            while not state.is_terminal():
                actions = state.legal_actions()
                if len(actions) == 1:  # a forced action is no choice: no node
                    state.apply(actions[0])
                    continue
                children = node.children
                untried = [a for a in actions if a not in children]
                for a in actions:
                    child = children.get(a)
                    if child is not None:
                        child.available += 1
                if untried:
                    action = untried[rng.randrange(len(untried))] if len(untried) > 1 else untried[0]
                    node = children[action] = Node(state.current_player())
                    node.available = 1
                    state.apply(action)
                    path.append(node)
                    break
                best, best_score = actions[0], -1.0  # every score is >= 0: the loop sets both
                for a in actions:
                    child = children[a]
                    score = child.total / child.visits + c * sqrt(log(child.available) / child.visits)
                    if score > best_score:
                        best, best_score = a, score
                node = children[best]
                state.apply(best)
                path.append(node)
            # Rollout, cut off after ``depth`` decisions.
            steps = 0
            while steps < depth and not state.is_terminal():
                actions = state.legal_actions()
                if rollout is None:
                    state.apply(actions[rng.randrange(len(actions))] if len(actions) > 1 else actions[0])
                else:
                    state.apply(rollout(state, rng))
                steps += 1
            values = evaluate(state)
            for node in path:
                node.visits += 1
                node.total += values[node.seat]
        self.last_iterations = done
        visited = [(root.children[a].visits, -i, a) for i, a in enumerate(legal) if a in root.children]
        return max(visited)[2] if visited else legal[0]


__all__ = ["ISMCTS", "Node", "SearchConfig", "config_for", "rank_values"]
