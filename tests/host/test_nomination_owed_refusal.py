"""«.» while the club's speaker still owes a nomination (the newcomer's run, issue 43): the
refusal says what the table waits for, not «nobody is speaking, nothing to end»."""

from __future__ import annotations

from tests.web.test_face import face_at
from voicehost.console.terminal import LineHandler, LogScreen

DAY_1 = ["2 5 9", "wait", "4", "wait", "7", "wait"]  # town-wins.txt's night 0: the discussion


def test_a_dot_while_a_nomination_is_owed_says_a_candidate_is_needed() -> None:
    face, _ = face_at([*DAY_1, "wait", "."])  # seat 1 said «спасибо» before naming anyone
    screen = LogScreen()
    face.host.screen = screen  # the host's refusals and the typed line, as the host reads them
    LineHandler(face.host, screen, lambda: "").line(".")
    said = screen.lines[-1]
    assert "никто не говорит" not in said
    assert "игрока 1" in said and "кандидатура обязательна" in said
