"""Whole games hosted from the remote page in a real Chromium, the board open in a second one.

The remote plays the example scripts tap by tap (seats on the grid, counts, «Закончить речь»,
«Дальше», a foul); the host's transcript must be the script's, word for word. The board is
photographed at every phase (kept in test-artifacts/web/ for a person to look at) and read: by
night it shows the night and the role woken, nothing of the table.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from tests.web.webkit import CODE, EXAMPLES, WebTable, settings_for, web_table
from voicehost.console.commandline import strip_comment
from voicehost.console.script import run_script

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)),
    reason="Debian's chromium and chromium-driver (make dev installs them)",
)


def browser(width: int, height: int):  # noqa: ANN201
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync",
        f"--user-data-dir={tempfile.mkdtemp(prefix='vh-chromium-')}",
        f"--window-size={width},{height}",
    ):  # fmt: skip
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(DRIVER), options=options)


class Remote:
    """The host's phone: taps what a script line says."""

    def __init__(self, table: WebTable, driver) -> None:  # noqa: ANN001
        from selenium.webdriver.common.by import By

        self.by = By
        self.table = table
        self.driver = driver
        self.answers: list[str] = []
        driver.get(table.base + "/host")
        driver.find_element(By.ID, "code").send_keys(CODE)
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        self.synced()

    def synced(self) -> None:
        """Wait until no input waits for its answer and the page has the latest frame."""
        end = time.monotonic() + 10
        while time.monotonic() < end:
            seq = self.driver.execute_script(
                "return [document.body.dataset.seq || '', sessionStorage.getItem('vh_pending')]"
            )
            if seq[0] == str(self.table.web.face.version) and seq[1] in (None, "[]"):
                return
            time.sleep(0.01)
        raise AssertionError("the remote never caught up")

    def tap(self, element_id: str) -> None:
        self.driver.find_element(self.by.ID, element_id).click()

    def tap_number(self, number: str) -> None:
        buttons = self.driver.find_elements(self.by.CSS_SELECTOR, "#grid button")
        matching = [button for button in buttons if button.text == number]
        assert matching, f"no {number} on the grid: {[b.text for b in buttons]}"
        matching[0].click()

    def ask(self) -> dict:
        return self.driver.execute_script("return window.lastAsk || null") or {}

    def play(self, line: str) -> None:
        words = strip_comment(line).split()
        if not words:
            return
        private = self.driver.find_element(self.by.ID, "private")
        if private.is_displayed():  # the Commissar's (the Sheriff's) answer: read, tapped away
            self.answers.append(private.text)
            private.click()
        if words == ["wait"]:
            self.table.wait()
            self.synced()
            return
        if words == ["."]:
            self.tap("end")  # «Закончить речь», «Закончить обсуждение», «Дальше»: one button
        elif words[0] in ("f", "remove"):
            self.tap("foul" if words[0] == "f" else "remove")
            self.tap_number(words[1])
        elif words == ["u"]:
            self.tap("undo")
        elif words[0] == "teamloss":
            self.tap("loss")
            self.tap_number(words[1])
            self.tap("lossconfirm")
        elif all(word.isdigit() for word in words):
            self.table.past_first_moment()
            for word in words:
                self.tap_number(word)
            send = self.driver.find_element(self.by.ID, "send")
            pending = self.driver.execute_script("return sessionStorage.getItem('vh_pending')")
            if send.is_displayed() and pending in (None, "[]"):
                self.tap("send")
        elif words[0] == "preset":
            return
        else:
            raise AssertionError(f"the remote test cannot play {line!r}")
        self.synced()


class Board:
    def __init__(self, table: WebTable, driver, folder: Path) -> None:  # noqa: ANN001
        from selenium.webdriver.common.by import By

        self.by = By
        self.table = table
        self.driver = driver
        self.folder = folder
        self.shots: list[Path] = []
        self.seen: set[str] = set()
        driver.get(table.base + "/")

    def caught_up(self) -> dict:
        """The board shows the server's latest frame; returns that frame's table."""
        frame = json.loads(self.table.web.server.board_frame)["table"]
        end = time.monotonic() + 10
        while time.monotonic() < end:
            if frame.get("night"):
                shown = self.driver.find_element(self.by.ID, "nightrole").text
                if shown == frame["phase_name"]:
                    return frame
            elif frame["phase_name"] in self.driver.find_element(self.by.ID, "phase").text:
                return frame
            time.sleep(0.01)
        raise AssertionError(f"the board never showed {frame['phase_name']}")

    def look(self, remote=None) -> None:  # noqa: ANN001
        frame = self.caught_up()
        key = f"{frame.get('day')}-{frame.get('night_number')}-{frame['phase']}"
        if key in self.seen:
            return
        if remote is not None:  # the host's phone at the same moment, for a person to look at
            remote.save_screenshot(str(self.folder / f"{len(self.shots):02d}-remote.png"))
        self.seen.add(key)
        path = self.folder / f"{len(self.shots):02d}-{frame['phase']}.png"
        self.driver.save_screenshot(str(path))
        self.shots.append(path)
        body = self.driver.find_element(self.by.TAG_NAME, "body").text
        if frame["night"]:
            assert self.driver.find_element(self.by.ID, "nightview").is_displayed()
            assert not self.driver.find_element(self.by.ID, "board").is_displayed()
            assert "!" not in body and "✗" not in body
        else:
            tiles = self.driver.find_elements(self.by.CSS_SELECTOR, "#seats .seat")
            assert len(tiles) == len(frame["seats"])
            for seat, tile in zip(frame["seats"], tiles, strict=True):
                assert str(seat["seat"]) in tile.text
                assert tile.text.count("!") == seat["fouls"]


@pytest.mark.parametrize("example", ["town-wins.txt", "fiim-town-wins.txt", "fiim-team-loss.txt"])
def test_a_whole_game_hosted_from_the_phone(example: str) -> None:
    lines = (EXAMPLES / example).read_text(encoding="utf-8").splitlines()
    preset = "fiim" if example.startswith("fiim") else "club"
    expected = run_script(lines, settings_for(preset)).transcript
    folder = ARTIFACTS / example.removesuffix(".txt")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    board_driver = browser(412, 915)
    remote_driver = browser(412, 915)
    try:
        with web_table(settings_for(preset)) as table:
            board = Board(table, board_driver, folder)
            remote = Remote(table, remote_driver)
            board.look()
            for line in lines:
                if table.host.over:
                    break
                remote.play(line)
                board.look(remote_driver)
            assert table.host.over
            board.look()
            assert table.host.transcript == expected
            if "team-loss" not in example:
                assert len(remote.answers) == 2  # both checks were answered on the phone
            winner = board_driver.find_element(board.by.ID, "banner").text
            assert winner  # the winner is on the board, and the cards
            assert "мафия" in board_driver.find_element(board.by.ID, "seats").text
        assert len(board.shots) >= (3 if "team-loss" in example else 10)
    finally:
        board_driver.quit()
        remote_driver.quit()


def test_names_and_the_evening_from_the_phone(tmp_path: Path) -> None:
    """By day the host names a seat on the phone (the board shows it) and starts, shows and ends
    the evening; by night the phone offers neither."""
    import dataclasses

    from voicehost.club import evening

    settings = settings_for("club")
    club = dataclasses.replace(settings.club, data_dir=str(tmp_path / "club"), table="стол 1")
    settings = dataclasses.replace(settings, club=club)
    lines = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
    day_1 = lines[: lines.index("# ---- Day 1") + 2]
    night_1 = lines[len(day_1) : lines.index("# ---- Night 1")]
    board_driver = browser(412, 915)
    remote_driver = browser(412, 915)
    try:
        with web_table(settings, evening=True) as table:
            board = Board(table, board_driver, tmp_path)
            remote = Remote(table, remote_driver)
            for line in day_1:
                remote.play(line)
            remote.tap("name")
            field = remote_driver.find_element(remote.by.ID, "nametext")
            assert field.is_displayed()
            field.send_keys("Анна")
            remote.tap_number("5")
            remote.synced()
            feedback = remote_driver.find_element(remote.by.ID, "feedback")
            assert feedback.text == "Место 5: Анна"
            board.caught_up()
            end = time.monotonic() + 10
            while "Анна" not in board_driver.find_element(board.by.ID, "seats").text:
                assert time.monotonic() < end, "the board never showed the name"
                time.sleep(0.02)
            remote.tap("evstart")
            remote.tap("evconfirm")  # a second tap confirms: a stray tap starts nothing
            remote.synced()
            opened = evening.current(tmp_path / "club")
            assert opened is not None
            shown = remote_driver.find_element(remote.by.ID, "eveningbox")
            assert f"Вечер начат: {opened['id']}" in shown.text
            remote.tap("evstatus")
            remote.synced()
            assert shown.text == f"Вечер {opened['id']} · игр: 0"
            remote.tap("evend")
            assert evening.current(tmp_path / "club") is not None  # not before the confirmation
            remote.tap("evconfirm")
            remote.synced()
            assert shown.text == f"Вечер {opened['id']} закрыт · игр: 0"
            assert evening.current(tmp_path / "club") is None
            for line in night_1:
                remote.play(line)
            for line in lines[lines.index("# ---- Night 1") :]:
                if table.host.state is not None and table.host.state.phase.is_night:
                    break
                remote.play(line)
            assert table.host.state is not None and table.host.state.phase.is_night
            for hidden in ("name", "nametext", "evstart", "evstatus", "evend", "eveningbox"):
                assert not remote_driver.find_element(remote.by.ID, hidden).is_displayed(), hidden
    finally:
        board_driver.quit()
        remote_driver.quit()
