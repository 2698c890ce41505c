"""Test helpers for games on a fake clock."""

from __future__ import annotations

from voicehost.clock import FakeClock
from voicehost.console.script import wait_timer as _wait_timer
from voicehost.host.loop import Host


def wait_timer(host: Host) -> None:
    """Let the running timer of ``host`` (which must run on a FakeClock) run out."""
    clock = host.clock
    assert isinstance(clock, FakeClock), "wait_timer needs a game on a FakeClock"
    _wait_timer(host, clock)
