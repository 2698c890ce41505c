"""The audio cache: every piece of every announcement, synthesised once and kept on disk.

A game never waits for synthesis: ``voicehost phrases build`` (and ``make run``) renders every
segment of ``PhraseBook.all_segments()`` into ``voice.cache_dir``. A file's name is a hash of
everything that changes how it sounds: the text, the espeak-ng voice, rate and volume, and the
engine's version (a new espeak-ng sounds different). Change any of them and the old files are
simply no longer used; delete the folder to reclaim the space.

Files hold espeak-ng's output with the silence at its ends trimmed, as 16-bit WAV; levelling
and resampling happen when a game loads them, so changing the loudness needs no rebuild.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from voicehost.errors import VoicehostError
from voicehost.notices import LOG_ONLY
from voicehost.voice_out.tts import EspeakSynthesizer, VoiceChoice, engine_version, voice_choice
from voicehost.voice_out.wavcheck import check_wav

if TYPE_CHECKING:
    from voicehost.clips import Clip
    from voicehost.config import Settings
    from voicehost.phrases import PhraseBook

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
"""Bump when what a cache file holds changes (trimming, format), so old files are not reused."""

PARALLEL_MINIMUM = 32
"""Fewer missing texts than this are rendered in this process (starting workers costs more)."""


class Synthesizer(Protocol):
    """Text -> clip (the espeak-ng adapter, or a test's stand-in)."""

    def render(self, text: str) -> Clip: ...


class CacheError(VoicehostError):
    """The cache folder cannot be used; the text names it and what to do."""


@dataclass(frozen=True)
class BuildReport:
    """What filling the cache did."""

    rendered: int
    """Texts synthesised now."""
    cached: int
    """Texts already in the cache."""
    seconds: float
    """Wall time taken."""
    folder: Path

    def describe(self) -> str:
        """One line for a person."""
        total = self.rendered + self.cached
        return (
            f"Audio cache {self.folder}: {total} distinct texts, {self.rendered} synthesised now, "
            f"{self.cached} already there ({self.seconds:.1f} s)."
        )


@dataclass(frozen=True)
class PrepareReport:
    """What preparing the voice did before the game."""

    pieces: int
    from_pack: int
    build: BuildReport | None

    def describe(self) -> str:
        """One line for a person."""
        parts = [f"{self.pieces} pieces ready ({self.from_pack} from the voice pack)."]
        if self.build is not None:
            parts.append(self.build.describe())
        return " ".join(parts)

    def said(self, book: PhraseBook) -> str:
        """The same in the book's language: what is ready, and what the cache did."""
        parts = [book.screen("phrases_ready", {"pieces": self.pieces, "pack": self.from_pack})]
        if self.build is not None:
            build = self.build
            parts.append(
                book.screen(
                    "phrases_cache",
                    {
                        "folder": build.folder,
                        "total": build.rendered + build.cached,
                        "rendered": build.rendered,
                        "cached": build.cached,
                        "seconds": f"{build.seconds:.1f}",
                    },
                )
            )
        return " ".join(parts)


def settings_cache(settings: Settings) -> AudioCache:
    """The audio cache the settings describe (espeak-ng voice, folder); nothing is read yet.

    Neither this module nor the check of a full cache imports numpy: `voicehost phrases
    build` with a full cache costs about what `voicehost --help` does.
    """
    choice = voice_choice(settings)
    return AudioCache(
        settings.path(settings.voice.cache_dir),
        choice,
        engine_version(),
        lambda: EspeakSynthesizer(choice),
        espeak_workers=4,
    )


def cache_key(text: str, choice: VoiceChoice, engine_version: str) -> str:
    """The hash that names the cache file of ``text`` spoken with ``choice``."""
    identity = {
        "format": CACHE_FORMAT,
        "text": text,
        "voice": choice.voice,
        "rate": choice.rate,
        "volume": round(choice.volume, 4),
        "engine": engine_version,
    }
    encoded = json.dumps(identity, ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()[:32]


class AudioCache:
    """Rendered texts on disk for one voice; ``synthesizer`` is started only when needed."""

    def __init__(
        self,
        folder: Path,
        choice: VoiceChoice,
        engine_version: str,
        synthesizer: Callable[[], Synthesizer],
        *,
        espeak_workers: int = 1,
    ) -> None:
        self.folder = folder
        self.choice = choice
        self.engine_version = engine_version
        self._make_synthesizer = synthesizer
        self._synthesizer: Synthesizer | None = None
        self.espeak_workers = espeak_workers

    def path_for(self, text: str) -> Path:
        """Where ``text``'s audio is (or would be) kept."""
        return self.folder / f"{cache_key(text, self.choice, self.engine_version)}.wav"

    def has(self, text: str) -> bool:
        """True when ``text`` is cached in a whole file (a broken one counts as missing)."""
        return self._problem(text) is None

    def load(self, text: str) -> Clip | None:
        """The cached audio of ``text``, or None when it is not there (or broken)."""
        from voicehost.clips import AudioFileError, read_wav  # numpy: only to read audio

        path = self.path_for(text)
        if self._problem(text) is not None:
            return None
        try:
            return read_wav(path)
        except AudioFileError as exc:
            log.warning("%s; rendering it again", exc, extra=LOG_ONLY)
            return None

    def _problem(self, text: str) -> str | None:
        """Why the cache has no usable file for ``text`` (None when it has one)."""
        path = self.path_for(text)
        if not path.exists():
            return "missing"
        problem = check_wav(path, text, self.choice.rate)
        if problem is not None:
            log.warning(
                "the cached audio of «%s» (%s) is broken: %s; rendering it again",
                text,
                path,
                problem,
                extra=LOG_ONLY,  # repaired at once: nothing for the table to do
            )
        return problem

    def render(self, text: str) -> Clip:
        """Synthesise ``text`` now and keep it; returns the stored clip."""
        from voicehost.clips import trim_silence

        clip = trim_silence(self.synthesizer().render(text))
        self._store(text, clip)
        return clip

    def get(self, text: str) -> tuple[Clip, bool]:
        """The clip of ``text`` and whether it had to be synthesised now."""
        clip = self.load(text)
        if clip is not None:
            return clip, False
        return self.render(text), True

    def fill(self, texts: Iterable[str]) -> BuildReport:
        """Synthesise every text not yet cached.

        With ``espeak_workers`` > 1 and many texts missing, espeak-ng runs in that many worker
        processes (espeak-ng is one engine per process); a fresh cache then builds in about
        half the time on two cores.
        """
        started = time.perf_counter()
        unique = list(dict.fromkeys(texts))
        missing = [text for text in unique if not self.has(text)]
        if self.espeak_workers > 1 and len(missing) >= PARALLEL_MINIMUM:
            self._fill_in_processes(missing)
        else:
            for text in missing:
                self.render(text)
        elapsed = time.perf_counter() - started
        return BuildReport(len(missing), len(unique) - len(missing), elapsed, self.folder)

    def _fill_in_processes(self, missing: list[str]) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        workers = min(self.espeak_workers, len(missing) // (PARALLEL_MINIMUM // 2))
        batches = [missing[index::workers] for index in range(workers)]
        context = multiprocessing.get_context("spawn")  # a fresh espeak-ng in each worker
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            jobs = [
                pool.submit(_render_batch, self.folder, self.choice, self.engine_version, batch)
                for batch in batches
            ]
            for job in jobs:
                job.result()  # re-raises a worker's error (a missing voice) here

    def synthesizer(self) -> Synthesizer:
        """The synthesizer, started on first use."""
        if self._synthesizer is None:
            self._synthesizer = self._make_synthesizer()
        return self._synthesizer

    def _store(self, text: str, clip: Clip) -> None:
        from voicehost.clips import write_wav

        path = self.path_for(text)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            write_wav(clip, partial)
            partial.replace(path)  # atomic: a power cut never leaves half a file under the name
        except OSError as exc:
            raise CacheError(
                f"cannot write the audio cache in {self.folder} ({exc.strerror}); "
                "make the folder writable or set voice.cache_dir in config.yaml"
            ) from exc


def _render_batch(folder: Path, choice: VoiceChoice, engine_version: str, texts: list[str]) -> int:
    """A worker process: render ``texts`` into the cache with its own espeak-ng."""
    cache = AudioCache(folder, choice, engine_version, lambda: EspeakSynthesizer(choice))
    for text in texts:
        if not cache.has(text):
            cache.render(text)
    return len(texts)
