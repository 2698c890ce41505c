"""`voicehost demo`: hear a whole 10-player game without a table, in about two minutes.

The scripted game (``examples/demo-10.txt``) runs on a fake clock with the real timers, and
every sound lands on one timeline exactly where a live game would put it. Before each script
line the clock moves on to the end of what the host is saying, as a table waits for the host.
Silences longer than ``--max-silence`` seconds (the 3-minute discussion, a speech nobody
speaks) are then shortened to that, so the demo keeps every announcement and cue, at the real
spacing for anything short, and lasts minutes instead of the game's half hour.

The result goes to ``demo.wav`` (and to the speaker, if there is one); the transcript is printed
with each announcement's time in the file.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from voicehost import config
from voicehost.cli.texts import text
from voicehost.errors import DeviceError, VoicehostError

DEMO_SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "demo-10.txt"
"""The demo game: a town win in one day and one night, with a revote, a third vote and a foul."""

MAX_SILENCE_SECONDS = 1.5
"""Default longest silence kept in the demo."""


def register(subparsers: Any) -> None:
    """Add ``voicehost demo``."""
    parser = subparsers.add_parser(
        "demo",
        help=text("demo"),
        description=text("demo.description"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", type=Path, default=Path("demo.wav"), help=text("demo.out"))
    parser.add_argument("--script", type=Path, default=DEMO_SCRIPT, help=text("demo.script"))
    parser.add_argument(
        "--max-silence",
        type=float,
        default=MAX_SILENCE_SECONDS,
        help=text("demo.max_silence"),
    )
    parser.add_argument("--no-play", action="store_true", help=text("demo.no_play"))
    parser.add_argument("--pack", type=Path, help=text("demo.pack"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the demo game into a WAV file, print its transcript, play it if there is a card."""
    from voicehost.cli import wiring
    from voicehost.clips import SilenceSqueezer, position_after_cuts, read_wav
    from voicehost.phrases import PhraseBook

    settings = with_pack(config.load(args.config), args.pack)
    book = PhraseBook.load(settings.language)
    if settings.voice.engine == "text":
        raise VoicehostError.written(book.screen("demo_needs_voice"))
    lines = _read_script(args.script, book)
    rate = settings.audio.sample_rate
    # The timeline is squeezed as it is rendered: no whole game in memory, no WAV read back.
    squeezer = SilenceSqueezer(rate, args.max_silence) if args.max_silence > 0 else None
    recording = wiring.make_recording(settings, args.out, book=book, quiet=True, squeezer=squeezer)
    output, clock = recording["speaker"], recording["clock"]
    result = run_paced(lines, settings, output, clock, book)
    output.close()
    cuts = squeezer.cuts if squeezer is not None else []
    game_frames = squeezer.frames if squeezer is not None else output.mixer.position
    kept = game_frames - sum(cut.removed for cut in cuts)
    voice_starts = [p.start for p in output.placements() if p.lane == "voice"]
    for said, start in zip(result.transcript, voice_starts, strict=False):
        print(f"{_clock(position_after_cuts(start, cuts) / rate)}  {said}")
    written = {
        "path": args.out,
        "seconds": round(kept / rate),
        "minutes": round(game_frames / rate / 60),
        "count": len(result.transcript),
    }
    print("\n" + book.screen("demo_written", written))
    for error in result.errors:
        print(f"  {error}", file=sys.stderr)
    if not args.no_play:
        audio = read_wav(args.out)
        _play(audio.samples, audio.rate, settings.audio.output_device, book)
    return 1 if result.errors else 0


def run_paced(
    lines: Iterable[str],
    settings: config.Settings,
    speaker: Any,
    clock: Any,
    book: Any,
    *,
    after_line: Callable[[Any], None] | None = None,
) -> Any:
    """Run script ``lines`` on ``clock``, letting each announcement end before the next line.

    ``speaker`` is the Speaker and the CuePlayer; ``after_line(host)`` is called after each
    line. Returns the ``ScriptResult`` of the whole script (errors keep their line numbers).
    """
    from voicehost.console.script import run_script

    return run_script(
        lines,
        settings,
        speaker=speaker,
        cues=speaker,
        clock=clock,
        book=book,
        before_line=lambda host: clock.set(speaker.busy_until()),
        after_line=after_line,
    )


def with_pack(settings: config.Settings, pack: Path | None) -> config.Settings:
    """The settings speaking with ``pack`` (a folder) instead of ``voice.pack``, if given."""
    import dataclasses

    if pack is None:
        return settings
    return dataclasses.replace(
        settings, voice=dataclasses.replace(settings.voice, pack=str(pack.resolve()))
    )


def _read_script(path: Path, book: Any) -> list[str]:
    from voicehost.cli.play import EXAMPLES_DIR, script_path

    try:
        return script_path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise VoicehostError.written(
            book.screen(
                "arg_cannot_read_script",
                {"path": path, "reason": exc.strerror or "", "examples": EXAMPLES_DIR},
            )
        ) from exc


def _clock(seconds: float) -> str:
    """``m:ss.s``; rounded to the tenth first, so 59.97 s is 1:00.0, never 0:60.0."""
    minutes, tenths = divmod(round(seconds * 10), 600)
    return f"{minutes}:{tenths / 10:04.1f}"


def _play(samples: Any, rate: int, device: str, book: Any) -> None:
    """Play the demo on the sound card, if there is one; Ctrl-C stops it."""
    from voicehost.voice_out.sound import device_setting, import_sounddevice

    try:
        sd = import_sounddevice()
        print(book.screen("demo_playing"))
        sd.play(samples, rate, device=device_setting(device))
        sd.wait()
    except KeyboardInterrupt:
        sd.stop()
    except (DeviceError, Exception) as exc:  # noqa: BLE001 - PortAudio's own error type
        print(book.screen("demo_no_sound", {"reason": book.explain(exc).splitlines()[0]}))
