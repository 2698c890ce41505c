"""Fuzzers over what people type: the keyboard's command language (through the console's own
line handler, as `voicehost play` runs it) and the keypad's key stream (through the key
controller on the loop). Whatever is typed: no traceback, a refused entry changes nothing, and
the game replayed from its accepted inputs is the game played live.

``make test`` runs a quick round; ``VOICEHOST_FUZZ_EXAMPLES=10000 .venv/bin/pytest -q
tests/console/test_input_fuzz.py`` runs the long one.
"""

from __future__ import annotations

import copy
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LineHandler, LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.host import protocol
from voicehost.host.actions import CONFIRM_WORDS, Action, words_of
from voicehost.host.loop import Host
from voicehost.host.replay import replay
from voicehost.keypad.controller import KeypadController
from voicehost.phrases import PhraseBook
from voicehost.ports import Key
from voicehost.testing.clocked import wait_timer
from voicehost.testing.fakes import RecordingCues

EXAMPLES = int(os.environ.get("VOICEHOST_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SETTINGS = config.load(None)
BOOK = PhraseBook.load("ru")

#: Every word of the action table in both languages and on both layouts (so a new command is
#: fuzzed the day it is added), the confirming word, and numbers in and out of range.
WORDS = sorted(
    {word for action in Action for word in words_of(action)}
    | CONFIRM_WORDS
    | {"1", "2", "3", "4", "5", "7", "9", "10", "12", "13", "14", "0", "-1", "99", "100", "005"}
)
tokens = st.sampled_from(WORDS) | st.text(max_size=6)
separators = st.sampled_from([" ", ",", ";", "  ", "\t", ", ", "#", "\x00", "\udcff", "\u0301"])
lines = st.lists(st.tuples(tokens, separators), max_size=5).map(
    lambda parts: "".join(word + sep for word, sep in parts)
)
# A script line, or time passing: ``None`` lets the running timer run out.
steps = st.lists(st.one_of(lines, st.none()), max_size=60)


def make_host(
    screen: LogScreen | None = None, cues: object | None = None, preset: str = "club"
) -> Host:
    clock = FakeClock()
    host = Host(
        config.with_preset(SETTINGS, preset),
        BOOK,
        clock,
        speaker=TextSpeaker(clock),
        cues=cues or SilentCues(),  # type: ignore[arg-type]  # a RecordingCues is a CuePlayer
        private=ScreenPrivateChannel(screen, book=BOOK),
        screen=screen,
    )
    host.start()
    return host


def replayed_protocol(host: Host) -> dict[str, object]:
    state, _ = replay(host.engine, [(item.event, item.source) for item in host.accepted])
    return protocol.build(state)


def let_time_pass(host: Host) -> None:
    if host.timer is not None and host.paused_at is None:
        wait_timer(host)


@pytest.mark.parametrize("preset", ["club", "fiim"])
@FUZZ
@given(steps=steps)
def test_any_typed_line_is_taken_or_refused_and_nothing_breaks(
    preset: str, steps: list[str | None]
) -> None:
    screen = LogScreen()
    host = make_host(screen, preset=preset)
    handler = LineHandler(host, screen, lambda: "")
    for step in steps:
        if host.over or host.quit:
            break
        if step is None:
            let_time_pass(host)
            continue
        before = copy.deepcopy(host.state)
        accepted = len(host.accepted)
        handler.line(step)
        host.process_pending()
        if len(host.accepted) == accepted and host.paused_at is None and not host.quit:
            # Refused (or help, status, an empty line): the game is as it was.
            assert host.state == before, step
    assert host.state is not None
    assert replayed_protocol(host) == protocol.build(host.state)


KEYS = list(Key)
key_steps = st.lists(st.one_of(st.sampled_from(KEYS), st.none()), max_size=120)


@FUZZ
@given(steps=key_steps)
def test_any_key_stream_is_taken_or_refused_and_nothing_breaks(steps: list[Key | None]) -> None:
    cues = RecordingCues()
    host = make_host(cues=cues)
    controller = KeypadController(host, cues, host.clock)
    for key in steps:
        if host.over:
            break
        if key is None:
            let_time_pass(host)
            continue
        before = copy.deepcopy(host.state)
        accepted = len(host.accepted)
        controller.on_key(key)
        host.process_pending()
        if len(host.accepted) == accepted:
            assert host.state == before, key
    assert host.state is not None
    assert replayed_protocol(host) == protocol.build(host.state)
