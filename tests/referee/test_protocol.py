"""The wire format: generated code is fresh, the codec is exact, bad replies are named."""

from __future__ import annotations

import importlib.util
import json

import pytest

from arena_games import GAMES
from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import prohis_pb2
from arenabot.strategies import make_strategy

from .helpers import ROOT


def test_generated_stubs_are_fresh():
    spec = importlib.util.spec_from_file_location("generate", ROOT / "protos" / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    assert generate.stale_files() == [], "protos/ changed: run `make protos` and commit the result"


def sample_views(game: str, games: int = 30):
    spec = GAMES[game]
    for seed in range(games):
        n = spec.min_players + seed % (spec.max_players - spec.min_players + 1)
        state = spec.new_game(n, seed)
        players = [make_strategy("heuristic" if s % 2 else "random", game, seed + s) for s in range(n)]
        while not state.is_terminal():
            seat = state.current_player()
            yield state, state.view(seat)
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
        for s in range(n):
            yield state, state.view(s)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_views_and_actions_round_trip_exactly(game):
    actions = set()
    for state, view in sample_views(game):
        msg, events = codec.encode_view(view)
        wire = pb.DecisionRequest(view=msg, events=events).SerializeToString()
        back = pb.DecisionRequest.FromString(wire)
        assert codec.decode_view(back.view, back.events) == view
        actions.update(state.legal_actions())
    for action in actions:
        wire = codec.encode_action(game, action).SerializeToString()
        assert codec.decode_action(game, pb.Action.FromString(wire)) == action


def test_typed_only_and_text_only_actions_are_accepted():
    typed = pb.Action(prohis=prohis_pb2.ProhisAction(kind=prohis_pb2.PROHIS_ACTION_KIND_CONVOY,
                                                     card=prohis_pb2.PROHIS_CARD_ILLEGAL))
    assert codec.decode_action("prohis", typed) == "convoy:illegal"
    assert codec.decode_action("prohis", pb.Action(text="take:1")) == "take:1"


TAKE = prohis_pb2.PROHIS_ACTION_KIND_TAKE


@pytest.mark.parametrize("action, message", [
    (pb.Action(), "the action is empty"),
    (pb.Action(prohis=prohis_pb2.ProhisAction()), "no kind"),
    (pb.Action(prohis=prohis_pb2.ProhisAction(kind=TAKE)), "a take action needs its position"),
    (pb.Action(text="take:0", prohis=prohis_pb2.ProhisAction(kind=TAKE, position=2)), "disagree"),
])
def test_malformed_actions_are_named(action, message):
    with pytest.raises(codec.MalformedMessage, match=message):
        codec.decode_action("prohis", action)


def test_enum_names_are_the_engines_strings():
    view = next(v for _, v in sample_views("prohis", 1))
    msg, _ = codec.encode_view(view)
    assert json.dumps(codec.decode_view(msg, [])["hand"]) == json.dumps(view["hand"])
    assert "PROHIS_CARD" in str(msg)
