"""Announcements as audio: an ``Utterance`` becomes one clip, ready before the game needs it.

Each piece comes from the voice pack when the pack has it, otherwise from the audio cache. The
pieces are levelled one by one to ``audio.target_loudness_dbfs`` (so a recorded «пять» and a
synthesised «Слово игроку номер» sound equally loud), then joined with the pauses the full
text's punctuation asks for.

``prepare()`` runs before the game: it makes sure every piece is in the cache (whole, by its
headers), so saying a phrase in the game is never synthesis. A piece is read and levelled the
first time it is said (about half a millisecond) and kept in memory; a game start reads none of
them, and the pieces a game never says are never read. A piece nobody predicted is synthesised
once, with a warning that names it and the fix.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from voicehost.clips import Clip, concatenate, normalise, resample, silence
from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.notices import notice
from voicehost.ports import Pause, Segment, Utterance
from voicehost.voice_out.cache import AudioCache, PrepareReport, settings_cache
from voicehost.voice_out.voicepack import VoicePack, phrase_of

log = logging.getLogger(__name__)

SENTENCE_PAUSE_SECONDS = 0.30
"""Pause between pieces where the text ends a sentence (``.``, ``!``, ``?``)."""

CLAUSE_PAUSE_SECONDS = 0.15
"""Pause where the text has a comma, colon, semicolon or dash."""

WORD_PAUSE_SECONDS = 0.04
"""Pause between pieces of one clause («игроку номер» | «пять»)."""

COUNT_PAUSE_SECONDS = 0.6
"""Pause after a piece that ends with «…»: the words of the count «Раз… два… три!»
(``voice.count_pause_seconds`` sets it)."""


def pauses_between(utterance: Utterance, count_pause: float = COUNT_PAUSE_SECONDS) -> list[float]:
    """The silence after each segment but the last, from the pause each segment carries; a
    piece ending with «…» (a word of the count) is followed by ``count_pause``."""
    seconds = {
        Pause.WORD: WORD_PAUSE_SECONDS,
        Pause.CLAUSE: CLAUSE_PAUSE_SECONDS,
        Pause.SENTENCE: SENTENCE_PAUSE_SECONDS,
        Pause.COUNT: count_pause,
        Pause.END: WORD_PAUSE_SECONDS,  # not the last piece: a piece of a longer list
    }
    return [seconds[segment.pause_after] for segment in utterance.segments[:-1]]


class SpeechLibrary:
    """Pieces of speech in memory, levelled, at the output's rate."""

    def __init__(
        self,
        *,
        rate: int,
        target_dbfs: float,
        cache: AudioCache | None,
        pack: VoicePack | None = None,
        count_pause: float = COUNT_PAUSE_SECONDS,
    ) -> None:
        self.rate = rate
        self.count_pause = count_pause
        self.target_dbfs = target_dbfs
        self.cache = cache
        self.pack = pack
        self._by_text: dict[str, Clip] = {}
        self._prepared: set[str] = set()
        """Texts ``prepare()`` put in the cache, not yet read."""
        self._pack_clips: dict[str, Clip] = {}
        self._pack_key_for_text: dict[str, str] = {}
        self.live_syntheses: list[str] = []

    # --- before the game ---

    def prepare(self, segments: Iterable[Segment]) -> PrepareReport:
        """Fill the cache for every piece the pack lacks; each is read when first said."""
        pieces = list(segments)
        self._index_pack(pieces)
        to_synthesise = [p.text for p in pieces if self._pack_key(p) is None]
        build = self.cache.fill(to_synthesise) if self.cache is not None else None
        self._prepared.update(to_synthesise)
        from_pack = len(pieces) - len(to_synthesise)
        return PrepareReport(len(pieces), from_pack, build)

    def _index_pack(self, pieces: list[Segment]) -> None:
        if self.pack is None:
            return
        for piece in pieces:
            if self.pack.has(piece.key):
                self._pack_key_for_text.setdefault(piece.text, piece.key)

    # --- in the game ---

    def utterance_clip(self, utterance: Utterance) -> Clip:
        """The whole announcement as one clip (never raises: a failed piece is silence)."""
        whole = self._whole_phrase(utterance)
        if whole is not None:
            return whole
        clips = [self.segment_clip(segment) for segment in utterance.segments]
        return concatenate(clips, pauses_between(utterance, self.count_pause), self.rate)

    def segment_clip(self, segment: Segment) -> Clip:
        """One piece: from the pack, from memory, or (with a warning) synthesised now."""
        key = self._pack_key(segment)
        if key is not None:
            return self._from_pack(key)
        clip = self._by_text.get(segment.text)
        if clip is None:
            clip = self._cached(segment.text) if segment.text in self._prepared else None
            if clip is None:  # unprepared, or its file went missing since
                clip = self._late(segment)
            self._by_text[segment.text] = clip
        return clip

    def _whole_phrase(self, utterance: Utterance) -> Clip | None:
        """A pack recording of the whole phrase, when the phrase is made of its own text only."""
        if self.pack is None or not self.pack.has(utterance.key):
            return None
        if any(phrase_of(segment.key) != utterance.key for segment in utterance.segments):
            return None  # placeholders: a whole-phrase file cannot say the numbers
        return self._from_pack(utterance.key)

    def _pack_key(self, segment: Segment) -> str | None:
        if self.pack is None:
            return None
        if self.pack.has(segment.key):
            return segment.key
        return self._pack_key_for_text.get(segment.text)

    def _from_pack(self, key: str) -> Clip:
        clip = self._pack_clips.get(key)
        if clip is None:
            assert self.pack is not None
            try:
                clip = self._level(self.pack.clip(key, self.rate))
            except VoicehostError as exc:
                log.error(
                    "voice pack: %s; this piece stays silent",
                    exc,
                    extra=notice("pack_piece_broken", reason=exc),
                )
                clip = silence(0, self.rate)
            self._pack_clips[key] = clip
        return clip

    def _cached(self, text: str) -> Clip | None:
        """A prepared piece read from the cache and levelled (None: its file is gone)."""
        assert self.cache is not None
        clip = self.cache.load(text)
        return None if clip is None else self._level(clip)

    def _late(self, segment: Segment) -> Clip:
        """A piece nobody prepared: synthesise it once now, and say so."""
        if self.cache is None:
            log.error(
                "no voice for «%s» (%s): nothing synthesises it",
                segment.text,
                segment.key,
                extra=notice("no_voice", text=segment.shown),
            )
            return silence(0, self.rate)
        try:
            clip, fresh = self.cache.get(segment.text)
        except VoicehostError as exc:
            log.error(
                "cannot synthesise «%s» (%s): %s",
                segment.text,
                segment.key,
                exc,
                extra=notice("cannot_synthesise", text=segment.shown, reason=exc),
            )
            return silence(0, self.rate)
        if fresh:
            self.live_syntheses.append(segment.key)
            log.warning(
                "«%s» (%s) was not in the audio cache and was synthesised during the game; "
                "run `voicehost phrases build` before the next one",
                segment.text,
                segment.key,
                extra=notice("synthesised_late", text=segment.shown),
            )
        return self._level(clip)

    def _level(self, clip: Clip) -> Clip:
        return normalise(resample(clip, self.rate), self.target_dbfs)


def speech_library(settings: Settings) -> SpeechLibrary:
    """The library the settings describe: espeak-ng voice, cache folder, voice pack, loudness.

    Nothing is synthesised or decoded yet; ``prepare()`` does that before the game.
    """
    cache = settings_cache(settings)
    pack = VoicePack.load(settings.path(settings.voice.pack)) if settings.voice.pack else None
    return SpeechLibrary(
        rate=settings.audio.sample_rate,
        target_dbfs=settings.audio.target_loudness_dbfs,
        cache=cache,
        pack=pack,
        count_pause=settings.voice.count_pause_seconds,
    )
