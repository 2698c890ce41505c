"""`voicehost play`: host a game at the table, or play a script on a fake clock."""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from voicehost import config
from voicehost.cli.texts import text
from voicehost.errors import VoicehostError
from voicehost.game.rules import PRESETS
from voicehost.phrases import PhraseBook


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help=text("play"),
        description=text("play.description"),
    )
    parser.add_argument("--script", type=Path, help=text("play.script"))
    parser.add_argument("--players", type=int, help=text("play.players"))
    parser.add_argument("--lang", choices=("ru", "en"), help=text("play.lang"))
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        help=text("play.preset"),
    )
    parser.add_argument("--journal", type=Path, help=text("play.journal"))
    parser.add_argument("--roster", type=Path, help=text("play.roster"))
    parser.add_argument("--text", action="store_true", help=text("play.text"))
    parser.add_argument("--plain", action="store_true", help=text("play.plain"))
    parser.add_argument("--audio-out", type=Path, help=text("play.audio_out"))
    parser.add_argument(
        "--web",
        action="store_true",
        help=text("play.web"),
    )
    parser.add_argument(
        "--resume-or-start",
        action="store_true",
        help=text("play.resume_or_start"),
    )
    parser.set_defaults(func=run)


def settings_for(args: argparse.Namespace, *, journal: bool = False) -> config.Settings:
    """config.yaml with the command line's overrides, checked like the file; ``journal`` for a
    command that goes on a journal, which keeps its own rule set (rules.file is not read)."""
    settings = config.load(args.config, rules_file=not journal)
    preset = getattr(args, "preset", None)
    if getattr(args, "players", None) is not None:
        rules = PRESETS[preset or settings.rules.preset]
        low, high = rules.sizes
        if rules.players is None and not low <= args.players <= high:
            raise VoicehostError(
                f"--players {args.players}: a table has {low} to {high} players by these rules",
                phrase="arg_players",
                players=args.players,
                low=low,
                high=high,
            )
        settings = dataclasses.replace(settings, players=args.players)
    if preset is not None:
        fixed = PRESETS[preset].players
        players = getattr(args, "players", None)
        if fixed is not None and players is not None and players != fixed:
            raise VoicehostError(
                f"--preset {preset} is played by {fixed} players, not --players {players}: "
                "leave --players out",
                phrase="arg_preset_players",
                preset=preset,
                fixed=fixed,
                players=players,
            )
        settings = config.with_preset(settings, preset)
    elif getattr(args, "players", None) is not None:
        fixed = PRESETS[settings.rules.preset].players
        if fixed is not None and args.players != fixed:
            raise VoicehostError(
                f"rules.preset {settings.rules.preset} is played by {fixed} players, not "
                f"--players {args.players}",
                phrase="arg_config_preset_players",
                preset=settings.rules.preset,
                fixed=fixed,
                players=args.players,
            )
    if getattr(args, "lang", None):
        settings = dataclasses.replace(settings, language=args.lang)
    return settings


def run(args: argparse.Namespace) -> int:
    settings = settings_for(args)
    if args.script is None and not args.text and settings.voice.engine != "text":
        from voicehost.voice_out.sound_probe import start_probe

        start_probe()  # answered on the other core while the game is being set up
    if args.script is not None:
        names = starting_names(settings, args.roster) if args.roster is not None else None
        return run_script_file(
            args.script, settings, args.journal, args.audio_out, resume=False, names=names
        )
    resume = False
    journal = args.journal
    set_aside: list[str] = []
    if args.resume_or_start and journal is None:
        journal, set_aside = boot_journal(settings)
        resume = journal is not None
    elif journal is None:
        journal = offer_resume(settings, sys.stdin)
        resume = journal is not None
    from voicehost.cli import session

    names = None if resume else starting_names(settings, args.roster)
    return session.play(
        settings,
        journal_path=journal or session.new_journal_path(settings),
        resume=resume,
        text_only=args.text,
        plain=args.plain,
        audio_out=args.audio_out,
        set_aside=set_aside,
        names=names,
        web=args.web or settings.web.enabled,
        web_required=args.web,
    )


def starting_names(settings: config.Settings, roster: Path | None) -> dict[Any, str]:
    """The names a new game starts with: the roster's, else the open evening's last game's."""
    from voicehost.host.names import NameRefused, read_roster

    players = settings.game.players
    if roster is not None:
        try:
            return dict(read_roster(roster, players))
        except NameRefused as exc:
            raise VoicehostError.written(exc.in_words(PhraseBook.load(settings.language))) from exc
    from voicehost.cli.evening import carried_to

    return carried_to(settings, PhraseBook.load(settings.language), players, sys.stdin)


def boot_journal(settings: config.Settings) -> tuple[Path | None, list[str]]:
    """The service's journal: the newest one that can be resumed. A game that had ended
    without its marker (a kill right after its last input) is settled quietly, not resumed.
    Those that cannot be resumed are set aside (renamed, kept) and each is said on stderr (and
    in the log), so a bad journal never keeps the table dead at boot."""
    from voicehost.cli.session import settle_ended
    from voicehost.host.journal import choose_resumable
    from voicehost.host.replay import replay_journal

    settle_ended(settings)
    folder = settings.path(settings.storage.journal_dir)
    journal, messages = choose_resumable(folder, lambda path: replay_journal(settings, path))
    return journal, messages


def offer_resume(settings: config.Settings, stdin: TextIO) -> Path | None:
    """After a crash: the unfinished game the host chooses to carry on, or None for a new game.

    Without a person at the terminal nothing is asked: a new game starts, and the line printed
    says how to carry the other one on.
    """
    from voicehost.cli.session import resume_command, settle_ended
    from voicehost.host.journal import in_use, newest_unfinished, played

    settle_ended(settings)  # a game that had ended unmarked is never offered
    unfinished = newest_unfinished(settings.path(settings.storage.journal_dir), played_only=True)
    if unfinished is None:
        return None
    book = PhraseBook.load(settings.language)
    if in_use(unfinished):
        # Another voicehost hosts it right now: resuming it would be refused.
        print(book.screen("resume_in_use", {"path": unfinished}))
        return None
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(unfinished.stat().st_mtime))
    found = {"path": unfinished, "entries": played(unfinished), "when": when}
    print(book.screen("resume_found", found))
    if not stdin.isatty():
        command = resume_command(settings, unfinished)
        print(book.screen("resume_new_game_no_terminal", {"command": command}))
        return None
    _discard_typeahead(stdin)
    yes = ("", *book.screen("resume_yes_words").split())
    no = tuple(book.screen("resume_no_words").split())
    while True:
        print(book.screen("resume_question"), end="", flush=True)
        line = stdin.readline()
        if not line:  # the terminal closed: nobody said yes, the game stays for `resume`
            print()
            break
        answer = line.strip().casefold()
        if answer in yes:
            return unfinished
        if answer in no:
            break
        # "2 5 9" typed for the new game, or a typo: neither answer is taken from it.
        print(book.screen("resume_unclear", {"answer": line.strip()}))
    print(book.screen("resume_declined", {"command": resume_command(settings, unfinished)}))
    return None


def _discard_typeahead(stdin: TextIO) -> None:
    """Drop what was typed before the question was on the screen (the first line of a new game
    typed while the host was starting), so it is never taken as the answer."""
    try:
        import termios

        termios.tcflush(stdin.fileno(), termios.TCIFLUSH)
    except (ImportError, OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass  # not a real terminal (a test's stand-in): nothing buffered to drop


EXAMPLES_DIR = Path(__file__).resolve().parent.parent.parent / "examples"
"""The example scripts beside the package (``voicehost play --script examples/town-wins.txt``)."""


def script_path(path: Path) -> Path:
    """A script as given; a relative one that is not here is looked for among the examples, so
    the README's `--script examples/town-wins.txt` works from any folder."""
    if path.is_absolute() or path.exists():
        return path
    for candidate in (EXAMPLES_DIR.parent / path, EXAMPLES_DIR / path.name):
        if candidate.is_file():
            return candidate
    return path


def run_script_file(
    path: Path,
    settings: config.Settings,
    journal: Path | None,
    audio_out: Path | None,
    *,
    resume: bool,
    names: Mapping[Any, str] | None = None,
) -> int:
    """Play a script; exit status 1 when any line was rejected."""
    from voicehost.console.script import run_script

    path = script_path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise VoicehostError(
            f"cannot read script {path}: {exc.strerror}",
            phrase="arg_cannot_read_script",
            path=path,
            reason=exc.strerror,
            examples=EXAMPLES_DIR,
        ) from exc
    extra: dict[str, Any] = {}
    if audio_out is not None:
        from voicehost.cli import wiring

        extra = wiring.make_recording(settings, audio_out)
    result = run_script(
        lines, settings, out=sys.stdout, journal_path=journal, resume=resume, names=names, **extra
    )
    result.host.close()  # the journal's last timer events on disk, its lock released
    if "speaker" in extra:
        extra["speaker"].finish()  # renders the recorded timeline to the file
    if result.host.over:
        from voicehost.host import protocol

        print()
        print(protocol.to_table(result.protocol, result.host.book))
        from voicehost.cli.evening import script_word

        not_counted = script_word(settings, result.host.book)
        if not_counted:
            print(f"\nℹ {not_counted}")
    if result.errors:
        rejected = result.host.book.screen("script_rejected_count", {"count": len(result.errors)})
        print(f"\n{rejected}", file=sys.stderr)
        for error in result.errors:
            print(f"  {error}", file=sys.stderr)
        return 1
    return 0
