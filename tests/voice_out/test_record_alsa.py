"""End to end: a whole voice pack recorded through the ALSA file device, then a demo spoken with it.

``mic.raw`` holds espeak-ng speech of every piece with a room's hiss (and, for the first pieces,
a clipped, a quiet and a hissing take first); the keys come from a script. Then ``phrases
check`` finds every piece for every table size, and ``demo --pack`` speaks in the pack's voice.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from take_kit import clipped, good, hiss, quiet, to_pcm
from voice_out_kit import alsa_file_device, write_config

from voicehost.clips import read_wav
from voicehost.phrases import PhraseBook
from voicehost.testing.words import latin_words
from voicehost.voice_out.recording import game_numbers, game_pieces


def voicehost(args: list[str], env: dict[str, str], keys: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "voicehost", *args],
        input=keys,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def test_a_whole_pack_recorded_through_the_microphone_speaks_the_demo(
    tmp_path: Path, warm_cache_dir: Path
) -> None:
    env, _played = alsa_file_device(tmp_path)
    config = write_config(tmp_path, warm_cache_dir)
    book = PhraseBook.load("ru")
    pieces = game_pieces(book.all_segments(), game_numbers(13))
    takes, keys = [], []
    for index, piece in enumerate(pieces):
        bad = {0: clipped, 1: quiet, 2: lambda text: hiss()}.get(index)
        if bad is not None:
            takes.append(bad(piece.text))
            keys.append("r")
        takes.append(good(piece.text, seed=index))
        keys.append("k" if index % 2 else "")  # k or Enter keeps a take
    (tmp_path / "mic.raw").write_bytes(b"".join(to_pcm(t) for t in takes))
    pack = tmp_path / "pack"
    started = time.monotonic()
    done = voicehost(
        ["--config", str(config), "phrases", "record", "--pack", str(pack), "--not-real-time"],
        env,
        "\n".join(keys) + "\n",
    )
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    # language: ru: the prompts, the refusals' reasons and the count are Russian
    assert f"Оставлено: {len(pieces)}, пропущено: 0, не принято записей: 3" in done.stdout
    for reason in ("звук зашкаливает", "слишком тихо", "больше шума, чем речи"):
        assert f"не принято: {reason}" in done.stdout
    assert latin_words(done.stdout) == [], done.stdout
    # the host reads the words as written, stress marked, never the synthesiser's phonemes
    assert "[[" not in done.stdout and "\n    го\u0301лоса\n" in done.stdout
    print(f"recorded {len(pieces)} pieces through the ALSA file device in {took:.1f} s")
    assert len(list(pack.glob("*.wav"))) == len(pieces)

    check = voicehost(["--config", str(config), "phrases", "check", str(pack)], env)
    assert check.returncode == 0, check.stdout + check.stderr
    for seats in range(8, 14):
        assert f"Для {seats} игроков записаны все фрагменты." in check.stdout  # language: ru
    assert "Общая длина:" in check.stdout

    # a second sitting has nothing left to do
    again = voicehost(
        ["--config", str(config), "phrases", "record", "--pack", str(pack), "--missing"], env
    )
    assert "все фрагменты записаны" in again.stdout

    demos = {}
    for name, extra in (("pack", ["--pack", str(pack)]), ("synthetic", [])):
        out = tmp_path / f"demo-{name}.wav"
        demo = voicehost(
            ["--config", str(config), "demo", "--no-play", "--out", str(out), *extra], env
        )
        assert demo.returncode == 0, demo.stderr
        demos[name] = read_wav(out)
    # The pack's «Наступает ночь, город засыпает!» is in the pack demo, not in the synthetic one.
    night = read_wav(pack / "night.start#0.wav").samples
    assert found(night, demos["pack"].samples) > 0.9
    assert found(night, demos["synthetic"].samples) < 0.6


def found(needle: np.ndarray, haystack: np.ndarray) -> float:
    """The best normalised correlation of ``needle`` anywhere in ``haystack`` (1.0: identical)."""
    size = 1 << int(np.ceil(np.log2(len(haystack) + len(needle))))
    spectrum = np.fft.rfft(haystack, size) * np.conj(np.fft.rfft(needle, size))
    correlation = np.fft.irfft(spectrum, size)[: len(haystack) - len(needle) + 1]
    running = np.concatenate([[0.0], np.cumsum(haystack.astype(np.float64) ** 2)])
    energy = running[len(needle) :] - running[: -len(needle)]
    scores = correlation / (np.sqrt(np.maximum(energy, 1e-12)) * np.linalg.norm(needle))
    return float(np.max(scores))
