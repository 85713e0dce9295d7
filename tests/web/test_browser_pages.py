"""The pages an author lives on, in the suite's Chromium at a laptop's width (1280 px) and a
phone's (390 px): the leaderboard fits the page at both (its extra columns on a checkbox, the
rest scrolling inside its own box with the bot's name kept in view), a bot with no game says so,
the board filters as one types and highlights the signed-in author's own rows."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from sqlalchemy import insert, select, update

from arena.store import Bot, Entry, League, User
from bench.web import LEAGUE, fill_store

from .conftest import Site, new_site, screenshot, sign_in, wait_for

LONG_OWNER = "a-very-long-account-name-" + "x" * 30  # capped on the board
WIDTHS = (1280, 390)


@pytest.fixture(scope="module")
def board_site(tmp_path_factory) -> Iterator[Site]:
    """A server on a league of 25 bots and 900 games (bench/web.py's, rated), the first five
    alice's, one with a long owner's name, and one more bot entered with no game yet."""
    with new_site(tmp_path_factory.mktemp("boards")) as site:
        fill_store(site.store, bots=25, games=900)
        with site.store() as session, session.begin():
            alice = session.scalar(select(User.id).where(User.name == "alice"))
            session.execute(update(Bot).where(Bot.id <= 5).values(owner_id=alice))
            long_id = session.execute(insert(User).values(name=LONG_OWNER, password_hash=None)
                                      .returning(User.id)).scalar_one()
            session.execute(update(Bot).where(Bot.id == 6).values(owner_id=long_id, author="Arena"))
            league_id = session.scalar(select(League.id).where(League.name == LEAGUE))
            fresh = Bot(name="newcomer-with-a-long-name-" + "y" * 30, version="0.0.1-alpha.2+build.77", image="x",
                        image_digest="sha256:" + "f" * 64, language="python", author="Arena")
            session.add(fresh)
            session.flush()
            session.add(Entry(league_id=league_id, bot_id=fresh.id))
            site.bots = {"fresh": fresh.id}
        yield site


def phone(driver, width: int) -> None:
    """The viewport ``width`` px wide (a phone's: a mobile viewport), or back to the window's."""
    if width == 1280:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    else:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": True})


def page_fits(driver) -> tuple[int, int]:
    return driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth];")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_leaderboard_fits_the_page(board_site, browser, width):
    from selenium.webdriver.common.by import By

    phone(browser, width)
    try:
        browser.get(f"{board_site.url}/leagues/{LEAGUE}")
        wait_for(browser, lambda d: d.find_elements(By.ID, "leaderboard"), "the leaderboard")
        assert browser.execute_script("return window.innerWidth;") == width
        scroll, client = page_fits(browser)
        assert scroll <= client, f"the page scrolls sideways at {width} px: {scroll} > {client}"
        box = browser.find_element(By.ID, "leaderboard-box")
        shown = [th for th in browser.find_elements(By.CSS_SELECTOR, "#leaderboard thead th") if th.is_displayed()]
        assert len(shown) == 10  # the priority columns
        if width == 1280:  # a laptop sees them all without scrolling
            assert browser.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth;", box)
        screenshot(browser, f"leaderboard-{width}")
        # the other five on "all columns": still inside the box, never the page
        browser.find_element(By.CSS_SELECTOR, "label[for=all-columns]").click()
        wait_for(browser, lambda d: len([th for th in d.find_elements(By.CSS_SELECTOR, "#leaderboard thead th")
                                         if th.is_displayed()]) == 15, "every column")
        scroll, client = page_fits(browser)
        assert scroll <= client, f"all columns: the page scrolls sideways at {width} px: {scroll} > {client}"
        # scrolled to its end, the box keeps the bot's name in view, at its left edge
        browser.execute_script("arguments[0].scrollLeft = arguments[0].scrollWidth;", box)
        name = browser.find_element(By.CSS_SELECTOR, "#leaderboard tbody tr td.sticky")
        left = browser.execute_script("return arguments[0].getBoundingClientRect().left - "
                                      "arguments[1].getBoundingClientRect().left;", name, box)
        assert abs(left) <= 2
        screenshot(browser, f"leaderboard-{width}-all")
        # the crosstable page too
        browser.get(f"{board_site.url}/leagues/{LEAGUE}/crosstable")
        wait_for(browser, lambda d: d.find_elements(By.ID, "crosstable"), "the crosstable")
        scroll, client = page_fits(browser)
        assert scroll <= client, f"the crosstable page scrolls sideways at {width} px: {scroll} > {client}"
        screenshot(browser, f"crosstable-{width}")
    finally:
        phone(browser, 1280)


def test_a_bot_with_no_game_says_so_and_owners_are_accounts(board_site, browser):
    from selenium.webdriver.common.by import By

    browser.get(f"{board_site.url}/leagues/{LEAGUE}")
    row = browser.find_element(By.CSS_SELECTOR, f'#leaderboard tr[data-bot-id="{board_site.bots["fresh"]}"]')
    cells = row.find_elements(By.TAG_NAME, "td")
    texts = [c.get_attribute("textContent").strip() for c in cells]
    assert "no games yet" in texts[-1] and texts[-2] == "—" and texts[-3] == "—"  # no rank interval, no P(...)
    assert "%" not in " ".join(texts[-3:])
    assert cells[3].get_attribute("textContent").strip() == "operator"  # registered with no owner
    # bot 6 says "Arena" in its bot.toml; the board shows its account, capped
    owner = browser.find_element(By.CSS_SELECTOR, '#leaderboard tr[data-bot-id="6"] td.author')
    shown = owner.get_attribute("textContent").strip()
    assert shown.startswith("a-very-long-account-name-") and shown.endswith("…") and len(shown) == 32
    assert "Arena" not in browser.find_element(By.ID, "leaderboard").get_attribute("textContent")


def test_filtering_the_board_and_ones_own_rows(board_site, browser):
    from selenium.webdriver.common.by import By

    browser.delete_all_cookies()
    browser.get(f"{board_site.url}/leagues/{LEAGUE}")
    assert not browser.find_elements(By.CSS_SELECTOR, "#leaderboard tr.mine")  # nobody's, for the public
    sign_in(browser, board_site.url, "alice")
    browser.get(f"{board_site.url}/leagues/{LEAGUE}")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#leaderboard tr.mine"), "alice's rows")
    mine = sorted(int(r.get_attribute("data-bot-id")) for r in browser.find_elements(By.CSS_SELECTOR,
                                                                                     "#leaderboard tr.mine"))
    assert mine == [1, 2, 3, 4, 5]
    box = browser.find_element(By.ID, "board-filter")
    box.send_keys("bot07")
    visible = lambda d: [r.get_attribute("data-bot-id") for r in d.find_elements(By.CSS_SELECTOR,  # noqa: E731
                                                                                  "#leaderboard tbody tr")
                         if r.is_displayed()]
    wait_for(browser, lambda d: visible(d) == ["7"], "the filter to leave bot07")
    assert browser.find_element(By.ID, "board-count").text == f"1 of {26} shown"
    box.clear()
    box.send_keys("ALICE")  # by author, any case
    wait_for(browser, lambda d: sorted(map(int, visible(d))) == [1, 2, 3, 4, 5], "alice's bots alone")
    screenshot(browser, "leaderboard-filtered")
    browser.delete_all_cookies()


def test_an_admins_run_is_followed_without_a_reload(league_site, browser):
    """A league run from the server, on the sample bots in containers: the admin's page says
    "N of M game(s) played" and follows the run by itself (no reload while it runs)."""
    from selenium.webdriver.common.by import By

    from arena.league.entries import join_league

    with league_site.client("admin") as admin:
        assert admin.post("/api/v1/leagues", json={"name": "followed", "game": "prohis", "players": 3,
                                                   "deals": 1}).status_code == 201
        for bot in ("random", "first-legal", "prohis-heuristic"):
            join_league(league_site.store, "followed", bot)
        sign_in(browser, league_site.url, "admin")
        # two rounds (6 games): fewer than league "web"'s 9, so the sample bots' pages still default to "web"
        started = admin.post("/api/v1/leagues/followed/run", json={"rounds": 2, "jobs": 1})
        assert started.status_code == 202, started.text
        browser.get(f"{league_site.url}/leagues/followed#run")
        browser.execute_script("window.arenaNoReload = true;")  # gone if the page reloads
        games = browser.find_element(By.ID, "run-games")
        first = games.text
        assert re.fullmatch(r"\d+ of (6|\(counting…\)) game\(s\) played", first), first

        def moved(driver) -> bool:  # updated in place, while the run goes on
            if not driver.execute_script("return window.arenaNoReload === true;"):
                raise AssertionError("the page reloaded before the run ended")
            text = driver.find_element(By.ID, "run-games").text
            return text != first and re.fullmatch(r"[1-5] of 6 game\(s\) played", text) is not None

        wait_for(browser, moved, "the run's count to move without a reload", 240)
        assert browser.find_element(By.ID, "run-status").text == "running"
        # once it ends, the page reloads once, for the new standings
        wait_for(browser, lambda d: d.find_element(By.ID, "run-state").get_attribute("data-status") == "finished"
                 and not d.execute_script("return window.arenaNoReload === true;"), "the run to end", 240)
        assert browser.find_element(By.ID, "run-games").text == "6 of 6 game(s) played"
        screenshot(browser, "league-run-followed")
    browser.delete_all_cookies()
