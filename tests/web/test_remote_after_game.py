"""The remote once the game has ended (issue 43, the newcomer's run): the loop takes no more
inputs, so the phone offers no button (a tap on «Пауза» or «Фол» waited for ever), and a tap left
unanswered is never carried into the next game after the phone pairs again."""

from __future__ import annotations

import json

from tests.web.test_browser import Remote, browser, pytestmark  # noqa: F401 - Chromium or skip
from tests.web.test_face import face_at
from tests.web.test_reconnect_browser import eventually
from tests.web.test_remote_buttons import script
from tests.web.webkit import CODE, settings_for, web_table
from voicehost.console.terminal import LineHandler, LogScreen
from voicehost.testing.clocked import wait_timer

TOWN_WINS = script("town-wins.txt")


def test_an_ended_game_offers_no_button_on_the_remote() -> None:
    face, _ = face_at(TOWN_WINS)
    assert face.host.over
    ask = face.question()
    assert ask["over"] and ask["buttons"] == {}  # «Пауза» was offered and never answered
    assert not ask["names"] and not ask["evening"]


def test_the_phone_shows_no_dead_button_and_drops_its_old_taps_when_paired_again() -> None:
    from selenium.webdriver.common.by import By

    phone = browser(390, 844)
    try:
        with web_table(settings_for("club", pairing_code=CODE), evening=True) as table:
            Remote(table, phone)
            port = table.web.server.port
            first = table.web.face.token()  # the new game's first question has the same one
            handler = LineHandler(table.host, LogScreen(), lambda: "")

            def play() -> None:
                for line in TOWN_WINS:
                    if table.host.over:
                        break
                    wait_timer(table.host) if line == "wait" else handler.line(line)

            table.run_on_loop(play)
            assert table.host.over
            eventually(lambda: "окончена" in phone.find_element(By.ID, "rhead").text)
            shown = [
                button.text
                for button in phone.find_elements(By.CSS_SELECTOR, "#actions button")
                if button.is_displayed()
            ]
            assert shown == []  # «Фол», «Пауза», «Протокол», «Имя», the evening: all dead now
        # A tap the ended game never answered, still waiting on the phone.
        stale = {"type": "input", "id": "old-tap", "token": first, "action": "pause"}
        phone.execute_script(
            "sessionStorage.setItem('vh_pending', JSON.stringify([arguments[0]]))", stale
        )
        with web_table(settings_for("club", pairing_code=CODE), port=port) as table:
            eventually(lambda: phone.find_element(By.ID, "code").is_displayed())
            phone.find_element(By.ID, "code").send_keys(CODE)
            phone.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            eventually(lambda: "ночь 0" in phone.find_element(By.ID, "rhead").text)
            table.run_on_loop(lambda: None)  # a turn of the loop: any input sent is handled
            assert table.host.paused_at is None  # the old «Пауза» did not pause the new game
            pending = phone.execute_script("return sessionStorage.getItem('vh_pending')")
            assert json.loads(pending or "[]") == []
            assert phone.find_element(By.ID, "feedback").text == ""
    finally:
        phone.quit()
