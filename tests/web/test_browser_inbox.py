"""The inbox in headless Chromium, as an author uses it: the header's unread count, marking read,
a webhook refused with its reason, a feed URL shown once; and the inbox fits a phone's width (the
site's header is the pages' own matter)."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from .conftest import screenshot, sign_in, wait_for
from .test_notifications import tell


def test_an_author_reads_the_inbox_registers_a_webhook_and_makes_a_feed(empty_site, browser):
    tell(empty_site.store, "alice", "submission 3: my-bot@2 was refused <because> of a very long reason " * 4,
         event="submission.refused", url="/submissions/3")
    tell(empty_site.store, "alice", "the run of web finished: 9 game(s) played")
    sign_in(browser, empty_site.url, "alice")
    assert browser.find_element(By.ID, "unread").text == "2"
    browser.find_element(By.ID, "inbox-link").click()
    wait_for(browser, lambda d: d.find_elements(By.ID, "notifications"), "the inbox")
    rows = browser.find_elements(By.CSS_SELECTOR, "#notifications tbody tr.unread")
    assert len(rows) == 2 and "<because>" in rows[1].text  # shown as text
    browser.find_element(By.ID, "read-all").click()
    wait_for(browser, lambda d: not d.find_elements(By.ID, "unread"), "the unread count to go")
    assert browser.find_elements(By.CSS_SELECTOR, "#notifications tbody tr.unread") == []

    field = browser.find_element(By.CSS_SELECTOR, "#webhook-form input[name=url]")
    field.send_keys("http://169.254.169.254/latest/meta-data/")
    field.submit()
    error = wait_for(browser, lambda d: d.find_elements(By.ID, "webhook-error"), "the refusal")[0]
    assert "169.254.169.254 is a link-local address" in error.text
    browser.find_element(By.ID, "new-feed").click()
    url = wait_for(browser, lambda d: d.find_elements(By.ID, "feed-url"), "the feed URL")[0].text
    assert url.startswith(empty_site.url + "/feeds/feed_")
    browser.get(url)
    assert "submission 3: my-bot@2 was refused" in browser.page_source

    browser.set_window_size(390, 844)  # a phone: the inbox is no wider than the page's column
    try:
        browser.get(empty_site.url + "/inbox")
        screenshot(browser, "inbox-390")
        overflow = browser.execute_script("const m = document.querySelector('main'); "
                                          "return m.scrollWidth - m.clientWidth")
        assert overflow <= 0, f"the inbox is {overflow} px wider than a phone's screen"
    finally:
        browser.set_window_size(1280, 900)
