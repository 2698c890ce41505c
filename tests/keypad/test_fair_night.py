"""Fair nights, proved on recorded audio: a hands-free night from the keypad, end to end.

The real engine, host, keypad controller and masking noise run on a fake clock; every
announcement is spoken by the real espeak-ng voice (pyttsx3, Russian), every cue and the masking
loop are placed on the timeline at the clock time the host asked for, and the night is mixed to
16-bit samples, as a sound card would receive them. Then:

* the night's audio is byte-identical whatever the mafia shoot, whoever the Commissar checks
  (mafia or not) and whoever the Doctor heals;
* every night step lasts the same, and morning comes at the same moment, whether a role acts at
  once, late or not at all;
* nothing said at night names a seat.

Every proof runs twice: with the synthetic voice, and with a recorded voice pack (each piece a
take of the espeak-ng voice with a room's hiss, trimmed and levelled by the recorder), where
every night phrase has exactly one take.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from voicehost.clips import write_wav
from voicehost.clock import FakeClock
from voicehost.config import NightSettings, Settings
from voicehost.console.script import run_script
from voicehost.game.model import Cue, Phase
from voicehost.host.journal import newest_unfinished
from voicehost.host.loop import Host
from voicehost.keypad.controller import KeypadController
from voicehost.keypad.led import LedPrivateChannel
from voicehost.phrases import PhraseBook
from voicehost.ports import Key, Segment, Utterance
from voicehost.testing.clocked import wait_timer
from voicehost.voice_out.masking import masking_sound
from voicehost.voice_out.speech import SpeechLibrary
from voicehost.voice_out.tts import EspeakSynthesizer, VoiceChoice
from voicehost.voice_out.voicepack import VoicePack

RATE = 22050
KEY_GAP = 0.3  # seconds between two key presses of one entry

# 10 players. Mafia 2, 5, 9; Commissar 4; Doctor 7. Day 1 sends seat 5 (mafia) away, so night 1
# has the mafia (2, 9), the Commissar and the Doctor awake in turn.
NIGHT0_AND_DAY1 = """
2 5 9
wait
4
wait
7
wait
wait
5
.
5 9
.
5
.
9
.
1
.
5
.
5
.
9
.
5
wait
5
.
wait
wait
8
.            # the count is right
wait
""".splitlines()


# --------------------------------------------------------------------------- the recording


class EspeakVoice:
    """Renders announcements with the real espeak-ng Russian voice; each text once.

    Through the game's own synthesizer: pyttsx3's runAndWait() returns before the WAV is
    written, so reading the file at once races on a slow machine (a Pi, an emulator).
    """

    def __init__(self) -> None:
        self.synthesizer = EspeakSynthesizer(VoiceChoice("zle/ru", 150, 1.0))
        self.clips: dict[str, np.ndarray] = {}

    def say(self, utterance: Utterance) -> np.ndarray:
        return self.render(utterance.text)

    def render(self, text: str) -> np.ndarray:
        if text not in self.clips:
            clip = self.synthesizer.render(text)
            assert clip.rate == RATE, "espeak-ng's rate changed"
            # back to espeak-ng's own 16-bit samples (read_wav divided them by 32768)
            self.clips[text] = np.round(clip.samples * 32768).astype("<i2")
        return self.clips[text]


def cue_sound(cue: Cue) -> np.ndarray:
    """Distinct short tones, one per cue (the voice-out cues may replace these)."""
    hertz, seconds = {
        Cue.KEY_ACK: (2000, 0.03),
        Cue.REJECT: (300, 0.25),
        Cue.WARNING: (880, 0.2),
        Cue.TIME_UP: (440, 0.5),
        Cue.SPEECH_ENDED: (660, 0.3),
    }[cue]
    t = np.arange(int(seconds * RATE)) / RATE
    return (0.5 * np.sin(2 * np.pi * hertz * t) * 32767).astype(np.int16)


@dataclass(frozen=True)
class Placed:
    """Something the table hears, from clock time ``at``."""

    at: float
    what: str
    samples: np.ndarray


class Timeline:
    """Speaker, CuePlayer and Background on the fake clock: what plays when, then the mix."""

    def __init__(self, clock: FakeClock, voice: EspeakVoice) -> None:
        self.clock = clock
        self.voice = voice
        self.placed: list[Placed] = []
        self.background: tuple[float, np.ndarray] | None = None
        self.backgrounds: list[tuple[float, float, np.ndarray]] = []
        self._busy_until = 0.0

    # Speaker
    def say(self, utterance: Utterance) -> None:
        start = max(self.clock.now(), self._busy_until)
        clip = self.voice.say(utterance)
        self.placed.append(Placed(start, utterance.text, clip))
        self._busy_until = start + clip.size / RATE

    def busy_until(self) -> float:
        return self._busy_until

    # CuePlayer
    def play(self, cue: Cue, at: float | None = None) -> None:
        now = self.clock.now()
        start = now if at is None or at < now else at
        self.placed.append(Placed(start, f"cue:{cue.value}", cue_sound(cue)))

    def lead_seconds(self) -> float:
        return 0.0

    # Background
    def start(self, samples: Any, rate: int) -> None:
        assert rate == RATE
        self.background = (self.clock.now(), np.asarray(samples, dtype=np.float64))

    def stop(self) -> None:
        assert self.background is not None
        started, loop = self.background
        self.backgrounds.append((started, self.clock.now(), loop))
        self.background = None

    def close(self) -> None:
        pass

    # the recording
    def first(self, text: str, after: float = 0.0) -> float:
        return next(item.at for item in self.placed if item.what == text and item.at >= after)

    def mix(self, start: float, end: float) -> bytes:
        """The 16-bit audio from clock time ``start`` to ``end``, as the sound card gets it."""
        out = np.zeros(round((end - start) * RATE), dtype=np.float64)
        for item in self.placed:
            self._add(out, start, item.at, item.samples.astype(np.float64))
        for began, stopped, loop in self.backgrounds:
            repeats = int(np.ceil((stopped - began) * RATE / loop.size)) + 1
            looped = np.tile(loop * 32767, repeats)[: round((stopped - began) * RATE)]
            self._add(out, start, began, looped)
        return np.clip(np.round(out), -32768, 32767).astype("<i2").tobytes()

    @staticmethod
    def _add(out: np.ndarray, start: float, at: float, samples: np.ndarray) -> None:
        offset = round((at - start) * RATE)
        begin, end = max(0, offset), min(out.size, offset + samples.size)
        if begin < end:
            out[begin:end] += samples[begin - offset : end - offset]


class LedLog:
    """The keypad LED, seen by the Commissar alone: each state it showed, and for how long."""

    def __init__(self) -> None:
        self.shown: list[tuple[bool, float]] = []

    def set(self, lit: bool) -> None:
        self.shown.append((lit, 0.0))

    def hold(self, seconds: float) -> bool:
        lit, held = self.shown[-1]
        self.shown[-1] = (lit, held + seconds)
        return False  # never cut short

    def close(self) -> None:
        pass

    def showed_mafia(self) -> bool:
        """The answer window (led_seconds, 3 s by default) was lit."""
        return (True, 3.0) in self.shown


# --------------------------------------------------------------------------- the night


@dataclass(frozen=True)
class Act:
    """A role's entry: the keys (None: no entry), the last of them ``after`` seconds into the
    role's window; the keys before it come ``KEY_GAP`` apart."""

    keys: str | None
    after: float = 1.0


NONE = Act(None)


@dataclass(frozen=True)
class Night:
    """What happens in night 1."""

    mafia: Act
    commissar: Act
    doctor: Act


@dataclass
class Recorded:
    """A night as the table heard it, and what the Commissar's LED showed."""

    audio: bytes
    announcements: list[tuple[float, str]]
    led: LedLog
    transcript: list[str]


KEYS = {"E": Key.ENTER, "M": Key.MISS}


def settings() -> Settings:
    return Settings(night=dataclasses.replace(NightSettings(), masking="noise"))


class PackVoice:
    """Speaks from a voice pack recorded with the recorder's own take checks, one take a piece."""

    def __init__(self, folder: Path, espeak: EspeakVoice) -> None:
        from voicehost.voice_out.recording import (
            ArrayReader,
            assess_take,
            capture_take,
            game_numbers,
            game_pieces,
            slot_seconds,
        )

        book = PhraseBook.load("ru")
        self.pieces = game_pieces(book.all_segments(), game_numbers(13))
        rng = np.random.default_rng(3)
        for piece in self.pieces:
            said = espeak.render(piece.text).astype(np.float64) / 32768 * 0.5
            padded = np.concatenate([np.zeros(RATE // 2), said, np.zeros(RATE)])
            padded += rng.normal(0, 10 ** (-58 / 20), len(padded))
            reader = ArrayReader(np.round(np.clip(padded, -1, 1) * 32767).astype(np.int16), RATE)
            slot = slot_seconds(piece.key, len(said) / RATE)
            result = assess_take(capture_take(reader, slot * 2 + 1), slot, -18.0)
            assert result.clip is not None, (piece.key, result.refusal)
            write_wav(result.clip, folder / f"{piece.key}.wav")
        self.library = SpeechLibrary(
            rate=RATE, target_dbfs=-18.0, cache=None, pack=VoicePack.load(folder)
        )
        report = self.library.prepare(Segment(p.key, p.text) for p in self.pieces)
        assert report.from_pack == len(self.pieces)  # nothing synthesised
        self.clips: dict[str, np.ndarray] = {}

    def say(self, utterance: Utterance) -> np.ndarray:
        clip = self.library.utterance_clip(utterance)
        samples = np.round(np.clip(clip.samples, -1, 1) * 32767).astype(np.int16)
        if utterance.key.startswith("night."):
            # one take per night phrase: the same utterance always sounds the same
            assert np.array_equal(self.clips.get(utterance.text, samples), samples)
        self.clips[utterance.text] = samples
        return samples

    def render(self, text: str) -> np.ndarray:
        return self.clips[text]


@pytest.fixture(scope="module", params=["synthetic", "voice pack"])
def voice(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> EspeakVoice | PackVoice:
    espeak = EspeakVoice()
    if request.param == "synthetic":
        return espeak
    folder = tmp_path_factory.mktemp("pack")
    made = PackVoice(folder, espeak)
    night_files = [p for p in folder.iterdir() if p.name.startswith("night.")]
    night_pieces = [p for p in made.pieces if p.key.startswith("night.")]
    assert night_pieces and len(night_files) == len(night_pieces)  # one take each
    return made


def play_night(night: Night, voice: EspeakVoice, journal: Path | None = None) -> Recorded:
    steps = (
        (Phase.NIGHT_MAFIA, (night.mafia,)),
        (Phase.NIGHT_COMMISSAR, (night.commissar,)),
        (Phase.NIGHT_DOCTOR, (night.doctor,)),
    )
    return record_night(settings(), NIGHT0_AND_DAY1, steps, "Город просыпается!", voice, journal)


def record_night(
    config: Settings,
    script: list[str],
    steps: tuple[tuple[Phase, tuple[Act, ...]], ...],
    morning_text: str,
    voice: EspeakVoice,
    journal: Path | None = None,
) -> Recorded:
    """Play ``script`` up to night 1, then each step's keypad entries at their moments in the
    step's window; record what was heard and lit from nightfall to ``morning_text``."""
    clock = FakeClock()
    timeline = Timeline(clock, voice)
    led = LedLog()
    private = LedPrivateChannel(led, config.private, sleeper=led.hold)
    loop = masking_sound(config, RATE)
    host = Host(
        config,
        PhraseBook.load("ru"),
        clock,
        speaker=timeline,
        cues=timeline,
        private=private,
        background=timeline,
        masking=lambda: (loop, RATE),
        journal_path=journal,
    )
    host.start()
    result = run_script(script, config, clock=clock, host=host)
    assert result.errors == []
    assert host.state is not None and host.state.phase is steps[0][0]
    night_start = timeline.first("Наступает ночь, город засыпает!")
    controller = KeypadController(host, timeline, clock)
    for phase, acts in steps:
        assert host.state.phase is phase and host.timer is not None
        window = host.timer.starts_at
        for act in acts:
            if act.keys is None:
                continue
            first_key = window + act.after - KEY_GAP * (len(act.keys) - 1)
            for number, char in enumerate(act.keys):
                advance_to(host, clock, first_key + number * KEY_GAP)
                controller.on_key(KEYS.get(char) or Key(char))
                host.process_pending()
            # The LED's fake time does not pass on the host's clock: its patterns play out here,
            # as they would in the seconds of the window left (the step's end darkens it).
            private.wait_idle()
        wait_timer(host)
    morning = timeline.first(morning_text, after=night_start)
    private.wait_idle()
    private.close()
    host.close()  # releases the journal's lock, as the end of a process does
    return Recorded(
        audio=timeline.mix(night_start, morning),
        announcements=[
            (round(item.at - night_start, 6), item.what)
            for item in timeline.placed
            if night_start <= item.at <= morning and not item.what.startswith("cue:")
        ],
        led=led,
        transcript=list(host.transcript),
    )


def advance_to(host: Host, clock: FakeClock, when: float) -> None:
    """Let time pass, firing each timer event at its own moment."""
    while (deadline := host.next_deadline()) is not None and deadline <= when:
        clock.set(deadline)
        host.process_due()
    clock.set(when)


def digest(audio: bytes) -> str:
    return hashlib.sha256(audio).hexdigest()[:16]


# --------------------------------------------------------------------------- the proofs


def test_the_night_sounds_the_same_whoever_is_shot_checked_or_healed(voice: EspeakVoice) -> None:
    nights = {
        "shoot 3, check 9 (mafia), heal 3": Night(Act("3E"), Act("9E"), Act("3E")),
        "shoot 6, check 3 (not mafia), heal 8": Night(Act("6E"), Act("3E"), Act("8E")),
        "shoot 10, check 1 (not mafia), heal 10": Night(Act("10E"), Act("1E"), Act("10E")),
        "miss, check 2 (mafia), heal 7": Night(Act("M"), Act("2E"), Act("7E")),
    }
    recorded = {name: play_night(night, voice) for name, night in nights.items()}
    digests = {name: digest(night.audio) for name, night in recorded.items()}
    assert len(set(digests.values())) == 1, digests
    some = next(iter(recorded.values()))
    assert len(some.audio) / 2 / RATE > 40  # a real night: three windows of 15-20 s
    # The answers did differ: the Commissar's LED showed mafia, not mafia, not mafia, mafia.
    answers = [night.led.showed_mafia() for night in recorded.values()]
    assert answers == [True, False, False, True]
    # ... and so did the morning.
    mornings = {night.transcript[-3] for night in recorded.values()}
    assert len(mornings) > 1


def test_every_step_lasts_the_same_whether_a_role_acts_at_once_late_or_never(
    voice: EspeakVoice,
) -> None:
    at_once, late = 1.0, 14.0  # late: after «Не вижу согласованного выстрела!» (12 s)
    nights = [
        Night(Act("3E", at_once), Act("9E", at_once), Act("7E", at_once)),
        Night(Act("3E", late), Act("9E", late), Act("7E", late)),
        Night(NONE, NONE, NONE),
        Night(Act("M", late), NONE, Act("7E", at_once)),
    ]
    schedules = []
    for night in nights:
        recorded = play_night(night, voice)
        schedules.append(
            [(at, text) for at, text in recorded.announcements if text != NO_AGREED_SHOT]
        )
        assert len(recorded.audio) == len(play_night(nights[0], voice).audio)
    assert all(schedule == schedules[0] for schedule in schedules), schedules


NO_AGREED_SHOT = "Не вижу согласованного выстрела!"


def test_the_mafia_warning_comes_only_without_a_shot_and_at_its_moment(voice: EspeakVoice) -> None:
    quick = play_night(Night(Act("3E", 1.0), NONE, NONE), voice)
    slow = play_night(Night(NONE, NONE, NONE), voice)
    assert NO_AGREED_SHOT not in [text for _, text in quick.announcements]
    wakes = next(at for at, text in slow.announcements if text == "Просыпается мафия!")
    warned = next(at for at, text in slow.announcements if text == NO_AGREED_SHOT)
    wake_length = voice.render("Просыпается мафия!").size / RATE
    assert warned - (wakes + wake_length) == pytest.approx(12.0, abs=0.01)
    assert "Этой ночью мафия промахнулась." in slow.transcript


def test_nothing_said_at_night_names_a_seat(voice: EspeakVoice) -> None:
    recorded = play_night(Night(Act("10E"), Act("9E"), Act("10E")), voice)
    night_texts = [text for _, text in recorded.announcements[:-1]]  # up to the morning
    number_words = ("один", "два", "три", "пять", "шесть", "семь", "девять", "десять", "номер")
    assert not [text for text in night_texts if any(word in text.lower() for word in number_words)]
    assert not [text for text in night_texts if any(char.isdigit() for char in text)]


def test_resume_after_a_power_cut_in_the_middle_of_the_night(
    voice: EspeakVoice, tmp_path: Path
) -> None:
    journal = tmp_path / "journals" / "game.jsonl"
    journal.parent.mkdir()
    play_night(Night(Act("3E"), Act("9E"), Act("4E")), voice, journal=journal)
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    # The power goes while the Commissar's check is being written: the shot is on disk.
    check = max(i for i, line in enumerate(lines) if '"seats": [9]' in line)
    journal.write_text("".join(lines[:check]) + lines[check][: len(lines[check]) // 2])
    assert newest_unfinished(journal.parent) == journal  # what `play --resume-or-start` picks

    config = settings()
    clock = FakeClock(start=10_000.0)
    timeline = Timeline(clock, voice)
    host = Host(
        config,
        PhraseBook.load("ru"),
        clock,
        speaker=timeline,
        cues=timeline,
        private=LedPrivateChannel(LedLog(), config.private, sleeper=lambda seconds: False),
        journal_path=journal,
    )
    host.resume()
    assert host.transcript[:2] == ["Продолжаем игру.", "Просыпается комиссар!"]
    assert host.state is not None and host.state.night_actions.shot == 3
    controller = KeypadController(host, timeline, clock)
    for key in (Key.D9, Key.ENTER):
        controller.on_key(key)
        host.process_pending()
    wait_timer(host)
    controller.on_key(Key.D4)
    controller.on_key(Key.ENTER)
    host.process_pending()
    wait_timer(host)
    assert "Этой ночью мафия убила игрока номер три." in host.transcript
    assert "Комиссар нашёл мафию." in host.transcript


# --------------------------------------------------------------------------- FIIM nights
# docs/RULES-FIIM.md §6 and §13: black 2, 5, 9 (the Don on 5), the Sheriff on 4. Day 1 has no
# nomination, so night 1 has all three black players shooting in turn, then the Don's check, then
# the Sheriff's.

FIIM_NIGHT0_AND_DAY1 = ["2 5 9", "wait", "5", "wait", "4", "wait", "wait"] + ["."] * 10


@dataclass(frozen=True)
class FiimNight:
    """Night 1 by the FIIM rules: each black player's entry in the shot's window, in turn."""

    shots: tuple[Act, ...]
    don: Act
    sheriff: Act


def play_fiim_night(night: FiimNight, voice: EspeakVoice) -> Recorded:
    from voicehost.config import with_preset

    steps = (
        (Phase.NIGHT_MAFIA, night.shots),
        (Phase.NIGHT_DON, (night.don,)),
        (Phase.NIGHT_SHERIFF, (night.sheriff,)),
    )
    config = with_preset(settings(), "fiim")
    return record_night(config, FIIM_NIGHT0_AND_DAY1, steps, "Доброе утро!", voice)


def _shots(*keys: str | None) -> tuple[Act, ...]:
    """The three black players' entries, 2, 7 and 12 s into the shot's window."""
    return tuple(Act(k, 2.0 + 5 * i) for i, k in enumerate(keys))


def test_a_fiim_night_sounds_the_same_whatever_is_shot_and_checked(voice: EspeakVoice) -> None:
    nights = {
        "all shoot 3 (a kill), Don checks 4 (Sheriff), Sheriff 5 (black)": FiimNight(
            _shots("3E", "3E", "3E"), Act("4E"), Act("5E")
        ),
        "3, 3, 6 (a miss), Don checks 1, Sheriff 1 (red)": FiimNight(
            _shots("3E", "3E", "6E"), Act("1E"), Act("1E")
        ),
        "10, the miss key, 10 (a miss), Don checks 10, Sheriff 2 (black)": FiimNight(
            _shots("10E", "M", "10E"), Act("10E"), Act("2E")
        ),
        "all shoot 10 (a kill), Don checks 2, Sheriff 9 (black)": FiimNight(
            _shots("10E", "10E", "10E"), Act("2E"), Act("9E")
        ),
    }
    recorded = {name: play_fiim_night(night, voice) for name, night in nights.items()}
    digests = {name: digest(night.audio) for name, night in recorded.items()}
    assert len(set(digests.values())) == 1, digests
    some = next(iter(recorded.values()))
    assert len(some.audio) / 2 / RATE > 45  # three windows: 20 + 15 + 15 s
    texts = [text for _, text in some.announcements[:-1]]
    assert not [t for t in texts if "номер" in t or any(c.isdigit() for c in t)]
    # The answers did differ (the LED lit for "Sheriff" and for "black"), and so did the morning.
    lit = [
        sum(1 for shown in night.led.shown if shown == (True, 3.0)) for night in recorded.values()
    ]
    assert lit == [2, 0, 1, 1]
    mornings = [
        next(line for line in night.transcript if line.startswith("Этой ночью"))
        for night in recorded.values()
    ]
    assert mornings == [
        "Этой ночью убит игрок номер три.",
        "Этой ночью промах.",
        "Этой ночью промах.",
        "Этой ночью убит игрок номер десять.",
    ]


def test_a_fiim_night_lasts_the_same_whether_the_roles_act_at_once_late_or_never(
    voice: EspeakVoice,
) -> None:
    nights = [
        FiimNight(tuple(Act("3E", 1.0 + i) for i in range(3)), Act("4E", 1.0), Act("5E", 1.0)),
        FiimNight(_shots("3E", "3E", "3E"), Act("4E", 14.0), Act("5E", 14.0)),
        FiimNight(_shots(None, None, None), NONE, NONE),
        FiimNight(_shots("M", None, "6E"), NONE, Act("1E", 7.0)),
    ]
    schedules = [play_fiim_night(night, voice).announcements for night in nights]
    assert all(schedule == schedules[0] for schedule in schedules), schedules


# --------------------------------------------------------------------------- city nights
# docs/RULES-CITY.md: the «путана» 1, mafia 2 and 9, the Immortal 3, the Commissar 4, the Don 5,
# the Doctor 7, the Maniac 8. Day 1 sends 9 away, so night 1 has six steps: the «путана», the
# mafia, the Don, the Commissar, the Doctor, the Maniac.

CITY_NIGHT0_AND_DAY1 = [
    *("2 5 9", "wait", "5", "wait", "4", "wait", "7", "wait", "1", "wait", "8", "wait", "3"),
    *("wait", "."),
    *[line for seat in range(1, 11) for line in (("8" if seat == 9 else "9"), ".")],
    *("wait", "wait", "1", ".", "wait"),
]

CITY_STEPS = (
    Phase.NIGHT_PUTANA,
    Phase.NIGHT_MAFIA,
    Phase.NIGHT_DON,
    Phase.NIGHT_COMMISSAR,
    Phase.NIGHT_DOCTOR,
    Phase.NIGHT_MANIAC,
)


def play_city_night(acts: tuple[Act, ...], voice: EspeakVoice) -> Recorded:
    from voicehost.config import with_preset

    config = with_preset(settings(), "city")
    steps = tuple((phase, (act,)) for phase, act in zip(CITY_STEPS, acts, strict=True))
    return record_night(config, CITY_NIGHT0_AND_DAY1, steps, "Город просыпается!", voice)


def test_a_city_night_sounds_the_same_whoever_acts_and_however_many_die(
    voice: EspeakVoice,
) -> None:
    nights = {
        "blocks 6, mafia 3 (immortal), Don 4, Commissar 2, heal 4, Maniac 10 (one death)": (
            Act("6E"),
            Act("3E"),
            Act("4E"),
            Act("2E"),
            Act("4E"),
            Act("10E"),
        ),
        "blocks 2 (the mafia do not shoot), mafia 6, Don 1, Commissar 8, heal 7, Maniac 4": (
            Act("2E"),
            Act("6E"),
            Act("1E"),
            Act("8E"),
            Act("7E"),
            Act("4E"),
        ),
        "blocks 8 (the Maniac), mafia 10, Don 10, Commissar 5, heal 10 (saved), Maniac 6": (
            Act("8E"),
            Act("10E"),
            Act("10E"),
            Act("5E"),
            Act("10E"),
            Act("6E"),
        ),
        "blocks 3, mafia 6, Don 7, Commissar 1, heal 1, Maniac 7 (two deaths)": (
            Act("3E"),
            Act("6E"),
            Act("7E"),
            Act("1E"),
            Act("1E"),
            Act("7E"),
        ),
    }
    recorded = {name: play_city_night(acts, voice) for name, acts in nights.items()}
    digests = {name: digest(night.audio) for name, night in recorded.items()}
    assert len(set(digests.values())) == 1, digests
    texts = [text for _, text in next(iter(recorded.values())).announcements[:-1]]
    assert not [t for t in texts if "номер" in t or any(c.isdigit() for c in t)]
    mornings = [
        next(line for line in night.transcript if line.startswith("Этой ночью"))
        for night in recorded.values()
    ]
    assert mornings == [
        "Этой ночью убит игрок номер десять.",
        "Этой ночью убит игрок номер четыре.",
        "Этой ночью никто не погиб: жителя города спасли.",
        "Этой ночью убиты игроки номер шесть и семь.",
    ]


def test_a_city_night_lasts_the_same_whether_the_roles_act_at_once_late_or_never(
    voice: EspeakVoice,
) -> None:
    nights = [
        tuple(Act(keys, 1.0) for keys in ("6E", "3E", "4E", "2E", "4E", "10E")),
        tuple(Act(keys, 14.0) for keys in ("6E", "3E", "4E", "2E", "4E", "10E")),
        (NONE,) * 6,
        (Act("2E"), Act("M"), NONE, Act("9E", 12.0), NONE, Act("M")),
    ]
    schedules = []
    for night in nights:
        recorded = play_city_night(night, voice)
        # the mafia's warning is the club's: said when no shot has come by its moment
        schedules.append(
            [(at, text) for at, text in recorded.announcements if text != NO_AGREED_SHOT]
        )
    assert all(schedule == schedules[0] for schedule in schedules), schedules
