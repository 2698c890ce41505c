"""The club's evening from the host's remote: a seat's name given on the phone by day shows on
the board and in the protocol (the keyboard's `имя 5 Анна`, its checks and refusals); at night
the phone stays dark (the one neutral refusal, and the board's bytes are the same as if nothing
had been typed); the evening's buttons start, show and end the evening as `voicehost evening`
does."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path

import aiohttp

from tests.web.recorder import BoardRecorder
from tests.web.webkit import CODE, EXAMPLES, WebTable, settings_for, web_table
from voicehost import config
from voicehost.club import evening
from voicehost.console.script import ScriptFeed
from voicehost.host import protocol
from voicehost.phrases import PhraseBook

LINES = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
DAY_1 = LINES[: LINES.index("# ---- Day 1") + 2]  # night 0 entered, the discussion running
NIGHT_1 = LINES[: next(n for n, line in enumerate(LINES) if line.startswith("# ---- Night 1"))]
RU = PhraseBook.load("ru")
NO_EVENING = RU.screen("evening_none", {"command": "voicehost"})


def club_settings(folder: Path) -> config.Settings:
    settings = settings_for("club")
    club = dataclasses.replace(settings.club, data_dir=str(folder / "club"), table="стол 1")
    return dataclasses.replace(settings, club=club)


def paired_cookie(base: str) -> str:
    async def pair() -> str:
        async with (
            aiohttp.ClientSession() as session,
            session.post(base + "/pair", data={"code": CODE}, allow_redirects=False) as response,
        ):
            return response.cookies["vh_remote"].value

    return asyncio.run(pair())


class Phone:
    """The host's remote at the WebSocket: sends inputs, waits for each one's answer."""

    def __init__(self, table: WebTable) -> None:
        self.table = table
        cookie = paired_cookie(table.base)
        self.socket = BoardRecorder(table.base, "/ws/host", cookies={"vh_remote": cookie}).start()
        self.count = 0

    def ask(self) -> dict[str, object]:
        frames = [json.loads(f) for f in self.socket.frames if '"type": "remote"' in f]
        return frames[-1]["ask"] if frames else {}

    def send(self, **fields: object) -> dict[str, object]:
        self.count += 1
        ident = f"phone-{self.count}"
        self.socket.send(json.dumps({"type": "input", "id": ident, **fields}))
        end = time.monotonic() + 10
        while time.monotonic() < end:
            for frame in self.socket.frames:
                message = json.loads(frame)
                if message.get("type") == "ack" and message.get("id") == ident:
                    return message
            time.sleep(0.005)
        raise AssertionError(f"no answer to {fields}")

    def stop(self) -> None:
        self.socket.stop()


def play(table: WebTable, lines: list[str], board: BoardRecorder | None = None) -> None:
    feed = ScriptFeed(table.host, table.clock, lines, None)
    for _ in lines:
        command = feed()
        if command is None:
            break
        table.run_on_loop(lambda command=command: table.host.handle(command))
        if board is not None:
            board.wait_for(table.web.server.board_frame)
    assert feed.errors == []


def test_a_name_given_on_the_remote_by_day_shows_on_the_board_and_in_the_protocol(
    tmp_path: Path,
) -> None:
    with web_table(club_settings(tmp_path)) as table:
        board = BoardRecorder(table.base).start()
        phone = Phone(table)
        play(table, DAY_1, board)
        assert phone.ask()["names"] is True  # by day the remote offers names
        answer = phone.send(action="name", number=5, text="  Анна «Ёж» 🦔  ")
        assert answer["ok"] and answer["message"] == "Место 5: Анна «Ёж» 🦔"
        board.wait_for(table.web.server.board_frame)
        seats = json.loads(board.frames[-1])["table"]["seats"]
        assert any(s.get("name") == "Анна «Ёж» 🦔" and s["seat"] == 5 for s in seats)
        # The keyboard's checks and refusals, word for word.
        taken = phone.send(action="name", number=7, text="анна «ёж» 🦔")
        assert not taken["ok"]
        assert taken["message"] == RU.screen("name_taken", {"name": "анна «ёж» 🦔", "seat": 5})
        no_seat = phone.send(action="name", number=11, text="Борис")
        assert not no_seat["ok"]
        assert no_seat["message"] == RU.screen("name_no_seat", {"seat": 11, "players": 10})
        assert phone.send(action="name", number=7, text="Борис")["ok"]
        assert table.host.state is not None
        built = protocol.build(table.host.state, names=table.host.names.as_dict())
        record = json.loads(protocol.to_json(built))
        lines = [
            line for line in json.dumps(record, ensure_ascii=False).split("{") if "name" in line
        ]
        assert any('"seat": 5' in line and "Анна «Ёж» 🦔" in line for line in lines), lines
        assert any('"seat": 7' in line and "Борис" in line for line in lines), lines
        assert "Анна «Ёж» 🦔" in protocol.to_table(built, RU)
        taking = phone.send(action="name", number=7, text="")
        assert taking["ok"] and taking["message"] == "У места 7 больше нет имени"
        phone.stop()
        board.stop()


def board_bytes_through_night_1(tmp_path: Path, name_at_night: bool) -> tuple[list[str], str]:
    with web_table(club_settings(tmp_path)) as table:
        board = BoardRecorder(table.base).start()
        phone = Phone(table)
        play(table, NIGHT_1, board)
        assert table.host.state is not None and table.host.state.phase.is_night
        message = ""
        if name_at_night:
            assert phone.ask()["names"] is False and phone.ask()["evening"] is False
            answer = phone.send(action="name", number=5, text="Анна")
            assert not answer["ok"]
            message = str(answer["message"])
            evening_answer = phone.send(action="evening", what="start")
            assert evening_answer["message"] == message and not evening_answer["ok"]
            assert table.host.names.as_dict() == {}
            assert not (tmp_path / "club" / "evening.json").exists()
        table.run_on_loop(lambda: None)
        board.wait_for(table.web.server.board_frame)
        phone.stop()
        board.stop()
        return board.frames, message


def test_a_name_at_night_is_refused_and_the_board_sees_nothing(tmp_path: Path) -> None:
    quiet, _ = board_bytes_through_night_1(tmp_path / "a", name_at_night=False)
    typed, message = board_bytes_through_night_1(tmp_path / "b", name_at_night=True)
    assert message == RU.screen("night_refused")  # the same words as any entry refused at night
    assert quiet == typed


def test_the_evening_buttons_start_show_and_end_the_evening(tmp_path: Path) -> None:
    settings = club_settings(tmp_path)
    folder = tmp_path / "club"
    with web_table(settings, evening=True) as table:
        phone = Phone(table)
        play(table, DAY_1)
        assert phone.ask()["evening"] is True
        none = phone.send(action="evening", what="status")
        assert not none["ok"] and none["message"] == NO_EVENING
        started = phone.send(action="evening", what="start")
        opened = evening.current(folder)
        assert started["ok"] and opened is not None and opened["table"] == "стол 1"
        assert f"Вечер начат: {opened['id']} (стол: стол 1)" in str(started["message"])
        again = phone.send(action="evening", what="start")  # a new one closes the open one
        assert f"Прошлый вечер ({opened['id']}) закрыт." in str(again["message"])
        second = evening.current(folder)
        assert second is not None and second["id"] != opened["id"]
        status = phone.send(action="evening", what="status")
        assert status["ok"] and status["message"] == f"Вечер {second['id']} · игр: 0"
        ended = phone.send(action="evening", what="end")
        assert ended["ok"] and ended["message"] == f"Вечер {second['id']} закрыт · игр: 0"
        assert evening.current(folder) is None
        after = phone.send(action="evening", what="end")
        assert not after["ok"] and after["message"] == NO_EVENING
        junk = phone.send(action="evening", what="drop table")
        assert not junk["ok"] and junk["message"] == RU.screen("web_bad_request")
        phone.stop()


def test_without_the_club_wiring_the_evening_buttons_are_not_offered(tmp_path: Path) -> None:
    with web_table(club_settings(tmp_path)) as table:
        phone = Phone(table)
        play(table, DAY_1)
        assert phone.ask()["evening"] is False
        answer = phone.send(action="evening", what="start")
        assert not answer["ok"] and not (tmp_path / "club" / "evening.json").exists()
        phone.stop()
