"""Wiring a real game: settings -> adapters -> Host -> a UI. Used by `play` and `resume`."""

from __future__ import annotations

import contextlib
import logging
import shlex
import signal
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli import closed, wiring
from voicehost.cli.texts import ConsoleNotices
from voicehost.clock import MonotonicClock
from voicehost.config import Settings
from voicehost.console.terminal import CursesUI, LogScreen, PlainUI
from voicehost.console.text import SilentCues, TextSpeaker
from voicehost.errors import VoicehostError
from voicehost.host import protocol as protocol_module
from voicehost.host.commands import Notice, VoiceSpokeOn, VoiceStop
from voicehost.host.journal import mark_finished, newest_unfinished
from voicehost.host.loop import Host
from voicehost.notices import ATTRIBUTE, LOG_ONLY, WRITTEN, notice, notice_of, said
from voicehost.phrases import PhraseBook
from voicehost.ports import Screen
from voicehost.voice_in.loading import ListenerReady, ListenerStatus

if TYPE_CHECKING:
    from voicehost.host.replay import Replayed

log = logging.getLogger(__name__)


def new_journal_path(settings: Settings) -> Path:
    """A fresh journal file name in the journal folder, by date and time; a second game started
    in the same second (two tables on one machine) gets ``-2`` (``-3``...), not the first's file."""
    folder = settings.path(settings.storage.journal_dir)
    stamp = time.strftime("%Y-%m-%d_%H-%M-%S")
    path = folder / f"game-{stamp}.jsonl"
    number = 1
    while path.exists():
        number += 1
        path = folder / f"game-{stamp}-{number}.jsonl"
    return path


def find_journal(settings: Settings, given: str | None) -> Path | None:
    """The journal to resume: the one given, or the newest unfinished one (a game that had
    ended unmarked is settled, not resumed)."""
    if given:
        return Path(given)
    settle_ended(settings)
    return newest_unfinished(settings.path(settings.storage.journal_dir))


def settle_ended(settings: Settings) -> list[Path]:
    """Finish the games whose end a kill cut short: one that ended but was never marked so
    (killed right after its last input), or a table's game marked but left without its
    protocol and club record (killed right after the marker). Each gets its protocol, its club
    record and its marker, once and quietly, so no start resumes a game that is over. Journals
    being hosted or that cannot be replayed are left as they are. Returns those settled."""
    from voicehost.host.journal import JournalError, held, journals
    from voicehost.host.replay import replay_journal

    settled: list[Path] = []
    for journal in journals(settings.path(settings.storage.journal_dir)):
        if not _maybe_unsettled(settings, journal):
            continue
        try:
            with held(journal):
                replayed = replay_journal(settings, journal)
                if replayed.state.over:
                    finish_ended(settings, journal, replayed)
                    settled.append(journal)
        except (JournalError, OSError):
            continue  # hosted right now, or not resumable: the boot sets it aside
    return settled


def _maybe_unsettled(settings: Settings, journal: Path) -> bool:
    """Whether a journal's game may have ended with its bookkeeping cut short: it is not
    marked finished, or it is a table's game (the club's header) marked finished with neither
    its protocol nor its club record."""
    from voicehost.club import records
    from voicehost.host.journal import JournalError, read

    if not journal.with_suffix(".finished").exists():
        return True
    protocol = settings.path(settings.storage.protocol_dir) / f"{journal.stem}.json"
    if records.recorded_marker(journal).exists() or protocol.exists():
        return False
    try:
        header, _ = read(journal)
    except JournalError:
        return False
    return "table" in header


def finish_ended(settings: Settings, journal: Path, replayed: Replayed) -> None:
    """An ended game's bookkeeping: the protocol, the club's record, then the finished marker
    (each done again, whole, when a kill cuts this short; the marker ends it)."""
    from voicehost.club import records
    from voicehost.host.journal import mark_finished, names_in
    from voicehost.host.names import from_record
    from voicehost.host.votes import voters_in

    players = replayed.settings.game.players
    data = protocol_module.build(
        replayed.state,
        names=from_record(names_in(journal), players),
        voters=voters_in(journal),
    )
    book = PhraseBook.load(replayed.settings.language)
    folder = settings.path(settings.storage.protocol_dir)
    try:
        protocol_module.write(data, folder, journal.stem, book)
    except protocol_module.ProtocolError as exc:  # the journal still holds the game
        log.warning("the protocol of %s: %s", journal, exc, extra=LOG_ONLY)
    records.record_left(settings, journal, replayed.state)
    mark_finished(journal)
    log.info(
        "the game in %s had ended without its marker: its protocol and the club's record are "
        "done, and it is marked finished",
        journal,
        extra=LOG_ONLY,
    )


class ScreenNotices(logging.Handler):
    """Shows voicehost's notices (no sound card, no speech model, the keypad unplugged...) on
    the host's screen, where the full-screen view would otherwise hide them until the end.

    Notices come from any thread: once the host runs they are posted to its loop, which alone
    writes to the screen.
    """

    def __init__(self, screen: Screen, book: PhraseBook) -> None:
        super().__init__(logging.INFO)
        self.screen = screen
        self.book = book
        self.host: Host | None = None

    def attach(self, host: Host) -> None:
        self.host = host

    def emit(self, record: logging.LogRecord) -> None:
        shown = said(record, self.book)
        if shown is None:
            return  # for the log alone
        text = f"ℹ {shown}"
        if self.host is None:
            self.screen.message(text)  # still setting up, on the loop's own thread
        else:
            self.host.post(Notice(text))


class LogOnly(logging.Filter):
    """Lets through the lines for the log alone (``extra=LOG_ONLY``): the screen shows the
    others in the game's language."""

    def filter(self, record: logging.LogRecord) -> bool:
        return notice_of(record) == LOG_ONLY[ATTRIBUTE]


def write_protocol(host: Host) -> str:
    """Write the protocol beside the journal's name; returns a line saying where."""
    assert host.state is not None
    stem = host.journal_path.stem if host.journal_path else time.strftime("game-%Y-%m-%d_%H-%M-%S")
    folder = host.settings.path(host.settings.storage.protocol_dir)
    try:
        json_path, text_path = protocol_module.write(
            protocol_module.build(
                host.state,
                names=host.names.as_dict(),
                voters=[voters for _, voters in host.voter_lists],
            ),
            folder,
            stem,
            host.book,
        )
    except protocol_module.ProtocolError as exc:
        return f"✗ {exc}"  # the game goes on: the journal still holds it
    return host.book.screen("protocol_written", {"text": text_path, "json": json_path})


def play(
    settings: Settings,
    *,
    journal_path: Path,
    resume: bool,
    text_only: bool = False,
    plain: bool = False,
    audio_out: Path | None = None,
    set_aside: Sequence[str] = (),
    names: Mapping[Any, str] | None = None,
    web: bool = False,
    web_required: bool = False,
) -> int:
    """Host a real game in real time until it ends or the host quits.

    ``web`` serves the web face too; when it cannot start, ``web_required`` (``--web``) stops
    with the reason, else (``web.enabled``) the game goes on without it.
    ``set_aside`` are the messages of journals the boot service could not resume: each is shown
    and logged, and the table hears once that the last game cannot go on.
    """
    if not text_only and settings.voice.engine != "text":
        from voicehost.voice_out.sound_probe import start_probe

        start_probe()  # `play` started it already; `resume` starts it here
    # A game that had the board and the remote gets them back when it is resumed: the room
    # goes on looking at them (a port that cannot be had is said, and the game goes on).
    web_before = resume and served_web(journal_path)
    web = web or web_before
    book = PhraseBook.load(settings.language)
    clock = MonotonicClock()
    screen = LogScreen()
    interactive = sys.stdin.isatty() and sys.stdout.isatty() and not plain
    notices = ScreenNotices(screen, book)
    package_log = logging.getLogger("voicehost")
    # The screen shows every notice in the game's language (in line mode it is stdout), so the
    # command line's own notices step aside. Under the service and into a pipe the lines for the
    # log alone also go to stderr, in English, for whoever repairs the box; a person at a
    # terminal reads the screen only.
    console = [one for one in package_log.handlers if isinstance(one, ConsoleNotices)]
    for one in console:
        package_log.removeHandler(one)
    package_log.addHandler(notices)
    log_lines: logging.Handler | None = None
    if not interactive and not sys.stderr.isatty():
        log_lines = logging.StreamHandler()
        log_lines.addFilter(LogOnly())
        package_log.addHandler(log_lines)

    def restore_handlers() -> None:
        for ours in (notices, log_lines):
            if ours is not None:
                package_log.removeHandler(ours)
        for one in console:
            package_log.addHandler(one)

    package_log.setLevel(logging.INFO)
    extras: dict[str, Any] = {}
    if text_only:
        speaker: Any = TextSpeaker(clock)
        cues: Any = SilentCues()
    else:
        sound = wiring.make_sound(settings, clock, book, **_audio_kwargs(audio_out))
        speaker, cues = sound.speaker, sound.cues
        extras = wiring.make_night_sound(settings, sound.background)

    def listening(ready: ListenerReady) -> None:  # on the loader's thread: via the log
        if ready.status is ListenerStatus.READY:
            log.info(
                "%s",
                book.screen("listening_ready", {"seconds": round(ready.seconds, 1)}),
                extra=WRITTEN,
            )
        else:
            reason = ready.reason if ready.error is None else book.explain(ready.error)
            log.warning("%s", book.screen("listening_failed", {"reason": reason}), extra=WRITTEN)

    listener = wiring.make_listener(settings, clock, on_ready=listening)
    keypad = wiring.make_keypad(settings)
    private = wiring.make_private_channel(settings, screen, book)
    web_private = None
    if web:
        from voicehost.web.face import WebPrivate

        private = web_private = WebPrivate(private)
    host = Host(
        settings,
        book,
        clock,
        speaker=speaker,
        cues=cues,
        private=private,
        listener=listener,
        journal_path=journal_path,
        screen=screen,
        names=names,
        header=club_header(settings),
        dealt_by_device=web and settings.web.deal == "device",
        **extras,
    )
    if listener is not None:
        listener.start(
            lambda token: host.post(VoiceStop(token)),
            lambda token: host.post(VoiceSpokeOn(token)),
        )
    if keypad is not None:
        from voicehost.keypad.controller import attach_keypad

        attach_keypad(
            keypad,
            host,
            cues,
            clock,
            entry_timeout_seconds=settings.keypad.entry_timeout_seconds,
        )
    notices.attach(host)
    running = None
    if web:
        try:
            running = start_web_face(host, web_private, interactive=interactive)
        except VoicehostError as exc:
            if web_required:  # `--web`: say why and stop, before the game starts
                for device in (keypad, listener, private, cues, speaker):
                    if device is not None:
                        with contextlib.suppress(Exception):
                            device.close()
                restore_handlers()
                raise
            # web.enabled (the service at boot): the game goes on without the web face, and
            # the screen and the log say why.
            log.warning("%s", exc, extra=WRITTEN)
    if running is not None and not resume:
        host.header["web"] = True  # the journal knows: `resume` serves the room again
    for message in set_aside:
        log.warning("%s", message, extra=notice("journal_set_aside", reason=message))
    if resume:
        host.resume()
    else:
        host.start()
    from voicehost.club import records

    records.warm_up(settings)
    screen.message(f"ℹ {evening_word(host)}")
    if set_aside and not resume:
        host.announce("game.journal_set_aside")
    ui: CursesUI | PlainUI

    def resume_with(path: Path) -> str:  # the line printed when the game is left, word for word
        web_now = running is not None and resume and not web_before
        return resume_command(settings, path, web=web_now, text=text_only)

    if interactive:
        ui = CursesUI(host, screen, lambda: write_protocol(host), resume_with)
    else:
        hands_free = keypad is not None or listener is not None
        ui = PlainUI(
            host,
            screen,
            lambda: write_protocol(host),
            keyboard_only=not hands_free,
            resume=resume_with,
        )
    stopped: list[str] = []

    def stop(signum: int, frame: object) -> None:
        # The loop looks at `quit` at least every quarter of a second; nothing else is safe
        # to do inside a signal handler.
        stopped.append(signal.Signals(signum).name)
        host.quit = True

    previous = {number: signal.signal(number, stop) for number in STOP_SIGNALS}
    if sys.stdin.isatty():
        # A person at the terminal: Ctrl+C asks as `q` does (a stray one costs no resume).
        # Without one (the service's `systemctl stop`, a pipe) it stops the game at once.
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda *_: ui.interrupt())
    try:
        ui.run()
    except KeyboardInterrupt:
        # Ctrl+C leaves the game as a quit does: the journal is named below, not a bare resume
        print(flush=True)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        for device in (keypad, listener, private, cues, speaker):
            if device is not None:
                try:
                    device.close()
                except Exception:  # noqa: BLE001 - closing must never hide the game's result
                    log.exception("closing %s failed", device, extra=LOG_ONLY)
        host.close()
        if running is not None:
            running.stop()
            if host.over and host.settings.web.pairing_lasts == "game":
                running.pairing.forget()  # a remote's pairing ends with its game
        restore_handlers()
    if isinstance(ui, CursesUI) and ui.terminal_lost:
        # Nothing can be shown on a terminal that is gone; what follows goes to the log (stderr,
        # for whoever repairs the box: the command line's notices leave lines for the log out).
        with contextlib.suppress(OSError, ValueError):
            print(
                f"the terminal was closed; the game is kept in {host.journal_path}",
                file=sys.stderr,
                flush=True,
            )
        closed.silence((sys.stdout, sys.stderr), terminals_only=True)
    if stopped:
        print(book.screen("stopped_by_signal", {"text": stopped[0]}))
    if host.over:
        print(write_protocol(host))
        print(after_game(host), flush=True)
        finish_club_sending(settings, book)
        if host.journal_path is not None:
            mark_finished(host.journal_path)  # a resumed game that had ended: never again
    elif host.journal_path is None or not host.journal_path.is_file():
        # (a journal whose folder was deleted is written anew under a name of its own: the host
        # knows where; a path that is a folder now holds no game)
        print(book.screen("game_not_saved", {"journal": journal_path}))
    else:
        # A journal that does not say it had the web face (resumed with --web) asks for it.
        command = resume_with(host.journal_path)
        print(book.screen("game_paused", {"journal": host.journal_path, "command": command}))
    return 0


def resume_command(
    settings: Settings, journal: Path, *, web: bool = False, text: bool = False
) -> str:
    """The command that carries this game on, with the settings file it was played with,
    ``--web`` when the game had the web face and its journal does not say so, and ``--text``
    when it was played without the voice."""
    given = f"--config {shlex.quote(settings.config_file)} " if settings.config_file else ""
    command = f"voicehost {given}resume {shlex.quote(str(journal))}"
    return command + (" --web" if web else "") + (" --text" if text else "")


def served_web(journal: Path) -> bool:
    """Whether the game in ``journal`` was played with the web face (its header says so)."""
    from voicehost.host.journal import read

    try:
        header, _ = read(journal)
    except (VoicehostError, OSError):
        return False  # the resume itself says what is wrong with it
    return header.get("web") is True


def club_header(settings: Settings) -> dict[str, str]:
    """The club's data for a new game's journal: this table, the open evening."""
    from voicehost.club import records

    return records.header_data(settings)


def evening_word(host: Host) -> str:
    """The evening this game counts in, or why it counts in none (its journal's header says
    which evening it began in)."""
    from voicehost.cli.evening import game_word
    from voicehost.host.journal import read

    evening_id = host.header.get("evening")
    if host.journal_path is not None and host.journal_path.is_file():
        with contextlib.suppress(VoicehostError, OSError):
            evening_id = read(host.journal_path)[0].get("evening")
    return game_word(host.settings, host.book, evening_id if isinstance(evening_id, str) else None)


def after_game(host: Host, lines: Iterator[str] | None = None) -> str:
    """After a finished game: the marks (``club.marks``), the club's record (outbox, then the
    database; a server is never waited for) and the evening's table. Returns what to print."""
    from voicehost.cli.evening import evening_report, invocation
    from voicehost.club import evening, marks, records
    from voicehost.club.outbox import why

    settings, book = host.settings, host.book
    journal = host.journal_path
    if journal is None or not journal.exists():
        return ""
    if settings.club.marks:

        def words(key: str, **params: Any) -> str:
            return str(book.screen(key, params))

        given = marks.ask(
            settings.game.players,
            lines if lines is not None else _typed_lines(),
            lambda text: print(text, flush=True),
            words,
        )
        try:
            records.save_marks(records.marks_path(settings, journal.stem), given)
        except OSError as exc:
            log.warning("cannot keep the marks: %s", exc, extra=LOG_ONLY)
    shown: list[str] = []
    try:
        recorded = records.record_finished(settings, journal, state=host.state)
    except (VoicehostError, OSError) as exc:
        log.warning("the club's record of %s: %s", journal, exc, extra=LOG_ONLY)
        return "✗ " + book.screen(
            "club_not_recorded", {"reason": str(exc), "command": invocation(settings)}
        )
    sent = recorded.sent
    if sent is not None and sent.waiting:
        shown.append(
            book.screen(
                "club_outbox_waiting",
                {"count": sent.waiting, "reason": why(book, sent), "command": invocation(settings)},
            )
        )
    current = evening.current(records.data_dir(settings))
    if current is not None:
        if recorded.facts["evening"] != current["id"]:
            shown.append(book.screen("evening_game_before", {"id": current["id"]}))
        shown.append(evening_report(current, book))
    return "\n".join(shown)


def finish_club_sending(settings: Settings, book: PhraseBook) -> None:
    """The game is over and shown: give the club's server a moment to take it; what it does
    not take waits in the outbox, and the line says so."""
    from voicehost.cli.evening import invocation
    from voicehost.club import records

    if not settings.club.database:
        return
    records.finish_sending(settings.club.sync_timeout_seconds + 1)
    waiting = len(records.outbox_of(settings).waiting())
    if waiting:
        print(
            book.screen("club_outbox_pending", {"count": waiting, "command": invocation(settings)})
        )


def _typed_lines() -> Iterator[str]:
    """What the host types for the marks; keys pressed before the question (the game's last
    entries, the key that left the screen) are dropped, so they never answer it."""
    if sys.stdin.isatty():
        import termios

        with contextlib.suppress(termios.error, OSError):
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    while True:
        try:
            yield input("> ") if sys.stdin.isatty() else next(sys.stdin).rstrip("\n")
        except (EOFError, StopIteration, KeyboardInterrupt):
            return


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""What stops a host from outside (`systemctl stop`, `kill`, a closed terminal): the game is
left as a quit leaves it, with a word saying so."""


def start_web_face(host: Host, private: Any, *, interactive: bool) -> Any:
    """The web face beside the terminal and the keypad: the addresses to open are printed and
    shown on the screen (the remote's, and with ``web.deal: device`` the deal's, as QR codes).
    No secret is printed, shown or said: a phone becomes the remote when the host types the
    number it shows (``пульт 1234``, keypad ``[*] [*] 1 2 3 4 [Enter]``)."""
    from voicehost.cli.evening import evening_action
    from voicehost.web import qr_lines, start_web

    def evening(action: str) -> tuple[bool, str]:
        return evening_action(host.settings, host.book, action)

    store, scope = remotes_store(host)
    running = start_web(
        host,
        lambda: write_protocol(host),
        private=private,
        evening=evening,
        store=store,
        scope=scope,
    )
    book = host.book
    screen = host.screen
    if not running.urls:
        print(book.screen("web_no_address"))
        screen.message(f"ℹ {book.screen('web_no_address')}")
    for url in running.urls:
        line = book.screen("web_open", {"url": url})
        print(line)
        screen.message(f"ℹ {line}")
    pages = ["host"] + (["deal"] if host.settings.web.deal == "device" else [])
    for page in pages if running.urls else []:
        line = book.screen(f"web_open_{page}", {"url": f"{running.urls[0]}{page}"})
        print(line)
        screen.message(f"ℹ {line}")
        for row in qr_lines(f"{running.urls[0]}{page}"):
            screen.message(row)
    hint = book.screen("web_pair_how")
    print(hint)
    screen.message(f"ℹ {hint}")
    return running


def remotes_store(host: Host) -> tuple[Path | None, str]:
    """Where the remotes of this game are kept (beside its journal, owner-only) and their scope:
    this game, or the club's open evening (``web.pairing_lasts: evening``)."""
    settings = host.settings
    if settings.web.pairing_lasts == "evening":
        from voicehost.club import evening, records

        folder = records.data_dir(settings)
        current = evening.current(folder)
        if current is not None:
            return folder / "remotes.json", f"evening:{current.get('id', '')}"
    journal = host.journal_path
    if journal is None:
        return None, ""
    return journal.with_name(f"{journal.stem}.remotes.json"), f"game:{journal.stem}"


def _audio_kwargs(audio_out: Path | None) -> dict[str, Any]:
    return {} if audio_out is None else {"audio_out": audio_out}
