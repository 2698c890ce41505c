"""`voicehost phrases build|check|record|pack`: the announcements' audio and the club's voice pack.

``build`` synthesises every piece of every announcement once (``make run`` does it before each
game), so a game never waits for synthesis. ``check`` lists the pieces a voice pack does not
record (synthesis speaks them), what each table size from 8 to 13 still lacks, files too long
for their slot, files that match nothing, phrases reworded since the pack was recorded, and
the pack's total duration.

``record`` walks through every piece a game needs (fixed phrases, «игрок номер» and the numbers,
the counts with «голос/голоса/голосов», the roles, the talk time), shows it with its stress
marked, counts in (three beeps: speak after the high one), records, refuses a take that clips,
is too quiet, too long or mostly noise, and plays a good take back. Keys: Enter/k keep,
r redo, p play again, g hear the synthetic guide, s skip, b back, q quit. ``--missing`` goes on
where an earlier sitting stopped.

``pack export DIR ZIP`` and ``pack import ZIP DIR`` share a pack as a zip file.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.texts import text
from voicehost.errors import VoicehostError

if TYPE_CHECKING:
    from voicehost.config import Settings


def register(subparsers: Any) -> None:
    """Add ``voicehost phrases build|check``."""
    parser = subparsers.add_parser(
        "phrases",
        help=text("phrases"),
        description=text("phrases.description"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="phrases_action", metavar="ACTION", required=True)
    build = actions.add_parser("build", help=text("phrases.build"))
    build.set_defaults(func=run_build)
    check = actions.add_parser("check", help=text("phrases.check"))
    check.add_argument("pack", type=Path, help=text("phrases.check.pack"))
    check.set_defaults(func=run_check)
    record = actions.add_parser("record", help=text("phrases.record"))
    record.add_argument("--pack", type=Path, help=text("phrases.record.pack"))
    which = record.add_mutually_exclusive_group()
    which.add_argument("--phase", help=text("phrases.record.phase"))
    which.add_argument("--key", help=text("phrases.record.key"))
    record.add_argument("--missing", action="store_true", help=text("phrases.record.missing"))
    record.add_argument("--guide", action="store_true", help=text("phrases.record.guide"))
    record.add_argument("--voice-name", default="", help=text("phrases.record.voice_name"))
    record.add_argument(
        "--not-real-time",
        action="store_true",
        help=text("phrases.record.not_real_time"),
    )
    record.set_defaults(func=run_record)
    pack = actions.add_parser("pack", help=text("phrases.pack"))
    pack_actions = pack.add_subparsers(dest="pack_action", metavar="ACTION", required=True)
    export = pack_actions.add_parser("export", help=text("phrases.pack.export"))
    export.add_argument("pack", type=Path, help=text("phrases.pack.export.pack"))
    export.add_argument("zip", type=Path, help=text("phrases.pack.export.zip"))
    export.set_defaults(func=run_export)
    imported = pack_actions.add_parser("import", help=text("phrases.pack.import"))
    imported.add_argument("zip", type=Path, help=text("phrases.pack.import.zip"))
    imported.add_argument("pack", type=Path, help=text("phrases.pack.import.pack"))
    imported.add_argument(
        "--replace",
        action="store_true",
        help=text("phrases.pack.import.replace"),
    )
    imported.set_defaults(func=run_import)


def run_build(args: argparse.Namespace) -> int:
    """Fill the cache for the configured language and voice; report what it did and how long."""
    from voicehost.voice_out import buildstamp

    config_file = buildstamp.config_file(args.config)
    said = buildstamp.still_built(config_file)
    if said is not None:  # nothing changed since a build that found everything there
        print(said)
        return 0
    from voicehost.phrases import DEFAULT_PHRASES_DIR, PhraseBook
    from voicehost.voice_out.cache import PrepareReport, settings_cache

    settings = load_settings(args.config)
    book = PhraseBook.load(settings.language)
    if settings.voice.engine == "text":
        print(book.screen("phrases_text_engine"))
        return 0
    if settings.voice.pack:
        from voicehost.voice_out.speech import speech_library

        report = speech_library(settings).prepare(book.all_segments())
        print(report.said(book))
        return 0
    # every piece from the cache: checked by its headers, numpy never imported
    pieces = [segment.text for segment in book.all_segments()]
    cache = settings_cache(settings)
    report = PrepareReport(len(pieces), 0, cache.fill(pieces))
    said = report.said(book)
    print(said)
    if report.build is not None and report.build.rendered == 0:
        read = [DEFAULT_PHRASES_DIR / f"{settings.language}.yaml"]
        if settings.rules.file:
            read.append(settings.path(settings.rules.file))
        found = {cache.path_for(text) for text in pieces}
        buildstamp.keep(config_file, read, sorted(found), said)
    else:
        buildstamp.forget(config_file)
    return 0


def run_check(args: argparse.Namespace) -> int:
    """Exit status 1 when a file in the pack cannot be used as it is."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.voicepack import VoicePack, check_pack

    settings = load_settings(args.config)
    book = PhraseBook.load(settings.language)
    pack = VoicePack.load(args.pack)
    phrase_keys = book.keys()
    placeholders = {key: len(book.placeholders(key)) for key in phrase_keys}
    report = check_pack(pack, book.all_segments(), placeholders, settings.audio.sample_rate)
    print("\n".join(report.said(book)))
    print("\n".join(pack_extras(pack, book, settings)))
    return 0 if report.ok else 1


def pack_extras(pack: Any, book: Any, settings: Settings) -> list[str]:
    """What each table size lacks, the rewordings since recording, the total duration."""
    from voicehost.voice_out.recording import (
        TABLE_SIZES,
        Manifest,
        game_numbers,
        game_pieces,
        phrase_fingerprints,
        recorded_texts,
    )
    from voicehost.voice_out.voicepack import compress_keys

    lines: list[str] = []
    segments = book.all_segments()
    talk = settings.timers.discussion_seconds
    for seats in TABLE_SIZES:
        needed = game_pieces(segments, game_numbers(seats, talk))
        have = recorded_texts(pack.folder, game_pieces(segments, game_numbers(13, talk)))
        missing = [p.key for p in needed if p.text not in have and not pack.has(p.key)]
        if missing:
            shown = compress_keys(missing)
            more = book.screen("pack_more", {"count": len(shown) - 12}) if len(shown) > 12 else ""
            keys = ", ".join(shown[:12]) + more
            lines.append(
                book.screen(
                    "pack_table_missing", {"players": seats, "count": len(missing), "keys": keys}
                )
            )
        else:
            lines.append(book.screen("pack_table_complete", {"players": seats}))
    manifest = Manifest.read(pack.folder)
    if manifest is None:
        lines.append(book.screen("pack_no_manifest"))
    else:
        texts = {segment.key: segment.text for segment in segments}
        fingerprints = phrase_fingerprints(segments, book.keys())
        changed = manifest.changed_pieces(texts) or manifest.changed_phrases(fingerprints)
        recorded = {
            "voice": manifest.voice or book.screen("pack_someone"),
            "created": manifest.created,
            "language": manifest.language,
            "book": manifest.phrase_book,
        }
        lines.append(book.screen("pack_manifest", recorded))
        if changed:
            lines.append(book.screen("pack_changed", {"keys": ", ".join(changed)}))
    seconds = 0.0
    for key in pack.files:
        try:
            seconds += pack.clip(key, settings.audio.sample_rate).duration
        except VoicehostError:
            continue  # reported as broken above
    lines.append(book.screen("pack_total", {"seconds": f"{seconds:.1f}", "count": len(pack.files)}))
    return lines


def run_record(args: argparse.Namespace) -> int:
    """Record pieces from the microphone into the pack folder."""
    import dataclasses
    import sys
    import time

    from voicehost.cli.rehearse import key_presses
    from voicehost.phrases import PhraseBook
    from voicehost.voice_in.microphone import MicrophoneReader
    from voicehost.voice_out.recording import (
        DevicePlayer,
        Manifest,
        RecordingSession,
        espeak_phonemes,
        game_numbers,
        game_pieces,
        phrase_fingerprints,
        recorded_texts,
        select_pieces,
        stress_marks,
        with_audible_guides,
    )
    from voicehost.voice_out.speech import speech_library

    settings = load_settings(args.config)
    folder = args.pack or (settings.path(settings.voice.pack) if settings.voice.pack else None)
    if folder is None:
        raise VoicehostError(
            "say where the pack goes: --pack DIR (or set voice.pack in config)",
            phrase="record_no_pack",
        )
    book = PhraseBook.load(settings.language)
    segments = book.all_segments()
    pieces = game_pieces(segments, game_numbers(13, settings.timers.discussion_seconds))
    pieces = select_pieces(pieces, phase=args.phase, key=args.key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise VoicehostError(
            f"cannot create the pack folder {folder}: {exc.strerror}",
            phrase="cannot_write_folder",
            path=folder,
            reason=exc.strerror,
        ) from exc
    if args.missing:
        done = recorded_texts(folder, pieces)
        pieces = [piece for piece in pieces if piece.text not in done]
        if not pieces:
            print(book.screen("record_all_done", {"folder": folder}))
            return 0
    fingerprints = phrase_fingerprints(segments, book.keys())
    manifest = Manifest.read(folder) or Manifest.new(
        settings.language, args.voice_name, fingerprints
    )
    if args.voice_name:
        manifest.voice = args.voice_name
    synthetic = speech_library(
        dataclasses.replace(settings, voice=dataclasses.replace(settings.voice, pack=""))
    )
    from voicehost.ports import Segment

    espeak_voice = "ru" if settings.language == "ru" else settings.language

    def phonemes(text: str) -> str | None:
        return espeak_phonemes(text, espeak_voice)

    synthetic.prepare(Segment(p.key, p.text) for p in pieces)
    pieces = with_audible_guides(
        pieces, lambda p: synthetic.segment_clip(Segment(p.key, p.text)).duration, phonemes
    )
    synthetic.prepare(Segment(p.key, p.guide) for p in pieces if p.guide)
    guide = {p.key: synthetic.segment_clip(Segment(p.key, p.guide_text)) for p in pieces}
    stress = stress_marks(pieces, phonemes)
    rate = settings.audio.sample_rate
    reader = MicrophoneReader(
        settings.audio.input_device, sample_rate=rate, real_time=not args.not_real_time
    )
    player = DevicePlayer(rate, settings.audio.output_device)
    session = RecordingSession(
        folder,
        manifest,
        reader,
        player,
        guide,
        target_dbfs=settings.audio.target_loudness_dbfs,
        show_guide=args.guide,
        stress=stress,
        fingerprints=fingerprints,
        book=book,
    )
    print(book.screen("record_intro", {"count": len(pieces), "folder": folder}))
    started = time.monotonic()
    try:
        reader.open()
        report = session.run(pieces, key_presses(sys.stdin, enter=""), sys.stdout)
    finally:
        reader.close()
        player.close()
    manifest.write(folder)
    done_counts = {
        "kept": len(report.kept),
        "skipped": len(report.skipped),
        "refused": len(report.refusals),
        "seconds": f"{time.monotonic() - started:.0f}",
    }
    print(book.screen("record_summary", done_counts))
    if report.quit:
        print(book.screen("record_stopped"))
    return 0


def run_export(args: argparse.Namespace) -> int:
    """Zip a pack."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.voicepack import export_pack

    count = export_pack(args.pack, args.zip)
    book = PhraseBook.load(load_settings(args.config).language)
    print(book.screen("files_written", {"count": count, "path": args.zip}))
    return 0


def run_import(args: argparse.Namespace) -> int:
    """Unpack a shared pack, then say how it fits this phrase book."""
    from voicehost.phrases import PhraseBook
    from voicehost.voice_out.voicepack import import_pack

    count = import_pack(args.zip, args.pack, replace=args.replace)
    book = PhraseBook.load(load_settings(args.config).language)
    print(book.screen("files_imported", {"count": count, "path": args.pack}))
    return run_check(argparse.Namespace(config=args.config, pack=args.pack))


def load_settings(path: str | None) -> Settings:
    """config.yaml's settings (the loader is imported here: a warm build needs none)."""
    from voicehost import config

    return config.load(path)
