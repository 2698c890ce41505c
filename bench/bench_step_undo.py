"""Benchmark: what one input and one undo cost late in a long game, on the real Host.

    .venv/bin/python bench/bench_step_undo.py [--repeat 5]

Each example game (examples/*.txt, club and FIIM) is played line by line on ``Host.run`` (the
loop `voicehost play` runs, with the text speaker). After every line whose last input can be
taken back, the bench presses undo (``Host.undo``: the state goes back and the timers follow),
times it, and enters the same input again through ``Host.submit`` (the rules check it, the state
steps, the effects are carried out), timing that as the step; the game then goes on unchanged.
The figures are those of the last quarter of each game's inputs, where the record is longest.
The journal is off: writing it (fsync) is measured by the keypad and cue benches.

Targets (issue 21/22): a step late in a long game ≤ 1 ms (p99), undo at the end of a long game
≤ 5 ms (max). Exit status 1 when a target is not met. Runs at the service's priority
(bench/benchkit.py), as the host's loop does.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchkit import Targets, service_priority  # noqa: E402

from voicehost import config  # noqa: E402
from voicehost.console.script import run_script  # noqa: E402
from voicehost.game.inputs import UNDOABLE  # noqa: E402
from voicehost.host.loop import Host  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
STEP_TARGET_MS = 1.0
UNDO_TARGET_MS = 5.0


def measure(path: Path) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
    """(input number, ms) of each step and each undo measured in one game."""
    steps: list[tuple[int, float]] = []
    undos: list[tuple[int, float]] = []

    def after(host: Host) -> None:
        if host.over or not host._can_undo():
            return
        last = next(a for a in reversed(host.accepted) if isinstance(a.event, UNDOABLE))
        before = len(host.accepted)
        started = time.perf_counter()
        host.undo()
        undos.append((before, (time.perf_counter() - started) * 1000))
        started = time.perf_counter()
        accepted = host.submit(last.event, last.source)
        steps.append((before, (time.perf_counter() - started) * 1000))
        assert accepted, f"{path.name}: the input taken back is refused when entered again"

    lines = path.read_text(encoding="utf-8").splitlines()
    result = run_script(lines, config.loads(""), out=io.StringIO(), after_line=after)
    assert result.errors == [], result.errors
    total = len(result.host.accepted)
    late = total * 3 // 4
    return (
        [(n, ms) for n, ms in steps if n >= late],
        [(n, ms) for n, ms in undos if n >= late],
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="plays of each game (default 5)")
    args = parser.parse_args()
    print(service_priority())
    steps: list[float] = []
    undos: list[float] = []
    for path in sorted((REPO / "examples").glob("*.txt")):
        for _ in range(args.repeat):
            game_steps, game_undos = measure(path)
            steps += [ms for _, ms in game_steps]
            undos += [ms for _, ms in game_undos]
    steps.sort()
    undos.sort()
    p99 = steps[min(len(steps) - 1, int(len(steps) * 0.99))]
    print(
        f"step (Host.submit), last quarter of each game: {len(steps)} measured, "
        f"median {statistics.median(steps):.3f} ms, p99 {p99:.3f} ms, max {steps[-1]:.3f} ms "
        f"(target p99 ≤ {STEP_TARGET_MS} ms)"
    )
    print(
        f"undo (Host.undo), last quarter of each game: {len(undos)} measured, "
        f"median {statistics.median(undos):.3f} ms, max {undos[-1]:.3f} ms "
        f"(target max ≤ {UNDO_TARGET_MS} ms)"
    )
    targets = Targets()
    targets.check(
        f"a step late in a long game p99 <= {STEP_TARGET_MS} ms",
        f"{p99:.3f} ms",
        p99 <= STEP_TARGET_MS,
    )
    targets.check(
        f"undo at the end of a long game max <= {UNDO_TARGET_MS} ms",
        f"{undos[-1]:.3f} ms",
        undos[-1] <= UNDO_TARGET_MS,
    )
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
