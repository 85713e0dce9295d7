"""Properties every engine must have, over thousands of random games at every player count:
each game ends, every card is in exactly one place at all times, and (seed, actions) replays it;
and an engine plays the games of its version."""

from __future__ import annotations

import hashlib
import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_games import GAMES, GameSpec
from arenabot.strategies import make_strategy
from referee.selfplay import replay

MAX_DECISIONS = 20_000  # far above any real game: hitting it means the game does not end

CASES = [(spec, n) for spec in GAMES.values() for n in range(spec.min_players, spec.max_players + 1)]


def check_conservation(places: dict[str, list[int]], total: int) -> None:
    seen: list[int] = []
    for cards in places.values():
        seen += cards
    if len(seen) != total or set(seen) != set(range(total)):
        dupes = sorted({c for c in seen if seen.count(c) > 1})
        missing = sorted(set(range(total)) - set(seen))
        raise AssertionError(f"cards not conserved: duplicated {dupes}, missing {missing}")


@pytest.mark.parametrize("spec, n", CASES, ids=[f"{s.name}-{n}p" for s, n in CASES])
@given(seed=st.integers(0, 2**32 - 1), kinds=st.lists(st.sampled_from(["random", "heuristic"]),
                                                      min_size=6, max_size=6))
def test_random_games_end_conserve_cards_and_replay(spec: GameSpec, n: int, seed: int, kinds: list[str]):
    players = [make_strategy(kinds[s], spec.name, seed + s) for s in range(n)]
    state = spec.new_game(n, seed)
    total = sum(len(cards) for cards in state.card_places().values())
    actions: list[str] = []
    while not state.is_terminal():
        assert len(actions) < MAX_DECISIONS, "the game did not end"
        seat = state.current_player()
        legal = state.legal_actions()
        assert legal, f"no legal action for seat {seat} in phase {state.phase_name()}"
        assert len(set(legal)) == len(legal), f"duplicate legal actions {legal}"
        action = players[seat].decide(state.view(seat), legal)
        state.apply(action)
        actions.append(action)
        check_conservation(state.card_places(), total)
    assert state.legal_actions() == []
    assert sorted(state.ranks())[0] == 1

    again = replay(spec, n, seed, actions)
    assert again.scores() == state.scores() and again.ranks() == state.ranks()
    assert again.history() == state.history()
    for s in range(n):
        assert json.dumps(again.view(s), sort_keys=True) == json.dumps(state.view(s), sort_keys=True)


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
@pytest.mark.parametrize("action", [None, 0, ["take", 0], b"done", {"kind": "done"}])
def test_a_malformed_action_is_refused_and_changes_nothing(spec: GameSpec, action):
    """Anything that is not an action string, at a mid-game state of every game."""
    from arena_games import MalformedAction

    from .rig import snapshot

    state = spec.new_game(spec.min_players, 7)
    players = [make_strategy("random", spec.name, s) for s in range(spec.min_players)]
    for _ in range(15):
        seat = state.current_player()
        state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    before = snapshot(state)
    with pytest.raises(MalformedAction, match="an action must be a string"):
        state.apply(action)
    assert snapshot(state) == before


# Whole games of each engine at its version, by seed-driven random choices: game -> (version,
# players -> the start of the SHA-256 of every decision and of the end; see fingerprint()).
# A change to an engine that alters any of them changes the game: give it a new version.
PLAYED = {
    "bandits": ("1.1.0", {2: "d215c877f297b4fe", 3: "1eff8a4ba2801bb8", 4: "578f3cc1a6b610e5",
                          5: "a1b17fc2c856c34c", 6: "b22c6152dcb4ee08"}),
    "boss": ("1.0.0", {2: "12fd69f1d93cafca", 3: "32af944e66e78cc7", 4: "6f35b2dbd4553ea9"}),
    "prohis": ("1.2.0", {3: "1ae166f3167703e9", 4: "04641b19cc3d213c", 5: "3d3e0d10ecbe125d", 6: "08e4e455c16f20ad"}),
    "sobek": ("1.0.0", {2: "10ffdaf77fe95f67", 3: "b42f177b640e95b3", 4: "63a17991607dd777"}),
}


def fingerprint(spec: GameSpec, n: int, seed: int) -> str:
    """Each decision's seat, legal actions and view, then the history, every seat's final view,
    the scores and the ranks of a game played by ``random.Random(seed)``'s choices."""
    state, rng = spec.new_game(n, seed), random.Random(seed)
    digest = hashlib.sha256()
    while not state.is_terminal():
        seat, legal = state.current_player(), state.legal_actions()
        digest.update(json.dumps([seat, legal, state.view(seat)], sort_keys=True).encode())
        state.apply(rng.choice(legal))
    digest.update(json.dumps([state.history(), [state.view(s) for s in range(n)], state.scores(), state.ranks()],
                             sort_keys=True).encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("spec, n", CASES, ids=[f"{s.name}-{n}p" for s, n in CASES])
def test_an_engine_plays_the_games_of_its_version(spec: GameSpec, n: int):
    version, played = PLAYED[spec.name]
    got = fingerprint(spec, n, 100 + n)
    assert (spec.version, got) == (version, played[n]), (
        f"{spec.name} {spec.version} with {n} players plays {got}; version {version} played {played[n]}")
