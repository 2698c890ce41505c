"""The second look's hearings and its panel of referees, with stand-in recognisers (no Vosk).

What a player notices: a «спасибо» said on its own ends the speech when any hearing of it (the
audio as captured, cleaned of the room's hiss, and in a noisy room cleaned harder and cleaned
by a gain that follows the voice) is accepted by the whole rule, and the look is made while the
window of quiet is still running, so the end comes when the window closes. Real Vosk over the
same wiring: tests/voice_in/test_vosk_listener.py and bench/bench_listener.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from voicehost.clock import FakeClock
from voicehost.voice_in.microphone import ArraySource
from voicehost.voice_in.rule import Decision, HeardWord, Hypothesis, Verdict
from voicehost.voice_in.vosk_listener import (
    ListenerEvent,
    ListenerTuning,
    StopWordRecognizer,
    VoskListener,
)

RATE = 16000
STOP_WORDS = ("спасибо", "пас")
WORD = (2.5, 3.1)
"""Where «спасибо» is said in the recording (seconds), after a sentence and a pause."""


class LoudnessDetector:
    """A VAD that calls every loud frame speech (the recordings' voice is a loud tone)."""

    frame_samples = 512
    tail_seconds = 0.0

    def probability(self, frame: np.ndarray) -> float:
        return 1.0 if np.sqrt(np.mean(frame.astype(np.float64) ** 2)) > 2000 else 0.0

    def reset(self) -> None:
        pass


@dataclass
class StandIn:
    """A recogniser that hears «спасибо» over the whole clip when ``hears(clip)`` says so."""

    hears: Callable[[np.ndarray], bool]
    now: list[float]
    sample_rate: int = RATE
    margin: float = 0.2
    """Where the word is heard: from this far into the clip to this far before its end."""
    looks: list[float] = field(default_factory=list)
    """The audio time at which each clip was decoded."""
    _clip: list[np.ndarray] = field(default_factory=list)

    def fresh(self) -> None:
        self._clip.clear()

    def accept(self, samples: np.ndarray) -> Hypothesis:
        self._clip.append(samples)
        return Hypothesis((), False)

    def finish(self) -> Hypothesis:
        clip = np.concatenate(self._clip)
        self.looks.append(self.now[0])
        if not self.hears(clip):
            return Hypothesis((), True)
        end = len(clip) / RATE - self.margin
        return Hypothesis((HeardWord("спасибо", self.margin, end, 0.9),), True)


def recording(hiss: float, sentence: tuple[float, float] = (0.5, 2.0), seed: int = 7) -> np.ndarray:
    """A sentence (0.5 to 2 s), a pause, «спасибо» (``WORD``), then quiet; ``hiss``: the
    room's white noise (amplitude)."""
    rng = np.random.default_rng(seed)
    seconds = np.arange(int(5.0 * RATE)) / RATE
    voice = np.zeros_like(seconds)
    for start, end in (sentence, WORD):
        inside = (seconds >= start) & (seconds < end)
        voice[inside] = 8000 * np.sin(2 * np.pi * 220 * seconds[inside])
    return (voice + rng.normal(0, hiss, seconds.size)).astype(np.int16)


def edges_are_clean(clip: np.ndarray) -> bool:
    """Whether the quiet at the clip's start is nearly silent (cleaned of the hiss)."""
    edge = clip[: int(0.1 * RATE)].astype(np.float64)
    return float(np.sqrt(np.mean(edge**2))) < 300


@dataclass
class TornReferee:
    """A referee that hears «ганс» best and «спасибо» alone ``behind`` Vosk's score lower."""

    behind: float
    sample_rate: int = RATE
    looks: list[np.ndarray] = field(default_factory=list)

    def fresh(self) -> None:
        pass

    def accept(self, samples: np.ndarray) -> Hypothesis:
        self.looks.append(samples)
        return Hypothesis((), False)

    def finish(self) -> Hypothesis:
        ganz = (HeardWord("ганс", 0.2, 0.7),)
        thanks = (HeardWord("спасибо", 0.2, 0.7),)
        return Hypothesis(ganz, True, ((30.0, ganz), (30.0 - self.behind, thanks)))


@dataclass
class ClickReferee(StandIn):
    """A referee that hears an ordinary word in the first ``click`` seconds of the voice
    (the clip holds 0.2 s of quiet before it), then «спасибо» over the rest."""

    click: float = 0.1

    def finish(self) -> Hypothesis:
        clip = np.concatenate(self._clip)
        voice = 0.2 + self.click
        heard = (
            HeardWord("ганс", 0.15, voice),
            HeardWord("спасибо", voice, len(clip) / RATE - 0.2),
        )
        return Hypothesis(heard, True, ((30.0, heard),))


@dataclass
class Mishearing(StandIn):
    """A main recogniser that hears the look-alike «ганс» where :class:`StandIn` hears
    «спасибо»."""

    def finish(self) -> Hypothesis:
        heard = super().finish()
        return Hypothesis(tuple(replace(word, word="ганс") for word in heard.words), True)


def clicking(click: float) -> ClickReferee:
    return ClickReferee(lambda clip: True, [0.0], click=click)


def run(
    samples: np.ndarray,
    hears: Callable[[np.ndarray], bool],
    referees: list[Callable[[np.ndarray], bool] | TornReferee | ClickReferee],
    tuning: ListenerTuning,
    margin: float = 0.2,
    second_guess: TornReferee | None = None,
) -> tuple[list[Decision], StandIn, list[Any]]:
    """The Listener over ``samples``; the main recogniser hears «спасибо» when ``hears`` (or,
    given the grammar's ``second_guess``, the look-alike «ганс»), each referee when its judge
    says so (or a ``TornReferee`` as it is)."""
    now = [0.0]
    main = StandIn(hears, now, margin=margin) if second_guess is None else Mishearing(hears, now)
    panel = [r if isinstance(r, (TornReferee, StandIn)) else StandIn(r, now) for r in referees]
    decided: list[Decision] = []

    def on_event(event: ListenerEvent) -> None:
        if isinstance(event, Decision):
            decided.append(event)

    source = ArraySource(samples, RATE, block_seconds=0.05)
    listener = VoskListener(
        cast(StopWordRecognizer, main),
        source,
        FakeClock(),
        STOP_WORDS,
        tuning,
        on_event,
        cast(Any, LoudnessDetector()),
        cast(list[StopWordRecognizer], panel),
        cast(StopWordRecognizer | None, second_guess),
    )
    listener.start(lambda token: None, thread=False)
    listener.listen(1)
    for block in source.blocks():
        now[0] = block.ends_at
        listener.process(block)
    return decided, main, panel


def ended(decided: list[Decision]) -> list[Decision]:
    return [decision for decision in decided if decision.verdict is Verdict.SPEECH_ENDED]


def test_a_stop_word_heard_only_once_the_hiss_is_cleaned_out_ends_the_speech():
    samples = recording(hiss=600)
    agree = [edges_are_clean] * 3

    decided, main, _ = run(samples, edges_are_clean, agree, ListenerTuning(denoise=2.0))

    [end] = ended(decided)
    assert abs(end.at - (WORD[1] + 0.6)) < 0.1  # the window after the word, not later
    assert len(main.looks) >= 2  # as captured (not heard), then cleaned (heard)

    # The same room without the cleaning: the only hearing hears nothing, the speech runs on.
    decided, main, _ = run(samples, edges_are_clean, agree, ListenerTuning(denoise=0.0))
    assert ended(decided) == [] and len(main.looks) == 1


def test_every_hearing_must_pass_the_referees_too():
    samples = recording(hiss=600)
    refuse = [lambda clip: False] * 3

    decided, main, panel = run(samples, edges_are_clean, refuse, ListenerTuning(denoise=2.0))

    assert ended(decided) == []
    # captured, cleaned, cleaned harder, cleaned smoothly (a noisy room)
    assert len(main.looks) == 4
    # Each cleaned hearing heard the stop word and asked the panel until a majority said no;
    # the last (cleaned smoothly), which needs every referee, until the first said no.
    assert [len(referee.looks) for referee in panel] == [3, 2, 0]


def only_the_fourth_hearing() -> Callable[[np.ndarray], bool]:
    """A main recogniser's judge that hears «спасибо» in the fourth clip it decodes only."""
    decoded = [0]

    def hears(clip: np.ndarray) -> bool:
        decoded[0] += 1
        return decoded[0] == 4

    return hears


def test_in_a_noisy_room_a_stop_word_heard_only_when_cleaned_smoothly_ends_the_speech():
    samples = recording(hiss=600)
    agree = [lambda clip: True] * 3

    decided, main, _ = run(samples, only_the_fourth_hearing(), agree, ListenerTuning())

    [end] = ended(decided)
    assert abs(end.at - (WORD[1] + 0.6)) < 0.1  # the window after the word, not later
    assert len(main.looks) == 4

    # The last resort needs the whole panel: two referees of three end nothing there.
    two_of_three = [lambda clip: True, lambda clip: True, lambda clip: False]
    decided, main, _ = run(samples, only_the_fourth_hearing(), two_of_three, ListenerTuning())
    assert ended(decided) == [] and len(main.looks) == 4

    # Without the fourth hearing the speech runs on (three hearings, none heard it).
    no_fourth = ListenerTuning(denoise_smooth=0.0)
    decided, main, _ = run(samples, only_the_fourth_hearing(), agree, no_fourth)
    assert ended(decided) == [] and len(main.looks) == 3


def test_a_quiet_room_is_heard_twice_only():
    samples = recording(hiss=20)

    decided, main, _ = run(samples, lambda clip: False, [lambda clip: True] * 3, ListenerTuning())

    assert ended(decided) == [] and len(main.looks) == 2  # as captured, cleaned


def test_two_referees_agreeing_end_the_speech_without_asking_the_third():
    samples = recording(hiss=0)
    hears = [lambda clip: True, lambda clip: True, lambda clip: False]

    decided, _main, panel = run(samples, lambda clip: True, hears, ListenerTuning())

    assert len(ended(decided)) == 1
    assert [len(referee.looks) for referee in panel] == [1, 1, 0]


def test_one_referee_of_three_hearing_a_look_alike_does_not_refuse_the_stop_word():
    samples = recording(hiss=0)
    hears = [lambda clip: False, lambda clip: True, lambda clip: True]

    decided, _main, _panel = run(samples, lambda clip: True, hears, ListenerTuning())

    assert len(ended(decided)) == 1


def test_the_look_is_made_while_the_window_of_quiet_runs_not_after_it():
    samples = recording(hiss=0)

    decided, main, _ = run(samples, lambda clip: True, [lambda clip: True] * 3, ListenerTuning())

    [end] = ended(decided)
    [looked] = main.looks
    # Decoded as soon as the look's padding of quiet was there (0.2 s after the word), so its
    # CPU time is spent inside the window and the table hears the end when the window closes.
    assert WORD[1] + 0.2 <= looked < WORD[1] + 0.35
    assert end.at >= WORD[1] + 0.6 - 0.05


def test_a_stop_word_the_cleaning_stretched_over_the_quiet_ends_nothing():
    # In hiss, a stop word heard only once the hiss is cleaned out, and over the whole clip
    # (from its first sample: the quiet before the voice included), is the cleaning's residue.
    samples = recording(hiss=600)
    agree = [edges_are_clean] * 3

    decided, main, panel = run(
        samples, edges_are_clean, agree, ListenerTuning(denoise=2.0), margin=0.0
    )

    assert ended(decided) == []
    assert {decision.phrase for decision in decided} == {"listen_residue"}
    # Every cleaned hearing (cleaned, harder, smoothly) is held to it; no referee is asked.
    assert len(main.looks) == 4 and all(referee.looks == [] for referee in panel)

    # Heard over the whole clip as captured (no cleaning): the decoder's own, it ends.
    decided, _main, _panel = run(
        recording(hiss=0), lambda clip: True, [lambda clip: True] * 3, ListenerTuning(), 0.0
    )
    assert len(ended(decided)) == 1


def torn_run(
    samples: np.ndarray, behind: float, tuning: ListenerTuning, choosing: int = 1
) -> list[Decision]:
    """The Listener with a panel of ``choosing`` referees hearing «спасибо» outright, then
    torn ones (``TornReferee``)."""
    referees: list[Callable[[np.ndarray], bool] | TornReferee] = [lambda clip: True] * choosing
    referees += [TornReferee(behind) for _ in range(3 - choosing)]
    decided, _main, _panel = run(samples, lambda clip: True, referees, tuning)
    return decided


def test_in_a_quiet_room_referees_that_cannot_choose_do_not_refuse_a_stop_word():
    # One referee heard «спасибо», the others an ordinary word a hair likelier than
    # «спасибо» alone: in a quiet room that is doubt, not a refusal (listener.referee_doubt),
    # and the speech ends.
    quiet = recording(hiss=0)
    assert len(ended(torn_run(quiet, 0.5, ListenerTuning(referee_doubt=1.0)))) == 1
    # Farther behind than the doubt, or with the doubt off: refused.
    assert ended(torn_run(quiet, 1.5, ListenerTuning(referee_doubt=1.0))) == []
    assert ended(torn_run(quiet, 0.5, ListenerTuning(referee_doubt=0.0))) == []
    # Doubt alone ends nothing: no referee chose the stop word.
    decided = torn_run(quiet, 0.5, ListenerTuning(referee_doubt=1.0), choosing=0)
    assert ended(decided) == [] and decided[-1].phrase == "listen_only_doubt"
    # In a hissing room only a referee's best hearing counts (short words said alone in
    # noise are heard as stop words nearly as often as they are refused).
    hiss = recording(hiss=2000)
    assert ended(torn_run(hiss, 0.5, ListenerTuning(referee_doubt=1.0, denoise=0.0))) == []


def test_in_a_quiet_room_a_click_a_referee_heard_as_a_word_does_not_refuse_a_stop_word():
    # A referee's ordinary words give the burst at a clear «спасибо»'s start a word of its own
    # (the proxy's 뛰어 in the first 0.1 s of 감사합니다): voice that short is no word, and
    # two referees hearing «спасибо» after it end the speech in a quiet room.
    quiet = recording(hiss=0)
    one = [lambda clip: True]

    assert (
        len(ended(run(quiet, lambda clip: True, one + [clicking(0.1)] * 2, ListenerTuning())[0]))
        == 1
    )
    # A word as long as a word (0.25 s of the voice) was said: the two refuse.
    decided = run(quiet, lambda clip: True, one + [clicking(0.25)] * 2, ListenerTuning())[0]
    assert ended(decided) == [] and "«ганс», «спасибо»" in decided[-1].reason
    # In hiss a short word heard is not taken for a click: a short word said alone in noise
    # is heard so as often as a stop word is.
    hiss = recording(hiss=600)
    clicks = one + [clicking(0.1)] * 2
    assert ended(run(hiss, lambda clip: True, clicks, ListenerTuning(denoise=0.0))[0]) == []
    assert (
        len(ended(run(hiss, lambda clip: True, [one[0]] * 3, ListenerTuning(denoise=0.0))[0])) == 1
    )


def talkative(hiss: float) -> np.ndarray:
    """A player who talks from the first moment with one short pause: speech 0.05 to 2.2 s,
    0.3 s of quiet, «спасибо» (``WORD``), then quiet; ``hiss``: the room's white noise."""
    return recording(hiss, sentence=(0.05, 2.2), seed=11)


def test_a_player_who_barely_pauses_in_a_quiet_room_is_heard_as_in_a_quiet_room():
    # Little quiet in the audio kept for the look: the room is judged by the frames without
    # voice, not by the quietest fifth of the audio (which here is mostly the player): the
    # referees' doubt of a quiet room holds, and no hearing for a noisy room is made.
    quiet = talkative(hiss=20)
    assert len(ended(torn_run(quiet, 0.5, ListenerTuning(referee_doubt=1.0)))) == 1
    decided, main, _ = run(quiet, lambda clip: False, [lambda clip: True] * 3, ListenerTuning())
    assert len(main.looks) == 2  # as captured, cleaned
    # The same player in hiss 14 dB under the voice: a noisy room (four hearings).
    decided, main, _ = run(
        talkative(hiss=1200), lambda clip: False, [lambda clip: True] * 3, ListenerTuning()
    )
    assert len(main.looks) == 4


def test_in_hiss_a_stop_word_every_hearing_heard_alone_ends_the_speech_on_one_referee():
    # White noise: the referees' fillers take the hiss around «спасибо» (two of three hear
    # another word), but each of the four hearings heard it on its own: one referee is enough.
    samples = recording(hiss=600)
    panel = [lambda clip: True, lambda clip: False, lambda clip: False]

    decided, main, _ = run(samples, lambda clip: True, panel, ListenerTuning(denoise=2.0))

    [end] = ended(decided)
    assert abs(end.at - (WORD[1] + 0.6)) < 0.1
    assert "4 of 4 hearings and 1 of 3 wider grammars" in end.reason

    # Only two hearings (no harder or smooth cleaning): not most of them, the speech runs on;
    # nor when the rule is switched off.
    for tuning in (
        ListenerTuning(denoise=2.0, denoise_stronger=0.0, denoise_smooth=0.0),
        ListenerTuning(denoise=2.0, agreeing_hearings=0),
    ):
        decided, main, _ = run(samples, lambda clip: True, panel, tuning)
        assert ended(decided) == []


def test_in_a_quiet_room_two_hearings_never_stand_in_for_the_panel():
    samples = recording(hiss=20)
    panel = [lambda clip: True, lambda clip: False, lambda clip: False]

    decided, main, _ = run(samples, lambda clip: True, panel, ListenerTuning(denoise=2.0))

    assert ended(decided) == [] and len(main.looks) == 2


def test_in_a_quiet_room_a_stop_word_the_grammar_put_second_is_heard_out_by_the_panel():
    # The grammar heard a clear «спасибо» as the look-alike «ганс», with «спасибо» alone a hair
    # behind (the proxy's 페슈트 for 패스): it could not tell them apart, so the referees decide.
    quiet = recording(hiss=0)
    choosing: list[Callable[[np.ndarray], bool]] = [lambda clip: True, lambda clip: True]
    refusing: list[Callable[[np.ndarray], bool]] = [lambda clip: False]

    guess = TornReferee(0.5)
    decided, _main, _panel = run(
        quiet, lambda clip: True, refusing + choosing, ListenerTuning(), second_guess=guess
    )
    [end] = ended(decided)
    assert abs(end.at - (WORD[1] + 0.6)) < 0.1
    assert end.phrase == "listen_alone_second_choice"
    assert "second choice after «ганс»" in end.reason and "2 of 3 wider grammars" in end.reason

    # Scored farther behind than the doubt, the doubt off, the panel's majority refusing, or
    # the referees only torn (none choosing it): the speech runs on.
    for behind, tuning, referees in (
        (1.5, ListenerTuning(), choosing + refusing),
        (0.5, ListenerTuning(referee_doubt=0.0), choosing + refusing),
        (0.5, ListenerTuning(), choosing[:1] + refusing * 2),
        (0.5, ListenerTuning(), [TornReferee(0.5) for _ in range(3)]),
    ):
        guess = TornReferee(behind)
        decided, _main, _panel = run(quiet, lambda clip: True, referees, tuning, second_guess=guess)
        assert ended(decided) == []
        assert bool(guess.looks) == (tuning.referee_doubt > 0)  # no doubt: never asked


def test_in_a_noisy_room_the_grammar_s_second_choice_is_never_asked():
    # In hiss short words said alone come close to a stop word too often: only what the
    # grammar heard first counts there.
    guess = TornReferee(0.1)
    decided, _main, _panel = run(
        recording(hiss=2000), lambda clip: True, [lambda clip: True] * 3,
        ListenerTuning(denoise=0.0), second_guess=guess,
    )  # fmt: skip
    assert ended(decided) == [] and guess.looks == []
