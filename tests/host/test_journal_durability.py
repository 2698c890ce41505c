"""When each journal line reaches the disk: a person's input is written and fsync'ed before the
table hears anything of it; the host's own timer events are written before their effects (a
kill -9 finds the journal a prefix of the game) but fsync'ed by the writer thread, so a timed
cue never waits for the disk. kill -9 just after a timer event's line still resumes to the
same game (the kill at random moments is tests/host/test_kill9.py)."""

from __future__ import annotations

import gc
import os
import threading
from pathlib import Path

import pytest
from faultkit import SCRIPT, kill_and_resume, straight_journal

from voicehost import config
from voicehost.console.script import run_script
from voicehost.host.commands import Source
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook

SETTINGS = config.loads("")
BOOK = PhraseBook.load("ru")


def lines_on_disk(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_every_input_is_on_disk_before_its_effects_and_only_timers_skip_the_loops_fsync(
    tmp_path, monkeypatch
):
    path = tmp_path / "game.jsonl"
    submitting: list[str] = []  # the source of the input being submitted, if any
    fsyncs: list[tuple[str, bool]] = []  # (source being submitted, on the loop's thread?)
    carried: list[tuple[int, int]] = []  # (journal lines on disk, inputs accepted) per effects
    real_fsync, real_submit, real_carry_out = os.fsync, Host.submit, Host._carry_out

    def fsync(descriptor: int) -> None:
        on_loop = threading.current_thread() is threading.main_thread()
        fsyncs.append((submitting[-1] if submitting and on_loop else "", on_loop))
        real_fsync(descriptor)

    def submit(self: Host, event, source=Source.KEYBOARD) -> bool:  # type: ignore[no-untyped-def]
        submitting.append(str(source))
        try:
            return real_submit(self, event, source)
        finally:
            submitting.pop()

    def carry_out(self: Host, effects) -> None:  # type: ignore[no-untyped-def]
        if submitting:
            carried.append((lines_on_disk(path), len(self.accepted)))
        real_carry_out(self, effects)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(Host, "submit", submit)
    monkeypatch.setattr(Host, "_carry_out", carry_out)
    result = run_script(SCRIPT[:40], SETTINGS, book=BOOK, journal_path=path)
    result.host.close()
    assert result.errors == []
    timer_inputs = sum(1 for item in result.host.accepted if item.source == Source.TIMER)
    assert timer_inputs >= 3  # the night windows and a speech's time ran out
    # Each input's line (after the header) was on disk when its first effect was carried out.
    assert carried and all(on_disk >= 1 + accepted for on_disk, accepted in carried)
    # The loop's thread fsynced every input a person gave, and never a timer event's line.
    loop_sources = [source for source, on_loop in fsyncs if on_loop and source]
    assert "timer" not in loop_sources
    assert loop_sources.count("keyboard") >= len(result.host.accepted) - timer_inputs


def test_a_timer_events_line_reaches_the_disk_through_the_writer_thread(tmp_path, monkeypatch):
    path = tmp_path / "game.jsonl"
    synced = threading.Event()
    real_fsync = os.fsync

    def fsync(descriptor: int) -> None:
        real_fsync(descriptor)
        if threading.current_thread() is not threading.main_thread():
            synced.set()

    monkeypatch.setattr(os, "fsync", fsync)
    result = run_script(["2 5 9", "wait"], SETTINGS, book=BOOK, journal_path=path)
    assert synced.wait(5), "nobody fsynced the timer event's line"
    assert b'"source": "timer"' in path.read_bytes()
    result.host.close()


def syncers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("journal-sync")]


@pytest.mark.parametrize("closed", [True, False], ids=["closed", "dropped without close"])
def test_the_writer_thread_ends_with_its_journal(closed: bool, tmp_path: Path) -> None:
    """One writer thread per journal, alive while its game is: closed, or dropped by whoever
    held it (a finished script's host, a test), the journal leaves no thread behind."""
    before = set(syncers())
    hosts = []
    for number in range(5):
        path = tmp_path / f"game-{number}.jsonl"
        hosts.append(run_script(["2 5 9", "wait"], SETTINGS, book=BOOK, journal_path=path).host)
    mine = [t for t in syncers() if t not in before]
    assert len(mine) == 5  # one each, while their games go on
    if closed:
        for each in hosts:
            each.close()
    hosts.clear()
    gc.collect()
    for thread in mine:
        thread.join(5)
    assert [t.name for t in mine if t.is_alive()] == []
    assert set(syncers()) <= before


@pytest.mark.parametrize("which", [0, -1], ids=["first timer event", "last timer event"])
def test_kill_9_just_after_a_timer_events_line_resumes_to_the_same_game(which, tmp_path):
    straight = straight_journal(tmp_path / "straight" / "game.jsonl")
    timer_lines = [n for n, line in enumerate(straight, 1) if '"source": "timer"' in line]
    assert timer_lines
    at_line = timer_lines[which]
    written = kill_and_resume(tmp_path / "killed", at_line, straight)
    assert written <= len(straight) - 1
