"""Nothing of the night leaks, at any night step, through any channel the table can perceive.

Two games differ only in their nights: other mafia seats, another Commissar and Doctor, other
shots, checks and heals, and a refused entry in each night for a different reason (a seat that
does not exist; a seat that is already the mafia; the Commissar checking themself). Everything
else is typed alike, through the console's own line handler (the path of `voicehost play`).
After every line typed at night we compare, between the two games:

- the full screen (``screen_rows``, what the curses view draws),
- what `--plain` prints,
- what the speaker says and when, and which cue plays at which moment,
- every log record (a service's journald).

They must be identical, but for the private line of the role that is awake: the Commissar's
own answer while it is shown (padded to one length so that even its width says nothing), and
the reason of a refused entry (the table sees «Ввод не принят» and hears one cue whatever it is).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen, PlainUI, screen_rows
from voicehost.phrases import PhraseBook
from voicehost.testing.clocked import wait_timer
from voicehost.testing.fakes import RecordingCues, TimedSpeaker
from voicehost.testing.table import text_table

ROOT = Path(__file__).resolve().parents[2]

# Night 0 (registration) and night 1, step by step; the two tables' lines align one to one.
NIGHT0_A = ["2 5 9", "wait", "14", "4", "wait", "7", "wait"]  # 14: no such seat
NIGHT0_B = ["1 5 6", "wait", "6", "8", "wait", "10", "wait"]  # 6: already the mafia
# Day 1 of the town-wins example: seat 5, the mafia at both tables, is voted out (what the day
# made public may stay on the screen; the night must add nothing to it).
_EXAMPLE = (ROOT / "examples" / "town-wins.txt").read_text(encoding="utf-8")
DAY1 = [
    line.split("#")[0].strip()
    for line in _EXAMPLE.split("# ---- Day 1")[1].split("# ---- Night 1")[0].splitlines()
    if line.split("#")[0].strip()
]
NIGHT1_A = ["3", "wait", "14", "9", "wait", "3", "wait"]  # shot 3, check 9 (mafia), heal 3
NIGHT1_B = ["2", "wait", "8", "7", "wait", "9", "wait"]  # shot 2, 8 checks self, check 7, heal 9


Step = dict[str, object]


def night_steps(language: str, lines: list[str], caplog: pytest.LogCaptureFixture) -> list[Step]:
    """What the table could perceive after each line typed while it is night."""
    clock = FakeClock()
    screen = LogScreen()
    speaker = TimedSpeaker(clock, seconds=2.5)
    cues = RecordingCues()
    host = text_table(language, clock=clock, screen=screen, speaker=speaker, cues=cues)
    book = host.book
    out = io.StringIO()
    ui = PlainUI(host, screen, lambda: "", out=out)
    answers = (book.screen("private_mafia"), book.screen("private_not_mafia"))
    assert len(answers[0]) == len(answers[1])
    shown_answers = {answer.strip() for answer in answers}
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="voicehost"):
        host.start()
        steps: list[Step] = []
        for line in lines:
            said, played, printed, logged = (
                len(speaker.spoken), len(cues.played), len(out.getvalue()), len(caplog.records)
            )  # fmt: skip
            if line == "wait":
                wait_timer(host)
            else:
                ui.lines.line(line)
            host.process_pending()
            ui._flush()
            assert host.state is not None
            if not host.state.phase.is_night:
                continue
            rows = [text for text, _ in screen_rows(host, screen, "", 40)]
            steps.append(
                {
                    "line": line if line == "wait" else "(entry)",
                    # the private line (row 3) is the awake role's: compared apart, below
                    "screen": [
                        "<answer>" if row.strip() in shown_answers else row
                        for row in rows[:3] + ["<private>"] + rows[4:]
                    ],
                    "private": rows[3],
                    "answer_width": [len(row) for row in rows if row.strip() in shown_answers],
                    "plain": out.getvalue()[printed:],
                    "said": speaker.spoken[said:],
                    "cues": list(zip(cues.played, cues.deadlines, strict=True))[played:],
                    "logs": [r.getMessage() for r in caplog.records[logged:]],
                    "clock": clock.now(),
                }
            )
    return steps


@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_night_step_looks_sounds_and_logs_the_same(
    language: str, caplog: pytest.LogCaptureFixture
) -> None:
    game_a = night_steps(language, NIGHT0_A + DAY1 + NIGHT1_A, caplog)
    game_b = night_steps(language, NIGHT0_B + DAY1 + NIGHT1_B, caplog)
    assert len(game_a) == len(game_b) == 13  # every line but the two that end a night
    for index, (step_a, step_b) in enumerate(zip(game_a, game_b, strict=True)):
        for channel in step_a:
            if channel != "private":  # the awake role's own line, not the table's
                assert step_a[channel] == step_b[channel], f"night step {index}: {channel} differs"
    # The test can see a difference: the Commissar's answer was shown in both games, and the
    # night was spoken (not silent) while the steps were compared.
    assert any(step["answer_width"] for step in game_a)
    # Each refusal told the one awake its reason, privately: no such seat (game A), and the
    # Commissar's own seat (game B); a seat already the mafia (game B, night 0) is told nothing.
    book = PhraseBook.load(language)
    reasons = {book.screen(key) for key in book.screen_keys() if key.startswith("private_refused")}
    private = {"", book.screen("private_ack"), *reasons}
    private |= {book.screen(key) for key in ("private_mafia", "private_not_mafia")}
    # An entry taken names the step that took it, whose role the table heard woken, and no more.
    awake = ("mafia", "commissar", "doctor")
    private |= {book.screen("private_ack_step", {"role": book.screen(f"card_{r}")}) for r in awake}
    assert {step["private"] for step in game_a + game_b} <= private  # never a seat or a card
    told_a = [step["private"] for step in game_a if step["private"] in reasons]
    told_b = [step["private"] for step in game_b if step["private"] in reasons]
    no_seat, self_check = (
        book.screen(k) for k in ("private_refused_no_seat", "private_refused_self_check")
    )
    assert no_seat in told_a and self_check in told_b and no_seat not in told_b
    assert any(step["said"] for step in game_a)
