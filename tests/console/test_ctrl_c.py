"""Ctrl+C at the host's terminal asks as `q` does (issue 43: it quit a game at once): a stray
press costs no resume, a second one (or `да`) leaves the game with the command that resumes it.
Without a terminal (the service's `systemctl stop` sends SIGINT) it still stops at once
(tests/host/test_everyday_commands.py)."""

from __future__ import annotations

import os
import pty
import select
import sys
import time
from pathlib import Path

from voicehost.phrases import PhraseBook

ROOT = Path(__file__).resolve().parents[2]
BOOK = PhraseBook.load("ru")


class Game:
    """`voicehost play --plain --text` on a pseudo-terminal, as a person at a terminal runs it."""

    def __init__(self, folder: Path) -> None:
        config = folder / "config.yaml"
        config.write_text(
            "storage:\n  journal_dir: journals\n  protocol_dir: protocols\nvoice:\n"
            "  engine: text\nlistener:\n  enabled: false\nkeypad:\n  enabled: off\n",
            encoding="utf-8",
        )
        self.config = config
        argv = [sys.executable, "-m", "voicehost", "--config", str(config), "play", "--plain",
                "--text"]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(ROOT), "TERM": "dumb"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the pty is its terminal, Ctrl+C is its SIGINT
            os.chdir(folder)
            os.execve(sys.executable, argv, env)
        self.out = ""

    def read_until(self, text: str, timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while text not in self.out:
            left = end - time.monotonic()
            assert left > 0, f"never saw {text!r} in:\n{self.out}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:  # the child has gone: its terminal is closed
                    data = b""
                if not data:
                    assert text in self.out, f"ended without {text!r}:\n{self.out}"
                self.out += data.decode("utf-8", "replace")
        return self.out

    def press(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def running(self) -> bool:
        return os.waitpid(self.pid, os.WNOHANG) == (0, 0)

    def exit_status(self, timeout: float = 30) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self._drain()
            time.sleep(0.05)
        raise AssertionError(f"the game did not end:\n{self.out}")

    def _drain(self) -> None:
        while select.select([self.fd], [], [], 0)[0]:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                return
            if not data:
                return
            self.out += data.decode("utf-8", "replace")


def test_ctrl_c_asks_first_and_a_second_one_leaves_with_the_resume_command(tmp_path: Path) -> None:
    game = Game(tmp_path)
    game.read_until("→")  # the night's first question: the game is on
    game.press(b"\x03")
    game.read_until("Выйти из игры?")
    time.sleep(0.5)
    assert game.running()  # asked, not gone
    game.press("нет\n".encode())
    game.read_until(BOOK.screen("quit_cancelled"))
    assert game.running()
    game.press(b"\x03")
    time.sleep(0.3)
    game.press(b"\x03")
    assert game.exit_status() == 0
    game._drain()
    journals = sorted((tmp_path / "journals").glob("game-*.jsonl"))
    assert len(journals) == 1
    assert f"resume {journals[0]}" in game.out.replace("\r\n", "\n").replace("\n", "")
    assert "Traceback" not in game.out
