"""The room survives a restart, seen in Chromium (issue 43): when the host is restarted the board
comes back by itself, and a remote the new server does not know says plainly that it must be
paired again (it sat on «связь с ведущим…» with a frozen timer until reloaded)."""

from __future__ import annotations

import time

from tests.web.test_browser import Remote, browser, pytestmark  # noqa: F401 - Chromium or skip
from tests.web.webkit import settings_for, web_table
from voicehost.phrases import PhraseBook

BOOK = PhraseBook.load("ru")


def eventually(check, seconds: float = 15.0) -> None:  # noqa: ANN001
    from selenium.common.exceptions import WebDriverException

    end = time.monotonic() + seconds
    while True:
        try:
            if check():
                return
        except WebDriverException:  # a page on its way: looked at again
            pass
        assert time.monotonic() < end, "the page never got there"
        time.sleep(0.1)


def test_after_a_restart_the_board_returns_and_the_remote_asks_to_pair_again() -> None:
    from selenium.webdriver.common.by import By

    board = browser(390, 844)
    phone = browser(390, 844)
    try:
        with web_table(settings_for("club")) as table:
            port = table.web.server.port
            Remote(table, phone)
            board.get(table.base + "/")
            eventually(lambda: board.find_element(By.ID, "nightname").text != "")
        # The host has stopped: both pages say they are reconnecting, no clock left running.
        connecting = BOOK.screen("web_connecting")
        eventually(lambda: phone.find_element(By.ID, "rhead").text == connecting)
        assert phone.find_element(By.ID, "rclock").text == ""
        eventually(
            lambda: board.find_element(By.ID, "status").get_attribute("textContent") == connecting
        )
        # Started again with another pairing code, on the same port.
        with web_table(settings_for("club", pairing_code="246810"), port=port) as table:
            eventually(
                lambda: board.find_element(By.ID, "status").get_attribute("textContent") == ""
            )
            assert board.find_element(By.ID, "nightname").text  # night 0 of the new game
            # The phone is told plainly that it must pair again, and shows its number.
            again = BOOK.screen("web_pair_again")
            eventually(lambda: phone.find_element(By.ID, "message").text == again)
            eventually(lambda: phone.find_element(By.ID, "number").text.startswith("Номер"))
            assert "связь" not in phone.find_element(By.TAG_NAME, "body").text
            phone.find_element(By.ID, "code").send_keys("246810")
            phone.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            eventually(lambda: phone.find_element(By.ID, "rhead").text not in ("", again))
            assert "ночь 0" in phone.find_element(By.ID, "rhead").text  # the new game, live
    finally:
        board.quit()
        phone.quit()
