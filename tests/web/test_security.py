"""The remote without the code, a wrong code many times, a stolen board connection, a replayed
input, a state change by GET, a request from another site: none of them moves the game."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp

from tests.web.recorder import BoardRecorder
from tests.web.webkit import CODE, WebTable, settings_for, web_table
from voicehost.game.inputs import EnterSeats
from voicehost.game.model import Phase, Seat


async def pair(
    base: str, code: str, origin: str | None = None, source: str = "127.0.0.1"
) -> tuple[int, Any, str]:
    """The club's code posted from ``source`` (an address of 127.0.0.0/8)."""
    headers = {} if origin is None else {"Origin": origin}
    connector = aiohttp.TCPConnector(local_addr=(source, 0))
    async with (
        aiohttp.ClientSession(connector=connector) as session,
        session.post(
            base + "/pair",
            data={"code": code, "next": "/host"},
            headers=headers,
            allow_redirects=False,
        ) as response,
    ):
        cookie = response.cookies.get("vh_remote")
        return response.status, cookie, response.headers.get("Set-Cookie", "")


def test_the_remote_needs_pairing_and_wrong_codes_slow_down_their_own_address() -> None:
    with web_table(settings_for("club")) as table:

        async def main() -> None:
            async with aiohttp.ClientSession() as session:
                async with session.get(table.base + "/host") as response:
                    page = await response.text()
                    assert response.status == 200
                    assert 'id="pairing"' in page and "host.js" not in page
                    assert "default-src 'none'" in response.headers["Content-Security-Policy"]
                async with session.get(table.base + "/pair") as response:
                    assert response.status == 405  # nothing changes by GET
            statuses = [(await pair(table.base, f"{n:06d}"))[0] for n in range(3)]
            assert statuses == [403, 429, 429]  # the second try came before its wait was over
            blocked, cookie, _ = await pair(table.base, CODE)  # this address waits, even right
            assert blocked == 429 and cookie is None
            status, cookie, _ = await pair(table.base, CODE, source="127.0.0.2")
            assert status == 303 and cookie is not None  # the host, elsewhere, is never locked

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


def latest_ask(table: WebTable, remote: BoardRecorder) -> dict[str, Any]:
    """The question the remote shows once it has the server's latest frame."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        frames = [json.loads(f) for f in remote.frames if '"type": "remote"' in f]
        if frames and frames[-1]["seq"] == table.web.face.version:
            return frames[-1]["ask"]
        time.sleep(0.005)
    raise AssertionError("the remote never got the latest frame")


def answers(remote: BoardRecorder, ident: str, count: int) -> list[str]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        acks = [f for f in remote.frames if f'"id": "{ident}"' in f]
        if len(acks) >= count:
            return acks
        time.sleep(0.005)
    raise AssertionError(f"{ident} was not answered {count} times")


def paired_remote(table: WebTable) -> BoardRecorder:
    _, cookie, _ = asyncio.run(pair(table.base, CODE))
    remote = BoardRecorder(table.base, "/ws/host", {"vh_remote": cookie.value}).start()
    assert remote.status == 101
    return remote


def tap(remote: BoardRecorder, ident: str, token: str, **fields: Any) -> None:
    remote.send(json.dumps({"type": "input", "id": ident, "token": token, **fields}))


def test_a_replayed_input_is_applied_once() -> None:
    with web_table(settings_for("club")) as table:
        remote = paired_remote(table)
        tap(remote, "a1", latest_ask(table, remote)["token"], action="seats", seats=[2, 5, 9])
        answers(remote, "a1", 1)
        table.wait()
        table.past_first_moment()
        token = latest_ask(table, remote)["token"]
        for _ in range(3):  # the phone lost Wi-Fi and sends the Commissar's entry again
            tap(remote, "c1", token, action="seats", seats=[4])
        acks = answers(remote, "c1", 3)
        assert len(set(acks)) == 1 and '"ok": true' in acks[0]
        table.run_on_loop(lambda: None)
        registrations = [e for e in table.host.inputs if isinstance(e, EnterSeats)]
        assert [e.seats for e in registrations] == [(2, 5, 9), (4,)]  # each once
        remote.stop()


def test_an_input_made_for_another_question_is_not_applied() -> None:
    with web_table(settings_for("club")) as table:
        remote = paired_remote(table)
        old = latest_ask(table, remote)["token"]
        table.run_on_loop(lambda: table.host.submit(EnterSeats((Seat(2), Seat(5), Seat(9)))))
        table.wait()  # the host went on at the keyboard; the phone comes back with its old tap
        tap(remote, "late", old, action="seats", seats=[3])
        [ack] = answers(remote, "late", 1)
        assert '"ok": false' in ack and "вопрос сменился" in ack
        table.run_on_loop(lambda: None)
        assert [e.seats for e in table.host.inputs if isinstance(e, EnterSeats)] == [(2, 5, 9)]
        remote.stop()
