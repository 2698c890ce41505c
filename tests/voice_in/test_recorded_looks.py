"""Looks the Listener made on the Korean proxy, recorded with everything their decision used,
decided again by today's code without a model: a change to the second look or the decision that
changes a past decision shows here (``scripts/hearing_equivalence.py`` records and replays such
sets). Which stretches are looked at (the VAD and the window) is not replayed: that needs audio.

The set: ``scripts/hearing_equivalence.py record tests/voice_in/recorded_looks.jsonl --per 4
--seed 11 18 20`` (the tuned halves of seeds 11, 18 and 20, four takes of each condition).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from tests.voice_in.test_second_look import LoudnessDetector
from voicehost.clock import FakeClock
from voicehost.voice_in.evidence import (
    LookRecord,
    differences,
    from_json,
    header_line,
    read_set,
    to_json,
)
from voicehost.voice_in.microphone import ArraySource
from voicehost.voice_in.rule import Decision, HeardWord, Hypothesis, Verdict
from voicehost.voice_in.vosk_listener import ListenerTuning, VoskListener

SET = Path(__file__).with_name("recorded_looks.jsonl")
LINES = SET.read_text(encoding="utf-8").splitlines()


def test_every_recorded_look_is_decided_today_as_it_was_then() -> None:
    assert differences(LINES, ListenerTuning()) == []


def test_the_set_holds_ends_and_each_kind_of_refusal_with_the_referees_asked() -> None:
    _header, looks = read_set(LINES)
    verdicts = {look.decision.verdict for look in looks if look.decision is not None}
    assert verdicts == set(Verdict)
    assert any(h.referees for look in looks for h in look.hearings)
    noisy = [look.room.noisy(ListenerTuning()) for look in looks]
    assert any(noisy) and not all(noisy)
    assert any(len(look.hearings) == 4 for look in looks)


@pytest.mark.parametrize(
    "changed",
    [
        ListenerTuning(referee_doubt=0.0),
        ListenerTuning(denoise=0.0),
        ListenerTuning(agreeing_hearings=0),
        ListenerTuning(denoise_below_db=0.0),
    ],
    ids=[
        "no referee doubt",
        "no cleaned hearing",
        "no hearings standing in for the panel",
        "no room noisy",
    ],
)
def test_a_changed_tuning_shows_as_decisions_that_differ(changed: ListenerTuning) -> None:
    assert differences(LINES, changed) != []


def test_a_look_reads_back_from_its_line_as_it_was_written() -> None:
    for line in LINES[1:]:
        assert to_json(from_json(line)) == line


# -- the Listener records what it asked --------------------------------------------------------

RATE = 16000


class Hearing:
    """A recogniser that hears ``first`` over the clip's voice (0.2 s from each edge), and
    ``second`` as its next best hearing, scored a little lower."""

    sample_rate = RATE

    def __init__(self, first: str, second: str | None = None) -> None:
        self.first, self.second = first, second
        self._length = 0

    def fresh(self) -> None:
        self._length = 0

    def accept(self, samples: np.ndarray) -> Hypothesis:
        self._length += len(samples)
        return Hypothesis((), False)

    def finish(self) -> Hypothesis:
        end = self._length / RATE - 0.2
        best = (HeardWord(self.first, 0.2, end, 0.9),)
        if self.second is None:
            return Hypothesis(best, True, ((30.0, best),))
        other = (HeardWord(self.second, 0.2, end),)
        return Hypothesis(best, True, ((30.0, best), (29.5, other)))


def a_speech() -> np.ndarray:
    """A sentence, a pause, a word said alone (2.5 to 3.1 s), quiet."""
    seconds = np.arange(int(5.0 * RATE)) / RATE
    voice = np.zeros_like(seconds)
    for start, end in ((0.5, 2.0), (2.5, 3.1)):
        inside = (seconds >= start) & (seconds < end)
        voice[inside] = 8000 * np.sin(2 * np.pi * 220 * seconds[inside])
    noise = np.random.default_rng(7).normal(0, 20, seconds.size)
    return (voice + noise).astype(np.int16)


def recorded(main: Hearing, referees: list[Hearing]) -> tuple[list[LookRecord], list[Decision]]:
    source = ArraySource(a_speech(), RATE)
    decided: list[Decision] = []
    listener = VoskListener(
        main, source, FakeClock(), ("спасибо", "пас"), ListenerTuning(),  # type: ignore[arg-type]
        on_event=lambda e: decided.append(e) if isinstance(e, Decision) else None,
        detector=LoudnessDetector(), referee=referees, second_guess=main,  # type: ignore[arg-type]
    )  # fmt: skip
    looks: list[LookRecord] = []
    listener.on_look = looks.append
    listener.start(listener.listen_again, thread=False)
    listener.listen(1)
    for block in source.blocks():
        listener.process(block)
    return looks, decided


@pytest.mark.parametrize(
    ("main", "referees", "verdict"),
    [
        (Hearing("спасибо"), [Hearing("спасибо")] * 3, Verdict.SPEECH_ENDED),
        (Hearing("спасибо"), [Hearing("ганс")] * 3, Verdict.LOW_CONFIDENCE),
        (Hearing("ганс", "спасибо"), [Hearing("спасибо")] * 3, Verdict.SPEECH_ENDED),
    ],
    ids=["the panel agrees", "the panel refuses", "the grammar's second choice"],
)
def test_what_the_listener_asked_replays_to_its_own_decision(
    main: Hearing, referees: list[Hearing], verdict: Verdict
) -> None:
    looks, decided = recorded(main, referees)
    assert [look.decision.verdict for look in looks if look.decision] == [verdict]
    lines = [header_line(("спасибо", "пас"), 0.0)] + [to_json(look) for look in looks]
    assert differences(lines, ListenerTuning()) == []
    assert len(decided) == 1 and decided[0].phrase == looks[0].decision.phrase  # type: ignore[union-attr]
    # A record missing what was asked is a difference, not a guess.
    thin = [
        replace(look, hearings=tuple(replace(h, referees=()) for h in look.hearings))
        for look in looks
    ]
    assert differences([lines[0]] + [to_json(look) for look in thin], ListenerTuning())
