"""Voice packs: recordings replace phrases and pieces, at the synthesis's loudness."""

from __future__ import annotations

import dataclasses
import subprocess

import numpy as np
import pytest
from voice_out_kit import speech_loudness, write_config

from voicehost.__main__ import main
from voicehost.clips import Clip, normalise, write_wav
from voicehost.ports import Segment
from voicehost.voice_out.speech import speech_library
from voicehost.voice_out.voicepack import VoicePack, VoicePackError, slot_limit

TARGET = -18.0


def quiet_recording(voice, text: str, gain: float = 0.2) -> Clip:
    """A 'recording': another voice, much quieter than synthesis, with silence around it."""
    spoken = voice.render(text)
    padding = np.zeros(spoken.rate // 2, dtype=np.float32)
    return Clip(np.concatenate([padding, spoken.samples * gain, padding]), spoken.rate)


def save(clip: Clip, path) -> None:
    """Write wav, or encode through ffmpeg for .ogg / .mp3."""
    if path.suffix == ".wav":
        write_wav(clip, path)
        return
    wav = path.with_suffix(".tmp.wav")
    write_wav(clip, wav)
    subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-i", str(wav), str(path)], check=True)
    wav.unlink()


@pytest.fixture
def pack(tmp_path, en_voice):
    folder = tmp_path / "pack"
    folder.mkdir()
    save(quiet_recording(en_voice, "five"), folder / "num.m.5.ogg")
    save(quiet_recording(en_voice, "Let us go on with the game.", 0.5), folder / "game.resumed.mp3")
    save(quiet_recording(en_voice, "Player"), folder / "day.speech_nomination#0.wav")
    return folder


@pytest.fixture
def pack_library(settings, ru_book, pack):
    voice = dataclasses.replace(settings.voice, pack=str(pack))
    with_pack = dataclasses.replace(settings, voice=voice)
    library = speech_library(with_pack)
    library.prepare(ru_book.all_segments())
    return library


def test_a_recorded_piece_replaces_synthesis_and_serves_the_same_text(pack_library, ru_book):
    recorded = pack_library.segment_clip(Segment("num.m.5", "пять"))
    assert recorded.duration > 0.35  # English "five" is longer than espeak's «пять» (0.24 s)
    same_text = pack_library.segment_clip(Segment("num.f.5", "пять"))
    assert np.array_equal(same_text.samples, recorded.samples)
    utterance = ru_book.render("day.speech_nomination", {"seat": 5})
    whole = pack_library.utterance_clip(utterance)
    opening = pack_library.segment_clip(utterance.segments[0])
    assert whole.duration == pytest.approx(opening.duration + 0.04 + recorded.duration, abs=0.01)


def test_recordings_and_synthesis_play_at_one_level(pack_library):
    recorded = pack_library.segment_clip(Segment("num.m.5", "пять"))
    synthesised = pack_library.segment_clip(Segment("night.mafia_wakes#0", "Просыпается мафия!"))
    assert speech_loudness(recorded) == pytest.approx(TARGET, abs=1.0)
    assert speech_loudness(synthesised) == pytest.approx(TARGET, abs=1.0)
    assert speech_loudness(recorded) == pytest.approx(speech_loudness(synthesised), abs=1.0)


def test_a_whole_phrase_file_replaces_a_phrase_without_placeholders(pack_library, ru_book):
    resumed = pack_library.utterance_clip(ru_book.render("game.resumed"))
    assert resumed.duration > 1.2  # the recording, not espeak's «Продолжаем игру.» (0.9 s)
    paused = pack_library.utterance_clip(ru_book.render("game.paused"))
    assert paused.duration < 0.8  # not in the pack: synthesis


def test_levelling_never_clips():
    loud_quiet = np.concatenate([np.full(2205, 0.9), np.full(22050, 0.01)]).astype(np.float32)
    levelled = normalise(Clip(loud_quiet, 22050), -6.0)
    assert np.max(np.abs(levelled.samples)) <= 1.0


def test_a_pack_folder_that_does_not_exist_says_so(tmp_path):
    with pytest.raises(VoicePackError, match="does not exist"):
        VoicePack.load(tmp_path / "nowhere")


def test_two_files_for_one_key_are_refused(pack):
    (pack / "num.m.5.wav").write_bytes(b"")
    with pytest.raises(VoicePackError, match="num.m.5.ogg and num.m.5.wav"):
        VoicePack.load(pack)


def test_phrases_check_lists_missing_unknown_unusable_and_too_long(
    tmp_path, pack, en_voice, warm_cache_dir, capsys
):
    long_seven = quiet_recording(en_voice, "seven, I said seven, number seven", 0.5)
    save(long_seven, pack / "num.m.7.wav")
    save(quiet_recording(en_voice, "typo"), pack / "num.m.five.wav")
    save(quiet_recording(en_voice, "player leaves"), pack / "day.leaves.wav")
    config = write_config(tmp_path, warm_cache_dir)
    assert main(["--config", str(config), "phrases", "check", str(pack)]) == 1
    report = capsys.readouterr().out
    # the default config's language is ru: the report is the Russian book's
    assert "Нет записи (" in report and "num.m.0..4" in report and "day.defence#0" in report
    assert "num.m.5," not in report  # recorded
    assert "Слишком длинный: num.m.7" in report and "1.5 с" in report
    assert "Лишний файл: num.m.five.wav" in report
    assert "Не годится: day.leaves.wav" in report and "day.leaves#0" in report
    for name in ("num.m.7.wav", "num.m.five.wav", "day.leaves.wav"):
        (pack / name).unlink()
    assert main(["--config", str(config), "phrases", "check", str(pack)]) == 0
    assert "Все файлы годятся." in capsys.readouterr().out


@pytest.mark.parametrize(
    ("key", "seconds"),
    [
        ("num.m.5", 1.5),
        ("form.голоса", 1.5),
        ("word.mafia", 2.0),
        ("day.speech_nomination#0", 4.0),
        ("day.defence", 4.0),
        ("night.mafia_wakes", 4.0),
        ("day.vote_for#1", 6.0),
        ("game.start#0", 12.0),
    ],
)
def test_slot_limits(key, seconds):
    assert slot_limit(key).seconds == seconds


class HeardInOrder:
    """A player that keeps every clip it is given."""

    def __init__(self) -> None:
        self.clips: list[Clip] = []

    def play(self, clip: Clip) -> None:
        self.clips.append(clip)

    def close(self) -> None:
        self.closed = True


def test_rehearse_compare_plays_each_phrase_synthetic_then_recorded(settings, ru_book, pack):
    import io

    from voicehost.cli.rehearse import compare, sample_params

    with_pack = dataclasses.replace(
        settings, voice=dataclasses.replace(settings.voice, pack=str(pack))
    )
    keys = ["game.resumed", "day.speech_nomination"]
    utterances = [(key, ru_book.render(key, sample_params(ru_book, key))) for key in keys]
    heard, out = HeardInOrder(), io.StringIO()
    assert compare(with_pack, ru_book, utterances, iter(["n", "q"]), out, heard) == 0
    synthetic = speech_library(settings)
    synthetic.prepare(ru_book.all_segments())
    recorded = speech_library(with_pack)
    recorded.prepare(ru_book.all_segments())
    expected = []
    for _, utterance in utterances:
        expected += [synthetic.utterance_clip(utterance), None, recorded.utterance_clip(utterance)]
    assert len(heard.clips) == len(expected) == 6
    for clip, wanted in zip(heard.clips, expected, strict=True):
        if wanted is None:  # the pause between the two versions
            assert clip.duration >= 0.5 and not clip.samples.any()
        else:
            assert np.array_equal(clip.samples, wanted.samples)
    # the recorded version is the pack's English take, not espeak's Russian
    assert not np.array_equal(heard.clips[0].samples, heard.clips[2].samples)
    assert out.getvalue().count("сначала синтезатор, затем запись") == 2  # the ru book


def test_phrases_check_says_what_each_table_size_lacks(tmp_path, warm_cache_dir, ru_book, capsys):
    from voicehost.voice_out.recording import game_numbers, game_pieces

    folder = tmp_path / "pack"
    folder.mkdir()
    tone = Clip((0.2 * np.sin(np.arange(4410) / 5.0)).astype(np.float32), 22050)
    lacking = {"num.m.12", "num.m.13", "word.and"}
    pieces = game_pieces(ru_book.all_segments(), game_numbers(13))
    for piece in pieces:
        if piece.key not in lacking:
            write_wav(tone, folder / f"{piece.key}.wav")
    config = write_config(tmp_path, warm_cache_dir)
    assert main(["--config", str(config), "phrases", "check", str(folder)]) == 0
    report = capsys.readouterr().out.splitlines()
    assert [line for line in report if line.startswith("Для ")] == [
        *(f"Для {seats} игроков нет записи 1 фрагмента: word.and" for seats in range(8, 12)),
        "Для 12 игроков нет записи 2 фрагментов: word.and, num.m.12",
        "Для 13 игроков нет записи 3 фрагментов: word.and, num.m.12..13",
    ]
    # every piece of the book but the three left out (the club's and FIIM's phrases alike)
    files = f"файлов: {len(pieces) - len(lacking)}."
    assert any(line.startswith("Общая длина: ") and files in line for line in report)
