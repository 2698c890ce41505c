"""Pairing that only the host can complete: a phone shows a number, the host types it at the
keyboard or on the keypad; the host sees how many remotes there are and drops them; a dropped
or stale cookie is refused; the remotes of a game survive its resume and not a new game."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

from tests.web.phone import Phone
from tests.web.webkit import WebTable, settings_for, web_table
from voicehost.console.terminal import LineHandler
from voicehost.console.text import SilentCues
from voicehost.keypad.controller import KeypadController
from voicehost.ports import Key
from voicehost.web.pairing import Pairing


def typed(table: WebTable, line: str) -> list[str]:
    """The host types ``line`` at the terminal: the screen's new lines."""
    before = len(table.screen.lines)
    handler = LineHandler(table.host, table.screen, lambda: "")
    table.run_on_loop(lambda: handler.line(line))
    return table.screen.lines[before:]


def pressed(table: WebTable, keys: list[Key]) -> list[str]:
    """The host presses ``keys`` on the USB keypad: the screen's new lines."""
    before = len(table.screen.lines)
    controller = KeypadController(table.host, SilentCues(), table.clock)
    table.run_on_loop(lambda: [controller.on_key(key) for key in keys])
    return table.screen.lines[before:]


def test_a_phone_becomes_the_remote_when_the_host_types_its_number() -> None:
    with web_table(settings_for("club", pairing_code="")) as table:

        async def main() -> None:
            async with Phone(table.base) as host_phone, Phone(table.base, "127.0.0.2") as other:
                number = await host_phone.ask_number()
                assert len(number) == 4 and number.isdigit()
                assert await other.ask_number() != number
                assert await host_phone.check() == "waiting"
                assert await host_phone.remote() == 403  # nothing until the host says so
                lines = await asyncio.to_thread(typed, table, f"пульт {number}")
                paired = "Телефон подключён как пульт. Пультов подключено: 1."
                assert any(paired in line for line in lines)
                assert await host_phone.check() == "paired"
                assert await host_phone.remote() == 101
                assert await other.check() == "waiting" and await other.remote() == 403
                status, page = await host_phone.page("/host")
                assert status == 200 and "host.js" in page
                wrong = await asyncio.to_thread(typed, table, "пульт 9999" if number != "9999"
                                                else "пульт 8888")  # fmt: skip
                assert any("Ни один телефон не ждёт с номером" in x for x in wrong)
                count = await asyncio.to_thread(typed, table, "пульт")
                assert any("Пультов подключено: 1." in x for x in count)

        asyncio.run(main())


def test_a_headless_host_pairs_and_drops_with_the_keypad_alone() -> None:
    with web_table(settings_for("club", pairing_code="")) as table:

        async def main() -> None:
            async with Phone(table.base) as phone:
                number = await phone.ask_number()
                keys = [Key.FOUL, Key.FOUL, *(Key(digit) for digit in number), Key.ENTER]
                await asyncio.to_thread(pressed, table, keys)
                assert await phone.check() == "paired" and await phone.remote() == 101
                await asyncio.to_thread(pressed, table, [Key.FOUL, Key.FOUL, Key.D0, Key.ENTER])
                assert await phone.remote() == 403
                status, page = await phone.page("/host")
                assert "больше не пульт" in page and "host.js" not in page

        asyncio.run(main())
        state = table.host.state
        assert state is not None and state.players[1].fouls == 0  # no foul was given by it


def test_dropped_remotes_are_refused_and_their_open_sockets_close() -> None:
    with web_table(settings_for("club", pairing_code="")) as table:

        async def main() -> None:
            async with Phone(table.base) as phone:
                number = await phone.ask_number()
                await asyncio.to_thread(typed, table, f"pair {number}")
                assert await phone.check() == "paired"
                stolen = phone.cookie("vh_remote")
                socket = await phone.session.ws_connect(table.base + "/ws/host")
                lines = await asyncio.to_thread(typed, table, "отключить")
                assert any("Пульты отключены: 1." in x for x in lines)
                message = await asyncio.wait_for(socket.receive(), 5)
                while message.type == 1:  # TEXT: the frames sent before the drop
                    message = await asyncio.wait_for(socket.receive(), 5)
                assert socket.closed or message.type in (8, 257, 258)  # CLOSE, CLOSED, ERROR
            async with Phone(table.base, "127.0.0.3") as thief:
                thief.forge("vh_remote", stolen)  # the cookie replayed after the drop
                assert await thief.remote() == 403
                _, page = await thief.page("/host")
                assert "больше не пульт" in page

        asyncio.run(main())


def test_the_remotes_of_a_game_survive_its_resume_and_not_another_game(tmp_path: Path) -> None:
    store = tmp_path / "journals" / "game-1.remotes.json"
    first = Pairing(store=store, scope="game:game-1")
    _, number = first.request("127.0.0.1", "")
    assert first.approve(int(number))
    [token] = [first.check(ticket) for ticket in [first.request("127.0.0.1", "")[0]]]
    assert token == ""  # a second request waits: only the approved one was paired
    assert first.count() == 1
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.parent).st_mode) == 0o700
    assert "vh_remote" not in store.read_text() and number not in store.read_text()
    # The token itself is never on disk: only its hash.
    paired = Pairing(store=store, scope="game:game-1")
    assert paired.count() == 1
    assert Pairing(store=store, scope="game:game-2").count() == 0


def test_a_cookie_is_bound_to_its_game_and_expires() -> None:
    now = [1000.0]
    pairing = Pairing(club_code="KLUB2026", wall=lambda: now[0])
    token = pairing.try_code("127.0.0.1", "KLUB2026")
    assert token is not None and pairing.valid(token)
    assert not Pairing(club_code="KLUB2026").valid(token)  # another game's server
    assert not pairing.valid(token[:-1] + ("A" if token[-1] != "A" else "B"))  # forged
    now[0] += 13 * 3600
    assert not pairing.valid(token)  # the evening is long over


def test_a_deep_json_frame_and_a_flood_of_stale_inputs_are_refused_politely(
    caplog: object,
) -> None:
    import logging

    with web_table(settings_for("club", pairing_code="")) as table:

        async def main() -> tuple[list[dict[str, object]], float]:
            async with Phone(table.base) as phone:
                number = await phone.ask_number()
                await asyncio.to_thread(typed, table, f"пульт {number}")
                assert await phone.check() == "paired"
                socket = await phone.session.ws_connect(table.base + "/ws/host")
                await socket.send_str("[" * 1000 + "]" * 1000)
                deep = "[" * 900 + "]" * 900
                await socket.send_str('{"type": "input", "id": "deep", "x": ' + deep + "}")
                started = time.monotonic()
                for n in range(2000):
                    stale = {"type": "input", "id": f"s{n}", "token": "old", "action": "undo"}
                    await socket.send_str(json.dumps(stale))
                last = {"type": "input", "id": "last", "action": "protocol"}
                await socket.send_str(json.dumps(last))
                acks: list[dict[str, object]] = []
                while not any(ack.get("id") == "last" for ack in acks):
                    message = await asyncio.wait_for(socket.receive(), 10)
                    frame = json.loads(message.data)
                    if frame["type"] == "ack":
                        acks.append(frame)
                took = time.monotonic() - started
                await socket.close()
                return acks, took

        with caplog.at_level(logging.INFO):  # type: ignore[attr-defined]
            acks, took = asyncio.run(main())
        refused = [a for a in acks if not a["ok"]]
        assert any("Ввод не понят" in str(a["message"]) for a in refused[:2])  # the deep ones
        assert sum(1 for a in acks if "Слишком часто" in str(a["message"])) > 1900
        assert took < 3, f"the loop was held {took:.1f} s"
        records = caplog.records  # type: ignore[attr-defined]
        assert not [r for r in records if r.exc_info], [r.getMessage() for r in records]


def test_a_headless_pi_pairs_from_real_keypad_events() -> None:
    """evdev events of the USB keypad, through the real adapter and the loop: `*` `*`, the
    number, Enter. Nothing else is needed: no screen, no keyboard."""
    import threading

    from evdev import InputEvent, ecodes

    from voicehost.config import KeypadSettings
    from voicehost.keypad.controller import attach_keypad
    from voicehost.keypad.evdev_keypad import EvdevKeypad

    def press(name: str) -> list[InputEvent]:
        code = ecodes.ecodes[name]
        sync = InputEvent(1700000000, 0, ecodes.EV_SYN, ecodes.SYN_REPORT, 0)
        down = InputEvent(1700000000, 0, ecodes.EV_KEY, code, 1)
        up = InputEvent(1700000000, 0, ecodes.EV_KEY, code, 0)
        return [down, sync, up, sync]

    shown = threading.Event()
    typed_keys: list[list[InputEvent]] = []

    class Keypad:  # the USB keypad as evdev reads it: the host's presses, then idle
        def read_events(self, timeout: float) -> list[InputEvent]:
            if shown.is_set() and typed_keys:
                return typed_keys.pop(0)
            time.sleep(0.02)
            return []

        def close(self) -> None:
            pass

    keypad = EvdevKeypad(KeypadSettings().keymap, Keypad, poll_seconds=0.0, read_timeout=0.0)
    with web_table(settings_for("club", pairing_code="")) as table:
        attach_keypad(keypad, table.host, SilentCues(), table.clock)
        try:

            async def main() -> None:
                async with Phone(table.base) as phone:
                    number = await phone.ask_number()
                    names = ["KEY_KPASTERISK", "KEY_KPASTERISK"]
                    names += [f"KEY_KP{digit}" for digit in number] + ["KEY_KPENTER"]
                    typed_keys.extend(press(name) for name in names)
                    shown.set()
                    for _ in range(100):
                        if await phone.check() == "paired":
                            break
                        await asyncio.sleep(0.05)
                    assert await phone.remote() == 101

            asyncio.run(main())
        finally:
            keypad.close()
