"""The web face's loop side: whatever a phone sends, one answer and never a fault; the remote's
grid offers the seats that make sense; at night every answer is the same whatever was entered;
the start says where to go and the code (aloud when no one can read it); a port in use is a
clear message."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.webkit import CODE, settings_for
from voicehost.errors import VoicehostError
from voicehost.host.loop import NIGHT_ENTRY_GUARD
from voicehost.testing.clocked import wait_timer
from voicehost.testing.table import text_table
from voicehost.web import addresses
from voicehost.web.face import WebFace
from voicehost.web.pairing import Pairing
from voicehost.web.server import WebServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FUZZ = int(os.environ.get("VOICEHOST_FUZZ_EXAMPLES", "40"))


class Outlet:
    def __init__(self) -> None:
        self.answers: list[tuple[int, str]] = []
        self.privates: list[str] = []
        self.published: list[tuple[str, str]] = []

    def publish(self, board: str, remote: str) -> None:
        self.published.append((board, remote))

    def answer(self, connection: int, frame: str) -> None:
        self.answers.append((connection, frame))

    def private(self, frame: str) -> None:
        self.privates.append(frame)


def face_at(lines: list[str], preset: str = "club") -> tuple[WebFace, Outlet]:
    host = text_table("ru", settings=settings_for(preset))
    host.start()
    from voicehost.console.terminal import LineHandler, LogScreen  # the keyboard's own path

    handler = LineHandler(host, LogScreen(), lambda: "")
    for line in lines:
        if line == "wait":
            wait_timer(host)
        else:
            handler.line(line)
    outlet = Outlet()
    face = WebFace(host, lambda: "written", outlet)
    face.tick()
    return face, outlet


scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 2000), st.floats(allow_nan=True), st.text(max_size=5)
)
messages = st.dictionaries(
    st.sampled_from(["id", "action", "number", "seats", "seat", "token", "confirmed", "text",
                     "what", "x"]),
    st.one_of(
        scalars,
        st.sampled_from(["seats", "count", "foul", "remove", "team_loss", "end_speech", "miss",
                         "undo", "pause", "protocol", "deal", "deal_seen", "quit", "name",
                         "evening", "start", "end"]),
        st.lists(scalars, max_size=15),
    ),
)  # fmt: skip


@settings(max_examples=FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, max_size=8), st.booleans())
def test_whatever_a_phone_sends_gets_one_answer_and_never_a_fault(
    sent: list[dict[str, Any]], use_token: bool
) -> None:
    face, outlet = face_at(["2 5 9", "wait", "4", "wait", "7", "wait", "."])
    for number, message in enumerate(sent):
        if use_token:
            message = {**message, "token": face.token(), "id": f"m{number}"}
        face.remote_input(1, message)
    assert len(outlet.answers) == len(sent)
    assert all(json.loads(frame)["type"] == "ack" for _, frame in outlet.answers)
    assert face.failures == 0
    assert not face.host.quit  # a phone cannot end the evening


def test_the_grid_offers_only_the_seats_that_make_sense() -> None:
    lines = [line.split("#")[0].strip() for line in (EXAMPLES / "town-wins.txt").open()]
    lines = [line for line in lines if line]
    face, _ = face_at(lines[: lines.index("3")])  # night 1: the mafia choose, 5 has left
    ask = face.question()
    assert ask["night"] and ask["kind"] == "seats" and 5 not in ask["seats"]
    assert "miss" in ask["buttons"]
    face, _ = face_at(lines[:9] + ["5"])  # day 1: seat 2 has nominated 5, may name one more
    ask = face.question()
    assert ask["kind"] == "seats" and ask["seats_max"] == 1
    assert 2 not in ask["seats"] and 5 not in ask["seats"] and 9 in ask["seats"]
    face, _ = face_at(lines[: lines.index("8")])  # the vote: counts 0..9
    ask = face.question()
    assert ask["kind"] == "count" and ask["counts"] == list(range(10))
    assert "end" not in ask["buttons"]


def test_at_night_every_entry_gets_the_same_answer() -> None:
    answers = set()
    for seats in ([3], [8], [10]):  # whatever the Commissar enters on night 0
        face, outlet = face_at(["2 5 9"])
        wait_timer(face.host)
        face.host.clock.advance(NIGHT_ENTRY_GUARD)  # past the step's first moment
        face.tick()
        face.remote_input(1, {"id": "c", "token": face.token(), "action": "seats", "seats": seats})
        answers.add(json.loads(outlet.answers[-1][1])["message"])
    assert answers == {"ввод принят: комиссар"}  # the step that took it, never the seat
    refusals = set()
    for wrong in ([0], [77], [4, 5]):
        face, outlet = face_at(["2 5 9"])
        face.remote_input(1, {"id": "w", "token": face.token(), "action": "seats", "seats": wrong})
        refusals.add(json.loads(outlet.answers[-1][1])["message"])
    assert len(refusals) == 1 and "Ввод не принят" in refusals.pop()


def test_a_port_in_use_is_a_clear_message_not_a_traceback() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    server = WebServer(
        port=port, pairing=Pairing(club_code=CODE), labels=face_at([])[0].labels, language="ru",
        submit=lambda *_: None, host="127.0.0.1",
    )  # fmt: skip
    with pytest.raises(VoicehostError, match=f"не может занять порт {port}.*web.port"):
        server.start()
    taken.close()


def test_play_web_with_the_port_in_use_says_so_and_stops(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("0.0.0.0", 0))
    taken.listen()
    port = taken.getsockname()[1]
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  port: {port}\nstorage:\n  journal_dir: {tmp_path}/j\n", encoding="utf-8"
    )
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config), "play", "--web", "--text",
         "--plain"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    taken.close()
    assert result.returncode != 0
    assert f"порт {port}" in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


def test_the_addresses_to_open_are_not_loopback() -> None:
    found = addresses()
    assert "127.0.0.1" not in found and "::1" not in found
    assert all(not a.startswith("fe80") for a in found)


def test_without_a_screen_no_code_is_said_or_printed(capsys: pytest.CaptureFixture[str]) -> None:
    from voicehost.cli.session import start_web_face
    from voicehost.web.face import WebPrivate

    host = text_table("ru", settings=settings_for("club", port=0))
    host.start()
    private = WebPrivate(host.private)
    running = start_web_face(host, private, interactive=False)
    try:
        printed = capsys.readouterr().out
        assert not [line for line in host.transcript if "Код" in line or "пульт" in line]
        assert CODE not in printed and CODE not in " ".join(host.transcript)
        assert "«пульт НОМЕР»" in printed  # how the host pairs a phone, with no secret in it
    finally:
        running.stop()


def test_an_answer_to_the_phone_is_shown_on_the_phone_alone() -> None:
    from voicehost.console.terminal import LogScreen
    from voicehost.console.text import ScreenPrivateChannel
    from voicehost.web.face import WebPrivate

    screen = LogScreen()
    host = text_table("ru", settings=settings_for("club"), screen=screen)
    private = WebPrivate(ScreenPrivateChannel(screen, book=host.book))
    host.private = private
    host.start()
    for line in ("2 5 9", "wait", "4", "wait", "7", "wait", "."):
        if line == "wait":
            wait_timer(host)
        else:
            from voicehost.console.terminal import LineHandler

            LineHandler(host, screen, lambda: "").line(line)
    outlet = Outlet()
    face = WebFace(host, lambda: "", outlet)
    private.face = face
    lines = [line.split("#")[0].strip() for line in (EXAMPLES / "town-wins.txt").open()]
    lines = [line for line in lines if line]
    face_lines = lines[7 : lines.index("3")] + ["3", "wait"]  # day 1 and the mafia's shot
    for line in face_lines:
        if line == "wait":
            wait_timer(host)
        else:
            LineHandler(host, screen, lambda: "").line(line)
    screen.private_text = ""
    host.clock.advance(NIGHT_ENTRY_GUARD)  # past the Commissar's step's first moment
    face.remote_input(1, {"id": "check", "token": face.token(), "action": "seats", "seats": [9]})
    frames = [json.loads(frame) for frame in outlet.privates]
    # the mafia's step ended (a clear for the phones), then the Commissar's answer
    assert [frame["type"] for frame in frames] == ["private_clear", "private"]
    assert frames[-1]["text"] == "КОМИССАР: МАФИЯ    "
    assert screen.current_private() == ""  # not on the screen the table sees


def test_with_web_enabled_a_port_in_use_leaves_the_game_playable(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("0.0.0.0", 0))
    taken.listen()
    port = taken.getsockname()[1]
    config = tmp_path / "config.yaml"
    config.write_text(
        f"web:\n  enabled: true\n  port: {port}\nstorage:\n  journal_dir: {tmp_path}/j\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config), "play", "--text", "--plain"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    taken.close()
    assert result.returncode == 0, result.stderr
    assert f"порт {port}" in result.stdout  # on the screen; the game itself started
    assert "Добрый вечер" in result.stdout and "Traceback" not in result.stderr


@pytest.mark.parametrize("code", ["12", "код123", "12 34", "x" * 40])
def test_a_wrong_pairing_code_in_config_is_named(code: str) -> None:
    from voicehost.web import start_web

    host = text_table("ru", settings=settings_for("club", port=0, pairing_code=code))
    with pytest.raises(VoicehostError, match=r"web.pairing_code .*от 4 до 32"):
        start_web(host, lambda: "", bind="127.0.0.1")


@pytest.mark.parametrize("preset", ["club", "fiim", "city"])
def test_the_board_can_name_every_card_the_voice_names_at_the_end(preset: str) -> None:
    """The board's words for the cards are the rule set's: the city's «путана», «маньяк» and
    «бессмертный» too, each with its team's colour, and every team's win."""
    face, _ = face_at([], preset)
    book = face.host.book
    ruleset = face.host.engine.ruleset
    for role in face.host.engine.cards_at_end():
        assert face.labels[f"card_{role.value}"] == book.screen(f"card_{role.value}")
        assert face.labels[f"team_{role.value}"] == ruleset.team(role).value
        winner = f"protocol_winner_{ruleset.team(role).value}"
        assert face.labels[winner] == book.screen(winner)
    if preset == "city":
        assert face.labels["card_maniac"] == "маньяк"
        assert face.labels["protocol_winner_maniac"] == "Победа: маньяк (в одиночку)"
