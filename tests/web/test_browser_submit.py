"""The submission pages in headless Chromium: alice signs in, uploads a bot folder through
/submit, and watches its status reach "entered" on its page, updated in place (no reload)."""

from __future__ import annotations

import contextlib

from selenium.webdriver.common.by import By
from sqlalchemy import select

from arena.league import create_league
from arena.league.schedule import ScheduleOptions
from arena.store import Bot, League
from arena.uploads import pack_folder

from .conftest import screenshot, sign_in, wait_for
from .test_submissions import bot_folder, remove_images

LEAGUE = "uploads-browser"
NAME = "uploads-browser-bot"


def test_alice_uploads_a_bot_and_watches_it_enter(league_site, browser, docker_client, tmp_path):
    with league_site.store() as session:
        if session.scalar(select(League).where(League.name == LEAGUE)) is None:
            create_league(league_site.store, LEAGUE, "prohis", 3, {}, ScheduleOptions(deals=1))
    archive = tmp_path / "my-bot.tar.gz"
    archive.write_bytes(pack_folder(bot_folder(tmp_path, NAME, "1")))
    try:
        sign_in(browser, league_site.url, "alice")
        browser.get(f"{league_site.url}/submit")
        form = browser.find_element(By.ID, "submit-form")
        assert browser.find_element(By.ID, "submit-retire").is_selected()
        screenshot(browser, "submit")
        form.find_element(By.ID, "submit-archive").send_keys(str(archive))
        form.find_element(By.CSS_SELECTOR, f'input[data-league="{LEAGUE}"]').click()
        form.find_element(By.ID, "submit-button").click()
        wait_for(browser, lambda d: "/submissions/" in d.current_url, "the submission's page")
        browser.execute_script("window.arenaNoReload = true;")  # gone if the page reloads
        status = browser.find_element(By.ID, "status")
        wait_for(browser, lambda d: status.get_attribute("data-status") in ("entered", "refused"),
                 "the submission to be entered", seconds=240)
        assert status.text == "entered", browser.find_element(By.ID, "error").text
        assert browser.execute_script("return window.arenaNoReload === true;"), "the page reloaded"
        assert "passes every check" in browser.find_element(By.ID, "report").text
        assert "Successfully built" in browser.find_element(By.ID, "log").text
        assert browser.find_element(By.ID, "bot-link").is_displayed()
        browser.execute_script("window.scrollTo(0, 0);")
        screenshot(browser, "submission")
        with league_site.store() as session:
            bot = session.scalar(select(Bot).where(Bot.name == NAME))
            assert bot is not None and bot.owner_id is not None
        browser.get(f"{league_site.url}/submissions")
        assert NAME in browser.find_element(By.ID, "submissions").text
    finally:
        with contextlib.suppress(Exception):
            remove_images(docker_client, NAME)
