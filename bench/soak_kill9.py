"""Soak: kill -9 a real `voicehost play --script` many times at random moments (as soon as
its journal reaches a random line, so during the writes that follow), resume each
journal in a real process and finish the game; every protocol must equal the uninterrupted
game's. `make soak` runs it; SOAK_KILLS (default 40) sets how many kills.

Prints: kills, how many landed mid-game, the spread of inputs on disk at the kill, failures.
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "host"))

from faultkit import SCRIPT, kill_and_resume, straight_journal  # noqa: E402


def main() -> int:
    kills = int(os.environ.get("SOAK_KILLS", "40"))
    rng = random.Random(int(os.environ.get("SOAK_SEED", "10")))
    failures = 0
    written: list[int] = []
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        straight = straight_journal(Path(folder) / "straight" / "game.jsonl")
        total = len([line for line in straight[1:] if '"note"' not in line])
        for number in range(kills):
            at_line = rng.randrange(1, len(straight) + 1)
            try:
                written.append(kill_and_resume(Path(folder) / f"kill-{number}", at_line, straight))
            except AssertionError as exc:
                failures += 1
                print(f"kill {number} at journal line {at_line}: FAILED: {exc}", flush=True)
    mid = sum(1 for count in written if 0 < count < total)
    print(
        f"soak_kill9: {kills} kills of a {len(SCRIPT)}-line script game ({total} inputs), "
        f"{mid} mid-game (inputs on disk at the kill: min {min(written, default=0)}, max "
        f"{max(written, default=0)}), {failures} failures, {time.monotonic() - started:.0f} s"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
