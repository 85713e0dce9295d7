"""The pages an author lives on, over real HTTP: a bot page's games (with replay links, paged,
only those the asker may see: ``arena/access.py``) and its versions side by side; the
submissions list's rank in each league, when the bot plays there, and a refusal's reason."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from arena.league.outlook import outlook
from arena.league.standings import rebuild_ratings
from arena.store import Bot, Entry, Game, League, Submission, User

from .test_crosstable import add_bots, add_match


def game_ids(page: str) -> list[int]:
    return [int(x) for x in re.findall(r'<tr data-game-id="(\d+)"', page)]


def test_a_bot_page_lists_the_games_its_asker_may_see_paged(empty_site):
    store = empty_site.store
    a, b, c = add_bots(store)  # alice's
    add_match(store, 0, [a, b, c], [[1, 2, 3]] * 30)  # cycle 0: 32 games, public once rounds 1 and 2 are stored
    add_match(store, 1, [a, b, c], [[2, 1, 3]])
    add_match(store, 2, [a, b, c], [[3, 2, 1]])
    add_match(store, 3, [a, b, c], [[1, 3, 2]])  # cycle 1 is open: its game is not public
    rebuild_ratings(store, "cross")
    with empty_site.client() as anonymous:
        first = anonymous.get(f"/bots/{a}?league=cross").text
        second = anonymous.get(f"/bots/{a}?league=cross&games=2").text
        past = anonymous.get(f"/bots/{a}?league=cross&games=3").text
        assert anonymous.get(f"/bots/{a}?games=0").status_code == 422
    assert len(game_ids(first)) == 25 and len(game_ids(second)) == 7 and game_ids(past) == []
    public = game_ids(first) + game_ids(second)
    assert len(set(public)) == 32 and "32 game(s) you may see" in first and 'id="games-next"' in first
    assert 'id="games-prev"' in second and 'id="games-next"' not in second
    assert all(f'href="/games/{g}"' in first + second for g in public)  # each with its replay
    with store() as session:
        hidden = session.scalar(select(func.max(Game.id)))  # round 3's
    assert hidden not in public and "not public yet" not in first + second
    with empty_site.browser("alice", form=False) as alice:  # the owner sees the open cycle's game too
        own = alice.get(f"/bots/{a}?league=cross").text
    assert game_ids(own)[0] == hidden and "not public yet" in own and "33 game(s) you may see" in own
    with empty_site.browser("bob", form=False) as bob:  # another author: the public's
        assert hidden not in game_ids(bob.get(f"/bots/{a}?league=cross").text)


def test_a_bot_page_compares_its_versions(empty_site):
    store = empty_site.store
    a, b, c = add_bots(store)
    with store() as session, session.begin():
        old = session.get(Bot, a)
        newer = Bot(name=old.name, version="2", image="x", image_digest="sha256:" + "e" * 64, language="python",
                    author="x", owner_id=old.owner_id)
        session.add(newer)
        session.flush()
        session.add(Entry(league_id=session.scalar(select(League.id).where(League.name == "cross")),
                          bot_id=newer.id))
        new_id = newer.id
    for round_ in range(3):
        add_match(store, round_, [a, b, c], [[1, 2, 3]])
    rebuild_ratings(store, "cross")
    with empty_site.client() as anonymous:
        rows = {r["bot_id"]: r for r in anonymous.get("/api/v1/leagues/cross/leaderboard").json()["rows"]}
        page = anonymous.get(f"/bots/{new_id}").text
    table = page[page.index('id="versions"'):page.index("</table>", page.index('id="versions"'))]
    compared = re.findall(r'<tr data-version-id="(\d+)" data-league="cross"', table)
    assert compared == [str(new_id), str(a)]  # newest first
    assert f"{rows[a]['rank']} of 4" in table and f"{rows[new_id]['rank']} of 4" in table
    assert f">{rows[a]['games']}<" in table and "—" in table  # the new version has no game: no failure rate


def test_the_submissions_list_shows_rank_outlook_and_refusal(empty_site):
    store = empty_site.store
    a, b, c = add_bots(store)
    for round_ in range(3):
        add_match(store, round_, [a, b, c], [[1, 2, 3]])
    rebuild_ratings(store, "cross")
    with store() as session, session.begin():
        alice = session.scalar(select(User.id).where(User.name == "alice"))
        session.add(Submission(user_id=alice, status="entered", leagues=["cross"], folder="x", bot_name="ada",
                               bot_version="1", bot_id=a))
        session.add(Submission(user_id=alice, status="refused", leagues=["cross"], folder="x", bot_name="bad",
                               bot_version="1", error="<script>alert(1)</script> does not build\nstep 3 failed"))
    with empty_site.client() as anonymous:
        rank = {r["bot_id"]: r["rank"] for r in anonymous.get("/api/v1/leagues/cross/leaderboard").json()["rows"]}[a]
    with empty_site.browser("alice", form=False) as browser:
        page = browser.get("/submissions").text
    assert f'<strong class="rank">#{rank}</strong> of 3' in page
    assert "3 game(s) played so far; waiting for the league&#39;s next run (an admin starts it)" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; does not build" in page and "<script>alert" not in page
    # its first line, then a link to the whole reason (on the submission's page)
    assert re.search(r'">&lt;script&gt;alert\(1\)&lt;/script&gt; does not build <a href="/submissions/\d+">more</a>',
                     page)
    assert outlook(store, "cross", a).state == "next-run"


def test_what_an_author_is_told_of_when_the_bot_plays():
    from arena.league.outlook import LeagueOutlook

    robin, ladder = LeagueOutlook("r", 3, False, 5, False), LeagueOutlook("l", 3, True, 5, True)
    assert robin.of(0, False).state == "next-run" and "next run" in robin.of(0, False).words
    assert LeagueOutlook("r", 3, False, 5, True).of(0, False).words.startswith("a run is under way with the entrants")
    assert LeagueOutlook("r", 3, False, 5, True).of(6, False).state == "in-this-run"
    assert ladder.of(0, False).state == "playing-ladder" and "matchmaking" in ladder.of(0, False).words
    assert LeagueOutlook("l", 3, True, 5, False).of(2, False).words == (
        "2 game(s) played so far; waiting for the ladder's next run (an admin starts it)")
    assert LeagueOutlook("r", 3, False, 2, False).of(0, False).words == (
        "waiting for more entrants: a table needs 3, 2 may play now")
    assert robin.of(9, True).state == "retired"
