"""The board fits every screen a club puts it on: in Debian's Chromium, at a TV's 1920×1080 and
1280×720 and a phone's 390×844 and 844×390, for 6 to 20 seats, every seat, its name, its marks,
its card at the end and the timer lie inside the window, no two tiles overlap, nothing scrolls
and no word is broken. Each element's box is read, not only photographed; the photographs are
kept in test-artifacts/board/ for a person to look at.

One browser for the whole module: the window is resized through the DevTools protocol and the
board is fed the frames the privacy function gives (``TableView.to_public``) directly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.test_browser import browser
from tests.web.webkit import CODE, settings_for
from voicehost.host.table import SeatView, TableView, TimerView
from voicehost.testing.table import text_table
from voicehost.web.face import web_labels
from voicehost.web.pairing import Pairing
from voicehost.web.server import WebServer

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "board"
SIZES = [(1920, 1080), (1280, 720), (390, 844), (844, 390)]
SEAT_COUNTS = [6, 10, 12, 16, 20]
#: The rule sets, each with its own cards (and the city's in English too): "preset[-language]".
PRESETS = ("club", "fiim", "city", "city-en")


def preset_of(key: str) -> tuple[str, str]:
    """The rule set and the language a key of PRESETS names."""
    preset, _, language = key.partition("-")
    return preset, language or "ru"


def host_for(key: str):  # noqa: ANN201
    preset, language = preset_of(key)
    return text_table(language, settings=settings_for(preset, language))


#: Names of twenty characters, as a club's roster has them (one without a space at all).
NAMES = [
    "Александра Смирнова",
    "Константинопольский",
    "Maximilian Fischer-K",
    "Екатерина Воронцова",
    "Святослав Ярополков",
]

#: What the page is asked after each frame: what a person would notice is wrong, in words.
PROBLEMS_JS = r"""
const W = window.innerWidth, H = window.innerHeight, out = [];
const root = document.scrollingElement;
if (root.scrollWidth > W + 0.5) out.push("scrolls sideways: " + root.scrollWidth + " > " + W);
if (root.scrollHeight > H + 0.5) out.push("scrolls down: " + root.scrollHeight + " > " + H);
const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
const page = document.querySelector("main:not(.hidden)");
const name = (e) => (e.id ? "#" + e.id : "." + e.className.split(" ")[0]) + " «" +
  e.textContent.slice(0, 24) + "»";
for (const e of [page, ...page.querySelectorAll("*")].filter(shown)) {
  const r = e.getBoundingClientRect();
  if (r.width === 0 && r.height === 0) continue;
  if (r.left < -0.5 || r.top < -0.5 || r.right > W + 0.5 || r.bottom > H + 0.5)
    out.push(name(e) + " outside the window: " +
      [r.left, r.top, r.right, r.bottom].map(Math.round));
  if (e.children.length === 0 && e.textContent && e.scrollWidth > e.clientWidth + 1 &&
      e.title !== e.textContent)
    out.push(name(e) + " cut without its title: " + e.scrollWidth + " > " + e.clientWidth);
  if (e.children.length === 0 && e.textContent && getComputedStyle(e).overflowY !== "visible" &&
      e.scrollHeight > e.clientHeight + 1)
    out.push(name(e) + " cut at the bottom: " + e.scrollHeight + " > " + e.clientHeight);
}
const panel = document.getElementById("panel").getBoundingClientRect();
const area = document.getElementById("seats").getBoundingClientRect();
if (shown(document.getElementById("seats")) && panel.height > 0 &&
    panel.left < area.right && area.left < panel.right &&
    panel.top < area.bottom && area.top < panel.bottom)
  out.push("the panel lies over the seats");
const tiles = [...document.querySelectorAll("#seats .seat")].filter(shown);
const boxes = tiles.map((t) => t.getBoundingClientRect());
for (let i = 0; i < boxes.length; i++) {
  for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
        a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
      out.push("seat tiles overlap: " + tiles[i].textContent + " / " + tiles[j].textContent);
  }
  for (const inner of tiles[i].querySelectorAll("*")) {
    const r = inner.getBoundingClientRect(), a = boxes[i];
    if (r.left < a.left - 0.5 || r.right > a.right + 0.5 ||
        r.top < a.top - 0.5 || r.bottom > a.bottom + 0.5)
      out.push(name(inner) + " spills out of its tile");
  }
}
const walker = document.createTreeWalker(page, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (!shown(node.parentElement)) continue;
  for (const match of node.data.matchAll(/\S+/g)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (tops.size > 1) out.push("the word «" + match[0] + "» is broken across lines");
  }
}
return out;
"""

#: What each tile shows: its number (with ✗ when the player has left), its name in full (in
#: the text or its title), its marks, its card.
TILES_JS = r"""
return [...document.querySelectorAll("#seats .seat")].map((t) => ({
  n: t.querySelector(".n").textContent,
  name: t.querySelector(".name") ? t.querySelector(".name").title ||
    t.querySelector(".name").textContent : null,
  shown_name: t.querySelector(".name") ? t.querySelector(".name").textContent : null,
  cut: t.querySelector(".name") ? t.querySelector(".name").scrollWidth >
    t.querySelector(".name").clientWidth + 1 : false,
  fouls: t.querySelector(".f").textContent,
  card: t.querySelector(".card") ? t.querySelector(".card").textContent : null,
}));
"""


def seats(count: int, *, left: set[int], fouls: int = 0, cards: list[str] | None = None) -> tuple:
    return tuple(
        SeatView(
            seat,
            seat in left,
            (seat + fouls) % 4 if fouls else 0,
            cards[seat - 1] if cards and seat <= len(cards) else None,
            NAMES[seat % len(NAMES)],
        )
        for seat in range(1, count + 1)
    )


def view(key: str, count: int, **changes: Any) -> TableView:
    preset, language = preset_of(key)
    book = host_for(key).book
    phase = changes.pop("phase", "discussion")
    fields: dict[str, Any] = {
        "language": language,
        "preset": preset,
        "started": True,
        "night": False,
        "day": 2,
        "night_number": 12,
        "phase": phase,
        "phase_name": book.phase_name(phase, preset),
        "speaker": None,
        "lost_speech": False,
        "timer": None,
        "seats": seats(count, left=set()),
        "nominations": (),
        "candidates": (),
        "counted": False,
        "all_leave_votes": None,
        "voting_on": None,
        "winner": None,
        "over": False,
        "paused": False,
    }
    fields.update(changes)
    return TableView(**fields)


def states(key: str, count: int, cards: list[str]) -> Iterator[tuple[str, TableView]]:
    """The table's moments that ask most of the screen, for ``count`` seats."""
    preset = key
    if key in ("club", "city-en"):
        yield "speech", view(
            preset, count, phase="nomination", speaker=count, lost_speech=True,
            timer=TimerView(59, 60, False, False, False), seats=seats(count, left={2}, fouls=1),
            nominations=tuple((by, (by + 3,)) for by in range(1, count // 2 + 1)),
        )  # fmt: skip
        yield "time-up", view(
            preset, count, phase="nomination", speaker=count - 1, paused=True,
            timer=TimerView(0, 60, True, True, True),
            seats=seats(count, left=set(range(1, count + 1)), fouls=3),
        )  # fmt: skip
        yield "vote", view(
            preset, count, phase="vote", timer=TimerView(5, 5, True, False, False),
            seats=seats(count, left={1, count}),
            candidates=tuple((seat, seat % 3 if seat < 4 else None) for seat in range(2, count)),
            voting_on=4,
        )  # fmt: skip
        yield "third-vote", view(
            preset, count, phase="third_vote", counted=True, all_leave_votes=count - 3,
            candidates=tuple((seat, 2) for seat in range(3, min(count, 9))),
        )  # fmt: skip
        yield "night", view(preset, count, night=True, phase="night0_commissar")
    winner = "maniac" if preset.startswith("city") else "black"
    departed = set(range(1, count + 1, 2))
    yield "end", view(
        preset, count, phase="game_over", over=True, winner=winner,
        seats=seats(count, left=departed, fouls=1, cards=cards),
    )  # fmt: skip
    yield "end-all-left", view(
        preset, count, phase="game_over", over=True,
        seats=seats(count, left=set(range(1, count + 1)), fouls=2, cards=cards),
    )  # fmt: skip


def end_cards(key: str, count: int) -> list[str]:
    """Every card the voice names at the end, on the first seats (the rest are civilians)."""
    host = host_for(key)
    named = [role.value for role in host.engine.cards_at_end()]
    return (named * count)[:count] if count < len(named) else named


@pytest.fixture(scope="module")
def chromium():  # noqa: ANN201
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    driver = browser(800, 600)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, WebServer]]:
    """A web server per rule set, with its own labels, that never sends a frame."""
    running = {}
    for preset in PRESETS:
        host = host_for(preset)
        server = WebServer(
            port=0, pairing=Pairing(club_code=CODE), labels=web_labels(host),
            language=host.settings.language, submit=lambda *_: None, host="127.0.0.1",
        )  # fmt: skip
        server.start()
        running[preset] = server
    yield running
    for server in running.values():
        server.stop()


def resize(driver, width: int, height: int) -> None:  # noqa: ANN001
    mobile = width < 600 or height < 600
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
    )


def draw(driver, table: TableView) -> None:  # noqa: ANN001
    frame = json.dumps(table.to_public(), ensure_ascii=False)
    driver.execute_script(f"drawBoard({frame});")


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_seat_name_mark_and_the_timer_fit_the_screen(
    chromium, servers: dict[str, WebServer], width: int, height: int
) -> None:
    problems: list[str] = []
    for preset in PRESETS:
        book = host_for(preset).book
        chromium.get(f"http://127.0.0.1:{servers[preset].port}/")
        resize(chromium, width, height)
        for count in SEAT_COUNTS:
            cards = end_cards(preset, count)
            for moment, table in states(preset, count, cards):
                draw(chromium, table)
                name = f"{width}x{height}-{preset}-{count:02d}-{moment}"
                chromium.save_screenshot(str(ARTIFACTS / f"{name}.png"))
                problems += [f"{name}: {p}" for p in chromium.execute_script(PROBLEMS_JS)]
                if table.night:
                    continue
                tiles = chromium.execute_script(TILES_JS)
                assert len(tiles) == count, name
                for seat, tile in zip(table.seats, tiles, strict=True):
                    card = book.screen(f"card_{seat.card}") if seat.card else None
                    shows = (tile["n"], tile["name"], tile["fouls"], tile["card"])
                    meant = (
                        ("✗" if seat.left else "") + str(seat.seat),
                        seat.name,
                        "!" * seat.fouls,
                        card,
                    )
                    if shows != meant:
                        problems.append(f"{name}: seat {seat.seat} shows {shows}, not {meant}")
                    if width >= 1280 and tile["cut"]:  # a TV shows every name whole
                        problems.append(f"{name}: the name {seat.name} is cut")
                if (
                    table.timer is not None
                    and not chromium.find_element("id", "timer").is_displayed()
                ):
                    problems.append(f"{name}: no timer")
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} in all)"


def tile_boxes(driver) -> list[dict[str, Any]]:  # noqa: ANN001
    return driver.execute_script(
        "return [...document.querySelectorAll('#seats .seat')].map((t) => {"
        "  const r = t.getBoundingClientRect(), n = t.querySelector('.n').getBoundingClientRect();"
        "  return {text: t.querySelector('.n').textContent, bottom: r.bottom, right: r.right,"
        "          n_right: n.right, n_left: n.left, left: r.left}; })"
    )


@pytest.mark.parametrize("count", [10, 12])
def test_the_big_timer_leaves_every_seat_on_the_tv(
    chromium, servers: dict[str, WebServer], count: int
) -> None:
    chromium.get(f"http://127.0.0.1:{servers['club'].port}/")
    resize(chromium, 1920, 1080)
    draw(chromium, view("club", count, speaker=1, timer=TimerView(60, 60, False, False, False)))
    below = [tile["text"] for tile in tile_boxes(chromium) if tile["bottom"] > 1080]
    assert not below, f"below the bottom edge: {below}"


def test_departed_seats_and_long_cards_stay_in_their_tiles_on_a_phone(
    chromium, servers: dict[str, WebServer]
) -> None:
    chromium.get(f"http://127.0.0.1:{servers['club'].port}/")
    resize(chromium, 390, 844)
    cards = ["commissar", "doctor", "mafia", "mafia", "mafia"]
    draw(chromium, view("club", 12, phase="game_over", over=True, winner="red",
                        seats=seats(12, left=set(range(1, 13)), cards=cards)))  # fmt: skip
    sideways = chromium.execute_script("return document.scrollingElement.scrollWidth")
    assert sideways <= 390, "the phone scrolls sideways"
    spilled = [t["text"] for t in tile_boxes(chromium) if t["n_right"] > t["right"] + 0.5]
    assert not spilled, f"marks spill out of their tiles: {spilled}"
    lines = chromium.execute_script(
        "const c = document.querySelector('#seats .card'); const r = document.createRange();"
        "r.selectNodeContents(c); return new Set([...r.getClientRects()].map((x) => x.top)).size"
    )
    assert lines == 1, "«комиссар» is broken across lines"
