"""A folder of recorded takes and how the Listener did on them: heard, missed, early, false.

``voicehost listen --calibrate`` records takes at the club's own table into such a folder;
``voicehost listen --wav DIR`` and ``bench/bench_listener.py --wav DIR`` replay it. The folder
holds 16-bit mono WAV files and ``takes.json``, a list of labels:

```json
[{"file": "take-01.wav", "ends_with_stop_word": true, "stop_word_end": 2.31,
  "condition": "at the table", "said": "спасибо"}]
```

``stop_word_end`` (seconds into the file) is optional: without it an end anywhere counts as
heard, with it an end before that moment is an early end. A file with no label is replayed and
its decisions printed, but not scored.

Scoring (one place, for the CLI, the calibration and the bench): **heard** one end after the
stop word within :data:`HIT_WITHIN` s; **early** an end before the stop word was over, which cut
the speaker off (a false stop: the worst outcome); **missed** no end; for a take without a final
stop word, **false** any end.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from voicehost.errors import VoicehostError

MANIFEST = "takes.json"
HIT_WITHIN = 3.0
"""An end this long after the stop word still counts as heard (seconds)."""


class TakesError(VoicehostError):
    """A folder of takes or its takes.json cannot be used; the text says what to fix."""


@dataclass(frozen=True)
class TakeLabel:
    """What a take holds, as takes.json says."""

    file: str
    ends_with_stop_word: bool | None
    """None: not labelled (the take is replayed, not scored)."""
    stop_word_end: float | None = None
    condition: str = "takes"
    said: str = ""


@dataclass(frozen=True)
class LabelledTake:
    """A take's samples and its label."""

    label: TakeLabel
    samples: np.ndarray
    sample_rate: int

    @property
    def name(self) -> str:
        return Path(self.label.file).stem

    @property
    def condition(self) -> str:
        return self.label.condition

    @property
    def stop_word_end(self) -> float | None:
        return self.label.stop_word_end

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.sample_rate


def read_labels(folder: Path) -> list[TakeLabel]:
    """The labels of ``folder``: takes.json's, and every other WAV file unlabelled."""
    if not folder.is_dir():
        raise TakesError(f"{folder}: no such folder; give a folder of WAV takes")
    manifest = folder / MANIFEST
    labels: list[TakeLabel] = []
    if manifest.is_file():
        labels = _parse_manifest(manifest)
    named = {label.file for label in labels}
    for wav in sorted(folder.glob("*.wav")):
        if wav.name not in named:
            labels.append(TakeLabel(wav.name, None))
    if not labels:
        raise TakesError(
            f"{folder} holds no WAV takes; record some with `voicehost listen --calibrate`"
        )
    return labels


def _parse_manifest(manifest: Path) -> list[TakeLabel]:
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TakesError(f"{manifest}: not UTF-8 text ({exc.reason}); save it as UTF-8") from exc
    except json.JSONDecodeError as exc:
        raise TakesError(
            f"{manifest}, line {exc.lineno}: not valid JSON ({exc.msg}); it must be a list of "
            '{"file": "take.wav", "ends_with_stop_word": true}'
        ) from exc
    if not isinstance(entries, list):
        raise TakesError(f"{manifest}: must be a JSON list of takes, not {type(entries).__name__}")
    return [_label(manifest, number, entry) for number, entry in enumerate(entries, 1)]


def _label(manifest: Path, number: int, entry: object) -> TakeLabel:
    where = f"{manifest}, take {number}"
    if not isinstance(entry, dict):
        raise TakesError(f"{where}: must be an object with a file name, not {entry!r}")
    file = entry.get("file")
    if not isinstance(file, str) or not file or Path(file).name != file:
        raise TakesError(f'{where}: "file" must be the name of a WAV file in the folder')
    ends = entry.get("ends_with_stop_word")
    if ends is not None and not isinstance(ends, bool):
        raise TakesError(f'{where} ({file}): "ends_with_stop_word" must be true or false')
    stop_end = entry.get("stop_word_end")
    if stop_end is not None and (
        isinstance(stop_end, bool)
        or not isinstance(stop_end, int | float)
        or not 0 <= stop_end < math.inf
    ):
        raise TakesError(f'{where} ({file}): "stop_word_end" must be seconds (0 or more)')
    if stop_end is not None and ends is False:
        raise TakesError(f'{where} ({file}): a "stop_word_end" but no final stop word')
    condition = entry.get("condition", "takes")
    said = entry.get("said", "")
    if not isinstance(condition, str) or not isinstance(said, str):
        raise TakesError(f'{where} ({file}): "condition" and "said" must be text')
    return TakeLabel(
        file, ends, None if stop_end is None else float(stop_end), condition or "takes", said
    )


def read_takes(folder: Path) -> list[LabelledTake]:
    """Every take of ``folder`` with its samples (16-bit PCM WAV, mixed down to mono)."""
    from voicehost.voice_in.microphone import read_wav

    takes = []
    for label in read_labels(folder):
        path = folder / label.file
        if not path.is_file():
            raise TakesError(f"{folder / MANIFEST} names {label.file}, which is not in {folder}")
        samples, rate = read_wav(path)
        takes.append(LabelledTake(label, samples, rate))
    return takes


def write_takes(
    folder: Path, takes: Sequence[tuple[TakeLabel, np.ndarray]], sample_rate: int = 16000
) -> Path:
    """Write takes (owner-only: they are people's voices) and their takes.json."""
    import os
    import wave

    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    entries = []
    for label, samples in takes:
        path = folder / label.file
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as raw, wave.open(raw, "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(sample_rate)
            out.writeframes(samples.astype("<i2").tobytes())
        entry: dict[str, object] = {"file": label.file, "condition": label.condition}
        if label.ends_with_stop_word is not None:
            entry["ends_with_stop_word"] = label.ends_with_stop_word
        if label.stop_word_end is not None:
            entry["stop_word_end"] = round(label.stop_word_end, 3)
        if label.said:
            entry["said"] = label.said
        entries.append(entry)
    manifest = folder / MANIFEST
    descriptor = os.open(manifest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(json.dumps(entries, ensure_ascii=False, indent=1) + "\n")
    return manifest


@dataclass
class Tally:
    """Outcomes of one condition's takes."""

    heard: int = 0
    missed: int = 0
    early: int = 0
    false: int = 0
    takes: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def with_stop_word(self) -> int:
        return self.heard + self.missed + self.early


def score(
    tally: Tally, ends_with_stop_word: bool | None, stop_end: float | None, ends: Sequence[float]
) -> str:
    """Add one take's outcome to ``tally``; the outcome's name. ``ends`` are the audio times
    at which the Listener ended the speech (plus any processing lag, for latency)."""
    if ends_with_stop_word is None:
        return "unlabelled"
    tally.takes += 1
    if not ends_with_stop_word:
        if ends:
            tally.false += 1
            return "false"
        return "quiet"
    if stop_end is not None and any(at < stop_end for at in ends):
        tally.early += 1
        return "early"
    right = [at for at in ends if stop_end is None or at - stop_end <= HIT_WITHIN]
    if right:
        tally.heard += 1
        if stop_end is not None:
            tally.latencies.append(right[0] - stop_end)
        return "heard"
    tally.missed += 1
    return "missed"
