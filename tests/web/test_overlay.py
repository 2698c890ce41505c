"""The stream overlay (``/overlay``, OBS's browser source): the board's own frames on a
transparent page. In Chromium it fits a stream's 1920×1080 and 1280×720 as the board fits a TV,
lets the video show through everywhere but its seats and its panel, and shows what the board
shows during a game, nothing more (it reads the board's socket)."""

from __future__ import annotations

import base64
import io
import json
import time
from collections.abc import Iterator

import pytest

from tests.web.test_board_layout import (
    ARTIFACTS,
    PROBLEMS_JS,
    SEAT_COUNTS,
    draw,
    end_cards,
    resize,
    seats,
    states,
    view,
)
from tests.web.test_board_layout import chromium as chromium  # noqa: F401 - a fixture
from tests.web.test_board_layout import servers as servers  # noqa: F401 - a fixture
from tests.web.webkit import EXAMPLES, settings_for, web_table
from voicehost.console.script import ScriptFeed
from voicehost.host.table import TimerView
from voicehost.web.pairing import Pairing
from voicehost.web.server import WebServer

STREAM_SIZES = [(1920, 1080), (1280, 720)]


def open_overlay(driver, server: WebServer, width: int, height: int) -> None:  # noqa: ANN001
    driver.get(f"http://127.0.0.1:{server.port}/overlay")
    resize(driver, width, height)


@pytest.mark.parametrize(
    ("width", "height"), STREAM_SIZES, ids=[f"{w}x{h}" for w, h in STREAM_SIZES]
)
def test_the_overlay_fits_a_stream(chromium, servers, width: int, height: int) -> None:  # noqa: F811
    problems: list[str] = []
    for preset in ("club", "city"):
        open_overlay(chromium, servers[preset], width, height)
        for count in SEAT_COUNTS:
            for moment, table in states(preset, count, end_cards(preset, count)):
                draw(chromium, table)
                name = f"overlay-{width}x{height}-{preset}-{count:02d}-{moment}"
                chromium.save_screenshot(str(ARTIFACTS / f"{name}.png"))
                problems += [f"{name}: {p}" for p in chromium.execute_script(PROBLEMS_JS)]
                overlap = chromium.execute_script(
                    "const p = document.getElementById('panel').getBoundingClientRect();"
                    "return [...document.querySelectorAll('#seats .seat')].filter((t) => {"
                    "  const r = t.getBoundingClientRect();"
                    "  return r.left < p.right && p.left < r.right && r.top < p.bottom &&"
                    "         p.top < r.bottom; }).length"
                )
                if overlap:
                    problems.append(f"{name}: the panel covers {overlap} seats")
                if not table.night:
                    shown = chromium.execute_script(
                        "return document.querySelectorAll('#seats .seat').length"
                    )
                    assert shown == count, name
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


def alpha_at(driver, points: list[tuple[int, int]]) -> list[int]:  # noqa: ANN001
    """The opacity of the page's own pixels at ``points`` (the browser paints no background)."""
    from PIL import Image

    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGBA")
    return [image.getpixel(point)[3] for point in points]


@pytest.fixture
def see_through(chromium) -> Iterator[None]:  # noqa: F811
    """The browser paints nothing under the page, as OBS's browser source does."""
    chromium.execute_cdp_cmd(
        "Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}}
    )
    yield
    chromium.execute_cdp_cmd("Emulation.setDefaultBackgroundColorOverride", {})


def test_the_overlay_lets_the_video_through_but_not_the_board(
    chromium,  # noqa: F811
    servers,  # noqa: F811
    see_through: None,
) -> None:
    table = view(
        "club", 10, speaker=3, timer=TimerView(42, 60, False, False, False),
        seats=seats(10, left={2}, fouls=1),
    )  # fmt: skip
    middle, corner = (760, 400), (40, 40)
    for width, height in STREAM_SIZES:
        open_overlay(chromium, servers["club"], width, height)
        draw(chromium, table)
        tile, panel = chromium.execute_script(
            "const t = document.querySelector('#seats .seat').getBoundingClientRect();"
            "const p = document.getElementById('timer').getBoundingClientRect();"
            "return [[t.left + 4, t.top + 4], [p.left + 4, p.top + 4]]"
        )
        inside = [(int(x), int(y)) for x, y in (tile, panel)]
        scaled = [(x * width // 1920, y * height // 1080) for x, y in (middle, corner)]
        clear = alpha_at(chromium, scaled)
        assert clear == [0, 0], f"{width}x{height}: the overlay paints over the video"
        assert all(alpha > 150 for alpha in alpha_at(chromium, inside)), "seats on glass"
        draw(chromium, view("club", 10, night=True, phase="night_mafia"))
        assert alpha_at(chromium, scaled) == [0, 0], "the night covers the video"
    chromium.get(f"http://127.0.0.1:{servers['club'].port}/")  # the board is not see-through
    resize(chromium, 1920, 1080)
    draw(chromium, table)
    assert alpha_at(chromium, [middle]) == [255]


def test_the_overlay_shows_the_board_s_frames_during_a_game(chromium) -> None:  # noqa: F811
    """A game as it is played: the overlay shows the speaker, the timer and the seats of the
    board's frame, and by night only that it is night."""
    from selenium.webdriver.common.by import By

    lines = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
    with web_table(settings_for("club")) as table:
        chromium.get(table.base + "/overlay")
        resize(chromium, 1920, 1080)
        feed = ScriptFeed(table.host, table.clock, lines, None)
        seen_day = seen_night = False
        for _ in range(30):
            command = feed()
            assert command is not None
            table.run_on_loop(lambda command=command: table.host.handle(command))
            frame = json.loads(table.web.server.board_frame)["table"]
            end = time.monotonic() + 10
            while True:
                node = "nightrole" if frame["night"] else "phase"
                if frame["phase_name"] in chromium.find_element(By.ID, node).text:
                    break
                assert time.monotonic() < end, "the overlay never showed the board's frame"
                time.sleep(0.02)
            tiles = chromium.find_elements(By.CSS_SELECTOR, "#seats .seat")
            if frame["night"]:
                seen_night = True
                assert not any(tile.is_displayed() for tile in tiles)
                continue
            shown_timer = chromium.find_element(By.ID, "timer")
            if frame["timer"] is None or frame["speaker"] is None:
                continue
            seen_day = True
            left = frame["timer"]["left"]
            assert shown_timer.text.startswith(f"{left // 60}:{left % 60:02d}")
            assert [tile.text.split("\n")[0] for tile in tiles] == [
                str(seat["seat"]) for seat in frame["seats"]
            ]
            speaking = chromium.find_elements(By.CSS_SELECTOR, "#seats .seat.speaking")
            assert [tile.text.split("\n")[0] for tile in speaking] == [str(frame["speaker"])]
            assert str(frame["speaker"]) in chromium.find_element(By.ID, "speaker").text
        assert seen_day and seen_night


def test_a_city_game_ends_on_the_board_and_the_overlay_with_every_card_the_voice_named(
    chromium,  # noqa: F811
) -> None:
    """The Maniac wins a city game: the voice names the «путана», the Immortal, the Maniac and
    the rest; the board and the overlay show each of those cards on its seat, and who won."""
    from selenium.webdriver.common.by import By

    from tests.web.test_face import face_at
    from voicehost.console.commandline import strip_comment

    lines = (EXAMPLES / "city-maniac-wins.txt").read_text(encoding="utf-8").splitlines()
    played = [strip_comment(line).strip() for line in lines]
    face, _ = face_at([line for line in played if line and not line.startswith("preset")], "city")
    host = face.host
    state = host.state
    assert state is not None and host.over
    named = {
        int(seat): host.book.screen(f"card_{player.role.value}")
        for seat, player in state.players.items()
        if player.role in host.engine.cards_at_end()
    }
    voiced = " ".join(host.transcript[-12:])
    for card in ("маньяк", "путана", "бессмертный", "Дон", "комиссар", "доктор"):
        assert card in named.values() and card.lower() in voiced.lower(), card
    server = WebServer(
        port=0, pairing=Pairing(club_code="135790"), labels=face.labels, language="ru",
        submit=lambda *_: None, host="127.0.0.1",
    )  # fmt: skip
    server.start()
    try:
        server.publish(*face.frames())  # the game's last frame, as the face publishes it
        for page, (width, height) in (("/", (1920, 1080)), ("/overlay", (1280, 720))):
            chromium.get(f"http://127.0.0.1:{server.port}{page}")
            resize(chromium, width, height)
            end = time.monotonic() + 10
            while not chromium.find_element(By.ID, "banner").text:
                assert time.monotonic() < end, f"{page}: no winner"
                time.sleep(0.02)
            assert chromium.find_element(By.ID, "banner").text == "Победа: маньяк (в одиночку)"
            shown = chromium.execute_script(
                "return [...document.querySelectorAll('#seats .seat')].map((t) => ["
                "  t.querySelector('.n').textContent.replace('✗', ''),"
                "  t.querySelector('.card') ? t.querySelector('.card').textContent : null])"
            )
            cards = {int(seat): card for seat, card in shown if card is not None}
            assert cards == named, page
            shot = f"city-maniac-wins{page.replace('/', '-')}.png"
            chromium.save_screenshot(str(ARTIFACTS / shot))
    finally:
        server.stop()


def test_the_overlay_is_the_board_s_page_with_the_board_s_script(servers) -> None:  # noqa: F811
    """No new data path: the overlay runs the board's script on the board's socket, under the
    same security headers, and needs no pairing (it shows what the board shows)."""
    import re
    import urllib.request

    base = f"http://127.0.0.1:{servers['club'].port}"
    with urllib.request.urlopen(base + "/overlay") as response:
        page = response.read().decode()
        policy = response.headers["Content-Security-Policy"]
    with urllib.request.urlopen(base + "/") as response:
        board = response.read().decode()
    scripts = re.findall(r'<script src="([^"]+)"', page)
    assert (
        scripts
        == re.findall(r'<script src="([^"]+)"', board)
        == [
            "/static/common.js",
            "/static/board.js",
        ]
    )
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    with urllib.request.urlopen(base + "/static/board.js") as response:
        sockets = re.findall(r'live\("([^"]+)"', response.read().decode())
    assert sockets == ["/ws/board"]
