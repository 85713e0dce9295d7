"""Bandits's drawn table (``bandits/table.py``) and its actions in words (``bandits/describe.py``).

A seat's table is laid out from its view alone, so it follows the view tests' rule (test_views.py):
swapping two cards the seat cannot see (in the pile, another's hand or hideout, another's stash being
made) leaves its table identical, and swapping a card it sees with a hidden one changes it. The table
draws every face the view shows, once, and no other; the full table shows each seat's own cards and,
at the end, scores the last round as the rulebook does.
"""

from __future__ import annotations

import collections
import random
from collections.abc import Iterator

from arena_games import GAMES, State
from arena_games.bandits import describe_action, table
from arena_games.bandits.components import ATTACK_ON, GUN_CARD, RAID_ON, STAR_CARD, STASH_CARD
from arena_games.scene import Card, Scene, Stack, Text, Zone

from .drawing import drawn, played
from .test_views import differing_pairs
from .twins import swap
from .visibility import SIGHTS

SPEC = GAMES["bandits"]


def games(count: int, first: int = 0) -> Iterator[tuple[int, State]]:
    """The states of ``count`` random games, step by step (2 to 6 players, a short winning total so
    that games end within a few rounds)."""
    for seed in range(first, first + count):
        yield from played("bandits", 2 + seed % 5, seed, {"winning_total": 25, "max_rounds": 3})


def scene(state: State, seat: int) -> Scene:
    return table([state.view(seat)])


def zones(scene: Scene) -> tuple[Zone, ...]:
    return scene.centre + tuple(z for area in scene.seats for z in area.zones)


def faces(scene: Scene) -> list[str]:
    """The faces drawn, each as many times as its copies (a Boneyard's ``×3``)."""
    return [item.face.name for zone in zones(scene) for item in zone.items if isinstance(item, Card) and item.face
            for _ in range(int(item.note[1:]) if item.note.startswith("×") else 1)]


def shown(view: dict) -> list[str]:
    """Every face the view shows (its events aside): a stash being made by another is ``unknown``."""
    return [c for field in ("hand", "hideout", "stash", "boneyard", "removed", "attack", "defence", "counter")
            for c in view[field] if c != "unknown"]


def test_a_seats_table_depends_only_on_what_it_may_see():
    pick, unseen_swaps, seen_swaps, phases = random.Random(3), 0, 0, collections.Counter[str]()
    sight_of, drawings = SIGHTS["bandits"], 0
    for step, state in games(10):
        # The end, every 13th step, and a tenth of the fight and stash steps (cards on the table, a
        # stash face down).
        if not state.is_terminal() and step % 13 and (state.phase_name() == "turn" or pick.random() < 0.9):
            continue
        phases[state.phase_name()] += 1
        # The drawings too (SVG, wide and narrow, and text), for one seat at a tenth of these steps:
        # a drawing is a function of the scene, so the scenes say the rest, at a fraction of the time.
        drawn_seat = step % state.num_players if sum(phases.values()) % 10 == 0 else -1
        for seat in range(state.num_players):
            base = scene(state, seat)
            base_drawing = drawn("bandits", [state.view(seat)]) if seat == drawn_seat else ""
            # Each face the view shows is drawn once, and nothing else is.
            assert collections.Counter(faces(base)) == collections.Counter(shown(state.view(seat)))
            before = sight_of(state, seat)
            unseen = before.hidden + list(before.backs)
            for i, (a, b) in enumerate(differing_pairs(state, unseen, unseen, pick, 3)):
                swap(state, a, b)
                assert scene(state, seat) == base, f"seat {seat}'s table showed a swap of unseen {a}, {b}"
                if base_drawing and i == 0:
                    assert drawn("bandits", [state.view(seat)]) == base_drawing, f"seat {seat} drew {a}, {b}"
                    drawings += 1
                unseen_swaps += 1
                swap(state, a, b)
            for i, (a, b) in enumerate(differing_pairs(state, before.visible, before.hidden, pick, 3)):
                swap(state, a, b)
                assert scene(state, seat) != base, f"seat {seat}'s table missed a swap of visible {a}, {b}"
                if base_drawing and i == 0:
                    assert drawn("bandits", [state.view(seat)]) != base_drawing, f"seat {seat} missed {a}, {b}"
                    drawings += 1
                seen_swaps += 1
                swap(state, a, b)
    assert unseen_swaps > 500 and seen_swaps > 500 and drawings > 30, (unseen_swaps, seen_swaps, drawings)
    assert all(phases[p] > 5 for p in ("turn", "attack", "defend", "stash", "over")), phases


def test_a_seat_sees_others_as_backs_and_counts():
    for step, state in games(3):
        if step != 40:
            continue
        view = state.view(0)
        drawn = scene(state, 0)
        for area, player in zip(drawn.seats[1:], view["players"][1:], strict=True):
            hand, hideout = area.zones[0], next(z for z in area.zones if z.title.startswith("Hideout"))
            assert hand.items == (Card(None),) * player["hand_size"]
            assert hideout.items == (Stack("face down", player["hideout_size"]),)


def test_the_fight_sums_guns_and_stars_and_marks_its_seats():
    seen = collections.Counter[str]()
    for _, state in games(10):
        phase = state.phase_name()
        if phase not in ("attack", "defend", "backfire"):
            continue
        seen[phase] += 1
        view = state.view(0)
        drawn = scene(state, 0)
        titles = [z.title for z in drawn.centre]
        what = "Raid on a hideout" if view["raid"] else "Attack on a hand"
        assert f"{what}: {view['guns']} gun" in " ".join(titles)
        if phase == "defend":
            assert any(t.startswith(f"Defence: {view['stars']} star") for t in titles)
        if phase == "backfire":
            assert any(t.startswith(f"The attacker's defence: {view['counter_stars']} star") for t in titles)
        assert [z for z in drawn.centre if z.highlight]  # where the next card goes
        assert drawn.seats[view["attacker"]].status.startswith("attacker")
        assert drawn.seats[view["defender"]].status.startswith("defender")
        staked = drawn.seats[view["attacker" if phase == "backfire" else "defender"]]
        assert [z.title for z in staked.zones if z.title.endswith(", at stake")] == [
            next(z.title for z in staked.zones if z.title.startswith("Hideout" if view["raid"] else "Hand"))]
    assert seen["attack"] and seen["defend"] and seen["backfire"], seen


def test_the_full_table_shows_every_seat_and_scores_the_last_round():
    ends = 0
    for step, state in games(10):
        if not (state.is_terminal() or step == 25 or (step > 25 and state.phase_name() == "stash")):
            continue
        views = [state.view(s) for s in range(state.num_players)]
        full = table(views)
        for area, view in zip(full.seats, views, strict=True):
            hand = next(z for z in area.zones if z.title.startswith("Hand"))
            hideout = next(z for z in area.zones if z.title.startswith("Hideout"))
            assert [i.face.name for i in hand.items if isinstance(i, Card) and i.face] == view["hand"]
            assert faces(Scene("bandits", "", None, (hideout,))) == view["hideout"]
        # Each seat's own cards from its own view (a stash being made, face up), the public ones once.
        own = [c for v in views for field in ("hand", "hideout", "stash") for c in v[field] if c != "unknown"]
        public = [c for field in ("boneyard", "removed", "attack", "defence", "counter") for c in views[0][field]]
        assert collections.Counter(faces(full)) == collections.Counter(own + public)
        if not state.is_terminal():
            assert full.to_act == state.current_player()
            continue
        ends += 1
        assert full.to_act is None and full.phase == "Game over"
        scoring = next(z for z in full.centre if z.title.startswith("Scoring"))
        lines = [i.text for i in scoring.items if isinstance(i, Text)]
        totals = state.scores()
        for s in range(state.num_players):
            assert lines[s + 1].startswith(f"seat {s}: ") and lines[s + 1].endswith(f" = {totals[s]}"), lines
        assert all(len(line) <= 64 for line in lines), lines  # drawn whole (arena.tables.clean cuts at 64)
        assert "wins" in lines[-1]
        # One seat's view at the end: the others' hideouts are counts, never faces.
        alone = table(views[:1])
        assert collections.Counter(faces(alone)) == collections.Counter(shown(views[0]))
    assert ends == 10


def test_every_action_has_words_and_the_public_ones_keep_the_secret():
    every = ("draw", "backfire", "done") + ATTACK_ON + RAID_ON + STASH_CARD + GUN_CARD[:3] + STAR_CARD[6:9]
    assert {a.partition(":")[0] for a in every} == set(SPEC.actions)
    for action in every:
        full, public = describe_action(action, True), describe_action(action, False)
        assert full and public and action not in (full, public), action
        if action.startswith("stash:"):  # face down: the others see a card go, not which
            assert public == "stashes a card face down" and public != full
        else:
            assert public == full
    assert describe_action("stash:gold_3", True) == "stashes Gold Bars worth 3 face down"
    assert describe_action("gun:outlaw_6", False) == "adds Wild Bill (Outlaw, 6 guns) to the attack"
    assert describe_action("star:two_faced_1", False) == "defends with a Two-Faced card, as 1 star"
    assert describe_action("raid:4", False) == "plays a Tracker and raids the hideout of seat 4"
    # Every action of random games, as the game names them.
    for _, state in games(2, first=20):
        if not state.is_terminal():
            for action in state.legal_actions():
                assert describe_action(action, False) != action != describe_action(action, True)
