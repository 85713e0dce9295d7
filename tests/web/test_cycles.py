"""Issue 29 point 6: the games of a table's duplicate cycle stay hidden until the whole cycle is
stored, whether or not one of its matches is running.

A real league (the league runner, its referee processes and store; the bots local processes and
built-in players: containers are not the point), The Boss for two, so a cycle is two matches of
two games that deal the same two hands in the two seat rotations. Stopped after its first match,
as a league run to one round, or a ladder interrupted, is: nothing of that match's games is shown
to the public, to another author or to an admin, on any page or JSON twin, and the owner of a
seat's bot sees that seat (and the result it was told) only. Once the second match is stored,
everything is public.
"""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select, update

from arena.league.ladder import run_ladder
from arena.league.runner import run_league
from arena.league.schedule import Format
from arena.store import Bot, Game, Match, User

from ..cli.helpers import ProcessBots, league_of

LEAGUE = "cycle"


def play_half_a_cycle(site, format: Format) -> dict:
    """League LEAGUE of bots "mine" (alice's) and "theirs" (the operator's), played to its first
    match; what was stored."""
    a, b = league_of(site.store, LEAGUE, ["mine", "theirs"], format=format, game="boss", players=2)
    with site.store() as session, session.begin():
        alice = session.scalar(select(User.id).where(User.name == "alice"))
        session.execute(update(Bot).where(Bot.id == a).values(owner_id=alice))
    runs = site.runs_dir / LEAGUE
    if format == "ladder":
        interrupted: list[bool] = []

        def stop(status) -> None:  # Ctrl-C once the cycle's first match is stored
            if status.matches_run == 1 and not interrupted:
                interrupted.append(True)
                raise KeyboardInterrupt
        status = run_ladder(site.store, LEAGUE, jobs=1, runs_dir=runs, progress=stop, executor=ProcessBots())
        assert (status.stopped, status.matches_run, status.cycles, status.open_cycles) == ("interrupted", 1, 0, 1)
    else:
        assert run_league(site.store, LEAGUE, rounds=1, jobs=1, runs_dir=runs, executor=ProcessBots()).games_run == 2
    with site.store() as session:
        match = session.scalar(select(Match))
        games = [g.id for g in session.scalars(select(Game).order_by(Game.index))]
        return {"match": match.id, "round": match.round, "games": games, "mine": a, "theirs": b, "runs": runs}


def hidden_to(client, played: dict) -> None:
    """Nothing of the stored match's games reaches ``client``, who owns none of its bots."""
    m = played["match"]
    match = client.get(f"/api/v1/matches/{m}").json()
    assert match["public"] is False
    assert [(g["scores"], g["ranks"], g["failures"]) for g in match["games"]] == [(None, None, None)] * 2
    page = client.get(f"/matches/{m}").text
    assert 'id="cycle-open"' in page and not re.search(r"#[12]\b", page)  # no rank shown
    for g in played["games"]:
        game = client.get(f"/api/v1/games/{g}").json()
        assert (game["over"], game["public"], game["full_table"], game["decisions"]) == (True, False, False, None)
        assert [(s["score"], s["rank"], s["failure"], s["visible"]) for s in game["seats"]] == \
            [(None, None, None, False)] * 2
        for seat in ("0", "1", "all", None):
            params = {} if seat is None else {"seat": seat}
            assert client.get(f"/api/v1/games/{g}/replay", params=params).status_code == 403, seat
            assert client.get(f"/api/v1/games/{g}/replay", params={**params, "step": 0}).status_code == 403
        page = client.get(f"/games/{g}")
        assert page.status_code == 200 and "no-store" in page.headers["cache-control"]
        assert 'id="cycle-open"' in page.text and 'id="no-view"' in page.text and "data-card" not in page.text
        assert 'id="decisions"' not in page.text
        assert client.get(f"/games/{g}", params={"seat": "0", "step": "1"}).status_code == 403
    for bot in (played["mine"], played["theirs"]):  # the same for every viewer
        about = client.get(f"/api/v1/bots/{bot}").json()
        assert about["history"] == [] and about["recent_matches"] == []
        assert about["leagues"][0]["games"] == 2  # the leaderboard counts every stored game
        page = client.get(f"/bots/{bot}").text
        assert 'data-points="0"' in page and 'id="recent-matches"' not in page
    assert client.get(f"/api/v1/leagues/{LEAGUE}/live").json()["matches"] == []  # nothing is being played


def seen_by_its_owner(alice, played: dict) -> None:
    """Alice owns "mine": her seat of each game, and the result it was told; nothing else."""
    match = alice.get(f"/api/v1/matches/{played['match']}").json()
    assert match["public"] is False and all(g["scores"] is not None for g in match["games"])
    for g in played["games"]:
        game = alice.get(f"/api/v1/games/{g}").json()
        mine = next(s["seat"] for s in game["seats"] if s["owner"] == "alice")
        assert [s["visible"] for s in game["seats"]] == [s == mine for s in range(2)]
        assert not game["full_table"] and game["decisions"] > 0
        assert all(s["score"] is not None and s["rank"] is not None for s in game["seats"])
        own = alice.get(f"/api/v1/games/{g}/replay", params={"seat": mine})
        assert own.status_code == 200 and "no-store" in own.headers["cache-control"]
        steps = own.json()["steps"]
        assert all(s["action"] is None and s["ms"] is None for s in steps if s["seat"] == 1 - mine)
        assert all("views" not in s and s["view"]["seat"] == mine for s in steps)
        assert alice.get(f"/api/v1/games/{g}/replay", params={"seat": 1 - mine}).status_code == 403
        assert alice.get(f"/api/v1/games/{g}/replay", params={"seat": "all"}).status_code == 403
        page = alice.get(f"/games/{g}").text
        assert f'<section class="view" data-seat="{mine}">' in page and "data-card" in page
        assert f'data-seat="{1 - mine}"' not in page


@pytest.mark.parametrize("format", ["round-robin", "ladder"])
def test_a_cycle_is_hidden_until_it_is_all_stored(empty_site, format):
    site = empty_site
    played = play_half_a_cycle(site, format)
    assert played["round"] == 0
    with site.client() as anonymous, site.client("bob") as bob, site.client("admin") as admin, \
            site.client("alice") as alice:
        for client in (anonymous, bob, admin):
            hidden_to(client, played)
        seen_by_its_owner(alice, played)

    # the second match of the cycle (the same deals, the seats rotated): then all is public
    if format == "ladder":
        status = run_ladder(site.store, LEAGUE, jobs=1, runs_dir=played["runs"], until=4, executor=ProcessBots())
        assert (status.matches_run, status.cycles, status.open_cycles) == (1, 1, 0)
    else:
        run_league(site.store, LEAGUE, rounds=2, jobs=1, runs_dir=played["runs"], executor=ProcessBots())
    with site.store() as session:
        assert sorted(session.scalars(select(Match.round))) == [0, 1]
        deals = sorted(session.scalars(select(Game.deal)))
    assert deals == ["c0d0", "c0d0", "c0d1", "c0d1"]
    with site.client() as anonymous:
        match = anonymous.get(f"/api/v1/matches/{played['match']}").json()
        assert match["public"] is True and all(g["scores"] is not None for g in match["games"])
        assert 'id="cycle-open"' not in anonymous.get(f"/matches/{played['match']}").text
        for g in played["games"]:
            game = anonymous.get(f"/api/v1/games/{g}").json()
            assert game["public"] and game["full_table"] and game["decisions"] > 0
            assert all(s["visible"] and s["score"] is not None for s in game["seats"])
            table = anonymous.get(f"/api/v1/games/{g}/replay", params={"seat": "all"})
            assert table.status_code == 200 and "no-store" not in table.headers.get("cache-control", "")
            page = anonymous.get(f"/games/{g}").text
            assert 'id="cycle-open"' not in page and "data-card" in page
        about = anonymous.get(f"/api/v1/bots/{played['mine']}").json()
        assert len(about["history"]) == 4 and len(about["recent_matches"]) == 2
