"""Signing up in Chromium (Debian's, through its chromium-driver): an admin makes an invite code
on the site, a new author follows its link, signs up, and is signed in; a token made on the
account page is shown once and works; and a refusal is shown on the page, the form kept."""

from __future__ import annotations

import httpx
from selenium.webdriver.common.by import By

from arena.web.throttle import Policy, Throttles

from .conftest import new_site, screenshot, sign_in, wait_for

PASSWORD = "carols-own-password"


def test_sign_up_with_an_invite_code_then_signed_in_in_chromium(tmp_path, browser):
    with new_site(tmp_path, join="invite", throttles=Throttles(signup=Policy(free=100, first=1, longest=1))) as site:
        # the admin makes a code on the site
        sign_in(browser, site.url, "admin")
        browser.get(f"{site.url}/invites")
        browser.find_element(By.ID, "invite-submit").click()
        code = wait_for(browser, lambda d: d.find_elements(By.ID, "new-invite"), "the new code")[0].text
        link = browser.find_element(By.ID, "new-invite-link").text
        assert link == f"/signup?invite={code}"
        # a newcomer: a fresh browser state, the link from the admin
        browser.delete_all_cookies()
        browser.get(f"{site.url}/login")
        browser.find_element(By.ID, "login-sign-up").click()
        wait_for(browser, lambda d: d.find_elements(By.ID, "signup-form"), "the sign-up page")
        browser.get(site.url + link)
        assert browser.find_element(By.ID, "signup-invite").get_attribute("value") == code
        # first a name that is taken (whatever its case): refused on the page, the code kept
        for field, value in (("signup-name", "ALICE"), ("signup-password", PASSWORD), ("signup-password2", PASSWORD)):
            browser.find_element(By.ID, field).send_keys(value)
        browser.find_element(By.ID, "signup-submit").click()
        shown = wait_for(browser, lambda d: d.find_elements(By.ID, "signup-message"), "the refusal")[0]
        assert "is taken" in shown.text and browser.find_element(By.ID, "signup-invite").get_attribute("value") == code
        assert browser.find_element(By.ID, "signup-password").get_attribute("value") == ""  # never sent back
        name = browser.find_element(By.ID, "signup-name")
        name.clear()
        name.send_keys("carol")
        for field in ("signup-password", "signup-password2"):
            browser.find_element(By.ID, field).send_keys(PASSWORD)
        browser.find_element(By.ID, "signup-submit").click()
        who = wait_for(browser, lambda d: d.find_elements(By.ID, "who"), "carol to be signed in")[0]
        assert who.text == "carol" and browser.find_element(By.ID, "welcome").is_displayed()
        screenshot(browser, "signed-up")
        # a token made on the account page, shown once, works
        browser.find_element(By.ID, "new-token-submit").click()
        token = wait_for(browser, lambda d: d.find_elements(By.ID, "new-token"), "the new token")[0].text
        me = httpx.get(f"{site.url}/api/v1/me", headers={"Authorization": f"Bearer {token}"})
        assert me.json() == {"name": "carol", "admin": False}
        browser.get(f"{site.url}/account")
        assert token not in browser.page_source and token[:12] in browser.page_source
        # the code was for one sign-up: it is used up
        browser.delete_all_cookies()
        browser.get(site.url + link)
        for field, value in (("signup-name", "dave"), ("signup-password", PASSWORD), ("signup-password2", PASSWORD)):
            browser.find_element(By.ID, field).send_keys(value)
        browser.find_element(By.ID, "signup-submit").click()
        shown = wait_for(browser, lambda d: d.find_elements(By.ID, "signup-message"), "the refusal")[0]
        assert "used up" in shown.text and not browser.find_elements(By.ID, "who")
