"""The web face failing never stops the game: the server killed mid-game starts again (the
boards reconnect to the current state), browsers that misbehave are dropped, and the journal is
the one the same game writes without a web face."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path

import aiohttp
import pytest

from tests.web.phone import cut
from tests.web.recorder import BoardRecorder
from tests.web.webkit import CODE, EXAMPLES, settings_for, web_table
from voicehost.console.script import ScriptFeed, run_script
from voicehost.game.inputs import EnterSeats
from voicehost.game.model import Seat

LINES = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()


def inputs(journal: Path) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    return [(json.dumps(row["input"]), row["source"]) for row in rows if "input" in row]


async def misbehave(base: str) -> None:
    """A paired phone that sends nonsense, a huge frame, and a board that never reads."""
    async with aiohttp.ClientSession() as session:
        async with session.post(base + "/pair", data={"code": CODE}, allow_redirects=False) as r:
            cookie = r.cookies["vh_remote"].value
        remote = await session.ws_connect(
            base + "/ws/host", headers={"Cookie": f"vh_remote={cookie}"}
        )
        for junk in ("{", "[]", '{"type": "input"}', '{"type": "input", "action": "seats", '
                     '"seats": "all"}', '{"type": "input", "action": "count", "number": 1e9}',
                     '{"type": "input", "action": "foul", "number": true}'):  # fmt: skip
            await remote.send_str(junk)
        await remote.send_str("x" * 100_000)  # too big: the connection is closed
        await asyncio.sleep(0.2)
        await session.ws_connect(base + "/ws/board")  # opened and never read


def test_the_game_goes_on_through_a_dead_server_and_bad_browsers(tmp_path: Path) -> None:
    plain = tmp_path / "plain.jsonl"
    run_script(LINES, settings_for("club"), journal_path=plain).host.close()
    journal = tmp_path / "web.jsonl"
    with web_table(settings_for("club"), journal=journal) as table:
        feed = ScriptFeed(table.host, table.clock, LINES, None)
        board = BoardRecorder(table.base).start()
        for number in range(len(LINES)):
            command = feed()
            if command is None or table.host.over:
                break
            if number == 30:
                table.web.server.kill()  # the web face dies in the middle of day 1
            if number == 40:
                deadline = time.monotonic() + 5
                while not table.web.server.serving() and time.monotonic() < deadline:
                    time.sleep(0.01)
                asyncio.run(misbehave(table.base))
            table.run_on_loop(lambda command=command: table.host.handle(command))
        assert table.host.over and feed.errors == []
        assert table.web.server.restarts == 1
        assert board.closed.wait(5)  # its server went away...
        again = BoardRecorder(table.base).start()  # ...and a board that reconnects is current
        again.wait_for(table.web.server.board_frame)
        assert '"over": true' in again.frames[-1]
        assert table.web.face.failures == 0
    assert inputs(journal) == inputs(plain)


def test_sockets_cut_by_phones_leave_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    with web_table(settings_for("club")) as table, caplog.at_level(logging.INFO):

        async def cookie() -> str:
            async with aiohttp.ClientSession() as session:
                url, data = table.base + "/pair", {"code": CODE}
                async with session.post(url, data=data, allow_redirects=False) as response:
                    return str(response.cookies["vh_remote"].value)

        paired = asyncio.run(cookie())
        for _ in range(4):  # phones locked, Wi-Fi gone: a half-sent frame, then a reset
            cut(table.base, "/ws/host", paired, "[" * 1500)
            cut(table.base, "/ws/board", "", "")
        table.run_on_loop(lambda: table.host.submit(EnterSeats((Seat(2), Seat(5), Seat(9)))))
        time.sleep(0.5)  # the new frame meets the cut sockets
    failed = [record.getMessage() for record in caplog.records if record.exc_info]
    assert failed == []
