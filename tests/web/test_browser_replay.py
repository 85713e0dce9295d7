"""The replay viewer in a real browser (Debian's chromium): a game of league "web" stepped with the
buttons, the arrow keys, Home and End, the step list and the slider, seen from every seat and as
the full table; at each stop the cards shown are those the API gives that seat at that step, and
those the page drawn on the server without JavaScript shows."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from sqlalchemy import select

from arena.store import Game, League, Match

from .conftest import screenshot, sign_in, wait_for
from .tables import shown_cards, view_cards
from .test_browser_pages import phone


def at(driver) -> tuple[str, int]:
    table = driver.find_element(By.ID, "table")
    return table.get_attribute("data-seat"), int(table.get_attribute("data-step"))


def arrive(driver, seat: str, step: int) -> None:
    wait_for(driver, lambda d: at(d) == (seat, step), f"the viewer to show seat {seat} at step {step}")


def check_cards(driver, client, game_id: int, seat: str, step: int) -> None:
    """The cards drawn are the API's for that seat and step, and the server's page's."""
    arrive(driver, seat, step)
    drawn = shown_cards(driver.page_source)
    answer = client.get(f"/api/v1/games/{game_id}/replay", params={"seat": seat, "step": step}).json()["steps"][0]
    if seat == "all":
        hands = {s: cards for (s, field), cards in drawn.items() if field == "hand"}
        assert hands == {str(s): v["hand"] for s, v in enumerate(answer["views"]) if v["hand"]}
    else:
        assert drawn == view_cards(answer["view"], seat)
        assert drawn.get((seat, "hand"), []) == answer["view"]["hand"]
    served = client.get(f"/games/{game_id}", params={"seat": seat, "step": step}).text
    assert drawn == shown_cards(served)
    query = parse_qs(urlparse(driver.current_url).query)
    assert query == {"seat": [seat], "step": [str(step)]}  # a link to what is shown


def press(driver, key: str) -> None:
    ActionChains(driver).send_keys(key).perform()


def test_stepping_jumping_and_switching_seats_in_the_replay_viewer(league_site, browser):
    site, driver = league_site, browser
    with site.store() as session:
        match = session.scalars(select(Match).join(League, League.id == Match.league_id)
                                .where(League.name == "web").order_by(Match.id)).first()
        game = session.scalars(select(Game).where(Game.match_id == match.id).order_by(Game.index)).all()[1]
    sign_in(driver, site.url, "alice")
    driver.get(f"{site.url}/matches/{match.id}")
    screenshot(driver, "match")
    driver.find_element(By.CSS_SELECTOR, f'tr[data-game="{game.id}"] a.replay-link').click()
    wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    last = int(driver.find_element(By.ID, "last").text)
    assert at(driver) == ("all", last)  # a finished game opens on the full table after the game
    with site.client("alice") as alice:
        check_cards(driver, alice, game.id, "all", last)

        driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="1"]').click()
        check_cards(driver, alice, game.id, "1", last)
        press(driver, Keys.HOME)
        check_cards(driver, alice, game.id, "1", 0)
        driver.find_element(By.ID, "next").click()
        driver.find_element(By.ID, "next").click()
        check_cards(driver, alice, game.id, "1", 2)
        press(driver, Keys.ARROW_RIGHT)
        check_cards(driver, alice, game.id, "1", 3)
        press(driver, Keys.ARROW_LEFT)
        press(driver, Keys.ARROW_LEFT)
        check_cards(driver, alice, game.id, "1", 1)
        driver.find_element(By.ID, "prev").click()
        check_cards(driver, alice, game.id, "1", 0)

        item = driver.find_element(By.CSS_SELECTOR, '#steps li[data-step="12"] a')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
        item.click()
        check_cards(driver, alice, game.id, "1", 12)
        assert "current" in driver.find_element(By.CSS_SELECTOR, '#steps li[data-step="12"]').get_attribute("class")
        slider = driver.find_element(By.ID, "slider")
        ActionChains(driver).move_to_element(slider).click().perform()  # its middle
        _, middle = at(driver)
        assert 0.3 * last < middle < 0.7 * last
        check_cards(driver, alice, game.id, "1", middle)
        press(driver, Keys.ARROW_RIGHT)  # the slider has the focus: its own keys move it
        check_cards(driver, alice, game.id, "1", middle + 1)

        driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="2"]').click()
        check_cards(driver, alice, game.id, "2", middle + 1)
        head = driver.find_element(By.ID, "step-head").text
        assert head.startswith(f"Step {middle + 1}")
        driver.execute_script("window.scrollTo(0, document.getElementById('seat-switch').offsetTop - 8)")
        screenshot(driver, "replay")
        driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="0"]').click()
        check_cards(driver, alice, game.id, "0", middle + 1)
        driver.find_element(By.ID, "end").click()
        check_cards(driver, alice, game.id, "0", last)
        assert driver.find_element(By.ID, "step-head").text == "After the game"
        driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="all"]').click()
        press(driver, Keys.HOME)
        check_cards(driver, alice, game.id, "all", 0)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"]
    assert errors == [], errors  # no script error, no inline script or style refused


def picture(driver) -> tuple[str, int]:
    """The seat and step the drawn table's <img> shows, once it has loaded."""
    img = driver.find_element(By.ID, "picture")
    wait_for(driver, lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img),
             "the drawn table to load")
    query = parse_qs(urlparse(img.get_attribute("src")).query)
    return query["seat"][0], int(query["step"][0])


def test_the_drawn_table_steps_plays_and_opens_at_a_linked_step(league_site, browser):
    site, driver = league_site, browser
    with site.store() as session:
        game = session.scalars(select(Game).join(Match).join(League, League.id == Match.league_id)
                               .where(League.name == "web", Game.index == 0).order_by(Game.id)).first()
    driver.delete_all_cookies()  # anyone: the game is public
    driver.get(f"{site.url}/games/{game.id}?seat=1&step=5")  # a link to a step opens that picture
    wait_for(driver, lambda d: d.find_element(By.ID, "replay").get_attribute("data-ready") == "true",
             "the replay viewer to load")
    assert picture(driver) == ("1", 5) and at(driver) == ("1", 5)
    assert driver.title.startswith(f"Game {game.id} · 1st of match {game.match_id}")
    assert driver.find_element(By.ID, "game-title").text.startswith(f"Game {game.id} · the 1st of ")
    last = int(driver.find_element(By.ID, "last").text)

    press(driver, Keys.ARROW_RIGHT)
    arrive(driver, "1", 6)
    wait_for(driver, lambda d: picture(d) == ("1", 6), "the picture of step 6")
    assert driver.find_element(By.ID, "at").text == "6"
    assert "step=6" in driver.find_element(By.ID, "download").get_attribute("href")
    press(driver, Keys.END)
    wait_for(driver, lambda d: picture(d) == ("1", last), "the picture after the game")
    assert driver.find_element(By.ID, "step-head").text == "After the game"
    assert driver.find_element(By.ID, "summary").is_displayed()
    press(driver, Keys.HOME)
    wait_for(driver, lambda d: picture(d) == ("1", 0), "the first picture")
    press(driver, Keys.SPACE)  # play, 2 steps a second
    wait_for(driver, lambda d: at(d)[1] >= 2, "the replay to play", seconds=5)
    press(driver, Keys.SPACE)  # pause
    paused = at(driver)[1]
    driver.execute_script("return new Promise((done) => setTimeout(done, 800))")
    assert at(driver)[1] == paused
    wait_for(driver, lambda d: picture(d) == ("1", paused), "the picture where it paused")
    driver.find_element(By.CSS_SELECTOR, '[data-seat-choice="all"]').click()
    wait_for(driver, lambda d: picture(d) == ("all", paused), "the full table's picture")
    screenshot(driver, "replay-drawn")

    phone(driver, 390)  # a phone: the narrow drawing, nothing wider than the screen
    try:
        driver.get(f"{site.url}/games/{game.id}?seat=0&step={last}")
        picture(driver)
        assert "narrow=1" in driver.execute_script("return document.getElementById('picture').currentSrc")
        assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(driver, "replay-phone")
    finally:
        phone(driver, 1280)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and e["source"] != "network"]
    assert errors == [], errors
