"""Matches, games and replays over HTTP, against the store of a real league (league "web"), and
the records and live rows they are read from."""

from __future__ import annotations

import gzip
import json

import httpx
from sqlalchemy import select

from arena.replays import rebuild
from arena.store import Bot, Game, LiveMatch, Match, User
from arena_games import get_game
from referee.records import RecordWriter, read_record
from referee.textlog import format_score

from .local_match import HOSTILE, local_match
from .tables import shown_cards, view_cards


def stored(site) -> tuple[list[Match], list[Game], dict[int, str | None]]:
    """League web's matches and games, and each bot's owner (as the store has it)."""
    with site.store() as session:
        matches = session.scalars(select(Match).order_by(Match.id)).all()
        games = session.scalars(select(Game).order_by(Game.id)).all()
        owners = dict(session.execute(select(Bot.id, User.name).outerjoin(User, Bot.owner_id == User.id)).all())
    web = [m for m in matches if m.record_dir.split("/")[-3] == "web"]
    ids = {m.id for m in web}
    return web, [g for g in games if g.match_id in ids], owners


def test_a_match_is_its_league_round_bots_and_games(league_site):
    matches, games, owners = stored(league_site)
    assert len(matches) == 3 and len(games) == 9
    with league_site.client() as anonymous:
        for match in matches:
            answer = anonymous.get(f"/api/v1/matches/{match.id}").json()
            assert (answer["league"], answer["game"], answer["round"], answer["table"]) == \
                ("web", "prohis", match.round, match.table)
            assert [b["bot_id"] for b in answer["bots"]] == match.bots
            assert [b["owner"] for b in answer["bots"]] == [owners[b] for b in match.bots]
            assert all(b["output"] is None for b in answer["bots"])  # nobody's but their owners'
            mine = [g for g in games if g.match_id == match.id]
            assert [(g["id"], g["bots"], g["scores"], g["ranks"], g["failures"]) for g in answer["games"]] == \
                [(g.id, g.seats, g.scores, g.ranks, g.failures) for g in mine]
            page = anonymous.get(f"/matches/{match.id}")
            assert page.status_code == 200 and page.headers["cache-control"] == "no-store"
            assert all(f'href="/games/{g.id}"' in page.text for g in mine)


def test_a_game_says_who_sat_where_and_what_you_may_see(league_site):
    _, games, owners = stored(league_site)
    game = games[0]
    with league_site.client("alice") as alice:
        answer = alice.get(f"/api/v1/games/{game.id}").json()
    assert [s["bot_id"] for s in answer["seats"]] == game.seats
    assert [s["owner"] for s in answer["seats"]] == [owners[b] for b in game.seats]
    assert "alice" in owners.values()
    assert [(s["score"], s["rank"], s["failure"]) for s in answer["seats"]] == \
        list(zip(game.scores, game.ranks, game.failures, strict=True))
    assert answer["over"] and answer["public"] and answer["full_table"]
    assert all(s["visible"] for s in answer["seats"])
    assert answer["decisions"] == len(read_record(game.record_path).decisions)
    outputs = [s["output"] is not None for s in answer["seats"]]  # alice's two bots only
    assert outputs == [owners[b] == "alice" for b in game.seats]


def test_every_seats_replay_and_the_full_table_follow_the_record(league_site):
    _, games, _ = stored(league_site)
    game = games[4]
    record = read_record(game.record_path)
    with league_site.client() as anonymous:
        table = anonymous.get(f"/api/v1/games/{game.id}/replay", params={"seat": "all"}).json()
        assert anonymous.get(f"/api/v1/games/{game.id}/replay").json() == table  # all is the default
        assert table["result"] == {"scores": game.scores, "ranks": game.ranks, "failures": game.failures}
        steps = table["steps"]
        assert len(steps) == len(record.decisions) + 1 and steps[-1]["end"]
        assert [(s["seat"], s["action"], s["ms"], s["fallback"]) for s in steps[:-1]] == \
            [(d["seat"], d["action"], d["ms"], bool(d.get("fallback"))) for d in record.decisions]
        for seat in range(3):
            mine = anonymous.get(f"/api/v1/games/{game.id}/replay", params={"seat": seat}).json()
            assert [s["views"][seat] for s in steps] == [s["view"] for s in mine["steps"]]
            assert all(s["view"]["seat"] == seat for s in mine["steps"])
            one = anonymous.get(f"/api/v1/games/{game.id}/replay", params={"seat": seat, "step": 7}).json()
            assert one["steps"] == [mine["steps"][7]]


def test_a_step_drawn_on_the_server_shows_the_cards_the_api_gives(league_site):
    _, games, _ = stored(league_site)
    game = games[2]
    with league_site.client() as anonymous:
        for seat, step in ((0, 0), (1, 9), (2, 20)):
            view = anonymous.get(f"/api/v1/games/{game.id}/replay",
                                 params={"seat": seat, "step": step}).json()["steps"][0]["view"]
            page = anonymous.get(f"/games/{game.id}", params={"seat": seat, "step": step}).text
            assert shown_cards(page) == view_cards(view, seat)
            assert f'data-seat="{seat}" data-step="{step}"' in page
        final = anonymous.get(f"/api/v1/games/{game.id}/replay", params={"seat": "all"}).json()["steps"][-1]
        page = anonymous.get(f"/games/{game.id}").text  # no seat, no step: the full table after the game
        hands = {seat: cards for (seat, field), cards in shown_cards(page).items() if field == "hand"}
        assert hands == {str(s): v["hand"] for s, v in enumerate(final["views"]) if v["hand"]}
        assert "After the game" in page and all(f">{format_score(get_game('prohis'), score)}<" in page
                                                for score in game.scores)


def test_hostile_names_are_text_everywhere(league_site):
    played = local_match(league_site, "prohis")
    with league_site.client() as anonymous:
        for url in (f"/matches/{played.match_id}", f"/games/{played.game_ids[1]}",
                    f"/games/{played.game_ids[1]}?seat=2&step=3"):
            page = anonymous.get(url).text
            assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page, url
        names = anonymous.get(f"/api/v1/games/{played.game_ids[1]}/replay", params={"seat": 0}).json()["names"]
        assert f"{HOSTILE}@prohis" in names  # the API gives it as it is: JSON, not HTML


def test_what_does_not_exist_is_404_and_bad_requests_say_why(league_site):
    matches, games, _ = stored(league_site)
    first = next(m for m in matches if m.round == 0)
    stored_first = next(g for g in games if g.match_id == first.id and g.index == 0)
    with league_site.client() as anonymous:
        assert anonymous.get("/api/v1/games/999999").json() == {"detail": "no game 999999"}
        assert anonymous.get("/api/v1/matches/999999").status_code == 404
        assert anonymous.get("/games/999999").status_code == 404
        assert anonymous.get(f"/api/v1/games/{games[0].id}/replay", params={"seat": 3}).status_code == 404
        assert anonymous.get(f"/api/v1/games/{games[0].id}/replay", params={"seat": "x"}).status_code == 422
        assert anonymous.get("/api/v1/leagues/nope/live").status_code == 404
        assert anonymous.get("/api/v1/leagues/web/live/9/1,2,3/games/0").status_code == 404
        moved = anonymous.get(f"/api/v1/leagues/web/live/0/{first.table}/games/0")  # played and stored
        assert moved.status_code == 307 and moved.headers["location"] == f"/api/v1/games/{stored_first.id}"


def test_no_live_row_is_left_once_the_league_has_run(league_site):
    with league_site.store() as session:
        assert session.scalars(select(LiveMatch)).all() == []
    with league_site.client() as anonymous:
        assert anonymous.get("/api/v1/leagues/web/live").json() == {"league": "web", "matches": []}
        assert 'id="nothing-live"' in anonymous.get("/leagues/web/live").text


def test_a_replay_is_sent_gzipped_to_whoever_takes_it(league_site):
    _, games, _ = stored(league_site)
    url = f"{league_site.url}/api/v1/games/{games[1].id}/replay?seat=all"
    packed = httpx.get(url, headers={"accept-encoding": "gzip"})
    plain = httpx.get(url, headers={"accept-encoding": "identity"})
    assert packed.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert packed.json() == plain.json()
    with httpx.Client() as client, client.stream("GET", url, headers={"accept-encoding": "gzip"}) as raw:
        body = b"".join(raw.iter_raw())
    assert gzip.decompress(body) == plain.content and len(body) < len(plain.content) / 5


def test_the_openapi_schema_documents_the_games_api(league_site):
    with league_site.client() as anonymous:
        paths = anonymous.get("/api/v1/openapi.json").json()["paths"]
    for path in ("/api/v1/matches/{match_id}", "/api/v1/matches/{match_id}/output/{bot_index}",
                 "/api/v1/games/{game_id}", "/api/v1/games/{game_id}/replay", "/api/v1/leagues/{name}/live",
                 "/api/v1/leagues/{name}/live/{round_}/{table}/games/{index}/replay"):
        assert paths[path]["get"]["tags"] == ["games"], path
    replay = paths["/api/v1/games/{game_id}/replay"]["get"]
    assert "ReplayOut" in json.dumps(replay["responses"]["200"])
    assert not any(p.startswith("/games") or p.startswith("/matches") for p in paths)


# -- records, as the server reads them ----------------------------------------------------------------
def test_a_record_being_written_is_read_up_to_its_last_whole_line(tmp_path):
    writer = RecordWriter(tmp_path / "game.jsonl", live=True)
    writer.header(format_note="x", game="prohis", num_players=3, seed=5, settings={}, seats=[])
    writer.failure(1, "no_hello", "never connected")
    for action in ("pile", "take:0"):
        writer.decision(0, action, 1.5)
    writer.failure(2, "timeout", "no reply", at="decision")
    writer.decision(2, "done", 0.0, fallback=True)
    with open(tmp_path / "game.jsonl", "a") as f:  # no flush needed: each line is written as it comes
        f.write('{"type":"decision","seat":0,"act')  # a line being written
    record = read_record(tmp_path / "game.jsonl", growing=True)
    assert [d["action"] for d in record.decisions] == ["pile", "take:0", "done"] and record.result is None
    assert [(f["seat"], f["at"], f["decision"]) for f in record.failures] == [(1, "start", 0), (2, "decision", 2)]
    writer.close()


def test_a_seat_that_failed_when_asked_was_sent_that_view_and_one_that_failed_before_was_not(league_site):
    played = local_match(league_site, "prohis")
    record = read_record(played.out / "game-000.jsonl")
    first_of = {s: next(k for k, d in enumerate(record.decisions) if d["seat"] == s) for s in range(3)}
    # seat 1 fails at its first decision, seat 2 before the game: as the referee records both
    record.failures = [{"seat": 2, "reason": "no_hello", "detail": "", "at": "start", "decision": 0},
                       {"seat": 1, "reason": "timeout", "detail": "", "at": "decision", "decision": first_of[1]}]
    for seat, asked in ((1, {first_of[1]}), (2, set())):
        steps = rebuild(record, seat).steps
        assert {s["step"] for s in steps if s["sent"]} & {first_of[1], first_of[2]} == asked
    assert rebuild(record, 1).steps[first_of[1]]["failure"] == "timeout"
