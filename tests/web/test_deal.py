"""Dealing by the device: the phone deals at random and goes round the table; each player sees
their own card once; night 0 then wakes each role for its whole window with nothing to type."""

from __future__ import annotations

import collections
import json
import time

import pytest

from tests.web.test_browser import CHROMIUM, DRIVER, Remote, browser
from tests.web.webkit import settings_for, web_table
from voicehost.game.model import Role
from voicehost.web.face import Deal, cards_for

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="Debian's chromium and chromium-driver"
)


def test_the_deck_is_the_tables_and_the_deal_is_random() -> None:
    club = settings_for("club")
    fiim = settings_for("fiim")
    assert collections.Counter(cards_for(club)) == {
        Role.CIVILIAN: 5, Role.MAFIA: 3, Role.COMMISSAR: 1, Role.DOCTOR: 1
    }  # fmt: skip
    assert collections.Counter(cards_for(fiim)) == {
        Role.CIVILIAN: 6, Role.MAFIA: 2, Role.DON: 1, Role.SHERIFF: 1
    }  # fmt: skip
    deals = {tuple(Deal.random(club).cards.values()) for _ in range(50)}
    assert len(deals) > 45  # 2520 ways to deal ten cards: 50 deals are (almost) all different


@pytest.mark.parametrize("preset", ["club", "fiim"])
def test_the_phone_deals_and_night_zero_needs_nothing_typed(preset: str) -> None:
    from selenium.webdriver.common.by import By

    driver = browser(412, 915)
    try:
        with web_table(settings_for(preset, deal="device")) as table:
            remote = Remote(table, driver)
            driver.get(table.base + "/deal")
            shown: dict[int, str] = {}
            button = driver.find_element(By.ID, "dealbutton")
            assert "Раздать карты" in button.text
            button.click()
            for seat in range(1, 11):
                deadline = time.monotonic() + 5
                while f"Игрок {seat}:" not in button.text and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert button.text == f"Игрок {seat}: нажмите, чтобы увидеть карту"
                button.click()
                card = driver.find_element(By.ID, "card")
                deadline = time.monotonic() + 5
                while not card.is_displayed() and time.monotonic() < deadline:
                    time.sleep(0.01)
                shown[seat] = card.text
                button.click()  # hide it before the phone moves on
                assert not card.is_displayed()
            deadline = time.monotonic() + 5
            text = driver.find_element(By.ID, "dealtext")
            while "Карты розданы" not in text.text and time.monotonic() < deadline:
                time.sleep(0.01)
            assert "Карты розданы" in text.text
            steps = 3
            for _ in range(steps):  # each role's window runs to its end, nothing typed
                table.wait()
            state = table.host.state
            assert state is not None and not state.phase.is_night or preset == "fiim"
            names = {"мафия": {Role.MAFIA}, "Дон": {Role.DON}, "комиссар": {Role.COMMISSAR},
                     "доктор": {Role.DOCTOR}, "Шериф": {Role.SHERIFF},
                     "мирный": {None, Role.CIVILIAN}}  # fmt: skip
            for seat, card in shown.items():
                assert state.players[seat].role in names[card], (seat, card)  # type: ignore[index]
            sources = {
                item.source.value for item in table.host.accepted if item.event.kind == "seats"
            }
            assert sources == {"remote"}  # journaled like a keypad entry, from the device
            # Nobody sees a card afterwards: not on the page, not in any frame a remote gets.
            driver.get(table.base + "/deal")
            time.sleep(0.3)
            assert not driver.find_element(By.ID, "card").is_displayed()
            frame = json.loads(table.web.server.remote_frame)
            assert "card" not in json.dumps(frame["ask"]) or frame["ask"]["deal"] == {
                "on": True, "dealt": True, "next": None
            }  # fmt: skip
            assert remote.answers == []
    finally:
        driver.quit()
