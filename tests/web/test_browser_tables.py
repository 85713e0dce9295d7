"""Every game's drawn table in the suite's Chromium: a game of each, played by built-in bots, its
replay from two seats and the full table at the first, a middle and the last step, wide and narrow.
Chromium reads each picture as an SVG document (malformed XML would show an error page instead),
draws every card inside the picture's width, a back for each face-down card of the scene and a
face only for a card the seat's view shows. (The replay page's own picture, keys and links:
test_browser_replay.py; the same drawings in Python, per game and under card swaps: tests/games.)"""

from __future__ import annotations

import json

import pytest

import arena_games
from arena.replays import rebuild
from arena.tables import frame_of, scene_of
from arena.tables.svg import svg
from arena_games.scene import Card
from referee.match import run_match
from referee.records import read_record
from referee.spec import parse_spec

COUNT = """
const cards = [...document.querySelectorAll("g.card")];
const width = document.documentElement.viewBox.baseVal.width;
return {root: document.documentElement.tagName,
        faces: cards.filter(c => c.classList.contains("face")).map(c => c.dataset.card),
        backs: cards.filter(c => c.classList.contains("back")).length,
        textInBacks: cards.filter(c => c.classList.contains("back")).some(c => c.querySelector("text")),
        outside: cards.filter(c => { const b = c.getBBox(); return b.x < 0 || b.x + b.width > width + 0.5; }).length};
"""


@pytest.mark.parametrize("game", sorted(arena_games.GAMES))
def test_every_games_table_draws_in_chromium_from_two_seats_and_the_full_table(browser, tmp_path, game):
    spec = arena_games.get_game(game)
    n = max(spec.min_players, min(4, spec.max_players))
    run_match(parse_spec({"match_id": "t", "game": game, "games": 1, "secret": "5c" * 16, "duplicate": False,
                          "bots": [{"name": f"bot-{i}", "builtin": "random"} for i in range(n)]}), tmp_path)
    played = read_record(tmp_path / "game-000.jsonl")
    for seat in (0, 1, None):
        replay = rebuild(played, seat)
        last = len(replay.steps) - 1
        for k in (0, last // 2, last):
            table, step = scene_of(replay, k), replay.steps[k]
            cards = [i for z in (*table.centre, *(z for a in table.seats for z in a.zones)) for i in z.items
                     if isinstance(i, Card)]
            known = json.dumps(step["view"] if seat is not None else step["views"])
            for narrow in (False, True):
                picture = tmp_path / f"{seat}-{k}-{narrow}.svg"
                picture.write_text(svg(table, replay.names, frame_of(replay, k), narrow=narrow))
                browser.get(picture.as_uri())
                seen = browser.execute_script(COUNT)
                where = f"{game}, seat {seat}, step {k}, narrow {narrow}"
                assert seen["root"] == "svg", where
                assert sorted(seen["faces"]) == sorted(c.face.name for c in cards if c.face is not None), where
                assert all(f'"{name}"' in known for name in seen["faces"]), where  # only what the seat knows
                assert seen["backs"] == sum(c.face is None for c in cards) and not seen["textInBacks"], where
                assert seen["outside"] == 0, f"{where}: {seen['outside']} card(s) drawn past the picture's edge"
