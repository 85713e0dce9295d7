"""Sobek's drawn table (``sobek/table.py``) and its actions in words (``sobek/describe.py``).

A seat's table is laid out from its view alone, so it must follow the view tests' rule
(test_views.py): swapping two pieces the seat cannot see (cards, or the round's tokens) leaves
its table identical, and swapping a piece it sees with a hidden one changes it. No face the view
does not show ever reaches the table; the full table at the end shows every seat's cards face up
and scores the last round as the rulebook does.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from arena_games import GAMES, State
from arena_games.scene import Card, Scene, Text
from arena_games.sobek import describe_action, table
from arena_games.sobek.components import (
    APPLY,
    BURY_FACE,
    CARD,
    DISCARD,
    EXTEND,
    FAMILY_OF_ACT,
    PICK_FACE,
    PLAY,
    PROSPERITY_ON,
    SET_OF,
    START_AT,
    STEAL_BACK,
    TAKE,
    TARGET,
    TOKEN_OF,
)

from .drawing import drawn as drawing
from .drawing import played
from .test_views import differing_pairs
from .twins import swap
from .visibility import SIGHTS

SPEC = GAMES["sobek"]
assert SPEC.table is table
NAMES = ["<script>x</script>", "]]>&amp;", "seat\u202e two", "d"]  # hostile, on purpose


def games(count: int) -> Iterator[tuple[int, State]]:
    """The states of ``count`` random games, step by step (2 to 4 players)."""
    for seed in range(count):
        yield from played("sobek", 2 + seed % 3, seed)


def scene(state: State, seat: int) -> Scene:
    return table([state.view(seat)])


def drawn(state: State, seat: int) -> str:
    """``seat``'s table drawn every way (SVG wide and narrow, text): a few ms, the Scene far less."""
    return drawing("sobek", [state.view(seat)], NAMES[: state.num_players])


def faces(scene: Scene) -> list[str]:
    zones = scene.centre + tuple(z for area in scene.seats for z in area.zones)
    return [item.face.name for zone in zones for item in zone.items if isinstance(item, Card) and item.face]


def texts(scene: Scene) -> list[str]:
    """Every text of the scene; each must fit the drawers' cut (arena.tables.clean: 64 characters)."""
    zones = scene.centre + tuple(z for area in scene.seats for z in area.zones)
    return [scene.phase, *scene.facts, *(z.title for z in zones),
            *(item.text for zone in zones for item in zone.items if isinstance(item, Text))]


def shown_names(view: dict) -> set[str]:
    """Every card name the view shows (its events aside)."""
    names = set(view["hand"] + view["corruption"] + view["market"] + view["discard"] + view["selection"]
                + view["shown"])
    return names | {c for p in view["players"] for st in p["sets"] for c in st["cards"]}


def test_a_seats_table_depends_only_on_what_it_may_see():
    pick, unseen_swaps, seen_swaps, token_swaps = random.Random(3), 0, 0, 0
    sight_of = SIGHTS["sobek"]
    for step, state in games(4):
        # Token decisions (the chooser sees the remaining tokens), a Thief's or a Vizier's look,
        # and every 25th step.
        if step % 25 and (step % 3 or state.phase_name() not in ("event", "token", "steal", "pick")):
            continue
        for seat in range(state.num_players):
            base, shown = scene(state, seat), shown_names(state.view(seat))
            assert set(faces(base)) <= shown and max(map(len, texts(base))) <= 64
            # The drawing is checked on a sample of steps, once for each kind of swap.
            base_svg = drawn(state, seat) if step % 4 == 0 else None
            if base_svg:
                assert set(re.findall(r'data-card="([^"]*)"', base_svg)) <= shown
            seen_svg = base_svg
            before = sight_of(state, seat)
            unseen = before.hidden + list(before.backs)
            for a, b in differing_pairs(state, unseen, unseen, pick, 3):
                swap(state, a, b)
                after = sight_of(state, seat)
                if all((s in before.hidden and s in after.hidden) or before.backs.get(s, "") == after.backs.get(s)
                       for s in (a, b)):
                    assert scene(state, seat) == base, f"seat {seat}'s table showed a swap of unseen {a}, {b}"
                    if base_svg:
                        assert drawn(state, seat) == base_svg
                        base_svg = None
                    unseen_swaps += 1
                    token_swaps += a[0].startswith("token_")
                swap(state, a, b)
            for a, b in differing_pairs(state, before.visible, before.hidden, pick, 3):
                swap(state, a, b)
                assert scene(state, seat) != base, f"seat {seat}'s table missed a swap of visible {a}, {b}"
                if seen_svg:
                    assert drawn(state, seat) != seen_svg
                    seen_svg = None
                seen_swaps += 1
                swap(state, a, b)
    assert unseen_swaps > 300 and seen_swaps > 300 and token_swaps > 10, (unseen_swaps, seen_swaps, token_swaps)


def test_the_full_table_at_the_end_shows_every_seat_and_scores_the_round():
    ends = [state for _, state in games(6) if state.is_terminal()]
    assert len(ends) == 6
    for state in ends:
        views = [state.view(s) for s in range(state.num_players)]
        full = table(views)
        assert full.to_act is None and full.phase.endswith("game over")
        assert max(map(len, texts(full))) <= 64, max(texts(full), key=len)
        for area, view in zip(full.seats, views, strict=True):
            zones = {zone.title.partition(" (")[0]: zone for zone in area.zones}
            pile = [item.face.name for item in zones["Corruption"].items if isinstance(item, Card) and item.face]
            assert pile == view["corruption"]  # every pile face up, from its owner's view
            lines = [item.text for item in zones["Scoring"].items if isinstance(item, Text)]
            assert lines[-1] in (f"score: {view['scores'][area.seat]} point{s}." for s in ("", "s"))
            assert any(line.startswith("corruption: ") for line in lines)
        # One seat's view: the others' piles are counts, never faces.
        alone = table(views[:1])
        assert set(faces(alone)) <= shown_names(views[0])
        assert [z.title for z in alone.seats[1].zones if z.title.startswith("Corruption")]


def test_the_full_table_mid_game_shows_every_hand():
    for step, state in games(3):
        if step != 30:
            continue
        views = [state.view(s) for s in range(state.num_players)]
        full = table(views)
        for area, view in zip(full.seats, views, strict=True):
            hand = next(z for z in area.zones if z.title.startswith("Hand"))
            assert [item.face.name for item in hand.items if isinstance(item, Card) and item.face] == view["hand"]
        assert full.to_act == state.current_player()


EVERY_ACTION = (START_AT + TAKE + PLAY + SET_OF + EXTEND[:3] + CARD + TOKEN_OF + TARGET + PROSPERITY_ON[:3]
                + FAMILY_OF_ACT + STEAL_BACK + PICK_FACE + BURY_FACE + (APPLY, DISCARD, "done"))


def test_every_action_has_words_and_the_public_ones_keep_the_secret():
    assert {a.partition(":")[0] for a in EVERY_ACTION} == set(SPEC.actions)
    for action in EVERY_ACTION:
        full, public = describe_action(action, True), describe_action(action, False)
        assert full and public and action not in (full, public), action
        if action.startswith(("pick:", "bury:")):  # a card the other seats do not see
            assert public in ("takes a card from the corruption pile", "buries a card under the corruption tile")
            assert public != full
        else:
            assert public == full
    assert describe_action("card:wheat_1", True) == "lays Wheat (1 scarab)"
    assert describe_action("play:thief_fish", False) == "plays the Thief (Fish) for its power"
    assert describe_action("take:2", False) == "takes market card 2 (skipping 2)"
    # Every action of random games, as the game names them.
    for _, state in games(2):
        if not state.is_terminal():
            for action in state.legal_actions():
                assert describe_action(action, False) != action
