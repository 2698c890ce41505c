"""Helpers for the fault tests: a straight game's journal, a real `voicehost` process, folders
a program cannot write (as root too, through a read-only tmpfs)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from voicehost import config
from voicehost.console.script import run_script
from voicehost.phrases import PhraseBook

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / "tests" / "game" / "resume.script").read_text(encoding="utf-8").splitlines()
SETTINGS = config.loads("")
BOOK = PhraseBook.load("ru")


def straight_journal(path: Path) -> list[str]:
    """Play the resume game into ``path``; returns the journal's lines."""
    result = run_script(SCRIPT, SETTINGS, book=BOOK, journal_path=path)
    assert result.errors == [] and result.host.over
    result.host.close()
    path.with_suffix(".finished").unlink()
    return path.read_text(encoding="utf-8").splitlines()


def config_file(folder: Path, data: Path | None = None) -> Path:
    """A config for real processes: text voice, no listener, no keypad, data under ``data``."""
    data = data or folder
    path = folder / "config.yaml"
    path.write_text(
        'voice:\n  engine: text\nlistener:\n  enabled: false\nkeypad:\n  enabled: "off"\n'
        f"storage:\n  journal_dir: {data / 'journals'}\n  protocol_dir: {data / 'protocols'}\n",
        encoding="utf-8",
    )
    return path


def voicehost(*arguments: str, **kwargs: object) -> subprocess.Popen[str]:
    """A real `voicehost` process (the installed module, as the service runs it)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "voicehost", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
        **kwargs,
    )


def can_mount() -> bool:
    if os.geteuid() != 0:
        return False
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", folder], capture_output=True
        )
        if done.returncode != 0:
            return False
        subprocess.run(["umount", folder], check=True)
    return True


@contextlib.contextmanager
def tmpfs(folder: Path, size: str, *, read_only: bool = False) -> Iterator[Path]:
    """A small tmpfs at ``folder`` (root only: see ``can_mount``)."""
    folder.mkdir(parents=True, exist_ok=True)
    options = f"size={size},mode=0700" + (",ro" if read_only else "")
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[Path]:
    """A folder nobody can write: a read-only tmpfs as root, mode 0500 otherwise."""
    if can_mount():
        with tmpfs(folder, "64k", read_only=True):
            yield folder
        return
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o500)
    try:
        yield folder
    finally:
        folder.chmod(0o700)


def entries_of(lines: list[str]) -> list[dict[str, object]]:
    """A journal's inputs and undos without their wall-clock times (notes left out)."""
    records = [json.loads(line) for line in lines[1:]]
    return [
        {key: value for key, value in record.items() if key != "at"}
        for record in records
        if "note" not in record
    ]


def _lines_on_disk(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except OSError:
        return 0


def kill_and_resume(folder: Path, at_line: int, straight: list[str]) -> int:
    """Kill -9 a real `voicehost play --script` as soon as its journal has ``at_line`` lines
    (so the kill lands mid-game, during the writes that follow), resume its journal in
    a real process, then finish the game from the straight game's remaining inputs; returns how
    many inputs the killed process had written. Asserts the protocol equals the straight one's.
    """
    from voicehost.game.inputs import from_json
    from voicehost.host import protocol
    from voicehost.host.journal import read

    folder.mkdir(parents=True, exist_ok=True)
    config = config_file(folder)
    script = folder / "game.script"
    script.write_text("\n".join(SCRIPT) + "\n", encoding="utf-8")
    empty = folder / "empty.script"
    empty.write_text("", encoding="utf-8")
    journal = folder / "journals" / "game.jsonl"
    process = voicehost("--config", str(config), "play", "--script", str(script),
                        "--journal", str(journal))  # fmt: skip
    deadline = time.monotonic() + 120
    while (
        process.poll() is None and _lines_on_disk(journal) < at_line and time.monotonic() < deadline
    ):
        time.sleep(0.0005)
    process.send_signal(signal.SIGKILL)
    process.communicate(timeout=60)
    if not journal.exists():
        return 0  # killed before the journal was created: nothing to resume
    (folder / "journals" / "game.finished").unlink(missing_ok=True)
    read(journal)  # never damaged, whatever the moment
    written = entries_of(journal.read_text(encoding="utf-8").splitlines())
    expected = entries_of(straight)
    assert written == expected[: len(written)], "the journal is not a prefix of the game"
    resumed = voicehost("--config", str(config), "resume", "--script", str(empty), str(journal))
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "Traceback" not in err
    host = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=journal).host
    for record in expected[len(written) :]:
        if record.get("undo"):
            assert host.undo(str(record.get("source", "keyboard")))
        else:
            assert host.submit(from_json(record["input"]), str(record.get("source", "keyboard")))
    host.close()
    assert host.state is not None and host.over
    straight_host = run_script(SCRIPT, SETTINGS, book=BOOK).host
    assert straight_host.state is not None
    assert protocol.build(host.state) == protocol.build(straight_host.state)
    return len(written)
