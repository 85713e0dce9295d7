"""The leaderboard and a bot page in headless Chromium: sorting by clicking a heading (no
reload), the server-drawn rating chart, and screenshots of the leagues, leaderboard and bot
pages (test-artifacts/screenshots/)."""

from __future__ import annotations

from .conftest import screenshot, wait_for


def row_ids(driver) -> list[str]:
    from selenium.webdriver.common.by import By

    return [row.get_attribute("data-bot-id") for row in driver.find_elements(By.CSS_SELECTOR, "#leaderboard tbody tr")]


def test_sorting_the_leaderboard_by_clicking_a_heading(league_site, browser):
    from selenium.webdriver.common.by import By

    with league_site.client() as anonymous:
        rows = anonymous.get("/api/v1/leagues/web/leaderboard").json()["rows"]
    browser.get(f"{league_site.url}/leagues/web")
    assert row_ids(browser) == [str(r["bot_id"]) for r in rows]  # by rank
    browser.execute_script("window.arenaNoReload = true;")  # gone if the page reloaded
    heading = browser.find_element(By.CSS_SELECTOR, 'th[data-sort="bot"]')
    by_name = [str(r["bot_id"]) for r in sorted(rows, key=lambda r: r["bot"].casefold())]
    heading.click()
    wait_for(browser, lambda d: heading.get_attribute("aria-sort") == "ascending", "the bot column to sort")
    assert row_ids(browser) == by_name
    heading.click()
    wait_for(browser, lambda d: heading.get_attribute("aria-sort") == "descending", "the order to turn")
    assert row_ids(browser) == by_name[::-1]
    # a numeric column, best first on the first click (mu is one of "all columns")
    browser.find_element(By.CSS_SELECTOR, "label[for=all-columns]").click()
    mu = browser.find_element(By.CSS_SELECTOR, 'th[data-sort="mu"]')
    wait_for(browser, lambda d: mu.is_displayed(), "the mu column to show")
    mu.click()
    wait_for(browser, lambda d: mu.get_attribute("aria-sort") == "descending", "the mu column to sort")
    assert row_ids(browser) == [str(r["bot_id"]) for r in sorted(rows, key=lambda r: -r["mu"])]
    assert heading.get_attribute("aria-sort") is None
    assert browser.execute_script("return window.arenaNoReload === true;")
    assert browser.current_url.endswith("?sort=mu&order=desc")  # a reload keeps the order
    screenshot(browser, "leaderboard")


def test_a_bot_page_draws_its_rating_chart(league_site, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{league_site.url}/leagues/web")
    browser.find_element(By.CSS_SELECTOR, "#leaderboard tbody tr a.bot").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "rating-chart"), "the bot page's chart")
    chart = browser.find_element(By.ID, "rating-chart")
    mu = chart.find_element(By.ID, "rating-chart-mu")
    points = int(mu.get_attribute("data-points"))
    assert points == 9 and mu.get_attribute("d").count("L") == points - 1
    assert mu.size["width"] > 100  # drawn, across the plot
    assert chart.find_element(By.ID, "rating-chart-band").size["height"] > 10
    assert browser.find_elements(By.CSS_SELECTOR, "#head-to-head tbody tr")
    screenshot(browser, "bot")


def test_the_leagues_page(league_site, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{league_site.url}/leagues")
    assert browser.find_element(By.CSS_SELECTOR, 'tr[data-league="web"]').is_displayed()
    screenshot(browser, "leagues")
