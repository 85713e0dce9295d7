"""The machinery every engine shares: the action tables, the phase methods, the spec a state
knows, and the caches a test may clear."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from arena_games import GAMES, PhasedState, get_game
from arena_games.core import action_table
from arena_games.prohis import PASS, ProhisState


def test_an_action_table_gives_each_action_its_verb_and_its_index_in_the_family():
    take = ("take:0", "take:1", "take:2")
    card = ("card:legal", "card:illegal")
    assert action_table(take, card) == {"take:0": ("take", 0), "take:1": ("take", 1), "take:2": ("take", 2),
                                        "card:legal": ("card", 0), "card:illegal": ("card", 1)}


def test_an_action_listed_twice_is_refused():
    with pytest.raises(ValueError, match="listed twice"):
        action_table(("reveal:gold", "reveal:gold"))


def test_a_phase_without_its_methods_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="_legal_pick, _apply_pick"):

        class Half(PhasedState):  # noqa: F841 (never used: making it must fail)
            PHASES = ("pick", "over")


def test_a_subclass_overriding_a_phase_method_is_heard():
    class OnlyPass(ProhisState):
        def _legal_turn(self):
            return [PASS]

    spec = dataclasses.replace(get_game("prohis"), state=OnlyPass)
    state = spec.new_game(4, 1)
    assert state.legal_actions() == [PASS]
    assert get_game("prohis").new_game(4, 1).legal_actions() != [PASS]


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_a_state_has_the_spec_that_started_it_and_its_copies_share_it(spec):
    state = spec.new_game(spec.min_players, 3)
    assert state.game is spec
    assert state.clone().game is spec and copy.deepcopy(state).game is spec
    assert "game" not in vars(spec.state), "the spec is handed to each state, not patched onto its class"


# A change by hand to the first decision of each game that changes its legal actions.
RIGS = {
    "prohis": lambda state: state.hands[state.current_player()].clear(),  # no convoy to run
    "sobek": lambda state: state.market.clear(),  # nothing to take
    "boss": lambda state: state.hands[state.current_player()].clear(),  # nothing to reveal
    "bandits": lambda state: state.hands[state.current_player()].clear(),  # nothing to attack with
}


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_a_state_changed_by_hand_lists_new_legal_actions_once_its_caches_are_cleared(spec):
    """A test's rigging shows in the legal actions only after invalidate_caches(): until then the
    list is the cached one."""
    state = spec.new_game(spec.min_players, 5)
    before = list(state.legal_actions())
    RIGS[spec.name](state)
    assert state.legal_actions() == before
    state.invalidate_caches()
    assert state.legal_actions() != before
