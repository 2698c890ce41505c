"""`voicehost listen --wav`: every word with its time, and every decision, from a recording."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from voicehost.__main__ import main
from voicehost.testing.alsa import alsa_microphone
from voicehost.testing.words import latin_words

RATE = 16000


def write_wav(path: Path, samples: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(samples.astype("<i2").tobytes())
    return path


def run_listen(
    tmp_path: Path,
    korean_folder: Path,
    wav: Path,
    *extra: str,
    vad: str = "auto",
    language: str = "en",
) -> int:
    config = tmp_path / "config.yaml"
    config.write_text(
        f"language: {language}\nlistener:\n  silence_seconds: 0.6\n  vad: {vad}\n", "utf-8"
    )
    arguments = ["--config", str(config), "listen", "--wav", str(wav)]
    return main([*arguments, "--model", str(korean_folder), "--words", "감사합니다,패스", *extra])


SPEECH = [0.5, "저는 오번을 의심해요", 0.8, "감사합니다", 0.25, "패스", 2.0]
"""A sentence, then «thank you», a breath and «pass»: the speech ends after «pass»."""


def test_listen_prints_words_and_the_decision_as_json(tmp_path, korean_folder, record, capsys, vad):
    recording = record(SPEECH)
    wav = write_wav(tmp_path / "speech.wav", recording.samples)

    assert run_listen(tmp_path, korean_folder, wav, "--json", vad=vad) == 0

    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    heard = [e for e in events if e["event"] == "word"]
    assert heard[-1]["word"] == "패스"
    assert heard[-1]["end"] == pytest.approx(recording.speech_ends[2], abs=0.2)
    decisions = [e for e in events if e["event"] == "decision"]
    # «감사합니다» had the player's voice again 0.25 s later: it is never even looked at.
    assert [d["verdict"] for d in decisions] == ["speech_ended"]
    assert decisions[0]["at"] >= recording.speech_ends[2] + 0.6
    assert events[-1]["event"] == "summary" and events[-1]["speeches_ended"] == 1
    [looks] = [e for e in events if e["event"] == "looks"]  # what this machine's looks cost
    assert looks["count"] >= 1 and looks["window_seconds"] == pytest.approx(0.4)
    assert 0 < looks["median_seconds"] <= looks["max_seconds"]


def test_listen_explains_in_plain_text(tmp_path, korean_folder, record, capsys):
    wav = write_wav(tmp_path / "speech.wav", record(SPEECH).samples)

    assert run_listen(tmp_path, korean_folder, wav) == 0

    out = capsys.readouterr().out
    assert "  감사합니다  (" not in out  # the player spoke on 0.25 s later: never looked at
    assert "SPEECH ENDED: «패스» said on its own (" in out
    assert "s of quiet before it: a short pause, so a longer window of quiet), then 1.2" in out
    assert "s without the speaker's voice" in out
    assert "Speech ends: 1 in " in out
    assert "Second looks at stretches said on their own, on this machine: " in out
    assert "the window of quiet leaves 400 ms for one" in out


def test_listen_explains_in_the_games_language(tmp_path, korean_folder, record, capsys):
    """With `language: ru` every line listen prints is Russian but the words heard."""
    wav = write_wav(tmp_path / "speech.wav", record(SPEECH).samples)

    assert run_listen(tmp_path, korean_folder, wav, language="ru") == 0

    out = capsys.readouterr().out
    assert "РЕЧЬ ЗАКОНЧЕНА: «패스» сказано отдельно (перед ним " in out
    assert (
        "с тишины: короткая пауза, окно тишины длиннее), затем 1.2" in out
        and "с без голоса говорящего" in out
    )
    assert "Концов речи: 1 за " in out
    assert "Второй взгляд на отрезки, сказанные отдельно, на этой машине: " in out
    assert out.startswith("Слушаю запись speech.wav (")
    assert latin_words(out.replace("model", "")) == [], out


def test_listen_names_a_file_that_is_not_a_wav(tmp_path, korean_folder, capsys):
    text = tmp_path / "notes.wav"
    text.write_text("not audio")

    assert run_listen(tmp_path, korean_folder, text) == 1
    assert "not a PCM WAV file" in capsys.readouterr().err


def test_listen_without_a_model_says_how_to_install_one(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text("listener:\n  models_dir: models\n", encoding="utf-8")

    assert main(["--config", str(config), "listen", "--wav", "x.wav"]) == 1
    assert "voicehost models fetch ru" in capsys.readouterr().err


@pytest.mark.slow
def test_listen_checks_the_microphone(tmp_path, korean_folder, record):
    recording = record([0.5, "저는 오번을 의심합니다", 1.0, "패스", 3.0])
    environment = alsa_microphone(tmp_path, recording.samples)
    (tmp_path / "config.yaml").write_text(
        "language: en\nlistener:\n  models_dir: models\n", encoding="utf-8"
    )
    command = [sys.executable, "-m", "voicehost", "--config", str(tmp_path / "config.yaml")]
    command += ["listen", "--seconds", "3", "--model", str(korean_folder)]
    command += ["--words", "감사합니다,패스"]

    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    assert "Listening to the microphone" in done.stdout
    assert "SPEECH ENDED: «패스» said on its own" in done.stdout
    assert "loudest:" in done.stdout


CALIBRATION_TAKES: list[list[str | float]] = [
    [0.4, "저는 오번을 의심해요", 0.5, "감사합니다"],
    [0.4, "저는 삼번을 믿어요", 0.5, "패스"],
    [0.4, "저는 오번을 의심해요", 0.3, "감사합니다"],
    [0.4, "저는 오번을 의심해요 그리고 삼번도요"],
    [0.4, "감사합니다 그리고 저는 오번을 의심해요 정말로요"],
    [0.4, "저는 그렇게 생각합니다"],
]
"""What six players say for the six prompts of one round, in the prompts' order."""


@pytest.mark.slow
def test_calibration_runs_end_to_end_through_the_microphone(tmp_path, korean_folder, record):
    take_seconds = 5.0
    room = record([3.0], noise_dbfs=-58.0, seed=3).samples
    pieces = [room]
    for index, parts in enumerate(CALIBRATION_TAKES):
        if index == 3:  # the fourth player's microphone is off at first: the room alone
            pieces.append(record([take_seconds], noise_dbfs=-58.0, seed=11).samples)
        take = record([*parts, take_seconds], noise_dbfs=-58.0, seed=index).samples
        pieces.append(take[: round(take_seconds * RATE)])
    pieces.append(np.zeros(RATE, dtype=np.int16))
    environment = alsa_microphone(tmp_path, np.concatenate(pieces))
    config = tmp_path / "config.yaml"
    config.write_text(
        "# the club's settings\nlanguage: en\nlistener:\n  silence_seconds: 1.5\n", "utf-8"
    )
    out = tmp_path / "takes"
    command = [sys.executable, "-m", "voicehost", "--config", str(config), "listen"]
    command += ["--model", str(korean_folder), "--words", "감사합니다,패스"]
    calibrate = [*command, "--calibrate", "--not-real-time", "--out", str(out)]
    # Natively about 40 s: thirteen replays of six takes. Under emulation (make pi-check) 6-10
    # times that, hence the long timeouts.
    # The host agrees to keep the takes, starts the room, steps through six takes (the fourth
    # twice: it held no voice), then agrees to write the proposal.
    answers = "y\n" + "\n" + "\n" * (len(CALIBRATION_TAKES) + 1) + "y\n"

    done = subprocess.run(
        calibrate, input=answers, env=environment, capture_output=True, text=True, timeout=1800
    )

    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    shown = done.stdout
    assert "The room's noise:" in shown
    assert shown.count("Nothing in this take was louder than the room") == 1
    assert shown.count("recorded (loudest") == len(CALIBRATION_TAKES)
    assert f"Kept the takes ({len(CALIBRATION_TAKES)}) in {out}" in shown
    assert (out.stat().st_mode & 0o777) == 0o700
    assert all((path.stat().st_mode & 0o777) == 0o600 for path in out.iterdir())
    for number in range(1, len(CALIBRATION_TAKES) + 1):
        assert f"take-{number:02d}.wav" in shown
    proposed = next(line for line in shown.splitlines() if line.startswith("Proposed: silence "))
    silence = float(proposed.split()[2])
    assert f"Written to {config}." in shown
    written = config.read_text("utf-8")
    assert written.startswith("# the club's settings\n")
    assert f"silence_seconds: {silence}" in written
    assert "room_margin_db:" in written and "speech_dbfs:" in written
    # No take that ends otherwise ends a speech with the proposed setting, and the sentence
    # that ends with «thank you» is heard.
    assert "wrong ends: 0;" in proposed

    # The kept takes replay with `listen --wav DIR` under the written settings: the same counts.
    replayed = subprocess.run(
        [*command, "--wav", str(out)], env=environment, capture_output=True, text=True, timeout=600
    )
    assert replayed.returncode == 0, replayed.stderr[-2000:]
    heard = int(proposed.split("stop words heard: ")[1].split()[0])
    assert heard >= 1
    assert f"stop words heard: {heard} of 3" in replayed.stdout, replayed.stdout
    assert "false ends: 0 in takes without a final stop word (3)" in replayed.stdout


@pytest.mark.slow
def test_calibration_without_a_microphone_says_so_before_asking_anything(tmp_path, korean_folder):
    conf = tmp_path / "asound.conf"
    conf.write_text('pcm.!default { type asym; playback.pcm "null"; capture.pcm "nosuch" }\n')
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ALSA")}
    environment["ALSA_CONFIG_PATH"] = f"/usr/share/alsa/alsa.conf:{conf}"
    config = tmp_path / "config.yaml"
    config.write_text("language: ru\n", encoding="utf-8")
    command = [sys.executable, "-m", "voicehost", "--config", str(config), "listen", "--calibrate"]
    command += ["--model", str(korean_folder), "--words", "감사합니다,패스"]

    done = subprocess.run(
        command, input="y\n", env=environment, capture_output=True, text=True, timeout=600
    )

    assert done.returncode == 1
    assert "не открывается микрофон" in done.stderr and "arecord -l" in done.stderr
    assert latin_words(done.stderr) == [], done.stderr
    assert "Traceback" not in done.stderr
    assert "Сохранить их" not in done.stdout
    assert not (tmp_path / "recordings").exists()


def test_listen_says_which_hearing_heard_each_word(capsys):
    # A stretch is heard as captured, then cleaned: a host reading the same word twice is told
    # which hearing each line is, in the game's language; JSON names it for scripts.
    from voicehost.cli.listen import Printer
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.rule import HeardWord
    from voicehost.voice_in.vosk_listener import CAPTURED, CLEANED, CLEANED_HARDER, WordsHeard

    said = (HeardWord("спасибо", 3.0, 3.6, 0.9),)
    printer = Printer(as_json=False, book=PhraseBook.load("ru"))
    for hearing in (CAPTURED, CLEANED, CLEANED_HARDER):
        printer(WordsHeard(said, hearing))
    captured, cleaned, harder = capsys.readouterr().out.splitlines()
    assert captured.endswith("спасибо  (0.90)")
    assert "очищено от шума" in cleaned and "очищено сильнее" in harder
    assert latin_words(cleaned + harder) == []

    Printer(as_json=True)(WordsHeard(said, CLEANED))
    assert json.loads(capsys.readouterr().out)["hearing"] == "cleaned"


def test_listen_marks_a_word_taken_for_a_click(capsys):
    # A host reading «ганс» before «спасибо» and then «said on its own» is told why: the rule
    # took that word for a click (under 0.2 s of the voice), in the game's language.
    from voicehost.cli.listen import Printer
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.rule import HeardWord
    from voicehost.voice_in.vosk_listener import CAPTURED, WordsHeard

    click, thanks = HeardWord("ганс", 2.9, 3.05, 0.5), HeardWord("спасибо", 3.05, 3.6, 0.9)
    Printer(as_json=False, book=PhraseBook.load("ru"))(
        WordsHeard((click, thanks), CAPTURED, (click,))
    )
    first, second = capsys.readouterr().out.splitlines()
    assert "ганс" in first and "щелчок, а не слово: меньше 0.2 с голоса" in first
    assert second.endswith("спасибо  (0.90)")

    Printer(as_json=True)(WordsHeard((click, thanks), CAPTURED, (click,)))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["click"] for line in lines] == [True, False]


def test_listen_warns_when_this_machine_looks_longer_than_the_window(capsys):
    # On a slow machine (a Pi) a look that outlasts the quiet left in the window delays the
    # end by as much: the host is told how often and by how much, and what lightens it.
    from voicehost.cli.listen import Printer, report_looks
    from voicehost.phrases import PhraseBook

    printer = Printer(as_json=False, book=PhraseBook.load("ru"))
    report_looks(printer, [0.08, 0.09, 0.35], 0.6)
    [fast] = capsys.readouterr().out.splitlines()
    assert "3 шт., медиана 90 мс процессора, максимум 350 мс" in fast and "400 мс" in fast

    report_looks(printer, [0.08, 0.5, 1.3], 0.6)
    _cost, slow = capsys.readouterr().out.splitlines()
    assert slow.startswith("Дольше окна: 2 из 3") and "до 0.90 с" in slow
    assert "listener.denoise_stronger: 0" in slow

    report_looks(printer, [0.08, 0.449], 0.6)  # 49 ms over: said, not rounded to «0.0 с»
    _cost, slow = capsys.readouterr().out.splitlines()
    assert slow.startswith("Дольше окна: 1 из 2") and "до 0.05 с" in slow

    report_looks(printer, [], 0.6)  # nothing was looked at: nothing to say
    assert capsys.readouterr().out == ""
