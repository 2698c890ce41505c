"""Voice packs: a club's own recordings replacing the synthetic voice, phrase by phrase.

A pack is a folder of audio files (wav, ogg, mp3 or flac; all but wav need ffmpeg). A file's
name without its suffix is the key it replaces:

- a **phrase key** (``game.resumed.ogg``, ``night.mafia_wakes.wav``) replaces the whole
  announcement, and works for phrases without placeholders only;
- a **segment key** replaces one piece: ``day.speech_nomination#0.wav`` («Слово игроку
  номер»), ``num.m.5.wav`` («пять»), ``form.голоса.wav``, ``word.mafia.wav``. One recording
  serves every piece with the same text, so ``num.m.5`` also speaks ``num.f.5`` («пять»).

Anything the pack lacks is synthesised. Recordings are trimmed of silence at their ends and
levelled to ``audio.target_loudness_dbfs``, as synthesis is, so both play at one level.

Slot limits (``voicehost phrases check PACK`` reports files longer than these): an
announcement that opens a timed speech or a night window holds the table until it ends (the
timer starts after it), so it must be short; a number or a word sits inside a sentence.

==================================  =====  =================================================
keys                                limit  why
==================================  =====  =================================================
``num.*``, ``form.*``               1.5 s  a number or noun inside a sentence
``word.*``                          2.0 s  a role name or "and" inside a sentence
``day.speech_nomination``,          4.0 s  opens a 15 s speech: the speaker is waiting
``day.defence``, ``day.last_words``
``night.*``, ``night0.*``           4.0 s  opens a night window of a few seconds
``day.vote_for``                    6.0 s  the count «раз, два, три» must stay brisk
anything else                       12 s   an announcement nobody waits on
==================================  =====  =================================================

A limit applies to the whole-phrase file and to each piece of that phrase alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from voicehost.clips import AudioFileError, Clip, from_int16, trim_silence
from voicehost.errors import MissingDependency, VoicehostError
from voicehost.phrases import PhraseBook
from voicehost.ports import Segment

AUDIO_SUFFIXES = (".wav", ".ogg", ".mp3", ".flac")
"""File types a pack may hold."""


@dataclass(frozen=True)
class SlotLimit:
    """The longest a recording for some keys may be, and why."""

    pattern: str
    seconds: float
    reason: str

    def matches(self, key: str) -> bool:
        """True when the limit applies to ``key`` (a phrase or piece key)."""
        return re.fullmatch(self.pattern, phrase_of(key)) is not None


SLOT_LIMITS: tuple[SlotLimit, ...] = (
    SlotLimit(r"(num|form)\..*", 1.5, "a number or noun inside a sentence"),
    SlotLimit(r"word\..*", 2.0, "a word inside a sentence"),
    SlotLimit(
        r"day\.(speech_nomination|defence|last_words)",
        4.0,
        "it opens a timed speech: the speaker waits for it to end",
    ),
    SlotLimit(r"night0?\..*", 4.0, "it opens a night window of a few seconds"),
    SlotLimit(r"day\.vote_for", 6.0, "the count «раз, два, три» must stay brisk"),
    SlotLimit(r".*", 12.0, "a long announcement loses the table"),
)
"""The first matching limit applies (see the module text)."""


class VoicePackError(VoicehostError):
    """A voice pack folder cannot be used; the text says what to fix."""


def phrase_of(key: str) -> str:
    """The phrase a segment key belongs to (``day.defence#0`` -> ``day.defence``)."""
    return key.split("#", 1)[0]


def slot_limit(key: str) -> SlotLimit:
    """The limit that applies to ``key`` (a phrase or segment key)."""
    for limit in SLOT_LIMITS:
        if limit.matches(key):
            return limit
    raise AssertionError("the last slot limit matches everything")  # pragma: no cover


def decode(path: Path, rate: int) -> Clip:
    """Any audio file as a mono clip at ``rate`` (pydub; ffmpeg for all but wav)."""
    try:
        from pydub import AudioSegment
    except ImportError as exc:
        raise MissingDependency(
            "voice packs need pydub: .venv/bin/pip install pydub (and sudo apt-get install ffmpeg)"
        ) from exc
    try:
        audio = AudioSegment.from_file(str(path))
    except FileNotFoundError as exc:
        if path.exists():
            raise MissingDependency(
                f"{path.name} needs ffmpeg to be decoded: sudo apt-get install ffmpeg"
            ) from exc
        raise AudioFileError(f"{path}: no such file") from exc
    except Exception as exc:  # noqa: BLE001 - pydub/ffmpeg raise many kinds for a bad file
        raise AudioFileError(
            f"{path.name} cannot be decoded ({str(exc).strip().splitlines()[-1:] or exc}); "
            "re-export it as wav, ogg or mp3"
        ) from exc
    audio = audio.set_channels(1).set_sample_width(2).set_frame_rate(rate)
    return from_int16(audio.raw_data, rate)


class VoicePack:
    """The recordings of one folder, by key; decoded on first use and kept."""

    def __init__(self, folder: Path, files: dict[str, Path]) -> None:
        self.folder = folder
        self.files = files
        self._decoded: dict[tuple[str, int], Clip] = {}

    @classmethod
    def load(cls, folder: Path) -> VoicePack:
        """Index ``folder``; raise VoicePackError if it is missing or two files claim one key."""
        if not folder.is_dir():
            raise VoicePackError(
                f'voice pack folder {folder} does not exist; create it or set voice.pack: "" '
                "in config.yaml",
                phrase="pack_no_folder",
                folder=folder,
            )
        files: dict[str, Path] = {}
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() not in AUDIO_SUFFIXES or not path.is_file():
                continue
            key = path.stem
            if key in files:
                raise VoicePackError(
                    f"voice pack {folder}: {files[key].name} and {path.name} are both for "
                    f"«{key}»; keep one"
                )
            files[key] = path
        return cls(folder, files)

    def has(self, key: str) -> bool:
        """True when the pack records ``key``."""
        return key in self.files

    def clip(self, key: str, rate: int) -> Clip:
        """The recording for ``key``, mono at ``rate``, trimmed of silence at its ends."""
        cached = self._decoded.get((key, rate))
        if cached is None:
            cached = trim_silence(decode(self.files[key], rate))
            self._decoded[(key, rate)] = cached
        return cached


@dataclass(frozen=True)
class TooLong:
    """A recording longer than its slot."""

    key: str
    seconds: float
    limit: SlotLimit


@dataclass
class PackReport:
    """What ``voicehost phrases check PACK`` found."""

    folder: Path
    covered: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    too_long: list[TooLong] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    unusable: list[tuple[str, str]] = field(default_factory=list)
    broken: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every file in the pack can be used as it is (missing keys are fine)."""
        return not (self.too_long or self.unknown or self.unusable or self.broken)

    def lines(self) -> list[str]:
        """The report for a person."""
        total = len(self.covered) + len(self.missing)
        out = [f"Voice pack {self.folder}: {len(self.covered)} of {total} pieces recorded."]
        if self.missing:
            out.append(
                f"Missing ({len(self.missing)}, synthesis speaks them): "
                + ", ".join(compress_keys(self.missing))
            )
        for item in self.too_long:
            out.append(
                f"Too long: {item.key} is {item.seconds:.1f} s, its slot is "
                f"{item.limit.seconds:.1f} s ({item.limit.reason})"
            )
        for name in self.unknown:
            out.append(f"Unknown: {name} matches no phrase or piece (a typo in the name?)")
        for name, why in self.unusable:
            out.append(f"Unusable: {name}: {why}")
        for name, why in self.broken:
            out.append(f"Broken: {name}: {why}")
        if self.ok:
            out.append("Every file is usable.")
        return out

    def said(self, book: PhraseBook) -> list[str]:
        """The report in the book's language."""
        total = len(self.covered) + len(self.missing)
        out = [
            book.screen(
                "pack_summary",
                {"folder": self.folder, "covered": len(self.covered), "total": total},
            )
        ]
        if self.missing:
            keys = ", ".join(compress_keys(self.missing))
            out.append(book.screen("pack_missing", {"count": len(self.missing), "keys": keys}))
        for item in self.too_long:
            out.append(
                book.screen(
                    "pack_too_long",
                    {
                        "key": item.key,
                        "seconds": f"{item.seconds:.1f}",
                        "limit": f"{item.limit.seconds:.1f}",
                        "reason": item.limit.reason,
                    },
                )
            )
        for name in self.unknown:
            out.append(book.screen("pack_unknown", {"name": name}))
        for name, why in self.unusable:
            out.append(book.screen("pack_unusable", {"name": name, "reason": why}))
        for name, why in self.broken:
            out.append(book.screen("pack_broken", {"name": name, "reason": why}))
        if self.ok:
            out.append(book.screen("pack_ok"))
        return out


def check_pack(
    pack: VoicePack,
    segments: Iterable[Segment],
    phrase_placeholders: dict[str, int],
    rate: int,
) -> PackReport:
    """Compare a pack with the pieces a book needs.

    ``phrase_placeholders`` maps each phrase key to its number of placeholders (a whole-phrase
    recording is usable only for a phrase with none).
    """
    report = PackReport(pack.folder)
    pieces = list(segments)
    durations: dict[str, float] = {}
    for key in pack.files:
        try:
            durations[key] = pack.clip(key, rate).duration
        except (AudioFileError, MissingDependency) as exc:
            report.broken.append((pack.files[key].name, str(exc)))
    usable = set(durations)
    for key in sorted(usable & set(phrase_placeholders)):
        if phrase_placeholders[key] > 0:
            report.unusable.append(
                (
                    pack.files[key].name,
                    f"«{key}» has placeholders, so it is spoken in pieces; record its pieces "
                    f"({key}#0, {key}#1, ...) instead",
                )
            )
            usable.discard(key)
    texts_recorded = {piece.text for piece in pieces if piece.key in usable}
    for piece in pieces:
        whole = phrase_of(piece.key)
        if piece.key in usable or whole in usable or piece.text in texts_recorded:
            report.covered.append(piece.key)
        else:
            report.missing.append(piece.key)
    known = {piece.key for piece in pieces} | set(phrase_placeholders)
    report.unknown = [pack.files[key].name for key in sorted(set(pack.files) - known)]
    for key in sorted(set(durations) & known):
        limit = slot_limit(key)
        if durations[key] > limit.seconds:
            report.too_long.append(TooLong(key, durations[key], limit))
    return report


def compress_keys(keys: list[str]) -> list[str]:
    """Keys with runs of numbers shortened: ``num.m.0..99`` instead of a hundred keys."""
    out: list[str] = []
    runs: dict[str, list[int]] = {}
    for key in keys:
        prefix, _, last = key.rpartition(".")
        if key.startswith("num.") and last.isdigit():
            runs.setdefault(prefix, []).append(int(last))
        else:
            out.append(key)
    for prefix, numbers in runs.items():
        out.extend(f"{prefix}.{part}" for part in _ranges(sorted(numbers)))
    return out


def _ranges(numbers: list[int]) -> list[str]:
    parts: list[str] = []
    start = previous = numbers[0]
    for number in numbers[1:]:
        if number != previous + 1:
            parts.append(_span(start, previous))
            start = number
        previous = number
    parts.append(_span(start, previous))
    return parts


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}..{last}"


# --------------------------------------------------------------------------- sharing


def export_pack(folder: Path, archive: Path) -> int:
    """Zip the pack's audio files and manifest into ``archive``; returns how many files."""
    import zipfile

    if not folder.is_dir():
        raise VoicePackError(
            f"voice pack folder {folder} does not exist", phrase="pack_no_folder", folder=folder
        )
    members = [
        path
        for path in sorted(folder.iterdir())
        if path.is_file() and (path.suffix.lower() in AUDIO_SUFFIXES or path.name == "pack.json")
    ]
    if not members:
        raise VoicePackError(
            f"{folder} holds no recordings to export",
            phrase="pack_nothing_to_export",
            folder=folder,
        )
    try:
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
            for path in members:
                zipped.write(path, path.name)
    except OSError as exc:
        raise VoicePackError(
            f"cannot write {archive}: {exc.strerror or exc}",
            phrase="cannot_write_folder",
            path=archive,
            reason=exc.strerror or exc,
        ) from exc
    return len(members)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def import_pack(archive: Path, folder: Path, *, replace: bool = False) -> int:
    """Unpack a shared pack into ``folder``; returns how many files.

    Refuses, before writing anything, an archive whose members would land outside the folder
    (``../``, absolute paths, sub-folders) or that holds anything but WAV files and
    ``pack.json``; and, unless ``replace``, one that would overwrite a recording the folder
    already holds with another (a club's own takes are not lost to a mistyped folder name).
    """
    import zipfile

    try:
        zipped = zipfile.ZipFile(archive)
    except FileNotFoundError as exc:
        raise VoicePackError(
            f"{archive}: no such file", phrase="no_such_file", path=archive
        ) from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise VoicePackError(
            f"{archive} is not a zip archive; export a pack with `voicehost phrases pack export`",
            phrase="pack_not_zip",
            path=archive,
        ) from exc
    with zipped:
        infos = [info for info in zipped.infolist() if not info.is_dir()]
        for info in infos:
            name = info.filename
            if "/" in name or "\\" in name or name.startswith(".") or ":" in name:
                raise VoicePackError(
                    f"{archive}: refusing {name!r}: a pack holds files at its top level only "
                    "(no folders, no ../, no absolute paths); nothing was imported"
                )
            if not (name.lower().endswith(".wav") or name == "pack.json"):
                raise VoicePackError(
                    f"{archive}: refusing {name!r}: a shared pack holds WAV files and pack.json "
                    "only; nothing was imported"
                )
        if not infos:
            raise VoicePackError(
                f"{archive} is empty; nothing was imported", phrase="pack_empty", path=archive
            )
        contents = {info.filename: zipped.read(info) for info in infos}
        for name, data in contents.items():
            if name != "pack.json" and not (data[:4] == b"RIFF" and data[8:12] == b"WAVE"):
                raise VoicePackError(
                    f"{archive}: refusing {name!r}: it is named .wav but is not a WAV file; "
                    "nothing was imported"
                )
        clashes = sorted(
            name
            for name, data in contents.items()
            if name != "pack.json" and (folder / name).is_file() and _read(folder / name) != data
        )
        if clashes and not replace:
            raise VoicePackError(
                f"{folder} already holds other recordings of {len(clashes)} of these pieces "
                f"({', '.join(clashes[:3])}{', ...' if len(clashes) > 3 else ''}); nothing was "
                "imported. Import into an empty folder, or add --replace to overwrite them"
            )
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for name, data in contents.items():
                (folder / name).write_bytes(data)
        except OSError as exc:
            raise VoicePackError(
                f"cannot write into {folder}: {exc.strerror or exc}",
                phrase="cannot_write_folder",
                path=folder,
                reason=exc.strerror or exc,
            ) from exc
    return len(infos)
