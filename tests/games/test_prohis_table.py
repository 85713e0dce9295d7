"""Prohis's drawn table (``prohis/table.py``) and its actions in words (``describe_action``), against
the tests' own statement of who sees what (visibility.py): a seat's table, as a Scene and drawn as
SVG and text, does not change when cards it cannot see trade places, and does when a card it sees does; it
holds no face its view does not show; the full table at the end shows every hand and scores it."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena_games import GAMES, State
from arena_games.prohis.components import NAMES, PHASES, TITLES
from arena_games.prohis.table import PHASE, scoring, table
from arena_games.scene import Card, Scene, Text
from arenabot.strategies import make_strategy

from .drawing import drawn as drawing
from .test_views import differing_pairs, random_midgame
from .twins import swap
from .visibility import SIGHTS

GAME = GAMES["prohis"]
assert GAME.table is table
NAMES_DRAWN = ["<script>x</script>", "]]>&amp;", "seat\u202e two", "d", "e", "f"]  # hostile, on purpose


def drawn(state: State, seat: int, picture: bool) -> tuple[Scene, str]:
    """``seat``'s table as a Scene, and drawn (SVG wide and narrow, text) when ``picture``: a
    drawing costs tens of milliseconds, the Scene well under one."""
    view = state.view(seat)
    return table([view]), drawing("prohis", [view], NAMES_DRAWN[: state.num_players]) if picture else ""


def faces(scene: Scene) -> Counter[str]:
    zones = list(scene.centre) + [z for area in scene.seats for z in area.zones]
    return Counter(i.face.name for z in zones for i in z.items if isinstance(i, Card) and i.face)


def shown(view: dict) -> Counter[str]:
    """The card faces a view shows: its own hand, the market, the convoy and bribe cards it sees,
    the claims (its own warehouse it knows, but a warehouse is drawn face down)."""
    known = [c for c in view["convoy"] if c != "unknown"] + view["bribe"]
    return Counter(view["hand"] + view["market"] + known + [c["rank"] for c in view["claims"]])


def check_seats(state: State, pick: random.Random, pictures: bool = False) -> int:
    """For each seat: its scene holds only faces its view shows, and backs for the other hands;
    unseen swaps leave its scene alone, seen ones change it; with ``pictures``, the same of its
    drawings for a swap of each kind. Returns the swaps made."""
    swaps = 0
    for seat in range(state.num_players):
        view = state.view(seat)
        base, base_svg = drawn(state, seat, pictures)
        assert faces(base) == shown(view)
        for area in base.seats:
            if area.seat != seat:
                assert area.zones[0].items == (Card(None),) * view["players"][area.seat]["hand_size"]
        sight = SIGHTS["prohis"](state, seat)
        for i, (a, b) in enumerate(differing_pairs(state, sight.hidden, sight.hidden, pick, 3)):
            swap(state, a, b)
            scene, picture = drawn(state, seat, pictures and i == 0)
            assert scene == base and picture in ("", base_svg), f"seat {seat} saw unseen {a}, {b} trade places"
            swap(state, a, b)
            swaps += 1
        for i, (a, b) in enumerate(differing_pairs(state, sight.visible, sight.hidden, pick, 3)):
            swap(state, a, b)
            scene, picture = drawn(state, seat, pictures and i == 0)
            assert scene != base, f"seat {seat} missed {a} (seen) trading with {b}"
            assert not picture or picture != base_svg, f"seat {seat}'s drawing missed {a} trading with {b}"
            swap(state, a, b)
            swaps += 1
    return swaps


def test_a_seat_sees_its_own_table_and_nothing_more():
    swaps, phases = 0, set()
    for seed in range(24):
        state = random_midgame(GAME, 3 + seed % 4, seed, random.Random(seed).randrange(0, 250))
        phases.add(state.phase_name())
        swaps += check_seats(state, random.Random(seed), pictures=seed in (0, 7))
    assert swaps > 200 and {"turn", "over"} <= phases, (swaps, phases)


def test_every_phase_of_inspection_is_drawn_within_sight():
    """Through whole games, at every convoy, bribe and inspection decision (where the secrets are)."""
    seen: Counter[str] = Counter()
    for seed in range(4):
        n, pick = 3 + seed, random.Random(seed)
        players = [make_strategy("heuristic" if s % 2 else "random", "prohis", seed + s) for s in range(n)]
        state = GAME.new_game(n, 100 + seed)
        while not state.is_terminal():
            phase = state.phase_name()
            if phase in ("convoy", "bribe", "respond", "flip") and seen[phase] < 4:
                seen[phase] += 1
                check_seats(state, pick)
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    assert set(seen) == {"convoy", "bribe", "respond", "flip"}, seen


def test_the_full_table_at_the_end_shows_every_hand_and_scores_it():
    for seed in range(6):
        state = random_midgame(GAME, 3 + seed % 4, seed, 10_000)
        assert state.is_terminal()
        n, views = state.num_players, [state.view(s) for s in range(state.num_players)]
        scene = table(views)
        assert scene.to_act is None and scene.phase == "Game over"
        for area, score in zip(scene.seats, state.scores(), strict=True):
            hand = area.zones[0]
            assert hand.title == "Hand"
            assert [i.face.name for i in hand.items if isinstance(i, Card) and i.face] == views[area.seat]["hand"]
            scoring = next(z for z in area.zones if z.title == "Scoring")
            assert scoring.items[-1] == Text(f"Total: {'−' if score < 0 else ''}${abs(score):,}")
        # One seat's table at the end: its own score in full, the others' announced totals only.
        mine = table([views[0]])
        totals = [next(z for z in a.zones if z.title == "Scoring").items for a in mine.seats]
        assert len(totals[0]) > 1 and all(len(t) == 1 for t in totals[1:])
        assert all(a.zones[0].items == (Card(None),) * len(views[a.seat]["hand"]) for a in mine.seats[1:])
        assert 'class="card back"' not in drawing("prohis", views, NAMES_DRAWN[:n])


def test_the_full_table_shows_every_card_in_play():
    """Every seat's views at once (a whole game's replay): every hand, the convoy and the bribe
    face up; only the pile and the warehouses stay face down."""
    phases = set()
    for seed in range(10):
        state = random_midgame(GAME, 3 + seed % 4, seed, random.Random(seed).randrange(0, 200))
        views = [state.view(s) for s in range(state.num_players)]
        scene = table(views)
        phases.add(state.phase_name())
        assert Card(None) not in [i for z in scene.centre for i in z.items]
        assert all(Card(None) not in z.items for a in scene.seats for z in a.zones)
        assert sum(faces(scene).values()) == sum(len(v["hand"]) for v in views) + len(views[0]["market"]) + len(
            state.convoy) + len(state.bribe) + len(views[0]["claims"])
        with pytest.raises(ValueError):  # every seat's view, in seat order
            table(views[::-1])
    assert len(phases) > 3, phases


def test_the_rulebooks_scoring_example_and_every_phase_in_words():
    assert set(PHASE) == set(PHASES)
    lines = scoring(["illegal", "captain"], ["legal", "illegal", "major"])
    assert lines[-1] == Text("Total: $8,000")
    assert Text("Hand: 1 Illegal Good × −$4,000 = −$4,000") in lines


def test_every_action_has_words_and_a_hidden_card_stays_hidden():
    verbs: set[str] = set()
    card_words = [t.lower() for t in TITLES] + list(NAMES)
    for seed in range(8):
        n = 3 + seed % 4
        players = [make_strategy("heuristic" if s % 2 else "random", "prohis", seed + s) for s in range(n)]
        state = GAME.new_game(n, seed)
        while not state.is_terminal():
            for action in state.legal_actions():
                verb, _, arg = action.partition(":")
                verbs.add(verb)
                public, private = GAME.describe_action(action, False), GAME.describe_action(action, True)
                assert public and private and action not in (public, private)
                if verb in ("convoy", "bribe"):  # a card laid face down: its owner's secret
                    assert not any(word in public.lower() for word in card_words), public
                    assert TITLES[NAMES.index(arg)] in private
                else:
                    assert public == private
            seat = state.current_player()
            state.apply(players[seat].decide(state.view(seat), state.legal_actions()))
    assert verbs == set(GAME.actions)
