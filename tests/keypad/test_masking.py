"""Night masking sound: at the set volume, seamless, the same every night, music from a file."""

from __future__ import annotations

import dataclasses
import wave
from pathlib import Path

import numpy as np
import pytest

from voicehost.config import NightSettings, Settings
from voicehost.errors import ConfigError
from voicehost.voice_out.masking import masking_sound, noise_loop

RATE = 22050


def night(**changes: object) -> Settings:
    return Settings(night=dataclasses.replace(NightSettings(), **changes))  # type: ignore[arg-type]


def band_energy(samples: np.ndarray, low: float, high: float) -> float:
    spectrum = np.abs(np.fft.rfft(samples)) ** 2
    frequencies = np.fft.rfftfreq(samples.size, 1.0 / RATE)
    return float(spectrum[(frequencies >= low) & (frequencies < high)].sum())


def test_masking_off_gives_nothing_to_play() -> None:
    assert masking_sound(Settings(), RATE) is None
    assert masking_sound(night(masking="noise", masking_volume=0.0), RATE) is None


@pytest.mark.parametrize("volume", [0.05, 0.15, 0.6])
def test_noise_peaks_at_the_configured_volume(volume: float) -> None:
    samples = masking_sound(night(masking="noise", masking_volume=volume), RATE)
    assert samples is not None
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert float(np.max(np.abs(samples))) == pytest.approx(volume, rel=1e-3)


def test_every_night_gets_the_very_same_noise() -> None:
    settings = night(masking="noise")
    first, second = masking_sound(settings, RATE), masking_sound(settings, RATE)
    assert first is not None and second is not None
    assert first.tobytes() == second.tobytes()


def test_brown_noise_is_deeper_than_pink() -> None:
    pink = noise_loop("pink", RATE, 0.5)
    brown = noise_loop("brown", RATE, 0.5)

    def low_to_high(samples: np.ndarray) -> float:
        return band_energy(samples, 20, 200) / band_energy(samples, 2000, 8000)

    assert low_to_high(brown) > 10 * low_to_high(pink)


def test_pink_noise_covers_the_range_of_a_key_click() -> None:
    pink = noise_loop("pink", RATE, 0.5)
    octave_energies = [band_energy(pink, low, 2 * low) for low in (250, 500, 1000, 2000, 4000)]
    # 1/f: about equal energy per octave, so clicks (1-5 kHz) are covered as well as rustles.
    assert max(octave_energies) < 2.5 * min(octave_energies)


def test_the_loop_point_has_no_click() -> None:
    samples = noise_loop("pink", RATE, 0.5).astype(np.float64)
    steps = np.abs(np.diff(samples))
    wrap_step = abs(samples[0] - samples[-1])
    assert wrap_step < np.percentile(steps, 99.9)


def write_tone(path: Path, seconds: float, rate: int = 44100, channels: int = 2) -> None:
    t = np.arange(int(seconds * rate)) / rate
    tone = (0.5 * np.sin(2 * np.pi * 220 * t) * 32767).astype(np.int16)
    frames = np.repeat(tone[:, None], channels, axis=1)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames.tobytes())


def test_music_file_is_resampled_to_mono_at_the_volume(tmp_path: Path) -> None:
    write_tone(tmp_path / "night.wav", 2.0)
    settings = dataclasses.replace(
        night(masking="music", masking_file="night.wav", masking_volume=0.2),
        base_dir=str(tmp_path),
    )
    samples = masking_sound(settings, RATE)
    assert samples is not None
    assert samples.ndim == 1
    assert samples.size == pytest.approx(2.0 * RATE - 0.25 * RATE, abs=50)
    assert float(np.max(np.abs(samples))) == pytest.approx(0.2, rel=1e-3)


@pytest.mark.parametrize(
    ("file_name", "content", "message"),
    [
        ("", None, "no file is given"),
        ("missing.mp3", None, "does not exist"),
        ("broken.mp3", b"this is not audio", "cannot be read as audio"),
    ],
)
def test_a_bad_music_file_is_a_config_error_saying_what_to_do(
    tmp_path: Path, file_name: str, content: bytes | None, message: str
) -> None:
    if content is not None:
        (tmp_path / file_name).write_bytes(content)
    settings = dataclasses.replace(
        night(masking="music", masking_file=file_name), base_dir=str(tmp_path)
    )
    with pytest.raises(ConfigError, match=message):
        masking_sound(settings, RATE)
