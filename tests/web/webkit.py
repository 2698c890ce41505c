"""A table hosted with the web face on loopback, on a fake clock, for the web tests and benches.

``web_table()`` builds the Host as `voicehost play --web --text` does (the private channel with
the web face beside it), serves the web face on a free port of 127.0.0.1 and runs the one loop
on a thread of its own; ``wait()`` lets the running timer run out, as a script's ``wait`` does.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.host.commands import Quit
from voicehost.host.loop import NIGHT_ENTRY_GUARD, Host
from voicehost.phrases import PhraseBook
from voicehost.testing.clocked import wait_timer
from voicehost.web import WebPrivate, WebRunning, start_web

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CODE = "135790"


def settings_for(preset: str = "club", language: str = "ru", **web: object) -> config.Settings:
    settings = config.with_preset(config.load(None), preset)
    settings = dataclasses.replace(settings, language=language)
    changed = dataclasses.replace(settings.web, **{"pairing_code": CODE, **web})  # type: ignore[arg-type]
    return dataclasses.replace(settings, web=changed)


@dataclass
class WebTable:
    host: Host
    clock: FakeClock
    web: WebRunning
    screen: LogScreen
    thread: threading.Thread

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.web.server.port}"

    def run_on_loop(self, action) -> None:  # noqa: ANN001
        """Run ``action`` on the loop's thread and wait until its frames are published."""
        done = threading.Event()
        turns = iter([action, done.set])  # the action; a turn later its frames are published

        def on_loop() -> None:
            step = next(turns, None)
            if step is None:
                return
            if step is done.set:
                self.host.events.on_idle.remove(on_loop)
            step()

        # First among the hooks, so the face publishes the action's frames in the same turn;
        # the loop turns at least every 0.25 s.
        self.host.events.on_idle.insert(0, on_loop)
        end = time.monotonic() + 10
        while not done.wait(0.01):  # the loop ends with the game: its last command was run
            if not self.thread.is_alive():
                return
            assert time.monotonic() < end, "the loop did not answer"

    def wait(self) -> None:
        self.run_on_loop(lambda: wait_timer(self.host))

    def past_first_moment(self) -> None:
        """Let a night step's first moment pass, as it does before a person taps: an entry
        begun in it is refused (``NIGHT_ENTRY_GUARD``)."""
        host = self.host

        def wait() -> None:
            if host.state is not None and host.state.phase.is_night:
                self.clock.set(max(self.clock.now(), host.step_since + NIGHT_ENTRY_GUARD))

        self.run_on_loop(wait)


@contextmanager
def web_table(
    settings: config.Settings,
    *,
    start: bool = True,
    journal: Path | None = None,
    evening: bool = False,
    port: int = 0,
) -> Iterator[WebTable]:
    book = PhraseBook.load(settings.language)
    clock = FakeClock()
    screen = LogScreen()
    private = WebPrivate(ScreenPrivateChannel(screen, book=book))
    host = Host(
        settings,
        book,
        clock,
        speaker=TextSpeaker(clock),
        cues=SilentCues(),
        private=private,
        screen=screen,
        journal_path=journal,
        dealt_by_device=settings.web.deal == "device",
    )

    # With ``evening``, the remote's evening buttons run `voicehost evening`'s own code, in the
    # data folder of ``settings.club.data_dir``.
    def evening_action(action: str) -> tuple[bool, str]:
        from voicehost.cli.evening import evening_action

        return evening_action(settings, book, action)

    running = start_web(
        host,
        lambda: "protocol",
        private=private,
        bind="127.0.0.1",
        port=port,  # 0: a free one
        evening=evening_action if evening else None,
    )
    if start:
        host.start()
        running.face.tick()  # what the pages show before the loop's first turn
    thread = threading.Thread(target=host.run, daemon=True, name="loop")
    thread.start()
    try:
        yield WebTable(host, clock, running, screen, thread)
    finally:
        host.post(Quit())
        thread.join(timeout=5)
        running.stop()
        host.close()
