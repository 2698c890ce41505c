"""Benchmark: the path people use, `voicehost play` at a terminal with a keypad.

    .venv/bin/python bench/bench_interactive.py            # 30 s discussion, 3 speeches
    .venv/bin/python bench/bench_interactive.py --speeches 8 --discussion 180

The full-screen view (``CursesUI``, drawn after every command) runs in a pseudo-terminal, on
the real ``Host.run`` loop with voicehost's SoundOutput on a simulated sound card
(``soundcard_sim.py``: ``--latency`` s output latency, a crystal ``--ppm`` fast). Every entry
of the game comes from a simulated USB keypad whose thread posts raw keys exactly as the evdev
adapter does (``attach_keypad``), at random moments; meanwhile keys are typed into the terminal.

The journal is on, as in `voicehost play`, and the host runs at the service's priority
(bench/benchkit.py).

Figures:
- cue onset error: when each cue is really heard on the card - its deadline;
- key to handled: from the keypad thread's key press to the end of the work it caused on the
  loop's thread (the controller's entry, and on Enter the input stepped, journaled and its
  effects carried out), and from a byte written to the terminal to the end of the view's
  handling of it (p50, p99, max).

Targets: cue onset error p99 <= 2 ms; key (keypad or terminal) to handled and journaled p99
<= 5 ms, and the same for an Enter alone (the key that journals). Exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pty
import random
import select
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_cue_onset import Witness, sound_on_a_card  # noqa: E402
from benchkit import Targets, percentile, service_priority  # noqa: E402

from voicehost.console.terminal import CursesUI, LogScreen  # noqa: E402
from voicehost.console.text import ScreenPrivateChannel  # noqa: E402
from voicehost.game.effects import PromptKind  # noqa: E402
from voicehost.game.model import Cue  # noqa: E402
from voicehost.host.commands import Quit  # noqa: E402
from voicehost.host.loop import NIGHT_ENTRY_GUARD, Host  # noqa: E402
from voicehost.keypad import controller as keypad_controller  # noqa: E402
from voicehost.ports import Key  # noqa: E402
from voicehost.voice_out.mixer import Lane  # noqa: E402

DIGIT_KEYS = {str(n): getattr(Key, f"D{n}") for n in range(10)}


class SimulatedKeypad:
    """The Keypad port, pressed by a person: a thread presses each key after a random pause,
    calling the adapter's callback as the evdev thread does, and notes when it pressed it."""

    def __init__(self, seed: int = 7) -> None:
        self.on_key: Callable[[Key], None] | None = None
        self.random = random.Random(seed)
        self.pressed: list[float] = []
        self._lock = threading.Lock()

    def start(self, on_key: Callable[[Key], None], on_status: Callable[[bool], None]) -> None:
        self.on_key = on_key

    def type(self, text: str, after: float = 0.0) -> None:
        """Press ``text`` (digits, ``E`` for Enter) on the keypad's own thread, the first key
        no sooner than ``after`` seconds from now."""
        threading.Thread(target=self._press, args=(text, after), daemon=True).start()

    def _press(self, text: str, after: float) -> None:
        time.sleep(after)
        for char in text:
            time.sleep(self.random.uniform(0.08, 0.3))
            key = Key.ENTER if char == "E" else DIGIT_KEYS[char]
            assert self.on_key is not None
            with self._lock:  # one press at a time, noted in the order it is posted
                self.pressed.append(time.monotonic())
                self.on_key(key)

    def close(self) -> None:
        """Nothing to release."""


class Table:
    """Plays the table's part from the loop: answers each question once, on the keypad."""

    def __init__(self, host: Host, keypad: SimulatedKeypad, speeches: int) -> None:
        self.host = host
        self.keypad = keypad
        self.speeches = speeches
        self.answered: set[tuple[PromptKind, str | None, int | None]] = set()
        self.nominations = 0

    def __call__(self) -> None:
        prompt = self.host.prompt()
        asked = (prompt.kind, prompt.role, prompt.subject)
        if asked in self.answered:
            return
        if prompt.question == "prompt_register_mafia":
            self.keypad.type("2E5E9E")
        elif prompt.action == "register" and prompt.role == "commissar":
            self.keypad.type("4E", after=NIGHT_ENTRY_GUARD)  # past the step's first moment
        elif prompt.action == "register" and prompt.role == "doctor":
            self.keypad.type("7E", after=NIGHT_ENTRY_GUARD)
        elif prompt.action == "nominate" and prompt.speech_running:
            self.nominations += 1
            if self.nominations > self.speeches:
                self.host.post(Quit())
                return
            self.keypad.type("1E" if prompt.subject != 1 else "2E")
        else:
            return
        self.answered.add(asked)


def child(args: argparse.Namespace, report_path: Path) -> None:
    """The host, as `voicehost play` runs it, inside the pseudo-terminal."""
    settings, book, output, card = sound_on_a_card(
        args.config, args.discussion, args.latency, args.ppm
    )
    clock = output.clock
    witness = Witness(output)
    screen = LogScreen()
    host = Host(
        settings,
        book,
        clock,
        speaker=witness,
        cues=witness,
        private=ScreenPrivateChannel(screen, book=book),
        screen=screen,
        journal_path=report_path.parent / "game.jsonl",
    )
    handled: list[float] = []
    enters: list[int] = []  # which presses were Enter
    in_fsync: list[float] = []  # of each keypad key's handling: seconds spent in fsync
    loop_fsyncs: list[float] = []  # every fsync on the loop's thread (a person's input)
    real_on_key = keypad_controller.KeypadController.on_key
    real_fsync = os.fsync
    loop_thread = threading.get_ident()

    def timed_fsync(descriptor: int) -> None:
        began = time.monotonic()
        try:
            real_fsync(descriptor)
        finally:
            if threading.get_ident() == loop_thread:
                loop_fsyncs.append(time.monotonic() - began)

    os.fsync = timed_fsync  # the bench's stopwatch on the disk's part
    collections: list[float] = []  # the garbage collector's pauses (every thread waits)
    collecting: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collecting[:] = [time.monotonic()]
        elif collecting:
            collections.append(time.monotonic() - collecting[0])

    gc.callbacks.append(on_gc)

    def timed_on_key(self: Any, key: Key) -> None:
        before = sum(loop_fsyncs)
        real_on_key(self, key)  # the entry, and on Enter the input stepped and journaled
        if key is Key.ENTER:
            enters.append(len(handled))
        handled.append(time.monotonic())  # stamped at the end of the work
        in_fsync.append(sum(loop_fsyncs) - before)

    keypad_controller.KeypadController.on_key = timed_on_key  # type: ignore[method-assign]  # the bench's stopwatch
    keypad = SimulatedKeypad()
    keypad_controller.attach_keypad(keypad, host, witness, clock)
    table = Table(host, keypad, args.speeches)
    typed: list[float] = []

    class TimedUI(CursesUI):
        def typed(self, text: str) -> None:
            super().typed(text)
            now = time.monotonic()  # stamped at the end of the work
            typed.extend(now for _ in text)

        def draw(self) -> None:
            super().draw()
            table()

    host.start()
    TimedUI(host, screen, lambda: "").run()
    host.close()
    card.close()
    errors = [  # the timed cues; a key's acknowledgement has no deadline but "now"
        card.was_heard_at(placement.start) - deadline
        for cue, deadline, placement in witness.cues
        if cue not in (Cue.KEY_ACK, Cue.REJECT)
    ]
    voice_ends = [p.end for p in output.placements() if p.lane is Lane.VOICE]
    report_path.write_text(
        json.dumps(
            {
                "cue_errors": errors,
                "pressed": keypad.pressed,
                "handled": handled,
                "enters": enters,
                "in_fsync": in_fsync,
                "loop_fsyncs": loop_fsyncs,
                "collections": collections,
                "typed": typed,
                "announcements": len(voice_ends),
            }
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speeches", type=int, default=3, help="15 s speeches in the chain")
    parser.add_argument("--discussion", type=float, default=30.0, help="discussion (s)")
    parser.add_argument("--latency", type=float, default=0.012, help="card output latency (s)")
    parser.add_argument("--ppm", type=float, default=100.0, help="the card's crystal error")
    parser.add_argument("--config", default=None)
    args = parser.parse_args()
    print(service_priority())
    report_path = Path(tempfile.mkdtemp(prefix="voicehost-bench-")) / "report.json"
    pid, master = pty.fork()
    if pid == 0:  # the child: stdin and stdout are the terminal
        os.environ["TERM"] = "xterm-256color"
        if os.environ.get("SWITCH"):
            sys.setswitchinterval(float(os.environ["SWITCH"]))
        try:
            child(args, report_path)
        finally:
            os._exit(0)
    written: list[float] = []
    rng = random.Random(11)
    # Typing starts once the full-screen view is up (its first screen has come): before that
    # the terminal is still in line mode, where a rubbed-out character never arrives at all.
    next_key = float("inf")
    started = time.monotonic()
    print(
        f"A {args.discussion:.0f} s discussion and {args.speeches} speeches of 15 s at the "
        f"full-screen view in a pseudo-terminal, keypad entries, typing meanwhile..."
    )
    while True:
        try:
            ready, _, _ = select.select([master], [], [], 0.02)
            if ready:
                screen = os.read(master, 65536)  # drain the screen, as a terminal would
                if next_key == float("inf") and b"\x1b[" in screen:  # curses has taken over
                    next_key = time.monotonic() + 2.0
        except OSError:
            break
        now = time.monotonic()
        if now >= next_key:
            char = b"x" if len(written) % 2 == 0 else b"\x7f"  # type, then rub out
            written.append(time.monotonic())
            os.write(master, char)
            next_key = now + rng.uniform(0.2, 0.6)
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    data = json.loads(report_path.read_text())
    errors = [e * 1000 for e in data["cue_errors"]]
    keypad = [(h - p) * 1000 for p, h in zip(data["pressed"], data["handled"], strict=False)]
    typing = [(t - w) * 1000 for w, t in zip(written, data["typed"], strict=False)]
    print(f"played {time.monotonic() - started:.0f} s, {data['announcements']} announcements\n")
    print(
        f"cue onset error: median {statistics.median(errors):.2f} ms, "
        f"min {min(errors):.2f}, max {max(errors):.2f} over {len(errors)} cues"
    )
    for name, values in (("keypad key", keypad), ("terminal key", typing)):
        print(
            f"{name} -> handled on the loop: p50 {percentile(values, 0.5):.2f} ms, "
            f"p99 {percentile(values, 0.99):.2f} ms, max {max(values):.2f} ms over {len(values)}"
        )
    enter = [keypad[index] for index in data["enters"] if index < len(keypad)]
    print(
        f"keypad Enter -> handled and journaled: p50 {percentile(enter, 0.5):.2f} ms, "
        f"p99 {percentile(enter, 0.99):.2f} ms, max {max(enter):.2f} ms over {len(enter)}"
    )
    fsyncs = [seconds * 1000 for seconds in data["loop_fsyncs"]] or [0.0]
    print(
        f"  of which the disk: fsync of a person's input on the loop's thread: p50 "
        f"{percentile(fsyncs, 0.5):.2f} ms, p99 {percentile(fsyncs, 0.99):.2f} ms, max "
        f"{max(fsyncs):.2f} ms over {len(data['loop_fsyncs'])}"
    )
    pauses = [seconds * 1000 for seconds in data["collections"]] or [0.0]
    print(
        f"  garbage collections: {len(data['collections'])}, longest {max(pauses):.2f} ms, "
        f"p99 {percentile(pauses, 0.99):.2f} ms"
    )
    less = [keypad[i] - data["in_fsync"][i] * 1000 for i in data["enters"] if i < len(keypad)]
    print(
        f"  keypad Enter -> handled and journaled, less its fsync: p50 "
        f"{percentile(less, 0.5):.2f} ms, p99 {percentile(less, 0.99):.2f} ms (a figure, not a "
        "target: the rule is that an input is on disk before it has any effect)"
    )
    p99 = percentile([abs(error) for error in errors], 0.99)
    targets = Targets()
    targets.check("cue onset error p99 <= 2 ms (journal on)", f"{p99:.2f} ms", p99 <= 2.0)
    for name, values in (("keypad key", keypad), ("keypad Enter", enter), ("terminal key", typing)):
        late = percentile(values, 0.99)
        targets.check(f"{name} -> handled and journaled p99 <= 5 ms", f"{late:.2f} ms", late <= 5)
    return targets.exit_code()


if __name__ == "__main__":
    sys.exit(main())
