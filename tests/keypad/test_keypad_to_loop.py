"""The keypad's path into the game: the keypad thread posts each raw key as data, the loop hands
it to the controller, and the controller's command is carried out and journaled at once, in
the same turn of the loop (no second trip through the inbox)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.host import commands
from voicehost.host.commands import KeypadStatus, KeyPressed, Source
from voicehost.host.journal import read
from voicehost.host.loop import Host
from voicehost.keypad.controller import attach_keypad
from voicehost.phrases import PhraseBook
from voicehost.ports import Key

SETTINGS = config.loads("")
BOOK = PhraseBook.load("ru")


class ThreadKeypad:
    """The Keypad port; the test presses keys as the evdev thread would."""

    def start(self, on_key: Callable[[Key], None], on_status: Callable[[bool], None]) -> None:
        self.on_key, self.on_status = on_key, on_status

    def close(self) -> None:
        """Nothing to release."""


def started_host(tmp_path) -> tuple[Host, ThreadKeypad]:  # type: ignore[no-untyped-def]
    clock = FakeClock()
    screen = LogScreen()
    host = Host(SETTINGS, BOOK, clock, speaker=TextSpeaker(clock), cues=SilentCues(),
                private=ScreenPrivateChannel(screen, 3), journal_path=tmp_path / "game.jsonl",
                screen=screen)  # fmt: skip
    keypad = ThreadKeypad()
    attach_keypad(keypad, host, host.cues, clock)
    host.start()
    return host, keypad


def test_a_keypad_answer_is_taken_and_journaled_in_the_turn_its_enter_is_handled(tmp_path):
    host, keypad = started_host(tmp_path)
    for key in (Key.D2, Key.ENTER, Key.D5, Key.ENTER, Key.D9):
        keypad.on_key(key)
    while not host.inbox.empty():  # the digits and Enters, one turn each
        host.handle(host.inbox.get_nowait())
    keypad.on_key(Key.ENTER)
    posted = host.inbox.get_nowait()
    assert posted == KeyPressed(Key.ENTER)  # the thread posts data, not a closure
    host.handle(posted)
    assert host.inbox.empty()  # the controller handed its command straight to the loop
    assert [item.source for item in host.accepted] == [Source.KEYPAD]
    _, entries = read(tmp_path / "game.jsonl")
    assert [entry.source for entry in entries] == ["keypad"]  # on disk already
    host.close()


def test_unplugging_the_keypad_reaches_the_host_and_drops_the_half_typed_entry(tmp_path):
    host, keypad = started_host(tmp_path)
    keypad.on_key(Key.D2)
    keypad.on_status(False)
    keypad.on_status(True)
    for key in (Key.D3, Key.ENTER, Key.D5, Key.ENTER, Key.D9, Key.ENTER):
        keypad.on_key(key)
    seen: list[bool] = []
    while not host.inbox.empty():
        command = host.inbox.get_nowait()
        host.handle(command)
        if isinstance(command, KeypadStatus):
            seen.append(host.keypad_connected)
    assert seen == [False, True]
    assert host.accepted[0].event.seats == (3, 5, 9)  # type: ignore[attr-defined]  # not 23
    host.close()


def test_every_command_is_data_without_a_callable_in_it():
    for kind in typing.get_args(commands.Command):
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
        hints = typing.get_type_hints(kind)
        for field in dataclasses.fields(kind):
            assert "Callable" not in str(hints[field.name]), f"{kind.__name__}.{field.name}"
