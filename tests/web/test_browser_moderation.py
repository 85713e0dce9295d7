"""An admin moderates in headless Chromium: disqualifies a bot from its page (a reason with markup,
shown escaped), undoes it, disables an author on the users page (whose browser is signed out on
its next page), and finds each change in the audit log's page, filtered."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from arena.accounts import get_user
from arena.bots.registry import register_bot

from .conftest import Site, screenshot, sign_in, wait_for


def test_an_admin_moderates_from_the_pages(browser, empty_site: Site):
    site = empty_site
    with site.store() as session:
        alice = get_user(session, "alice").id
    bot = register_bot(site.store, name="sly", version="1", image="img:1", image_digest="sha256:1",
                       language="python", author="x", games=[], league=None, owner_id=alice)
    sign_in(browser, site.url, "admin")
    browser.get(f"{site.url}/bots/{bot.id}")
    browser.find_element(By.ID, "disqualify-reason").send_keys('<img src=x onerror=alert(1)> "peeked"')
    browser.find_element(By.ID, "disqualify-submit").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "bot-disqualified"), "the disqualified badge")
    reason = browser.find_element(By.ID, "bot-disqualified-reason")
    assert reason.text == '<img src=x onerror=alert(1)> "peeked"'
    assert not browser.find_elements(By.CSS_SELECTOR, "q img")
    screenshot(browser, "moderation-bot-disqualified")
    browser.find_element(By.ID, "requalify-submit").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "disqualify-form"), "the disqualify form again")
    assert not browser.find_elements(By.ID, "bot-disqualified")

    browser.get(f"{site.url}/admin/users")
    browser.find_element(By.CSS_SELECTOR, 'tr[data-user="alice"] button.user-disable').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, 'tr[data-user="alice"] button.user-enable'),
             "alice disabled")
    screenshot(browser, "moderation-users")
    with site.client("alice") as client:
        assert client.get("/api/v1/me").status_code == 403

    browser.get(f"{site.url}/admin/audit")
    browser.find_element(By.ID, "audit-action").send_keys("user")
    browser.find_element(By.CSS_SELECTOR, "#audit-filter button").click()
    wait_for(browser, lambda d: "action=user" in d.current_url, "the filtered log")
    rows = browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")
    assert [r.get_attribute("data-action") for r in rows] == ["user.disable"]
    browser.get(f"{site.url}/admin/audit?action=bot")
    actions = [r.get_attribute("data-action") for r in browser.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
    assert actions == ["bot.requalify", "bot.disqualify"]
    assert "onerror=alert(1)" in browser.find_element(By.ID, "audit").text
    screenshot(browser, "moderation-audit")
