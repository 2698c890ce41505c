"""The remote without the code, a wrong code many times, a stolen board connection, a replayed
input, a state change by GET, a request from another site: none of them moves the game."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp

from tests.web.recorder import BoardRecorder
from tests.web.webkit import CODE, settings_for, web_table
from voicehost.game.model import Phase


async def pair(base: str, code: str, origin: str | None = None) -> tuple[int, Any, str]:
    headers = {} if origin is None else {"Origin": origin}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            base + "/pair",
            data={"code": code, "next": "/host"},
            headers=headers,
            allow_redirects=False,
        ) as response,
    ):
        cookie = response.cookies.get("vh_remote")
        return response.status, cookie, response.headers.get("Set-Cookie", "")


def test_the_remote_needs_the_code_and_wrong_codes_are_limited() -> None:
    with web_table(settings_for("club")) as table:

        async def main() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.get(table.base + "/host") as response:
                    page = await response.text()
                    assert response.status == 200
                    assert 'action="/pair"' in page and "host.js" not in page
                    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
                async with session.get(table.base + "/pair") as response:
                    assert response.status == 405  # nothing changes by GET
            statuses = [(await pair(table.base, f"{n:06d}"))[0] for n in range(8)]
            assert statuses[:5] == [403] * 5 and statuses[5:] == [429] * 3
            blocked, cookie, _ = await pair(table.base, CODE)  # even the right one, for a while
            assert blocked == 429 and cookie is None

        asyncio.run(main())
        recorder = BoardRecorder(table.base, "/ws/host").start()
        assert recorder.status == 403


def test_pairing_sets_a_strict_http_only_cookie_and_refuses_other_sites() -> None:
    with web_table(settings_for("club")) as table:
        status, _, _ = asyncio.run(pair(table.base, CODE, origin="http://evil.example"))
        assert status == 403
        status, cookie, header = asyncio.run(pair(table.base, CODE, origin=table.base))
        assert status == 303 and cookie is not None
        assert "HttpOnly" in header and "SameSite=Strict" in header


def test_a_stolen_board_connection_cannot_play() -> None:
    with web_table(settings_for("club")) as table:
        board = BoardRecorder(table.base).start()
        before = list(table.host.inputs)
        board.send(json.dumps({"type": "input", "id": "x", "action": "seats", "seats": [2, 5, 9]}))
        assert board.closed.wait(5), "the board's socket stays open after it spoke"
        table.run_on_loop(lambda: None)
        assert table.host.inputs == before
        assert table.host.state is not None and table.host.state.phase is Phase.NIGHT0_MAFIA


def test_a_replayed_input_is_applied_once() -> None:
    with web_table(settings_for("club")) as table:
        _, cookie, _ = asyncio.run(pair(table.base, CODE))
        remote = BoardRecorder(table.base, "/ws/host", {"vh_remote": cookie.value}).start()
        assert remote.status == 101
        for seats in ([2, 5, 9],):
            remote.send(
                json.dumps({"type": "input", "id": "a1", "action": "seats", "seats": seats})
            )
        table.wait()
        for _ in range(3):  # the phone lost Wi-Fi and sends the Commissar's entry again
            remote.send(json.dumps({"type": "input", "id": "c1", "action": "seats", "seats": [4]}))
        deadline = time.monotonic() + 5
        while sum('"id": "c1"' in f for f in remote.frames) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        acks = [f for f in remote.frames if '"id": "c1"' in f]
        assert len(acks) == 3 and len(set(acks)) == 1 and '"ok": true' in acks[0]
        table.run_on_loop(lambda: None)
        registrations = [
            event for event in table.host.inputs if type(event).__name__ == "EnterSeats"
        ]
        assert len(registrations) == 2  # the mafia once, the Commissar once
        remote.stop()
