"""Night masking sound: noise or music that covers key clicks and rustling while roles act.

``masking_sound(settings, rate)`` gives the loop the host hands to the ``Background`` port when a
night begins (and stops at morning). It is mono float32 in -1..1 at ``night.masking_volume``
(peak), and it loops without a click: its end fades into its start.

The noise is generated from a fixed seed, so every night sounds the same whatever happens in
it: the masking itself can never give anything away.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt

from voicehost.config import Settings
from voicehost.errors import ConfigError, MissingDependency

Samples = npt.NDArray[np.float32]

NOISE_SECONDS = 8.0
"""Length of one noise loop; long enough that the ear hears no repeating pattern."""

LOOP_CROSSFADE_SECONDS = 0.25
NOISE_SEED = 20240601


def masking_sound(settings: Settings, rate: int) -> Samples | None:
    """The night's masking loop at ``rate`` Hz, or None when masking is off or silent."""
    night = settings.night
    if night.masking == "off" or night.masking_volume <= 0:
        return None
    if night.masking == "music":
        if not night.masking_file:
            raise ConfigError(
                "night.masking_file",
                None,
                "night.masking is music but no file is given; name a music file "
                "(wav, mp3, ogg, flac) or set night.masking: noise",
            )
        return music_loop(settings.path(night.masking_file), rate, night.masking_volume)
    return noise_loop(night.masking_noise, rate, night.masking_volume)


def noise_loop(colour: str, rate: int, volume: float, seconds: float = NOISE_SECONDS) -> Samples:
    """Pink (1/f, soft like rain) or brown (1/f², deep like a waterfall) noise, looped."""
    generator = np.random.default_rng(NOISE_SEED)
    length = int(seconds * rate) + _crossfade_length(rate)
    white = generator.standard_normal(length)
    exponent = {"pink": 0.5, "brown": 1.0}.get(colour)
    if exponent is None:
        raise ConfigError(
            "night.masking_noise", None, f"{colour!r} is not a noise; use pink or brown"
        )
    spectrum = np.fft.rfft(white)
    frequencies = np.fft.rfftfreq(length, d=1.0 / rate)
    frequencies[0] = frequencies[1]  # no infinite gain at 0 Hz
    shaped = spectrum / frequencies**exponent
    shaped[frequencies < 20.0] = 0.0  # below hearing: only moves the speaker cone
    noise = np.fft.irfft(shaped, n=length)
    return _finish(noise, rate, volume)


def music_loop(path: Path, rate: int, volume: float) -> Samples:
    """A music file (anything ffmpeg reads) as a mono loop at ``rate`` Hz."""
    try:
        from pydub import AudioSegment
        from pydub.exceptions import CouldntDecodeError
    except ImportError as exc:
        raise MissingDependency(
            "pydub is not installed: run `.venv/bin/pip install pydub`"
        ) from exc
    if not path.is_file():
        raise ConfigError("night.masking_file", None, f"{path} does not exist; check the path")
    try:
        segment = AudioSegment.from_file(str(path))
    except (CouldntDecodeError, OSError, IndexError) as exc:
        raise ConfigError(
            "night.masking_file",
            None,
            f"{path.name} cannot be read as audio ({exc}); use a wav, mp3, ogg or flac file "
            "(needs ffmpeg: `sudo apt-get install ffmpeg`)",
        ) from exc
    segment = segment.set_channels(1).set_frame_rate(rate).set_sample_width(2)
    samples = np.frombuffer(segment.raw_data, dtype=np.int16).astype(np.float64) / 32768.0
    if samples.size < 2 * _crossfade_length(rate):
        raise ConfigError("night.masking_file", None, f"{path.name} is too short to loop; use 1 s+")
    return _finish(samples, rate, volume)


def _crossfade_length(rate: int) -> int:
    return int(LOOP_CROSSFADE_SECONDS * rate)


def _finish(samples: npt.NDArray[np.float64], rate: int, volume: float) -> Samples:
    looped = _seamless(samples - samples.mean(), _crossfade_length(rate))
    peak = float(np.max(np.abs(looped)))
    if peak > 0:
        looped = looped * (volume / peak)
    return looped.astype(np.float32)


def _seamless(samples: npt.NDArray[np.float64], fade: int) -> npt.NDArray[np.float64]:
    """Fold the last ``fade`` samples over the first ones, so the loop point has no click."""
    body = samples[:-fade].copy()
    tail = samples[-fade:]
    ramp = np.linspace(0.0, 1.0, fade, endpoint=False)
    # Equal-power crossfade: the level does not dip at the loop point.
    body[:fade] = body[:fade] * np.sin(ramp * np.pi / 2) + tail * np.cos(ramp * np.pi / 2)
    return body
