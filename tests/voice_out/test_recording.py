"""Recording takes: refusals, trimming, levelling and joins, on real espeak-ng speech.

The takes are espeak-ng Russian speech with a quiet room's hiss, padded with silence, fed as a
microphone would deliver them (``ArrayReader``; the ALSA file device is in test_record_alsa.py).
"""

from __future__ import annotations

import contextlib
import json
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from take_kit import RATE, clipped, good, hiss, quiet, room, speech, to_int16

from voicehost.clips import Clip, loudness_dbfs, trim_silence, write_wav
from voicehost.phrases import PhraseBook
from voicehost.voice_out.recording import (
    SHORTEST_WORD_SECONDS,
    ArrayReader,
    Manifest,
    RecordingSession,
    assess_take,
    capture_take,
    espeak_phonemes,
    game_numbers,
    game_pieces,
    mark_stress,
    measure_join,
    phrase_fingerprints,
    slot_seconds,
    stress_marks,
    with_audible_guides,
)
from voicehost.voice_out.speech import WORD_PAUSE_SECONDS, SpeechLibrary
from voicehost.voice_out.tts import EspeakSynthesizer
from voicehost.voice_out.voicepack import VoicePack, VoicePackError, export_pack, import_pack

TARGET = -18.0
CLICK_LIMIT = 0.01
"""Largest sample step allowed at a seam (full scale 1.0); speech itself steps far more."""


def take(samples: np.ndarray, slot: float = 3.0):
    reader = ArrayReader(to_int16(samples), RATE)
    return assess_take(capture_take(reader, slot * 2 + 1), slot, TARGET)


def test_a_good_take_is_trimmed_to_the_speech_and_levelled() -> None:
    said = speech("Слово игроку номер")
    result = take(good("Слово игроку номер"))
    assert result.refusal is None and result.clip is not None
    assert loudness_dbfs(result.clip) == pytest.approx(TARGET, abs=0.5)
    # espeak's own output is padded; the take keeps the speech and sheds the room's silence
    assert 0.6 * len(said) / RATE < result.clip.duration < len(said) / RATE + 0.1
    assert result.clip.samples[0] == 0.0 and result.clip.samples[-1] == 0.0


@pytest.mark.parametrize(
    ("samples", "reason"),
    [
        (clipped("Слово игроку номер"), "clips"),
        (quiet("Слово игроку номер"), "too quiet"),
        (hiss(1.0), "mostly noise"),
        (good("Свободное обсуждение. У вас три минуты."), "too long"),
        (np.zeros(RATE * 10), "heard nothing"),
    ],
    ids=["clipping", "quiet", "hiss", "too-long", "silence"],
)
def test_a_bad_take_is_refused_with_its_reason(samples: np.ndarray, reason: str) -> None:
    result = take(samples, slot=slot_seconds("num.m.7", 0.45))
    assert result.refusal is not None and reason in result.refusal
    assert result.clip is None


def test_the_slot_follows_the_synthetic_length_within_the_pack_limit() -> None:
    assert slot_seconds("num.m.7", 0.4) == pytest.approx(1.4)
    assert slot_seconds("night.start#0", 3.0) == 4.0  # the night's limit
    assert slot_seconds("game.start#0", 1.0) == pytest.approx(2.6)


def joined_sentence(tmp_path: Path, library_factory) -> tuple[Clip, Clip, Clip]:
    """«Слово игроку номер» and «семь», recorded at different levels, spoken as the game does."""
    first = take(room(speech("Слово игроку номер"), 0.25, seed=1)).clip
    second = take(room(speech("семь"), 0.8, seed=2), slot=1.4).clip
    assert first is not None and second is not None
    pack = tmp_path / "pack"
    pack.mkdir()
    write_wav(first, pack / "day.speech_nomination#0.wav")
    write_wav(second, pack / "num.m.7.wav")
    library = library_factory(VoicePack.load(pack))
    book = PhraseBook.load("ru")
    whole = library.utterance_clip(book.render("day.speech_nomination", {"seat": 7}))
    return whole, library._from_pack("day.speech_nomination#0"), library._from_pack("num.m.7")


@pytest.fixture
def pack_library(library: SpeechLibrary):
    def make(pack: VoicePack) -> SpeechLibrary:
        made = SpeechLibrary(rate=library.rate, target_dbfs=TARGET, cache=library.cache, pack=pack)
        made.prepare(PhraseBook.load("ru").all_segments())
        return made

    return make


def test_pieces_recorded_apart_join_as_one_sentence(tmp_path: Path, pack_library) -> None:
    whole, first, second = joined_sentence(tmp_path, pack_library)
    gap = round(WORD_PAUSE_SECONDS * whole.rate)
    assert whole.frames == first.frames + gap + second.frames
    seam = measure_join(first, second, WORD_PAUSE_SECONDS)
    assert seam.click < CLICK_LIMIT, seam
    assert seam.level_step_db < 1.0, seam
    # the same, measured in the sentence the table hears
    before = Clip(whole.samples[: first.frames], whole.rate)
    after = Clip(whole.samples[first.frames + gap :], whole.rate)
    assert abs(loudness_dbfs(before) - loudness_dbfs(after)) < 1.0
    near = round(0.001 * whole.rate)
    for edge in (first.frames, first.frames + gap):
        assert np.max(np.abs(np.diff(whole.samples[edge - near : edge + near]))) < CLICK_LIMIT


def test_the_click_measure_hears_a_cut_made_without_fades() -> None:
    voiced = speech("семь")
    loudest = int(np.argmax(np.abs(voiced)))
    cut = Clip(voiced[: loudest + 1], RATE)  # ends mid-vowel, on its loudest sample
    assert measure_join(cut, Clip(voiced, RATE), 0.04).click > CLICK_LIMIT


def test_stress_marks_from_espeak_or_from_the_book() -> None:
    marked = mark_stress("Слово игроку номер", espeak_phonemes("Слово игроку номер"))
    assert marked == "Сло\u0301во игроку\u0301 но\u0301мер"
    assert mark_stress("Сл+ово", None) == "Сло\u0301во"
    assert mark_stress("пять", "p'at;") == "пять"  # one syllable: nothing to mark
    assert mark_stress("нашёл", "naS'ol") == "нашёл"  # «ё» is always stressed


def test_a_word_espeak_says_too_fast_is_guided_drawn_out(ru_voice: EspeakSynthesizer) -> None:
    book = PhraseBook.load("ru")
    pieces = game_pieces(book.all_segments(), game_numbers(13))

    def seconds(text: str) -> float:
        return trim_silence(ru_voice.render(text)).duration

    guided = with_audible_guides(pieces, lambda p: seconds(p.text), espeak_phonemes)
    drawn = {piece.key: piece for piece in guided if piece.guide}
    assert list(drawn) == ["word.and"]  # only «и» is said faster than a person says it
    word = drawn["word.and"]
    assert seconds(word.text) < SHORTEST_WORD_SECONDS <= seconds(word.guide_text)
    assert word.guide.startswith("[[") and word.text == word.shown == "и"  # the book's word
    assert [p.text for p in guided] == [p.text for p in pieces]  # manifest, --missing unchanged


def test_the_screen_shows_the_written_word_never_phonemes(tmp_path: Path) -> None:
    book = PhraseBook.load("ru")
    wanted = ("form.голоса", "morning.saved#0", "word.and")
    pieces = [p for p in game_pieces(book.all_segments(), game_numbers(10)) if p.key in wanted]
    assert "[[" in pieces[0].text + pieces[1].text  # the synthesiser is given phonemes
    pieces = [*pieces[:2], replace(pieces[2], guide="[['i:]]")]
    takes = [good(p.guide_text) for p in pieces]
    reader = ArrayReader(to_int16(np.concatenate(takes)), RATE)
    manifest = Manifest.new("ru", "", phrase_fingerprints(book.all_segments(), book.keys()))
    marks = stress_marks(pieces, espeak_phonemes)
    for stress in (marks, None):
        out = _Out()
        session = RecordingSession(
            tmp_path, manifest, reader, Silent(), {}, target_dbfs=TARGET, stress=stress
        )
        session.run(pieces, iter(["s", "s", "s"]), out)
        assert "[[" not in out.text
        lines = [line.strip() for line in out.text.splitlines()]
        if stress is None:
            assert {"голоса", "Этой ночью доктор спас жителя города.", "и"} <= set(lines)
        else:
            assert {"го\u0301лоса", "и"} <= set(lines)
            assert "жи\u0301теля го\u0301рода." in out.text


def test_game_pieces_come_from_the_book() -> None:
    book = PhraseBook.load("ru")
    pieces = game_pieces(book.all_segments(), game_numbers(13))
    keys = {piece.key for piece in pieces}
    texts = [piece.text for piece in pieces]
    assert len(texts) == len(set(texts))  # each text recorded once
    assert {"num.m.1", "num.m.13", "num.f.1", "form.голосов", "word.mafia"} <= keys
    assert "day.speech_nomination#0" in keys and "num.m.14" not in keys
    assert all(not key.startswith("num.") or int(key.rsplit(".", 1)[1]) <= 13 for key in keys)


class Silent:
    def __init__(self) -> None:
        self.played: list[float] = []

    def play(self, clip: Clip) -> None:
        self.played.append(clip.duration)


def test_a_session_keeps_redoes_skips_goes_back_and_quits(tmp_path: Path) -> None:
    book = PhraseBook.load("ru")
    pieces = [p for p in game_pieces(book.all_segments(), game_numbers(10)) if p.kind == "word"]
    texts = [p.text for p in pieces]
    takes = [clipped(texts[0]), good(texts[0]), good(texts[1]), good(texts[2])]
    takes += [good(texts[1]), good(texts[2]), good(texts[3])]
    reader = ArrayReader(to_int16(np.concatenate(takes)), RATE)
    manifest = Manifest.new("ru", "Ирина", phrase_fingerprints(book.all_segments(), book.keys()))
    session = RecordingSession(tmp_path, manifest, reader, Silent(), {}, target_dbfs=TARGET)
    # 1: refused, again, keep; 2: keep; 3: back; 2: keep again; 3: skip; 4: quit
    report = session.run(pieces, iter(["r", "k", "k", "b", "k", "s", "q"]), _Out())
    assert report.kept == [pieces[0].key, pieces[1].key, pieces[1].key]
    assert report.skipped == [pieces[2].key] and report.quit
    assert [reason.split()[1] for _, reason in report.refusals] == ["clips"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["pack.json", f"{pieces[0].key}.wav", f"{pieces[1].key}.wav"]
    )
    saved = json.loads((tmp_path / "pack.json").read_text(encoding="utf-8"))
    assert saved["voice"] == "Ирина" and saved["pieces"][pieces[0].key] == texts[0]


class _Out:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


def test_an_older_pack_says_which_phrases_changed(tmp_path: Path) -> None:
    book = PhraseBook.load("ru")
    segments = book.all_segments()
    prints = phrase_fingerprints(segments, book.keys())
    manifest = Manifest.new("ru", "", prints)
    manifest.pieces["day.speech_nomination#0"] = "Слово игроку"  # the older wording
    manifest.phrases["day.speech_nomination"] = "0" * 12
    manifest.write(tmp_path)
    again = Manifest.read(tmp_path)
    assert again is not None
    texts = {s.key: s.text for s in segments}
    assert again.changed_pieces(texts) == ["day.speech_nomination#0"]
    assert again.changed_phrases(prints) == ["day.speech_nomination"]


def test_a_pack_travels_as_a_zip(tmp_path: Path) -> None:
    folder = tmp_path / "pack"
    folder.mkdir()
    write_wav(Clip(speech("семь"), RATE), folder / "num.m.7.wav")
    Manifest.new("ru", "Ирина", {}).write(folder)
    archive = tmp_path / "pack.zip"
    assert export_pack(folder, archive) == 2
    assert import_pack(archive, tmp_path / "copy") == 2
    assert (tmp_path / "copy" / "num.m.7.wav").read_bytes() == (folder / "num.m.7.wav").read_bytes()


def test_import_never_overwrites_the_folders_own_recordings_unless_asked(tmp_path: Path) -> None:
    shared, ours = tmp_path / "shared", tmp_path / "ours"
    shared.mkdir()
    ours.mkdir()
    write_wav(Clip(speech("семь"), RATE), shared / "num.m.7.wav")
    archive = tmp_path / "pack.zip"
    export_pack(shared, archive)
    write_wav(Clip(speech("пять"), RATE), ours / "num.m.7.wav")  # the club's own take
    own = (ours / "num.m.7.wav").read_bytes()
    with pytest.raises(VoicePackError, match="already holds other recordings of 1 of these"):
        import_pack(archive, ours)
    assert (ours / "num.m.7.wav").read_bytes() == own  # nothing was lost
    assert import_pack(archive, tmp_path / "copy") == 1  # the same archive, twice: no clash
    assert import_pack(archive, tmp_path / "copy") == 1
    assert import_pack(archive, ours, replace=True) == 1
    assert (ours / "num.m.7.wav").read_bytes() == (shared / "num.m.7.wav").read_bytes()


@pytest.mark.parametrize(
    ("name", "data", "why"),
    [
        ("../evil.wav", b"RIFF\0\0\0\0WAVE", "top level only"),
        ("/etc/evil.wav", b"RIFF\0\0\0\0WAVE", "top level only"),
        ("sub/num.m.7.wav", b"RIFF\0\0\0\0WAVE", "top level only"),
        ("run.sh", b"#!/bin/sh", "WAV files and pack.json only"),
        ("num.m.7.wav", b"ID3 an mp3 in disguise", "not a WAV file"),
    ],
)
def test_import_refuses_escapes_and_non_wav_members(
    tmp_path: Path, name: str, data: bytes, why: str
) -> None:
    archive = tmp_path / "bad.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("num.m.5.wav", b"RIFF\0\0\0\0WAVE")
        zipped.writestr(name, data)
    target = tmp_path / "into"
    with pytest.raises(VoicePackError, match=why):
        import_pack(archive, target)
    assert not target.exists()  # nothing was written


@hsettings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# zipfile itself cuts a name at its first NUL and cannot write an empty one: those names are
# not archives anybody can make.
@given(name=st.text(min_size=1, max_size=30).filter(lambda name: name.split("\0")[0] != ""))
def test_import_never_writes_outside_the_folder(tmp_path: Path, name: str) -> None:
    # zipfile cuts a name at its first NUL, writing and reading alike; a name that is empty
    # before it cannot be put in a zip at all (writestr raises IndexError)
    assume(name.split("\0", 1)[0])
    archive = tmp_path / "fuzz.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr(name, b"RIFF\0\0\0\0WAVE")
    target = tmp_path / "into"
    before = {p for p in tmp_path.rglob("*") if not p.is_relative_to(target)}
    with contextlib.suppress(VoicePackError):
        import_pack(archive, target)
    after = {p for p in tmp_path.rglob("*") if not p.is_relative_to(target)}
    assert after == before
    for written in target.rglob("*") if target.exists() else []:
        assert written.parent == target
