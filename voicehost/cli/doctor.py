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
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from voicehost import config
from voicehost.cli.texts import message_in, text
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


def _say(settings: Settings, key: str, /, **params: Any) -> str:
    """A doctor's sentence in the language of the settings (the phrase book's ``cli``)."""
    return message_in(settings.language, f"doctor.{key}", **params)


#: Each check's name, as the report shows it: the key of its name in the book.
CHECK_NAMES = {
    "Sound output": "sound_output",
    "Voice": "voice",
    "Russian voice": "russian_voice",
    "Free disk": "free_disk",
    "Journal folder": "journal_folder",
    "Microphone": "microphone",
    "Speech model": "speech_model",
    "Keypad": "keypad",
}


def _import_sounddevice() -> Any:
    crash = sound_system_crash()
    if crash is not None:
        raise VoicehostError(
            crash + "; fix: repair or remove a broken ~/.asoundrc or /etc/asound.conf",
            phrase="sound_system_crash",
            library=crash,
        )
    try:
        import sounddevice
    except OSError as exc:  # the PortAudio library itself is missing
        raise VoicehostError(
            f"the PortAudio library is missing ({exc}); fix: sudo apt-get install libportaudio2",
            phrase="no_portaudio",
            library=exc,
        ) from exc
    except ImportError as exc:
        raise VoicehostError(
            "the sounddevice package is missing; fix: .venv/bin/pip install sounddevice",
            phrase="no_sounddevice",
        ) from exc
    return sounddevice


def _detail_and_fix(exc: VoicehostError, settings: Settings) -> tuple[str, str]:
    detail, _, fix = str(exc).partition("; fix: ")
    if exc.phrase:
        return _say(settings, exc.phrase, **exc.params), _say(settings, f"{exc.phrase}_fix")
    return detail, fix or _say(settings, "see_above")


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
        raise VoicehostError(
            f"the device did not answer within {seconds:.0f} s",
            phrase="device_timeout",
            seconds=f"{seconds:.0f}",
        )
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
    """Root-mean-square level of int16 samples, in dB below full scale (``FLOOR_DBFS`` for
    digital silence)."""
    import numpy as np

    from voicehost.clips import level_dbfs

    return level_dbfs(np.asarray(samples, dtype=np.int16))


# --------------------------------------------------------------------------- checks


def check_sound_output(settings: Settings, options: Options) -> Finding:
    """Play a test tone on the configured (or default) output."""
    name = "Sound output"
    fix_card = _say(settings, "fix_card")
    try:
        sd = _import_sounddevice()
    except VoicehostError as exc:
        return Finding(name, Status.FAIL, *_detail_and_fix(exc, settings))
    import numpy as np

    from voicehost.voice_out.sound import device_setting  # numpy: not at `--help`

    device = device_setting(settings.audio.output_device)
    rate = settings.audio.sample_rate
    try:
        sd.check_output_settings(device=device, channels=1, dtype="int16", samplerate=rate)
    except Exception as exc:  # noqa: BLE001 - PortAudio raises several types for "no device"
        return Finding(
            name, Status.FAIL, _say(settings, "no_output", library=_short(exc)), fix_card
        )
    device_name = _device_name(sd, device, "output")
    if not options.play_tone:
        return Finding(name, Status.OK, _say(settings, "output_found", device=device_name))
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
            name,
            Status.FAIL,
            _say(settings, "output_failed", device=device_name, library=_short(exc)),
            fix_card,
        )
    return Finding(
        name,
        Status.OK,
        _say(settings, "tone_played", seconds=f"{TONE_SECONDS:.0f}", device=device_name),
    )


def check_microphone(settings: Settings, options: Options) -> Finding:
    """Record a second and report the level (hands-free play needs it, a keyboard host not)."""
    finding = _check_microphone(settings, options)
    status = Status.WARN if finding.status is Status.FAIL else finding.status
    return dataclasses.replace(finding, status=status, hands_free=True)


def _check_microphone(settings: Settings, options: Options) -> Finding:
    name = "Microphone"
    fix_mic = _say(settings, "fix_mic")
    try:
        sd = _import_sounddevice()
    except VoicehostError as exc:
        return Finding(name, Status.FAIL, *_detail_and_fix(exc, settings))
    from voicehost.voice_out.sound import device_setting  # numpy: not at `--help`

    device = device_setting(settings.audio.input_device)
    try:
        sd.check_input_settings(device=device, channels=1, dtype="int16", samplerate=MIC_RATE)
    except Exception as exc:  # noqa: BLE001 - PortAudio raises several types for "no device"
        return Finding(name, Status.FAIL, _say(settings, "no_mic", library=_short(exc)), fix_mic)
    device_name = _device_name(sd, device, "input")
    frames = int(MIC_SECONDS * MIC_RATE)

    def record() -> Any:
        return sd.rec(frames, samplerate=MIC_RATE, channels=1, dtype="int16", device=device,
                      blocking=True)  # fmt: skip

    try:
        samples = _run_with_timeout(record, DEVICE_TIMEOUT_SECONDS)
    except Exception as exc:  # noqa: BLE001 - any failure of the device is the finding
        return Finding(
            name,
            Status.FAIL,
            _say(settings, "mic_failed", device=device_name, library=_short(exc)),
            fix_mic,
        )
    from voicehost.clips import FLOOR_DBFS

    level = dbfs(samples)
    heard = _say(
        settings,
        "mic_heard",
        device=device_name,
        seconds=f"{MIC_SECONDS:.0f}",
        level=_say(settings, "no_signal") if level <= FLOOR_DBFS else f"{level:.0f} dBFS",
    )
    if level < SILENT_DBFS:
        return Finding(
            name,
            Status.FAIL,
            heard + _say(settings, "mic_silence"),
            _say(settings, "mic_silence_fix"),
        )
    if level < QUIET_DBFS:
        return Finding(
            name, Status.WARN, heard + _say(settings, "mic_quiet"), _say(settings, "mic_quiet_fix")
        )
    if level > LOUD_DBFS:
        return Finding(
            name, Status.WARN, heard + _say(settings, "mic_loud"), _say(settings, "mic_loud_fix")
        )
    room = _room(samples, settings)
    if room.loud:
        return Finding(
            name,
            Status.WARN,
            heard
            + _say(
                settings,
                "mic_noisy",
                noise=f"{room.noise_dbfs:.0f}",
                voices=f"{room.speech_dbfs:.0f}",
                apart=f"{room.snr_db:.0f}",
            ),
            _say(settings, "mic_noisy_fix"),
        )
    return Finding(name, Status.OK, heard + _say(settings, "mic_ok"))


def _room(samples: Any, settings: Settings) -> Any:
    """The room's noise against the players' level (listener.speech_dbfs, which
    `voicehost listen --calibrate` measures)."""
    import numpy as np

    from voicehost.voice_in.calibration import judge_room, noise_floor

    mono = np.asarray(samples).reshape(-1)
    return judge_room(noise_floor(mono, MIC_RATE), settings.listener.speech_dbfs)


def check_voice(settings: Settings, options: Options) -> Finding:
    """The announcements' voice: espeak-ng through pyttsx3, really set, really rendering.

    It renders through the game's own synthesizer, which waits for espeak-ng to finish the
    file and checks it is whole: pyttsx3's runAndWait() returns before the WAV is written,
    so reading it at once finds no speech on a slow machine (a Raspberry Pi, an emulator).
    """
    name = "Voice" if settings.language != "ru" else "Russian voice"
    if settings.voice.engine == "text":
        return Finding(name, Status.WARN, _say(settings, "voice_off"),
                       _say(settings, "voice_off_fix"))  # fmt: skip
    from voicehost.errors import MissingDependency
    from voicehost.voice_out.tts import (
        EspeakSynthesizer,
        SynthesisError,
        VoiceChoice,
        available_voices,
    )

    wanted = settings.voice.voice if settings.voice.voice != "auto" else VOICES[settings.language]
    fix_espeak = _say(settings, "fix_espeak")
    no_voice = Finding(
        name,
        Status.FAIL,
        _say(settings, "no_voice", voice=wanted),
        fix_espeak + _say(settings, "list_voices"),
    )
    try:
        known = available_voices()
    except MissingDependency as exc:
        return Finding(
            name, Status.FAIL, _say(settings, "engine_fails", library=_short(exc)), fix_espeak
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
            name,
            Status.FAIL,
            _say(settings, "voice_silent", voice=wanted) + f" ({_short(exc)})",
            fix_espeak,
        )
    finally:
        if synthesizer is not None:
            synthesizer.close()
    if seconds < 0.3:
        return Finding(name, Status.FAIL, _say(settings, "voice_silent", voice=wanted), fix_espeak)
    return Finding(
        name, Status.OK, _say(settings, "voice_speaks", voice=wanted, seconds=f"{seconds:.1f}")
    )


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
        return Finding(name, Status.OK, _say(settings, "listener_off"))
    fix_fetch = _say(settings, "fix_fetch", language=settings.language)
    from voicehost.voice_in.models import find_model

    folder = find_model(settings)
    if folder is None:
        where = settings.path(settings.listener.models_dir)
        return Finding(
            name,
            Status.WARN,
            _say(settings, "no_model", language=settings.language, folder=where),
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
            _say(settings, "model_lacks_words", model=folder.name, words=", ".join(missing)),
            _say(settings, "use_model", language=settings.language) + fix_fetch,
        )
    return Finding(
        name, Status.OK, _say(settings, "model_knows", model=folder.name, words=", ".join(words))
    )


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
        return Finding(name, Status.OK, _say(settings, "keypad_off"))
    from voicehost.errors import MissingDependency
    from voicehost.keypad.evdev_keypad import INPUT_DIR, find_keypad, list_input_devices

    severity = Status.FAIL if settings.keypad.enabled == "on" else Status.WARN
    try:
        devices = list_input_devices()
    except MissingDependency as exc:
        return Finding(name, severity, _say(settings, "no_evdev"), str(exc))
    nodes = sorted(INPUT_DIR.glob("event*")) if INPUT_DIR.is_dir() else []
    if nodes and not devices:
        return Finding(
            name,
            Status.FAIL,
            _say(settings, "input_unreadable", count=len(nodes)),
            _say(settings, "input_unreadable_fix"),
        )
    found = find_keypad(settings.keypad.device)
    if found is None:
        wanted = (
            f"«{settings.keypad.device}»"
            if settings.keypad.device
            else _say(settings, "numeric_keypad")
        )
        names = ", ".join(f"«{info.name}»" for info in devices)
        where = _say(settings, "keypad_where_listed" if names else "keypad_where_proc")
        return Finding(
            name,
            severity,
            _say(settings, "no_keypad", wanted=wanted, count=len(devices))
            + (f": {names}" if names else ""),
            _say(settings, "no_keypad_fix", where=where),
        )
    detail = _say(settings, "keypad_found", name=found.name, path=found.path)
    if settings.private.channel != "led":
        return Finding(name, Status.OK, detail)
    led = settings.private.led
    if not found.has_led(led):
        return Finding(
            name,
            Status.WARN,
            detail + _say(settings, "no_led", led=led),
            _say(settings, "no_led_fix"),
        )
    blinked = _blink(settings, found.path)
    return Finding(name, Status.OK, detail + _say(settings, "led_state", led=led, text=blinked))


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
        return _say(settings, "led_stuck", library=_short(exc))
    return _say(settings, "led_blinked")


def check_disk(settings: Settings, options: Options) -> Finding:
    """Free space where journals and protocols are written."""
    name = "Free disk"
    folder = _existing_parent(settings.path(settings.storage.journal_dir))
    free = shutil.disk_usage(folder).free
    said = _say(settings, "disk_free", gigabytes=f"{free / 1024**3:.1f}", folder=folder)
    if free < LOW_DISK_BYTES:
        return Finding(name, Status.FAIL, said, _say(settings, "disk_low_fix"))
    if free < TIGHT_DISK_BYTES:
        return Finding(name, Status.WARN, said, _say(settings, "disk_tight_fix"))
    return Finding(name, Status.OK, said)


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
            _say(settings, "journal_unwritable", folder=folder, library=exc.strerror or exc),
            _say(settings, "journal_unwritable_fix", folder=folder),
        )
    return Finding(name, Status.OK, _say(settings, "journal_ok", folder=folder))


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

SECTIONS = {False: "section_any_game", True: "section_hands_free"}
"""The report's two parts: the keys of their titles in the book."""


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
                _say(settings, "check_crashed", library=f"{type(exc).__name__}: {_short(exc)}"),
                _say(settings, "check_crashed_fix"),
                hands_free=name in HANDS_FREE_CHECKS,
            )


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:160] + "…" if len(text) > 160 else text


def check_name(check: str, language: str = "en") -> str:
    """A check's name as the report shows it in ``language``."""
    key = CHECK_NAMES.get(check)
    return check if key is None else message_in(language, f"doctor.name.{key}")


def format_finding(finding: Finding, language: str = "en") -> str:
    return f"  {finding.status.mark} {check_name(finding.check, language):<15} {finding.detail}"


def format_fixes(findings: list[Finding], language: str = "en") -> list[str]:
    """The closing list: what must be fixed, then what would be better."""

    def say(key: str) -> str:
        return message_in(language, f"doctor.{key}")

    def name(item: Finding) -> str:
        return check_name(item.check, language)

    must = [item for item in findings if item.status is Status.FAIL]
    hands_free = [item for item in findings if item.status is Status.WARN and item.hands_free]
    could = [item for item in findings if item.status is Status.WARN and not item.hands_free]
    if not must and not could and not hands_free:
        return [say("ready")]
    lines = [say("what_to_fix")] if must else [say("nothing_for_keyboard")]
    lines += [f"  {index}. {name(item)}: {item.fix}" for index, item in enumerate(must, 1)]
    if hands_free:
        lines.append(say("for_hands_free"))
        lines += [f"  - {name(item)}: {item.fix}" for item in hands_free]
    if could:
        lines.append(say("would_be_better"))
        lines += [f"  - {name(item)}: {item.fix}" for item in could]
    return lines


def run(args: argparse.Namespace) -> int:
    """Run every check, print each finding as it comes, then what to fix."""
    settings = config.load(args.config)
    options = Options(play_tone=not args.no_tone)
    language = settings.language
    print(_say(settings, "title"), flush=True)
    findings: list[Finding] = []
    for finding in run_checks(settings, options):
        if not findings or findings[-1].hands_free != finding.hands_free:
            print(_say(settings, SECTIONS[finding.hands_free]), flush=True)
        findings.append(finding)
        print(format_finding(finding, language), flush=True)
    print()
    print("\n".join(format_fixes(findings, language)))
    return 1 if any(item.status is Status.FAIL for item in findings) else 0


def register(subparsers: Any) -> None:
    """Add `voicehost doctor`."""
    parser = subparsers.add_parser(
        "doctor",
        help=text("doctor"),
        description=text("doctor.description"),
    )
    parser.add_argument("--no-tone", action="store_true", help=text("doctor.no_tone"))
    parser.set_defaults(func=run)
