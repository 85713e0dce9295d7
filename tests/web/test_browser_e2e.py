"""The whole path in a real browser (Debian's chromium), as the issue lists it: an admin makes a
league over the API; alice signs in, uploads a bot folder and watches it be built, checked and
entered; the admin runs the league; alice sorts its leaderboard, opens her bot's page and its
rating chart, then a replay of its game, steps it forward and back and switches seats, and sees
each seat's cards. Screenshots of every page land in test-artifacts/screenshots/e2e-*.png."""

from __future__ import annotations

import contextlib
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from arena.league import join_league
from arena.uploads import pack_folder

from .conftest import screenshot, sign_in, wait_for
from .test_browser_boards import row_ids
from .test_browser_replay import check_cards, press
from .test_submissions import bot_folder, remove_images

LEAGUE = "e2e"
NAME = "e2e-bot"


def test_from_upload_to_replay(league_site, browser, docker_client, tmp_path):
    site, driver = league_site, browser
    with site.client("admin") as admin:
        made = admin.post("/api/v1/leagues", json={"name": LEAGUE, "game": "prohis", "players": 3, "deals": 1})
        assert made.status_code == 201, made.text
    for bot in ("random", "first-legal"):  # two operator's sample bots, entered on the command line's way
        join_league(site.store, LEAGUE, bot)
    archive = tmp_path / "e2e-bot.tar.gz"
    archive.write_bytes(pack_folder(bot_folder(tmp_path, NAME, "1")))
    try:
        # 1. sign in
        sign_in(driver, site.url, "alice")
        # 2. upload a sample bot
        driver.get(f"{site.url}/submit")
        form = driver.find_element(By.ID, "submit-form")
        form.find_element(By.ID, "submit-archive").send_keys(str(archive))
        form.find_element(By.CSS_SELECTOR, f'input[data-league="{LEAGUE}"]').click()
        screenshot(driver, "e2e-1-submit")
        form.find_element(By.ID, "submit-button").click()
        # 3. watch it reach "entered"
        wait_for(driver, lambda d: "/submissions/" in d.current_url, "the submission's page")
        status = driver.find_element(By.ID, "status")
        seen = set()

        def finished(_driver) -> bool:
            seen.add(status.get_attribute("data-status"))
            return status.get_attribute("data-status") in ("entered", "refused")

        wait_for(driver, finished, "the submission to be entered", seconds=240)
        assert status.text == "entered", driver.find_element(By.ID, "error").text
        assert seen & {"queued", "building", "checking"}, seen  # the page followed it live
        screenshot(driver, "e2e-2-entered")

        with site.client("admin") as admin:
            # one whole duplicate cycle (3 rounds of 3 games): its games are public once it is all stored
            assert admin.post(f"/api/v1/leagues/{LEAGUE}/run", json={"rounds": 3}).status_code == 202
            deadline = time.monotonic() + 180
            while (state := admin.get(f"/api/v1/leagues/{LEAGUE}/run").json())["status"] == "running":
                assert time.monotonic() < deadline, state
                time.sleep(0.5)
            assert state["status"] == "finished" and state["games_played"] == 9, state
            rows = admin.get(f"/api/v1/leagues/{LEAGUE}/leaderboard").json()["rows"]

        # 4. open the leaderboard and sort it
        driver.get(f"{site.url}/leagues/{LEAGUE}")
        assert row_ids(driver) == [str(r["bot_id"]) for r in rows]
        heading = driver.find_element(By.CSS_SELECTOR, 'th[data-sort="bot"]')
        heading.click()
        wait_for(driver, lambda d: heading.get_attribute("aria-sort") == "ascending", "the bots sorted by name")
        assert row_ids(driver) == [str(r["bot_id"]) for r in sorted(rows, key=lambda r: r["bot"].casefold())]
        screenshot(driver, "e2e-3-leaderboard")

        # 5. open the bot's page: its rating chart is drawn, a point per game
        mine = next(r for r in rows if r["bot"] == NAME)
        driver.find_element(By.CSS_SELECTOR, f'#leaderboard tr[data-bot-id="{mine["bot_id"]}"] a.bot').click()
        wait_for(driver, lambda d: d.find_elements(By.ID, "rating-chart"), "the bot page's chart")
        line = driver.find_element(By.ID, "rating-chart-mu")
        assert int(line.get_attribute("data-points")) == 9 and line.size["width"] > 100
        screenshot(driver, "e2e-4-bot")

        # 6. open a replay of its match: forward, back, another seat; the cards are that seat's
        driver.find_element(By.CSS_SELECTOR, "#recent-matches a").click()
        wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "a.replay-link"), "the match page")
        screenshot(driver, "e2e-5-match")
        link = driver.find_element(By.CSS_SELECTOR, "a.replay-link")
        game_id = int(link.find_element(By.XPATH, "./ancestor::tr").get_attribute("data-game"))
        link.click()
        wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
                 "the replay viewer")
        with site.client("alice") as alice:
            driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="0"]').click()
            press(driver, Keys.HOME)
            check_cards(driver, alice, game_id, "0", 0)
            press(driver, Keys.ARROW_RIGHT)
            press(driver, Keys.ARROW_RIGHT)
            check_cards(driver, alice, game_id, "0", 2)
            press(driver, Keys.ARROW_LEFT)
            check_cards(driver, alice, game_id, "0", 1)
            driver.find_element(By.ID, "next").click()
            check_cards(driver, alice, game_id, "0", 2)
            driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="2"]').click()
            check_cards(driver, alice, game_id, "2", 2)  # the same moment, as seat 2 saw it
            screenshot(driver, "e2e-6-replay")
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"]
        assert errors == [], errors
    finally:
        with contextlib.suppress(Exception):
            remove_images(docker_client, NAME)
