"""Teams in headless Chromium: alice makes a team on /teams and adds bob through its page's form;
bob submits a bot for the team on /submit and watches it enter; the bot page names the team, and
alice, its owner, finds bob's submission among hers."""

from __future__ import annotations

import contextlib

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from sqlalchemy import select

from arena.bots.upload import pack_folder
from arena.store import Bot, Team

from .conftest import screenshot, sign_in, wait_for
from .test_submissions import bot_folder, remove_images

TEAM = "Browsers"
NAME = "teams-browser-bot"


def test_a_team_is_made_in_the_browser_and_a_member_submits_for_it(league_site, browser, docker_client, tmp_path):
    url = league_site.url
    archive = tmp_path / "team-bot.tar.gz"
    archive.write_bytes(pack_folder(bot_folder(tmp_path, NAME, "1")))
    try:
        sign_in(browser, url, "alice")
        browser.get(f"{url}/teams")
        browser.find_element(By.ID, "team-name").send_keys(TEAM)
        browser.find_element(By.ID, "create-team-submit").click()
        wait_for(browser, lambda d: d.current_url.endswith(f"/teams/{TEAM}"), "the team's page")
        assert browser.find_element(By.ID, "team-role").text == "owner"
        browser.find_element(By.ID, "member-name").send_keys("bob")
        browser.find_element(By.ID, "add-member-submit").click()
        wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, 'tr[data-member="bob"]'), "bob in the team")
        screenshot(browser, "team")

        sign_in(browser, url, "bob")
        browser.get(f"{url}/submit")
        form = browser.find_element(By.ID, "submit-form")
        Select(form.find_element(By.ID, "submit-team")).select_by_value(TEAM)
        form.find_element(By.ID, "submit-archive").send_keys(str(archive))
        form.find_element(By.ID, "submit-button").click()
        wait_for(browser, lambda d: "/submissions/" in d.current_url, "the submission's page")
        assert f"for team {TEAM}" in browser.find_element(By.ID, "submission-by").text
        status = browser.find_element(By.ID, "status")
        wait_for(browser, lambda d: status.get_attribute("data-status") in ("entered", "refused"),
                 "the submission to be entered", seconds=240)
        assert status.text == "entered", browser.find_element(By.ID, "error").text
        submission = browser.current_url
        browser.find_element(By.ID, "bot-link").click()
        wait_for(browser, lambda d: d.find_elements(By.ID, "bot-team"), "the bot's page")
        assert browser.find_element(By.ID, "bot-team").text == TEAM
        assert not browser.find_elements(By.ID, "retire-form")  # a plain member does not retire the team's bots
        screenshot(browser, "team-bot")
        with league_site.store() as session:
            bot = session.scalar(select(Bot).where(Bot.name == NAME))
            team = session.scalar(select(Team.id).where(Team.name == TEAM))
            assert bot is not None and bot.team_id == team is not None

        sign_in(browser, url, "alice")
        browser.get(f"{url}/submissions")
        assert NAME in browser.find_element(By.ID, "submissions").text
        browser.get(submission)
        assert browser.find_element(By.ID, "status").text == "entered"
        browser.get(f"{url}/bots/{bot.id}")
        assert browser.find_elements(By.ID, "retire-form")  # its team's owner does
    finally:
        with contextlib.suppress(Exception):
            remove_images(docker_client, NAME)
