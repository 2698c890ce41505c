"""`voicehost phrases build` fills the audio cache; `voicehost phrases check PACK` checks a pack.

``build`` synthesises every piece of every announcement once (``make run`` does it before each
game), so a game never waits for synthesis. ``check`` lists the pieces a voice pack does not
record (synthesis speaks them), files too long for their slot, and files that match nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from voicehost import config


def register(subparsers: Any) -> None:
    """Add ``voicehost phrases build|check``."""
    parser = subparsers.add_parser(
        "phrases",
        help="prepare the announcements' audio, or check a voice pack",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="phrases_action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="synthesise every announcement piece into the cache")
    build.set_defaults(func=run_build)
    check = actions.add_parser("check", help="list a voice pack's missing and too-long files")
    check.add_argument("pack", type=Path, help="the voice pack folder")
    check.set_defaults(func=run_check)


def run_build(args: argparse.Namespace) -> int:
    """Fill the cache for the configured language and voice; report what it did and how long."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.speech import speech_library

    settings = config.load(args.config)
    if settings.voice.engine == "text":
        print("voice.engine is text: announcements are not spoken, nothing to build.")
        return 0
    book = PhraseBook.load(settings.language)
    library = speech_library(settings)
    report = library.prepare(book.all_segments())
    print(report.describe())
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Exit status 1 when a file in the pack cannot be used as it is."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.voicepack import VoicePack, check_pack

    settings = config.load(args.config)
    book = PhraseBook.load(settings.language)
    pack = VoicePack.load(args.pack)
    phrase_keys = book.keys()
    placeholders = {key: len(book.placeholders(key)) for key in phrase_keys}
    report = check_pack(pack, book.all_segments(), placeholders, settings.audio.sample_rate)
    print("\n".join(report.lines()))
    return 0 if report.ok else 1
