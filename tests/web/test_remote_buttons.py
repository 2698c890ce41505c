"""The remote a host can use blind (issue 43): every hint names a button on the screen; a
button offered works now (never «not now»); a counted vote shows its counts and its outcome;
the pause button says what it will do."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.web.test_face import face_at
from voicehost.console.commandline import strip_comment
from voicehost.web.face import WebFace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUOTED = re.compile(r"«([^»]+)»")
KEYBOARD = {".", "u", "p", "промах", "miss"}  # the keyboard's words, which a phone has no key for
DAY_1 = ["2 5 9", "wait", "4", "wait", "7", "wait"]  # town-wins.txt's night 0: the discussion


def script(name: str) -> list[str]:
    lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
    return [strip_comment(line) for line in lines if strip_comment(line)]


def pressed(face: WebFace, button: str) -> dict[str, object]:
    """The answer the phone gets for a tap on ``button`` (the page's own message)."""
    action = {"end": "end_speech"}.get(button, button)
    outlet = face.outlet
    face.remote_input(1, {"id": f"tap-{button}", "token": face.token(), "action": action})
    assert outlet is not None
    return json.loads(outlet.answers[-1][1])  # type: ignore[attr-defined]


def test_the_discussion_hint_names_the_button_beside_it() -> None:
    face, _ = face_at(DAY_1)
    ask = face.question()
    assert ask["buttons"]["end"] == "Закончить обсуждение"
    assert QUOTED.findall(ask["text"]) == ["Закончить обсуждение"]
    assert pressed(face, "end")["ok"]


def test_a_nomination_owed_offers_no_button_that_would_answer_not_now() -> None:
    face, _ = face_at([*DAY_1, "wait", "."])  # seat 1 said «спасибо» before naming anyone
    ask = face.question()
    assert "end" not in ask["buttons"]
    assert ask["kind"] == "seats" and ask["seats"]  # the grid is what is asked
    assert "никто не говорит" not in json.dumps(ask, ensure_ascii=False)
    assert ask["text"] == "речь игрока 1 окончена, кандидатура обязательна: нажмите номер"


def test_the_pause_button_says_it_resumes_while_paused() -> None:
    face, _ = face_at([*DAY_1, "p"])
    assert face.question()["buttons"]["pause"] == "Продолжить"
    face, _ = face_at([*DAY_1, "p", "p"])
    assert face.question()["buttons"]["pause"] == "Пауза"


def test_a_counted_vote_shows_its_counts_and_its_outcome() -> None:
    lines = script("town-wins.txt")
    counted = lines[: lines.index("8") + 1]  # 8 of 10 against 5, the other 2 against 9
    face, outlet = face_at(counted)
    ask = face.question()
    table = json.loads(outlet.published[-1][1])["table"]
    assert table["counted"] and [count for _, count in table["candidates"]] == [8, 2]
    assert ask["result"].startswith("Игрок номер пять покидает стол")  # what the table will hear
    assert ask["buttons"]["end"] == "Дальше" and ask["buttons"]["undo"] == "Отмена"


@pytest.mark.parametrize("example", sorted(path.name for path in EXAMPLES.glob("*.txt")))
def test_every_quoted_word_of_a_hint_is_a_button_offered_and_offered_buttons_work(
    example: str,
) -> None:
    lines = script(example)
    preset = lines[0].split()[1] if lines[0].startswith("preset") else "club"
    lines = lines[1:] if preset != "club" else lines
    face, _ = face_at([], preset)
    host = face.host
    from voicehost.console.terminal import LineHandler, LogScreen
    from voicehost.testing.clocked import wait_timer

    handler = LineHandler(host, LogScreen(), lambda: "")
    tried = set()
    for number, line in enumerate(lines):
        ask = face.question()
        offered = set(ask["buttons"].values())
        for word in QUOTED.findall(ask["text"]):  # «уходят все» is an answer, not a button
            assert word in offered or word not in face.labels.values(), (number, line, ask)
            assert word not in KEYBOARD, (number, line, ask["text"])  # no key on a phone
        for button in ("end", "undo"):  # each kind of moment once: the tap is taken
            key = (button, host.state.phase, ask["kind"]) if host.state else None
            if button in ask["buttons"] and not ask["night"] and key not in tried:
                tried.add(key)
                again, _ = face_at(lines[:number], preset)
                answer = pressed(again, button)
                assert answer["ok"], (number, line, button, answer)
        if host.over:
            break
        if line == "wait":
            wait_timer(host)
        else:
            handler.line(line)
    assert tried
