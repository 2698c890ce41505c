"""kill -9 of a real `voicehost play --script` at random moments: the journal is never
damaged, a real `voicehost resume` carries on, and the finished game's protocol equals the
uninterrupted one (issue 10). The long run is `make soak` (bench/soak_kill9.py)."""

from __future__ import annotations

import random

import pytest
from faultkit import kill_and_resume, straight_journal


@pytest.mark.parametrize("seed", [1, 2])
def test_kill_9_at_a_random_moment_then_resume(seed: int, tmp_path) -> None:
    straight = straight_journal(tmp_path / "straight" / "game.jsonl")
    at_line = random.Random(seed).randrange(2, len(straight) - 1)
    written = kill_and_resume(tmp_path / "killed", at_line, straight)
    assert 0 < written < len(straight) - 1  # killed mid-game
