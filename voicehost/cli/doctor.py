"""`voicehost doctor`: check this machine for a game and say, in plain words, what to fix.

It plays a test tone, records a second from the microphone, checks the Russian voice, the speech
model and its stop words, the keypad and its light, free disk and the journal folder. Every
check fails gracefully: a missing sound card, keypad or model is a line in the report, never a
traceback.

The report has two parts: what any game needs (the speaker, the voice, the disk, the journal
folder), and what hands-free play needs (the microphone, the speech model, the keypad), which a
host at the keyboard does without. Only the first part can fail the report (exit status 1),
unless config.yaml demands a hands-free device (``keypad.enabled: on``).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from voicehost import cli, config
from voicehost.config import Settings
from voicehost.errors import VoicehostError
from voicehost.voice_out.sound_probe import sound_system_crash

TONE_SECONDS = 1.0
TONE_HERTZ = 660.0
MIC_SECONDS = 1.0
MIC_RATE = 16000
DEVICE_TIMEOUT_SECONDS = 8.0
"""A sound device that has not finished a 1-second job in this long is not working."""

SILENT_DBFS = -90.0
"""Below this the microphone delivers digital silence: unplugged, muted or the wrong device."""

QUIET_DBFS = -60.0
LOUD_DBFS = -3.0
LOW_DISK_BYTES = 200 * 1024 * 1024
TIGHT_DISK_BYTES = 1024 * 1024 * 1024
VOICES = {"ru": "zle/ru", "en": "gmw/en"}


class Status(StrEnum):
    """How a check went."""

    OK = "ok"
    WARN = "warn"  # the game runs, but less well (no keypad, no model)
    FAIL = "fail"  # something a game needs is missing or broken

    @property
    def mark(self) -> str:
        return {"ok": "✔", "warn": "!", "fail": "✘"}[self.value]


@dataclass(frozen=True)
class Finding:
    """The result of one check: what was found, and what to do about it (if anything)."""

    check: str
    status: Status
    detail: str
    fix: str = ""
    hands_free: bool = False
    """Needed only for hands-free play (voice and keypad): a keyboard host does without."""


@dataclass(frozen=True)
class Options:
    """What the person asked of this run."""

    play_tone: bool = True


Check = Callable[[Settings, Options], Finding]


# --------------------------------------------------------------------------- helpers


def _import_sounddevice() -> Any:
    crash = sound_system_crash()
    if crash is not None:
        raise VoicehostError(
            crash + "; fix: repair or remove a broken ~/.asoundrc or /etc/asound.conf"
        )
    try:
        import sounddevice
    except OSError as exc:  # the PortAudio library itself is missing
        raise VoicehostError(
            f"the PortAudio library is missing ({exc}); fix: sudo apt-get install libportaudio2"
        ) from exc
    except ImportError as exc:
        raise VoicehostError(
            "the sounddevice package is missing; fix: .venv/bin/pip install sounddevice"
        ) from exc
    return sounddevice


def _detail_and_fix(exc: VoicehostError) -> tuple[str, str]:
    detail, _, fix = str(exc).partition("; fix: ")
    return detail, fix or "see the line above"


def _run_with_timeout(job: Callable[[], Any], seconds: float) -> Any:
    """Run a device job on a thread; a device that hangs must not hang the doctor."""
    result: dict[str, Any] = {}

    def target() -> None:
        try:
            result["value"] = job()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller below
            result["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise VoicehostError(f"the device did not answer within {seconds:.0f} s")
    if "error" in result:
        raise result["error"]
    return result.get("value")


def _device_name(sd: Any, device: int | str | None, kind: str) -> str:
    try:
        info = sd.query_devices(device, kind)
    except Exception:  # noqa: BLE001 - a name is a nicety: any failure gives "unnamed"
        return "unnamed"
    return str(info.get("name", "unnamed"))


def dbfs(samples: Any) -> float:
    """Root-mean-square level of int16 samples, in dB below full scale."""
    import numpy as np

    values = np.asarray(samples, dtype=np.float64).reshape(-1) / 32768.0
    if values.size == 0:
        return -math.inf
    rms = float(np.sqrt(np.mean(values**2)))
    return 20 * math.log10(rms) if rms > 0 else -math.inf


# --------------------------------------------------------------------------- checks


def check_sound_output(settings: Settings, options: Options) -> Finding:
    """Play a test tone on the configured (or default) output."""
    name = "Sound output"
    fix_card = (
        "plug in a speaker (USB, or the 3.5 mm jack), check `aplay -l` lists it, and set "
        "audio.output_device in config.yaml if it is not the default"
    )
    try:
        sd = _import_sounddevice()
    except VoicehostError as exc:
        return Finding(name, Status.FAIL, *_detail_and_fix(exc))
    import numpy as np

    from voicehost.voice_out.sound import device_setting  # numpy: not at `--help`

    device = device_setting(settings.audio.output_device)
    rate = settings.audio.sample_rate
    try:
        sd.check_output_settings(device=device, channels=1, dtype="int16", samplerate=rate)
    except Exception as exc:  # noqa: BLE001 - PortAudio raises several types for "no device"
        return Finding(name, Status.FAIL, f"no sound output found ({_short(exc)})", fix_card)
    device_name = _device_name(sd, device, "output")
    if not options.play_tone:
        return Finding(name, Status.OK, f"found «{device_name}» (test tone skipped)")
    t = np.arange(int(TONE_SECONDS * rate)) / rate
    envelope = np.minimum(1.0, np.minimum(t, TONE_SECONDS - t) / 0.05)  # no clicks
    level = max(0.05, settings.audio.cue_volume)
    tone = (level * envelope * np.sin(2 * np.pi * TONE_HERTZ * t) * 32767).astype(np.int16)
    try:
        _run_with_timeout(
            lambda: sd.play(tone, rate, device=device, blocking=True), DEVICE_TIMEOUT_SECONDS
        )
    except Exception as exc:  # noqa: BLE001 - any failure of the device is the finding
        return Finding(
            name, Status.FAIL, f"«{device_name}» failed to play ({_short(exc)})", fix_card
        )
    return Finding(
        name,
        Status.OK,
        f"played a {TONE_SECONDS:.0f}-second test tone on «{device_name}»: you should have heard "
        "a beep; if not, turn the speaker up (`alsamixer`)",
    )


def check_microphone(settings: Settings, options: Options) -> Finding:
    """Record a second and report the level (hands-free play needs it, a keyboard host not)."""
    finding = _check_microphone(settings, options)
    status = Status.WARN if finding.status is Status.FAIL else finding.status
    return dataclasses.replace(finding, status=status, hands_free=True)


def _check_microphone(settings: Settings, options: Options) -> Finding:
    name = "Microphone"
    fix_mic = (
        "plug in a USB microphone, check `arecord -l` lists it, and set audio.input_device in "
        "config.yaml if it is not the default"
    )
    try:
        sd = _import_sounddevice()
    except VoicehostError as exc:
        return Finding(name, Status.FAIL, *_detail_and_fix(exc))
    from voicehost.voice_out.sound import device_setting  # numpy: not at `--help`

    device = device_setting(settings.audio.input_device)
    try:
        sd.check_input_settings(device=device, channels=1, dtype="int16", samplerate=MIC_RATE)
    except Exception as exc:  # noqa: BLE001 - PortAudio raises several types for "no device"
        return Finding(name, Status.FAIL, f"no microphone found ({_short(exc)})", fix_mic)
    device_name = _device_name(sd, device, "input")
    frames = int(MIC_SECONDS * MIC_RATE)

    def record() -> Any:
        return sd.rec(frames, samplerate=MIC_RATE, channels=1, dtype="int16", device=device,
                      blocking=True)  # fmt: skip

    try:
        samples = _run_with_timeout(record, DEVICE_TIMEOUT_SECONDS)
    except Exception as exc:  # noqa: BLE001 - any failure of the device is the finding
        return Finding(
            name, Status.FAIL, f"«{device_name}» failed to record ({_short(exc)})", fix_mic
        )
    level = dbfs(samples)
    heard = f"«{device_name}» recorded {MIC_SECONDS:.0f} s at {_level_text(level)}"
    if level < SILENT_DBFS:
        return Finding(
            name,
            Status.FAIL,
            heard + ": pure silence",
            "the microphone is muted or not connected: unmute it in `alsamixer` (F4 shows "
            "capture) or choose audio.input_device",
        )
    if level < QUIET_DBFS:
        return Finding(
            name,
            Status.WARN,
            heard + ": very quiet",
            "raise the capture level in `alsamixer` (F4), or move the microphone to the table",
        )
    if level > LOUD_DBFS:
        return Finding(
            name,
            Status.WARN,
            heard + ": too loud, it clips",
            "lower the capture level (`alsamixer`)",
        )
    room = _room(samples, settings)
    if room.loud:
        return Finding(
            name,
            Status.WARN,
            f"{heard}: {room.text.split(': ', 1)[0]} (noise {room.noise_dbfs:.0f} dBFS, voices "
            f"{room.speech_dbfs:.0f} dBFS: {room.snr_db:.0f} dB apart)",
            "stop words will often be missed: move the microphone closer to the players and away "
            "from fans and the speaker, then `voicehost listen --calibrate`; speeches can always "
            "be ended from the keypad",
        )
    return Finding(name, Status.OK, heard + " (speak while it records to see your voice's level)")


def _room(samples: Any, settings: Settings) -> Any:
    """The room's noise against the players' level (listener.speech_dbfs, which
    `voicehost listen --calibrate` measures)."""
    import numpy as np

    from voicehost.voice_in.calibration import judge_room, noise_floor

    mono = np.asarray(samples).reshape(-1)
    return judge_room(noise_floor(mono, MIC_RATE), settings.listener.speech_dbfs)


def _level_text(level: float) -> str:
    return "no signal at all" if math.isinf(level) else f"{level:.0f} dBFS"


def check_voice(settings: Settings, options: Options) -> Finding:
    """The announcements' voice: espeak-ng through pyttsx3, really set, really rendering.

    It renders through the game's own synthesizer, which waits for espeak-ng to finish the
    file and checks it is whole: pyttsx3's runAndWait() returns before the WAV is written,
    so reading it at once finds no speech on a slow machine (a Raspberry Pi, an emulator).
    """
    name = "Voice" if settings.language != "ru" else "Russian voice"
    if settings.voice.engine == "text":
        return Finding(name, Status.WARN, "speech is off (voice.engine: text)",
                       "set voice.engine: espeak to hear the host")  # fmt: skip
    from voicehost.errors import MissingDependency
    from voicehost.voice_out.tts import (
        EspeakSynthesizer,
        SynthesisError,
        VoiceChoice,
        available_voices,
    )

    wanted = settings.voice.voice if settings.voice.voice != "auto" else VOICES[settings.language]
    fix_espeak = "sudo apt-get install espeak-ng (and .venv/bin/pip install pyttsx3)"
    no_voice = Finding(
        name,
        Status.FAIL,
        f"espeak-ng has no voice «{wanted}» (it would read Cyrillic letter by letter)",
        fix_espeak + "; list the voices with `espeak-ng --voices`",
    )
    try:
        known = available_voices()
    except MissingDependency as exc:
        return Finding(
            name, Status.FAIL, f"the speech engine cannot start ({_short(exc)})", fix_espeak
        )
    if wanted not in known:
        return no_voice
    synthesizer = None
    try:
        synthesizer = EspeakSynthesizer(
            VoiceChoice(wanted, settings.voice.rate, settings.voice.volume)
        )
        seconds = synthesizer.render(_voice_sample(settings.language)).duration
    except MissingDependency:  # espeak-ng fell back to another voice
        return no_voice
    except SynthesisError as exc:
        return Finding(
            name, Status.FAIL, f"voice «{wanted}» rendered no speech ({_short(exc)})", fix_espeak
        )
    finally:
        if synthesizer is not None:
            synthesizer.close()
    if seconds < 0.3:
        return Finding(name, Status.FAIL, f"voice «{wanted}» rendered no speech", fix_espeak)
    return Finding(name, Status.OK, f"voice «{wanted}» speaks ({seconds:.1f} s test phrase)")


def _voice_sample(language: str) -> str:
    return "Город просыпается." if language == "ru" else "The city wakes up."


def check_model(settings: Settings, options: Options) -> Finding:
    """The Vosk model for the language, and whether it knows the stop words (hands-free)."""
    finding = _check_model(settings, options)
    status = Status.WARN if finding.status is Status.FAIL else finding.status
    return dataclasses.replace(finding, status=status, hands_free=True)


def _check_model(settings: Settings, options: Options) -> Finding:
    name = "Speech model"
    if not settings.listener.enabled:
        return Finding(name, Status.OK, "the listener is off (listener.enabled: false)")
    fix_fetch = (
        f"run `voicehost models fetch {settings.language}`, or copy a model zip on a USB stick "
        "and run `voicehost models install FILE.zip`"
    )
    from voicehost.voice_in.models import find_model

    folder = find_model(settings)
    if folder is None:
        where = settings.path(settings.listener.models_dir)
        return Finding(
            name,
            Status.WARN,
            f"no {settings.language} speech model in {where}: speeches end from the keypad or "
            "the keyboard only",
            fix_fetch,
        )
    words = _stop_words(settings.language)
    try:
        missing = missing_stop_words(folder, words)
    except VoicehostError as exc:
        return Finding(name, Status.FAIL, f"{folder.name}: {exc}", fix_fetch)
    if missing:
        return Finding(
            name,
            Status.FAIL,
            f"{folder.name} does not know the stop words {', '.join(missing)}: a wrong model or "
            "language",
            f"use a {settings.language} model: " + fix_fetch,
        )
    return Finding(name, Status.OK, f"{folder.name} knows the stop words {', '.join(words)}")


def _stop_words(language: str) -> list[str]:
    from voicehost.phrases import PhraseBook

    return list(PhraseBook.load(language).stop_words)


def missing_stop_words(folder: Path, words: list[str]) -> list[str]:
    """The words the model does not know: from its word list, or by asking Vosk itself."""
    from voicehost.voice_in.models import model_vocabulary

    try:
        known = set(model_vocabulary(folder))
    except VoicehostError:
        return _missing_by_vosk(folder, words)  # no readable word table: ask Vosk
    return [word for word in words if word not in known]


def _missing_by_vosk(folder: Path, words: list[str]) -> list[str]:
    """Vosk drops unknown grammar words with a warning on stderr: build a grammar and read it."""
    try:
        import vosk
    except ImportError as exc:
        raise VoicehostError("the vosk package is missing: .venv/bin/pip install vosk") from exc
    with _captured_stderr() as captured:
        try:
            model = vosk.Model(str(folder))
            vosk.KaldiRecognizer(model, 16000, json.dumps(words, ensure_ascii=False))
        except Exception as exc:  # noqa: BLE001 - vosk raises plain Exception on a bad model
            raise VoicehostError(f"the model does not load ({_short(exc)})") from exc
    log = captured()
    return [word for word in words if f"missing in vocabulary: '{word}'" in log]


@contextlib.contextmanager
def _captured_stderr() -> Iterator[Callable[[], str]]:
    """Capture what C libraries write to file descriptor 2."""
    text: list[str] = []
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lambda: "".join(text)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        text.append(sink.read().decode("utf-8", "replace"))


def check_keypad(settings: Settings, options: Options) -> Finding:
    """The USB keypad, whether this user may read it, and its light for the Commissar
    (hands-free; a failure only when config.yaml says ``keypad.enabled: on``)."""
    finding = _check_keypad(settings, options)
    status = finding.status
    if status is Status.FAIL and settings.keypad.enabled != "on":
        status = Status.WARN
    return dataclasses.replace(finding, status=status, hands_free=True)


def _check_keypad(settings: Settings, options: Options) -> Finding:
    name = "Keypad"
    if settings.keypad.enabled == "off":
        return Finding(name, Status.OK, "the keypad is off (keypad.enabled: off)")
    from voicehost.errors import MissingDependency
    from voicehost.keypad.evdev_keypad import INPUT_DIR, find_keypad, list_input_devices

    severity = Status.FAIL if settings.keypad.enabled == "on" else Status.WARN
    try:
        devices = list_input_devices()
    except MissingDependency as exc:
        return Finding(name, severity, "keypad support is missing", str(exc))
    nodes = sorted(INPUT_DIR.glob("event*")) if INPUT_DIR.is_dir() else []
    if nodes and not devices:
        return Finding(
            name,
            Status.FAIL,
            f"{len(nodes)} input devices, but this user may read none of them",
            "add the user to the input group: `sudo usermod -aG input $USER`, then log in again",
        )
    found = find_keypad(settings.keypad.device)
    if found is None:
        wanted = f"«{settings.keypad.device}»" if settings.keypad.device else "numeric keypad"
        names = ", ".join(f"«{info.name}»" for info in devices)
        where = (
            "one of the names on the Keypad line above"
            if names
            else "its name as `cat /proc/bus/input/devices` prints it once it is plugged in"
        )
        return Finding(
            name,
            severity,
            f"no {wanted} found among {len(devices)} input devices"
            + (f": {names}" if names else ""),
            f"plug in a USB numeric keypad (or set keypad.device to {where})",
        )
    detail = f"«{found.name}» at {found.path}"
    if settings.private.channel != "led":
        return Finding(name, Status.OK, detail)
    led = settings.private.led
    if not found.has_led(led):
        return Finding(
            name,
            Status.WARN,
            detail + f", but it has no {led} light: the Commissar's answer will go to the screen",
            "use a keypad with a NumLock light, or set private.led / private.channel",
        )
    blinked = _blink(settings, found.path)
    return Finding(name, Status.OK, detail + f"; its {led} light {blinked}")


def _blink(settings: Settings, path: str) -> str:
    from voicehost.game.effects import Private, PrivateKind
    from voicehost.keypad.led import (
        EvdevLed,
        LedPrivateChannel,
    )

    try:
        channel = LedPrivateChannel(EvdevLed(path, settings.private.led), settings.private)
        channel.show(Private(PrivateKind.ENTRY_CONFIRMED))
        channel.wait_idle()
        channel.close()
    except (OSError, VoicehostError) as exc:
        return f"cannot be switched ({_short(exc)})"
    return "blinked twice just now"


def check_disk(settings: Settings, options: Options) -> Finding:
    """Free space where journals and protocols are written."""
    name = "Free disk"
    folder = _existing_parent(settings.path(settings.storage.journal_dir))
    free = shutil.disk_usage(folder).free
    text = f"{free / 1024**3:.1f} GB free on the disk of {folder}"
    if free < LOW_DISK_BYTES:
        return Finding(
            name, Status.FAIL, text, "free some space: delete old files or use a larger SD card"
        )
    if free < TIGHT_DISK_BYTES:
        return Finding(name, Status.WARN, text, "space is tight: delete old files or old cache/")
    return Finding(name, Status.OK, text)


def _existing_parent(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def check_journal_folder(settings: Settings, options: Options) -> Finding:
    """The journal folder exists (or can be made) and takes a file, synced to disk."""
    name = "Journal folder"
    folder = settings.path(settings.storage.journal_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".doctor-", delete=True) as probe:
            probe.write(b"voicehost doctor\n")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return Finding(
            name,
            Status.FAIL,
            f"{folder} cannot be written ({exc.strerror or exc})",
            f"make it writable (`sudo chown -R $USER {folder}`) or set storage.journal_dir",
        )
    return Finding(name, Status.OK, f"{folder} is writable: an unfinished game can be resumed")


CHECKS: tuple[tuple[str, Check], ...] = (
    ("Sound output", check_sound_output),
    ("Voice", check_voice),
    ("Free disk", check_disk),
    ("Journal folder", check_journal_folder),
    ("Microphone", check_microphone),
    ("Speech model", check_model),
    ("Keypad", check_keypad),
)
"""What any game needs first, then what hands-free play needs (``Finding.hands_free``)."""

HANDS_FREE_CHECKS = ("Microphone", "Speech model", "Keypad")

SECTIONS = {
    False: "Needed for any game:",
    True: "Needed for hands-free play (voice and keypad); a host at the keyboard does without:",
}


def run_checks(
    settings: Settings, options: Options, checks: tuple[tuple[str, Check], ...] = CHECKS
) -> Iterator[Finding]:
    """Each check's finding, in order; a check that crashes becomes a failed finding."""
    for name, check in checks:
        try:
            yield check(settings, options)
        except Exception as exc:  # noqa: BLE001 - the doctor must always finish its report
            yield Finding(
                name,
                Status.FAIL,
                f"the check itself failed ({type(exc).__name__}: {_short(exc)})",
                "report this with the output of `voicehost doctor`",
                hands_free=name in HANDS_FREE_CHECKS,
            )


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:160] + "…" if len(text) > 160 else text


def format_finding(finding: Finding) -> str:
    return f"  {finding.status.mark} {finding.check:<15} {finding.detail}"


def format_fixes(findings: list[Finding]) -> list[str]:
    """The closing list: what must be fixed, then what would be better."""
    must = [item for item in findings if item.status is Status.FAIL]
    hands_free = [item for item in findings if item.status is Status.WARN and item.hands_free]
    could = [item for item in findings if item.status is Status.WARN and not item.hands_free]
    if not must and not could and not hands_free:
        return ["Nothing to fix: ready for a game."]
    lines = ["What to fix:"] if must else ["Nothing to fix for a game at the keyboard."]
    lines += [f"  {index}. {item.check}: {item.fix}" for index, item in enumerate(must, 1)]
    if hands_free:
        lines.append("For hands-free play (the game runs without, from the keyboard):")
        lines += [f"  - {item.check}: {item.fix}" for item in hands_free]
    if could:
        lines.append("Would be better (the game runs without):")
        lines += [f"  - {item.check}: {item.fix}" for item in could]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run every check, print each finding as it comes, then what to fix."""
    settings = config.load(args.config)
    options = Options(play_tone=not args.no_tone)
    print("voicehost doctor: checking this machine for a game", flush=True)
    findings: list[Finding] = []
    for finding in run_checks(settings, options):
        if not findings or findings[-1].hands_free != finding.hands_free:
            print(SECTIONS[finding.hands_free], flush=True)
        findings.append(finding)
        print(format_finding(finding), flush=True)
    print()
    print("\n".join(format_fixes(findings)))
    return 1 if any(item.status is Status.FAIL for item in findings) else 0


def register(subparsers: Any) -> None:
    """Add `voicehost doctor`."""
    parser = subparsers.add_parser(
        "doctor",
        help=cli.SUBCOMMANDS["doctor"],
        description=__doc__,
    )
    parser.add_argument("--no-tone", action="store_true", help="do not play the test tone")
    parser.set_defaults(func=run)
