"""Benchmark: from the engine's Say effect to the first sample handed to the sound device.

    .venv/bin/python bench/bench_say_latency.py [--rounds 30] [--block 256] [--config FILE]

What is timed starts with what ``Host`` does with a ``Say`` effect (``PhraseBook.render``, then
``Speaker.say``). Two speakers are compared in the same run, on the same phrases, interleaved:

- cached: voicehost's SoundOutput; every piece was synthesised before the game (audio cache);
- live: synthesis when the phrase is said, the naive approach.

Two devices, because this machine has no sound card:

A. A device that takes samples as fast as they come (the software path alone). Cached: until
   the mixer hands over the block with the first sample. Live: pyttsx3 ``say()`` +
   ``runAndWait()`` (espeak-ng renders, ``aplay`` plays), until aplay has written its first
   sample to the ALSA file device.
B. A simulated real-time card (``soundcard_sim.py``: one callback per block, 256 frames =
   11.6 ms at 22050 Hz). Cached as above; live = ``save_to_file`` at Say time, read back,
   levelled, same mixer. A card takes samples only at its callbacks, so both wait for the next
   one (0 to one block).

Each announcement goes to an idle speaker, so no queueing is counted. Targets: on device A,
cached median <= 20 ms and at least 10 times faster than live; on the card B, cached median
<= 20 ms (both wait 0 to one callback for the card, so their ratio says little). It exits 1 when
one is missed. Each time is stamped when the first sample has been handed over.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchkit import Targets  # noqa: E402
from soundcard_sim import SimulatedCard  # noqa: E402

from voicehost import config  # noqa: E402
from voicehost.clips import Clip, normalise, resample, trim_silence  # noqa: E402
from voicehost.clock import MonotonicClock  # noqa: E402
from voicehost.phrases import PhraseBook  # noqa: E402
from voicehost.ports import Utterance  # noqa: E402
from voicehost.voice_out.sound import BLOCK_FRAMES, SoundOutput  # noqa: E402
from voicehost.voice_out.speech import speech_library  # noqa: E402
from voicehost.voice_out.tts import EspeakSynthesizer, voice_choice  # noqa: E402

WAV_HEADER_BYTES = 44

PHRASES: list[tuple[str, dict[str, Any]]] = [
    ("day.speech_nomination", {"seat": 7}),
    ("day.nomination_accepted", {"seat": 3}),
    ("night.mafia_wakes", {}),
    ("morning.killed", {"seat": 10}),
    ("day.vote_result", {"seat": 4, "votes": 6}),
    ("day.candidates", {"seats": (2, 5, 9)}),
    ("day.leaves", {"seat": 8, "role": "commissar"}),
    ("day.vote_start", {"seats": (3, 5)}),
]


class LiveLibrary:
    """The naive speaker's voice: the whole text synthesised when it is to be said."""

    def __init__(self, synthesizer: EspeakSynthesizer, rate: int, target_dbfs: float) -> None:
        self.synthesizer = synthesizer
        self.rate = rate
        self.target_dbfs = target_dbfs

    def utterance_clip(self, utterance: Utterance) -> Clip:
        clip = trim_silence(self.synthesizer.render(utterance.text))
        return normalise(resample(clip, self.rate), self.target_dbfs)


def time_on_card(
    library: Any, book: PhraseBook, key: str, params: dict[str, Any], block: int
) -> float:
    """B: seconds from the Say effect to the simulated card's callback taking the first sample."""
    output = SoundOutput(MonotonicClock(), library, {}, rate=library.rate)
    handed = watch_first_sample(output)
    card = SimulatedCard(output, block_frames=block)
    time.sleep(random.uniform(0.03, 0.06))  # the card runs all game long: any phase
    started = time.perf_counter()
    output.say(book.render(key, params))  # what Host._say does with a Say effect
    handed.wait(5)
    card.close()
    return handed.at - started


def time_software_path(library: Any, book: PhraseBook, key: str, params: dict[str, Any]) -> float:
    """A, cached: to the first sample handed to a device that takes blocks as fast as they come."""
    output = SoundOutput(MonotonicClock(), library, {}, rate=library.rate)
    handed = watch_first_sample(output)
    started = time.perf_counter()
    output.say(book.render(key, params))
    while not handed.is_set():
        output.pull(BLOCK_FRAMES)
    return handed.at - started


def time_naive_say(
    engine: Any, book: PhraseBook, key: str, params: dict[str, Any], played: Path
) -> float:
    """A, live: pyttsx3 say() + runAndWait(), to the first sample aplay writes to the device."""
    played.unlink(missing_ok=True)
    first: list[float] = []

    def watch() -> None:
        give_up = time.perf_counter() + 5
        while time.perf_counter() < give_up:
            if played.exists() and played.stat().st_size > WAV_HEADER_BYTES:
                first.append(time.perf_counter())
                return
            time.sleep(0.0002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.perf_counter()
    utterance = book.render(key, params)
    engine.proxy._driver._save_file = None  # pyttsx3 keeps save_to_file's target for say() too
    with contextlib.redirect_stdout(io.StringIO()):
        engine.say(utterance.text)
        engine.runAndWait()
    watcher.join()
    return first[0] - started


class FirstSample(threading.Event):
    """Set, with the time, when the first announcement's first sample is handed over."""

    at = 0.0


def watch_first_sample(output: SoundOutput) -> FirstSample:
    handed = FirstSample()

    def on_block(first: int, frames: int) -> None:
        voice = [p for p in output.mixer.placements if p.lane == "voice"]
        if voice and not handed.is_set() and first <= voice[0].start < first + frames:
            handed.at = time.perf_counter()
            handed.set()

    output.block_listeners.append(on_block)
    return handed


def alsa_file_device(folder: Path) -> tuple[Path, Path]:
    """An ALSA config whose default device writes what aplay plays to a file, to be watched."""
    played = folder / "played.wav"
    conf = folder / "file.conf"
    conf.write_text(
        "</usr/share/alsa/alsa.conf>\n"
        'pcm.!default { type plug; slave.pcm "tap" }\n'
        f'pcm.tap {{ type file; slave.pcm "null"; file "{played}"; format "wav" }}\n',
        encoding="utf-8",
    )
    return conf, played


def report(title: str, times: dict[str, list[float]]) -> bool:
    print(f"\n{title}")
    print(f"{'speaker':<34}{'median':>10}{'p90':>10}{'max':>10}")
    for name, values in times.items():
        ordered = sorted(values)
        p90 = ordered[int(0.9 * (len(ordered) - 1))]
        print(
            f"{name:<34}{statistics.median(values) * 1000:>8.1f}ms"
            f"{p90 * 1000:>8.1f}ms{max(values) * 1000:>8.1f}ms"
        )
    cached, live = (statistics.median(values) for values in times.values())
    met = cached <= 0.020 and live / cached >= 10
    print(f"cached is {live / cached:.1f}x faster (median)")
    return met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="announcements per speaker")
    parser.add_argument("--block", type=int, default=BLOCK_FRAMES, help="card callback frames")
    parser.add_argument("--config", default=None)
    args = parser.parse_args()
    block = args.block
    settings = config.load(args.config)
    rate = settings.audio.sample_rate
    book = PhraseBook.load(settings.language)
    cached = speech_library(settings)
    print(cached.prepare(book.all_segments()).describe())
    synthesizer = EspeakSynthesizer(voice_choice(settings))
    live = LiveLibrary(synthesizer, rate, settings.audio.target_loudness_dbfs)
    with tempfile.TemporaryDirectory(prefix="voicehost-bench-") as folder:
        file_conf, played = alsa_file_device(Path(folder))
        os.environ["ALSA_CONFIG_PATH"] = str(file_conf)  # read by each aplay
        engine = synthesizer._engine  # the same espeak-ng, in the chosen voice
        naive, at_say = "live (pyttsx3 say + aplay)", "live (save_to_file at Say)"
        device: dict[str, list[float]] = {"cached (SoundOutput)": [], naive: []}
        card: dict[str, list[float]] = {"cached (SoundOutput)": [], at_say: []}
        for round_number in range(args.rounds):
            key, params = PHRASES[round_number % len(PHRASES)]
            device["cached (SoundOutput)"].append(time_software_path(cached, book, key, params))
            device[naive].append(time_naive_say(engine, book, key, params, played))
            card["cached (SoundOutput)"].append(time_on_card(cached, book, key, params, block))
            card[at_say].append(time_on_card(live, book, key, params, block))
    print(f"\nSay effect -> first sample handed to the sound device ({args.rounds} each)")
    met = report("A. a device that takes samples at once (the software path alone)", device)
    period = block / rate * 1000
    report(f"B. simulated real-time card, {block}-frame callbacks ({period:.1f} ms)", card)
    targets = Targets()
    cached_alone, live_alone = (statistics.median(values) * 1000 for values in device.values())
    targets.check(
        "A. cached median <= 20 ms and >= 10x faster than live",
        f"{cached_alone:.1f} ms, {live_alone / cached_alone:.1f}x",
        met,
    )
    cached_on_card = statistics.median(card["cached (SoundOutput)"]) * 1000
    targets.check("B. cached median <= 20 ms", f"{cached_on_card:.1f} ms", cached_on_card <= 20)
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
