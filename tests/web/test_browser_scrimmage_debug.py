"""A scrimmage's replay with the challenger's debug lines beside its steps (issue 31): alice's bot
"chatty" (a folder built here: random play that says what it chose through ``arenabot.debug``)
against two of the operator's bots, asked for over the API, then its first game's replay in
Chromium, signed in as alice: each of her steps shows its debug text, as the API gives it, and the
other seats' steps none; no answer about the game to anyone else holds a byte of it.
Screenshot: test-artifacts/screenshots/scrimmage-debug.png."""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from sqlalchemy import select

from arena.bots.build import build_bot
from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.store import User

from .conftest import screenshot, sign_in, wait_for
from .test_scrimmages import scrim, wait_done  # noqa: F401 - the fixture: the scrim league's bots

TAG = "chatty-says"  # in every debug line of chatty's, and nowhere else

BOT = f'''
import random

from arenabot import debug, run
from arenabot.strategies import Strategy


class Chatty(Strategy):
    def decide(self, view, legal_actions):
        choice = self.rng.choice(legal_actions)
        debug("{TAG}", len(legal_actions), "legal; <b>chose</b>", choice)
        return choice


if __name__ == "__main__":
    run(Chatty(), name="chatty", version="1")
'''


def test_a_scrimmage_replay_shows_the_challengers_debug_lines_beside_her_steps(scrim, browser, docker_client,  # noqa: F811
                                                                             tmp_path):
    site = scrim["site"]
    folder = tmp_path / "chatty"
    folder.mkdir()
    (folder / "bot.py").write_text(BOT)
    (folder / "bot.toml").write_text('name = "chatty"\nversion = "1"\nlanguage = "python"\nauthor = "alice"\n')
    (folder / "Dockerfile").write_text('ARG BASE=arena/python-base:latest\nFROM ${BASE}\n'
                                       'COPY bot.py /bot/bot.py\nCMD ["python3", "-u", "/bot/bot.py"]\n')
    built = build_bot(docker_client, load_bot_config(folder))
    with site.store() as session:
        alice_id = session.scalar(select(User.id).where(User.name == "alice"))
    register_bot(site.store, name="chatty", version="1", image=built.tag,
                 image_digest=docker_client.images.get(built.tag).id,
                 language="python", author="alice", games=[], league=None, owner_id=alice_id)
    with site.client("alice") as alice:
        reply = alice.post("/api/v1/scrimmages", json={"bot": "chatty", "opponents": ["scrim-op", "scrim-op2"],
                                                       "game": "prohis", "games": 3})
        assert reply.status_code == 201, reply.text
        done = wait_done(alice, reply.json())
        assert done["status"] == "done", done
        game = alice.get(f"/api/v1/scrimmages/{done['id']}/games/1").json()
        seat = next(s["seat"] for s in game["seats"] if s["bot"] == "chatty")
        replay = alice.get(f"/api/v1/scrimmages/{done['id']}/games/1/replay", params={"seat": seat})
        assert replay.status_code == 200, replay.text
        steps = replay.json()["steps"]
    mine = [s for s in steps if s.get("debug")]
    assert mine and all(TAG in s["debug"] and "<b>chose</b>" in s["debug"] for s in mine), steps[:3]
    assert {s["seat"] for s in mine} == {seat} and replay.json()["debug_seats"] == [seat]
    # nobody else is told a byte of it: the opponents' owner (the operator: nobody signed in sees
    # nothing of a scrimmage) and another author
    for who in (None, "bob"):
        with site.client(who) as other:
            for path in ("", "/games/1", f"/games/1/replay?seat={seat}", "/games/1/replay?seat=all"):
                answer = other.get(f"/api/v1/scrimmages/{done['id']}{path}")
                assert TAG not in answer.text and answer.status_code in (403, 404), (who, path, answer.status_code)

    sign_in(browser, site.url, "alice")
    browser.get(f"{site.url}/scrimmages/{done['id']}/games/1?seat={seat}&step=0")
    wait_for(browser, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    first = steps.index(mine[0])
    for k in range(first + 2):
        wait_for(browser, lambda d, k=k: d.find_element(By.ID, "table").get_attribute("data-step") == str(k),
                 f"step {k}")
        shown = [e.get_attribute("textContent") for e in browser.find_elements(By.CSS_SELECTOR,
                                                                                "#step-debug pre.debug-text")]
        assert shown == ([steps[k]["debug"]] if steps[k].get("debug") else []), k
        if k == first:
            assert not browser.find_elements(By.CSS_SELECTOR, "#step-debug b")  # its markup stays text
            screenshot(browser, "scrimmage-debug")
        ActionChains(browser).send_keys(Keys.ARROW_RIGHT).perform()
