"""One harness for tests and benches: a table hosted on a fake clock, its screen on a LogScreen.

``text_table()`` builds the Host the way `voicehost play --text` does, with every port a test
may want to replace given by keyword.
"""

from __future__ import annotations

import dataclasses

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.ports import Clock, CuePlayer, PrivateChannel, Speaker


def text_table(
    language: str | None = None,
    *,
    settings: config.Settings | None = None,
    clock: Clock | None = None,
    screen: LogScreen | None = None,
    speaker: Speaker | None = None,
    cues: CuePlayer | None = None,
    private: PrivateChannel | None = None,
) -> Host:
    """A Host (not started) whose Commissar answers on ``screen`` (or ``private``); defaults:
    config.yaml's defaults, a FakeClock, text announcements and silent cues."""
    settings = settings or config.load(None)
    if language is not None:
        settings = dataclasses.replace(settings, language=language)
    book = PhraseBook.load(settings.language)
    clock = clock or FakeClock()
    screen = screen or LogScreen()
    return Host(
        settings,
        book,
        clock,
        speaker=speaker or TextSpeaker(clock),
        cues=cues or SilentCues(),
        private=private or ScreenPrivateChannel(screen, book=book),
        screen=screen,
    )
