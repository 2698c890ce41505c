"""Nothing of the night reaches the log (journald keeps it for anyone who may read it): no
refusal, no seat, no role, no key (issue 10)."""

from __future__ import annotations

import errno
import logging
import os
import re

from faultkit import BOOK, REPO, SCRIPT, SETTINGS

from voicehost.console.script import run_script
from voicehost.keypad import evdev_keypad

ROLE_WORDS = re.compile(r"маф|комисс|доктор|mafia|commissar|doctor|\d", re.IGNORECASE)


def _night_refusals() -> list[str]:
    """The resume game with refused night entries: the Commissar on a mafia seat, no such
    seat, the Doctor on the Commissar's seat, a second shot."""
    lines = list(SCRIPT)
    at = lines.index("4            # the Commissar")
    return [*lines[:at], "5", "99", "2 5", *lines[at : at + 2], "4", "2 9", *lines[at + 2 :]]


def test_night_refusals_and_choices_never_reach_the_log(caplog, tmp_path, monkeypatch):
    with caplog.at_level(logging.DEBUG):
        result = run_script(_night_refusals(), SETTINGS, book=BOOK, journal_path=tmp_path / "j")
        # The disk fills at night too: the journal's trouble is logged, but not while it is
        # dark (the moment of the line would tell that someone acted).
        host = run_script(SCRIPT[:4], SETTINGS, book=BOOK, journal_path=tmp_path / "k").host
        assert host.state is not None and host.state.phase.is_night
        night_records = len(caplog.records)
        monkeypatch.setattr(os, "fsync", lambda d: (_ for _ in ()).throw(OSError(errno.EIO, "")))
        run_script(["4"], SETTINGS, book=BOOK, clock=host.clock, host=host)
        assert len(caplog.records) == night_records
    assert len(result.errors) >= 4  # the refusals happened, on screen
    assert result.host.rejections
    for record in caplog.records:
        text = record.getMessage()
        assert not any(refusal in text for refusal in result.host.rejections), text
        if "journal" not in text:  # a journal's path has digits (its date), nothing else
            assert not ROLE_WORDS.search(text), text


def test_a_failing_key_is_logged_without_the_key(caplog):
    def fails(key: object) -> None:
        raise ValueError(f"seat {key} is mafia")

    with caplog.at_level(logging.DEBUG):
        evdev_keypad._call_safely(fails, "7")
    text = "\n".join(record.getMessage() for record in caplog.records)
    assert "7" not in text and "mafia" not in text
    assert all(record.exc_info is None for record in caplog.records)


def test_the_service_keeps_the_screen_out_of_journald():
    from voicehost.cli.service import UnitSpec, unit_text

    unit = unit_text(UnitSpec("voicehost", ("voicehost", "play"), REPO, REPO / "config.yaml"))
    assert "StandardOutput=null" in unit  # the screen shows refusals; nobody reads it there
