"""The drawers shared by every game (arena/tables): a scene as SVG and as text, safe with
hostile names, showing nothing of a face-down card; and ``arena replay --step``. Each game's own
table (and the perturbation test that its hidden cards change nothing drawn) is tested with the
game, through ``tests/games/drawing.py``."""

from __future__ import annotations

import dataclasses
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena_games
from arena.cli import main as arena
from arena.replays import rebuild
from arena.tables import Frame, frame_of, scene_of
from arena.tables.svg import NARROW, PALETTE, WIDE, svg
from arena.tables.text import text
from arena_games.scene import COLOURS, Card, Face, Scene, SeatArea, Stack, Text, Token, Zone
from referee.match import run_match
from referee.records import read_record
from referee.spec import parse_spec

NS = "{http://www.w3.org/2000/svg}"
EVIL = "<script>alert(1)</script>]]>&amp;\x1b[31m\u202e\x00" + "x" * 80
NAMES = [EVIL, "bob", "carol & <dave>", "Émilie"]


def face(name: str, colour: str = "blue") -> Card:
    return Card(Face(name, name.title(), "3", "Officers", colour))


SCENE = Scene(
    "prohis", f"Inspection {EVIL}", 1,
    centre=(Zone("Market", tuple(face(f"card_{c}", c) for c in COLOURS)),
            Zone("Pile", (Stack("pile", 44), Stack("boneyard", 0))),
            Zone(f"Convoy {EVIL}", (Card(None), Card(None, "new"),
                                    Card(Face("lieutenant", "Lieutenant", "2"), "flipped")), highlight=True),
            Zone("Bribe", (Text(f"bribe offered: {EVIL}"), Token("cubes", 3, "gold"), Token(EVIL, 1, "purple"),
                                  Token("odd", 2, '"/><script>')))),  # a colour not in COLOURS: grey
    seats=tuple(SeatArea(s, (Zone("Hand", (Card(None),) * 5 if s else (face("captain"),) * 8),
                             Zone("Warehouse", (Stack("warehouse", s),))), status=EVIL if s == 2 else "")
                for s in range(4)),
    facts=("Round 2 of 8", EVIL))
FRAME = Frame(5, 120, 1, f"runs a convoy {EVIL}", 123.4, ("pass", EVIL, *(f"offer {i}" for i in range(40))),
              ("alice passes", EVIL), (f"1. {EVIL}  $3,000", "2. bob  $1,000"))
BACKS = 2 + 5 * 3  # the face-down cards of SCENE
FACES = len(COLOURS) + 1 + 8


def parse(document: str) -> ET.Element:
    root = ET.fromstring(document)
    assert root.tag == f"{NS}svg"
    return root


def classes(element: ET.Element) -> set[str]:
    return set(element.get("class", "").split())


@pytest.mark.parametrize("narrow", [False, True])
def test_a_scene_is_one_safe_standalone_svg(narrow):
    document = svg(SCENE, NAMES, FRAME, narrow=narrow)
    root = parse(document)
    width = NARROW if narrow else WIDE
    assert root.get("viewBox", "").startswith(f"0 0 {width} ") and root.get("width") == str(width)
    # nothing that runs, styles or fetches: presentation attributes only (the site's CSP), no links
    tags = {e.tag.removeprefix(NS) for e in root.iter()}
    assert tags <= {"svg", "g", "rect", "text", "path", "circle"}, tags
    for e in root.iter():
        assert not {a for a in e.attrib if "href" in a or a == "style" or a.startswith("on") or a == "id"}, e.attrib
    assert "url(" not in document and "http" not in document.replace('xmlns="http://www.w3.org/2000/svg"', "")
    # hostile text is text: escaped (never markup), its control characters gone, long names cut
    assert "<script" not in document and "]]>" not in document and "\x1b" not in document and "\x00" not in document
    assert "\u202e" not in document
    texts = "".join(e.text or "" for e in root.iter(f"{NS}text"))
    assert "<script>" in texts and "&amp;" in texts and "carol & <dave>" in texts
    # each card once, a back with no text of any kind, each seat's area tagged
    backs = [g for g in root.iter(f"{NS}g") if classes(g) == {"card", "back"}]
    faces = [g for g in root.iter(f"{NS}g") if classes(g) == {"card", "face"}]
    assert (len(backs), len(faces)) == (BACKS, FACES)
    assert all(not list(g.iter(f"{NS}text")) and not g.get("data-card") for g in backs)
    assert {g.get("data-card") for g in faces} == {f"card_{c}" for c in COLOURS} | {"lieutenant", "captain"}
    seats = [g for g in root.iter(f"{NS}g") if "seat" in classes(g)]
    assert [g.get("data-seat") for g in seats] == ["0", "1", "2", "3"]
    assert [g.get("data-seat") for g in seats if g.get("data-to-act")] == ["1"]
    name = next(seats[0].iter(f"{NS}text")).text or ""  # a long name cut, so that it cannot push the table apart
    assert name.startswith("<script>") and name.endswith("…") and len(name) <= 40
    # every colour a game may name has its ink
    assert set(PALETTE) == set(COLOURS) and all(re.fullmatch(r"#[0-9a-f]{6}", ink) for ink in PALETTE.values())


def test_the_same_scene_is_drawn_to_the_same_bytes():
    for narrow in (False, True):
        assert svg(SCENE, NAMES, FRAME, narrow=narrow) == svg(dataclasses.replace(SCENE), list(NAMES), FRAME,
                                                               narrow=narrow)
    assert text(SCENE, NAMES, FRAME) == text(dataclasses.replace(SCENE), list(NAMES), FRAME)
    # and a face is drawn from the face alone
    other = dataclasses.replace(SCENE, centre=(Zone("Market", (face("major"),)),))
    assert svg(other, NAMES, FRAME).count('data-card="major"') == 1


def test_the_text_table_is_printable_and_reads_as_the_game():
    out = text(SCENE, NAMES, FRAME, width=80)
    lines = out.splitlines()
    assert all(line.isprintable() for line in lines), [line for line in lines if not line.isprintable()]
    assert out.count("[##]") == BACKS and "[Captain 3 · Officers]" in out and "pile ×44" in out
    assert "[Lieutenant 2](flipped)" in out and "(cubes: 3, gold)" in out
    assert "\\x1b" in out and "\\u202e" in out  # a name's controls written as escapes, not sent
    assert lines[0].startswith("Step 5 of 120 · Prohis · Inspection")
    assert any(line.startswith("> Seat 1: bob") for line in lines) and "* Convoy" in out
    assert all(len(line) <= 80 or " " not in line.strip() for line in lines)  # wrapped (a word alone may be longer)


# -- arena replay --step, on a record the referee plays in process --------------------------------
def generic_table(views):
    """A table for any game, for the CLI's plumbing: each seat's hand from its view, the others' as backs."""
    view = views[0]
    n = view["num_players"]
    seats = []
    for s in range(n):
        mine = [v for v in views if v["seat"] == s]
        hand = tuple(face(c) for c in mine[0]["hand"]) if mine else (Card(None),) * view["players"][s]["hand_size"]
        seats.append(SeatArea(s, (Zone("Hand", hand),)))
    return Scene(view["game"], view["phase"], None if view["phase"] == "done" else view["to_act"],
                 centre=(Zone("Pile", (Stack("pile", view["pile_size"]),)),), seats=tuple(seats))


@pytest.fixture
def record(tmp_path, monkeypatch) -> Path:
    """A game of Prohis by built-in bots (one with a hostile name), with a generic table and an
    action described as 'S:' (secret) or 'P:' (what all may know)."""
    spec = arena_games.get_game("prohis")
    monkeypatch.setitem(arena_games.GAMES, "prohis", dataclasses.replace(
        spec, table=generic_table, describe_action=lambda a, secret: f"{'S' if secret else 'P'}:{a}"))
    bots = [{"name": name, "builtin": "random"} for name in (EVIL, "bob", "c")]
    run_match(parse_spec({"match_id": "t", "game": "prohis", "games": 1, "secret": "7a" * 16, "duplicate": False,
                          "bots": bots}), tmp_path)
    path = tmp_path / "game-000.jsonl"
    lines = path.read_text().splitlines()  # the first decision with a debug text, as a bot may send one
    first = json.loads(lines[1])
    assert first["type"] == "decision"
    lines[1] = json.dumps({**first, "debug": "thinking hard\nabout \x1b[2J"})
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_step_frame_says_an_action_in_full_only_to_its_seat(record):
    played = read_record(record)
    replay = rebuild(played, 0)
    for k, step in enumerate(replay.steps[:-1]):
        frame = frame_of(replay, k)
        assert frame.action == f"{'S' if step['seat'] == 0 else 'P'}:{step['action']}"
        assert (frame.legal is not None) == (step["seat"] == 0) and frame.decider == step["seat"]
        assert not frame.result
    end = frame_of(replay, len(replay.steps) - 1)
    assert end.decider is None and end.action is None and len(end.result) == 3
    full = rebuild(played, None)
    assert all(frame_of(full, k).action.startswith("S:") for k in range(len(full.steps) - 1))
    assert len(scene_of(full, 0).seats) == 3 and scene_of(replay, 0).seats[1].zones[0].items[0] == Card(None)


def test_arena_replay_step_prints_the_table_in_text(record, monkeypatch):
    runner = CliRunner()
    first = runner.invoke(arena, ["replay", str(record), "--seat", "1", "--step", "0"])
    assert first.exit_code == 0, first.output
    assert first.output.startswith("Step 0 of ") and "[##]" in first.output and "pile ×" in first.output
    assert all(line.isprintable() for line in first.output.splitlines()) and "<script>alert(1)</script>" in first.output
    end = runner.invoke(arena, ["replay", str(record), "--step", "-1"])  # the full table, at the end
    assert end.exit_code == 0, end.output
    assert "The game is over" in end.output and "Result:" in end.output and "[##]" not in end.output
    # the deciding bot's debug text, to its seat or on the full table, escaped; --no-debug leaves it out
    decider = read_record(record).decisions[0]["seat"]
    debug = "Debug output of this decision:\n    | thinking hard\n    | about \\x1b[2J\n"
    for args, shown in ((["--seat", str(decider)], True), (["--seat", str((decider + 1) % 3)], False), ([], True),
                        (["--seat", str(decider), "--no-debug"], False)):
        step = runner.invoke(arena, ["replay", str(record), "--step", "0", *args])
        assert step.exit_code == 0 and (debug in step.output) == shown, (args, step.output)
    bad = runner.invoke(arena, ["replay", str(record), "--seat", "0", "--step", "100000"])
    assert bad.exit_code == 2 and "--step" in bad.output
    monkeypatch.setitem(arena_games.GAMES, "prohis", dataclasses.replace(arena_games.get_game("prohis"), table=None))
    none = runner.invoke(arena, ["replay", str(record), "--seat", "0", "--step", "1"])
    assert none.exit_code == 1 and "Prohis has no drawn table" in none.output
    plain = runner.invoke(arena, ["replay", str(record), "--seat", "0"])  # without --step: as before
    assert plain.exit_code == 0 and "Final scores:" in plain.output


# -- every game's table, as a replay draws it ------------------------------------------------------
@pytest.mark.parametrize("game", sorted(arena_games.GAMES))
def test_every_step_of_a_replay_draws_for_a_seat_and_for_the_full_table(tmp_path, game):
    """A game by built-in bots, its first, a middle and its last step, for seat 0 and for the
    full table (which the replay page shows at every step of a finished game): each drawn, each
    seat's area once, a card back for each face-down card of the scene and no face it has not."""
    spec = arena_games.get_game(game)  # every game has a table: tests/test_game_specs.py holds each to it
    n = max(spec.min_players, min(4, spec.max_players))
    run_match(parse_spec({"match_id": "t", "game": game, "games": 1, "secret": "7a" * 16, "duplicate": False,
                          "bots": [{"name": f"{EVIL}{i}", "builtin": "random"} for i in range(n)]}), tmp_path)
    played = read_record(tmp_path / "game-000.jsonl")
    for seat in (0, None):
        replay = rebuild(played, seat)
        last = len(replay.steps) - 1
        for k in (0, last // 2, last):
            table, frame = scene_of(replay, k), frame_of(replay, k)
            cards = [i for z in (*table.centre, *(z for a in table.seats for z in a.zones)) for i in z.items
                     if isinstance(i, Card)]
            for narrow in (False, True):
                root = parse(svg(table, replay.names, frame, narrow=narrow))
                groups = list(root.iter(f"{NS}g"))
                assert sorted(int(g.get("data-seat", -1)) for g in groups if "seat" in classes(g)) == list(range(n))
                assert sum(classes(g) == {"card", "back"} for g in groups) == sum(c.face is None for c in cards)
                assert sorted(g.get("data-card") for g in groups if classes(g) == {"card", "face"}) == \
                    sorted(c.face.name for c in cards if c.face is not None)
            assert all(line.isprintable() for line in text(table, replay.names, frame).splitlines())
