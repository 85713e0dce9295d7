"""A scrimmage in a real browser (Debian's chromium): alice opens an operator's bot's page, asks
for a scrimmage against it with her bot from its form, watches the scrimmage's page until it is
done (it reloads itself), opens the first game's replay and finds her own seat there, and no
other seat or full table offered. Screenshots: test-artifacts/screenshots/scrimmage-*.png."""

from __future__ import annotations

import time

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from .conftest import screenshot, sign_in, wait_for
from .test_scrimmages import scrim  # noqa: F401 - the fixture: the scrim league's bots


def test_a_scrimmage_from_a_bots_page_to_its_replay(scrim, browser):  # noqa: F811
    site, driver = scrim["site"], browser
    with site.client("alice") as alice:
        opponent = next(b for b in alice.get("/api/v1/leagues/scrim/leaderboard").json()["rows"]
                        if b["bot"] == "scrim-op3")
    sign_in(driver, site.url, "alice")
    driver.get(f"{site.url}/bots/{opponent['bot_id']}")
    form = driver.find_element(By.ID, "scrimmage-form")
    choice = Select(form.find_element(By.ID, "scrimmage-bot"))
    label = next(o.get_attribute("value") for o in choice.options if o.get_attribute("value").startswith("random@"))
    choice.select_by_value(label)
    screenshot(driver, "scrimmage-1-bot-page")
    asked = time.monotonic()
    form.find_element(By.ID, "scrimmage-submit").click()
    wait_for(driver, lambda d: "/scrimmages/" in d.current_url, "the scrimmage's page")
    # two bots that play every game: the first game of the list that seats two (bandits), one cycle
    wait_for(driver, lambda d: d.find_element(By.ID, "status").get_attribute("data-status") in ("done", "failed"),
             "the scrimmage to be played", seconds=600)
    played = time.monotonic() - asked
    status = driver.find_element(By.ID, "status")
    assert status.get_attribute("data-status") == "done", driver.find_element(By.TAG_NAME, "main").text
    screenshot(driver, "scrimmage-2-done")
    facts = driver.find_element(By.ID, "scrimmage-facts").text
    assert "bandits" in facts and "4 of 4 games played" in facts, facts
    rows = driver.find_elements(By.CSS_SELECTOR, "#scrimmage-result tbody tr")
    assert len(rows) == 2 and "challenger" in rows[0].text
    driver.find_element(By.CSS_SELECTOR, "#scrimmage-games a.replay-link").click()
    wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    screenshot(driver, "scrimmage-3-replay")
    choices = [a.get_attribute("data-seat-choice") for a in driver.find_elements(By.CSS_SELECTOR,
                                                                                 "[data-seat-choice]")]
    assert driver.find_elements(By.ID, "scrimmage-private") and "all" not in choices
    current = driver.find_element(By.CSS_SELECTOR, "[data-seat-choice].current").text
    assert label in current, current
    print(f"\nscrimmage of 4 bandits games from the form to done: {played:.1f} s")
