"""The journal under faults: bad contents, a second host, a full or read-only disk, the boot
service's choice, owner-only files whatever the umask (issue 10)."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from faultkit import (
    BOOK,
    REPO,
    SCRIPT,
    SETTINGS,
    can_mount,
    config_file,
    straight_journal,
    tmpfs,
    unwritable,
    voicehost,
)

from voicehost.clock import FakeClock
from voicehost.console.script import run_script
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel, SilentCues, TextSpeaker
from voicehost.host import journal as journal_module
from voicehost.host.journal import Journal, JournalError, choose_resumable, read
from voicehost.host.loop import Host
from voicehost.host.replay import replay_journal


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return straight_journal(tmp_path_factory.mktemp("straight") / "game.jsonl")


def written(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def resume_fails(path: Path) -> str:
    with pytest.raises(JournalError) as caught:
        run_script([], SETTINGS, book=BOOK, resume=True, journal_path=path)
    return str(caught.value)


def with_header(lines: list[str], **game: object) -> list[str]:
    header = json.loads(lines[0])
    header["game"].update(game)
    return [json.dumps(header), *lines[1:]]


# ---------------------------------------------------------------- contents that crashed


def _input_line(lines: list[str], kind: str) -> int:
    return next(i for i, line in enumerate(lines) if f'"kind": "{kind}"' in line)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: {"input": 5}, "not a record with a kind"),
        (lambda r: {**r, "input": {"kind": "seats", "seats": ["x"]}}, "list of seat numbers"),
        (lambda r: {**r, "input": {"kind": "seats", "seats": 5}}, "list of seat numbers"),
        (lambda r: {**r, "input": {"kind": "time_up", "timer_id": "x"}}, "whole number"),
        (lambda r: {**r, "input": {"kind": "dance"}}, "unknown input kind"),
        (lambda r: {**r, "undo": "yes"}, "undo is 'yes'"),
        (lambda r: {"what": 1}, "not a record this voicehost knows"),
    ],
    ids=["input-5", "seats-x", "seats-5", "timer-text", "kind", "undo", "unknown"],
)
def test_a_bad_record_names_the_file_the_line_and_the_problem(lines, tmp_path, change, words):
    index = _input_line(lines, "seats")
    damaged = [*lines]
    damaged[index] = json.dumps(change(json.loads(lines[index])))
    path = written(tmp_path / "bad.jsonl", damaged)
    message = resume_fails(path)
    assert f"{path}, line {index + 1}" in message and words in message


@pytest.mark.parametrize(
    ("game", "words"),
    [
        ({"players": 99}, "8 to 13 players"),
        ({"rules": {"sudden_death": True}}, "newer version"),
        ({"timers": {"discussion_seconds": "long"}}, "must be a number"),
    ],
)
def test_a_bad_header_is_named(lines, tmp_path, game, words):
    path = written(tmp_path / "bad.jsonl", with_header(lines, **game))
    message = resume_fails(path)
    assert f"{path}, line 1" in message and words in message


def test_a_header_without_the_game_and_a_newer_format_are_named(lines, tmp_path):
    header = json.loads(lines[0])
    del header["game"]
    path = written(tmp_path / "nogame.jsonl", [json.dumps(header), *lines[1:]])
    assert "rules are missing" in resume_fails(path)
    header = json.loads(lines[0]) | {"format": "voicehost-journal/2"}
    path = written(tmp_path / "newer.jsonl", [json.dumps(header), *lines[1:]])
    assert "newer voicehost" in resume_fails(path)


def test_a_non_utf8_byte_is_named_with_its_line(lines, tmp_path):
    path = tmp_path / "latin.jsonl"
    data = "\n".join(lines).encode() + b"\n"
    at = data.index(b'"seats"')
    path.write_bytes(data[:at] + b"\xe9" + data[at:])
    message = resume_fails(path)
    assert "line 2 is not UTF-8" in message


def test_a_recorded_input_the_rules_refuse_is_said_in_words(lines, tmp_path):
    index = _input_line(lines, "seats")
    record = json.loads(lines[index])
    record["input"]["seats"] = [99]
    path = written(tmp_path / "seat99.jsonl", [*lines[:index], json.dumps(record)])
    message = resume_fails(path)
    assert f"line {index + 1}" in message
    assert "no_such_seat" not in message and "{" not in message
    assert "99" in message


def test_a_timer_event_written_twice_is_said_in_words(lines, tmp_path):
    index = _input_line(lines, "time_up")
    path = written(tmp_path / "twice.jsonl", [*lines[: index + 1], lines[index]])
    message = resume_fails(path)
    assert f"line {index + 2}" in message and "timer_stale" not in message


# ---------------------------------------------------------------- torn and garbage tails


@pytest.mark.parametrize("garbage", ["garbage\n", '{"input": {"kind": "se', "\x00\x00\x00"])
def test_garbage_after_the_last_record_is_cut_and_the_game_resumes_twice(lines, tmp_path, garbage):
    path = tmp_path / "garbage.jsonl"
    path.write_text("\n".join(lines[:30]) + "\n" + garbage, encoding="utf-8")
    path.chmod(0o600)
    first = run_script(["wait"], SETTINGS, book=BOOK, resume=True, journal_path=path).host
    first.close()
    second = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=path).host
    second.close()
    assert second.inputs[: len(first.inputs)] == first.inputs
    assert "garbage" not in path.read_text(encoding="utf-8")
    read(path)  # the whole file reads cleanly now


# ---------------------------------------------------------------- one host per journal


def test_a_second_host_of_the_same_journal_is_refused(tmp_path):
    config = config_file(tmp_path)
    journal = tmp_path / "journals" / "game.jsonl"
    first = voicehost("--config", str(config), "play", "--plain", "--journal", str(journal),
                      stdin=-1)  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not (journal.exists() and journal.stat().st_size) and time.monotonic() < deadline:
            time.sleep(0.05)
        second = voicehost("--config", str(config), "resume", "--plain", str(journal), stdin=-3)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 1
        assert "уже ведёт другой voicehost" in err and "Traceback" not in err  # language: ru
        assert first.poll() is None  # the first host goes on
        # the boot service's way in starts no second game beside the running one
        boot = voicehost("--config", str(config), "play", "--plain", "--resume-or-start",
                         stdin=-3)  # fmt: skip
        out, err = boot.communicate(timeout=60)
        assert boot.returncode == 1, (out, err)
        assert "уже ведёт другой voicehost" in err and "сначала остановите его" in err
        assert "Добрый вечер" not in out
        assert list(journal.parent.glob("*.jsonl")) == [journal]
    finally:
        first.stdin.write("q\n")  # type: ignore[union-attr]
        first.stdin.close()  # type: ignore[union-attr]
        first.wait(timeout=30)
    lines = journal.read_text(encoding="utf-8").splitlines()
    assert sum('"resumed"' in line for line in lines) == 0  # the second one wrote nothing


def test_the_lock_goes_with_the_host(lines, tmp_path):
    path = written(tmp_path / "game.jsonl", lines[:20])
    held = Journal.reopen(path)
    with pytest.raises(journal_module.JournalBusy):
        Journal.reopen(path)
    held.close()
    Journal.reopen(path).close()


# ---------------------------------------------------------------- a full or read-only disk


def _host(path: Path) -> tuple[Host, LogScreen, TextSpeaker]:
    clock = FakeClock()
    screen = LogScreen()
    speaker = TextSpeaker(clock)
    private = ScreenPrivateChannel(screen, 3)
    host = Host(SETTINGS, BOOK, clock, speaker=speaker, cues=SilentCues(), private=private,
                journal_path=path, screen=screen)  # fmt: skip
    host.start()
    return host, screen, speaker


def test_a_full_disk_keeps_the_inputs_and_writes_them_when_space_returns(
    lines, tmp_path, monkeypatch
):
    path = tmp_path / "game.jsonl"
    real_write = os.write
    full = {"on": False}

    def write(descriptor: int, data: bytes) -> int:
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(descriptor, data)

    monkeypatch.setattr(os, "write", write)
    host, screen, _ = _host(path)
    script = [line for line in SCRIPT if line.split("#")[0].strip()]
    run_script(script[:6], SETTINGS, book=BOOK, clock=host.clock, host=host)
    full["on"] = True
    run_script(script[6:14], SETTINGS, book=BOOK, clock=host.clock, host=host)
    told = [text for text in host.transcript if "сохранить" in text]
    assert told == [BOOK.render("game.cannot_save").text]  # once
    assert any("disk is full" in line for line in screen.lines)
    kept = len(read(path)[1])
    full["on"] = False
    run_script(script[14:], SETTINGS, book=BOOK, clock=host.clock, host=host)
    assert host.transcript.count(BOOK.render("game.saving_again").text) == 1
    host.close()
    monkeypatch.undo()
    _, entries = read(path)
    assert len(entries) > kept
    replayed = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=path).host
    assert replayed.inputs == host.inputs  # nothing accepted was lost, in order


def test_saving_problems_are_not_announced_at_night(tmp_path, monkeypatch):
    path = tmp_path / "game.jsonl"
    host, screen, _ = _host(path)
    assert host.state is not None and host.state.phase.is_night  # night 0 registration
    monkeypatch.setattr(os, "fsync", lambda d: (_ for _ in ()).throw(OSError(errno.ENOSPC, "")))
    before = (list(host.transcript), list(screen.lines))
    run_script(["2 5 9"], SETTINGS, book=BOOK, clock=host.clock, host=host)
    said = host.transcript[len(before[0]) :]
    assert BOOK.render("game.cannot_save").text not in said  # not while the mafia acts
    run_script(["wait", "4", "wait", "7", "wait"], SETTINGS, book=BOOK, clock=host.clock,
               host=host)  # fmt: skip
    assert host.state.phase.is_night is False
    assert BOOK.render("game.cannot_save").text in host.transcript  # told in daylight


@pytest.mark.skipif(not can_mount(), reason="needs root to mount a small tmpfs")
def test_a_real_full_tmpfs_loses_nothing(tmp_path):
    folder = tmp_path / "small"
    with tmpfs(folder, "16k"):
        path = folder / "game.jsonl"
        host, _, _ = _host(path)
        filler = folder / "filler"
        script = [line for line in SCRIPT if line.split("#")[0].strip()]
        run_script(script[:4], SETTINGS, book=BOOK, clock=host.clock, host=host)
        descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:  # fill the disk to the last byte
            for size in (4096, 1):
                while True:
                    os.write(descriptor, b"\0" * size)
        except OSError:
            pass
        os.close(descriptor)
        # The journal's last page has room for a few lines; more than that wait in memory.
        run_script(script[4:70], SETTINGS, book=BOOK, clock=host.clock, host=host)
        assert host._journal is not None and not host._journal.saving
        filler.unlink()
        run_script(script[70:], SETTINGS, book=BOOK, clock=host.clock, host=host)
        assert host._journal.saving
        host.close()
        again = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=path).host
        again.close()
        assert again.inputs == host.inputs


def test_a_journal_that_cannot_be_created_leaves_no_file_and_the_game_goes_on(tmp_path):
    with unwritable(tmp_path / "ro") as folder:
        path = folder / "journals" / "game.jsonl"
        host, screen, _ = _host(path)
        result = run_script(SCRIPT[:12], SETTINGS, book=BOOK, clock=host.clock, host=host)
        assert result.errors == []
        assert BOOK.render("game.cannot_save").text in host.transcript
        assert not path.exists()
        host.close()


def test_protocol_to_a_read_only_folder_is_a_message(lines, tmp_path):
    journal = written(tmp_path / "game.jsonl", lines)
    with unwritable(tmp_path / "ro") as folder:
        config = tmp_path / "config.yaml"
        config.write_text(f"storage:\n  protocol_dir: {folder / 'protocols'}\n", encoding="utf-8")
        done = voicehost("--config", str(config), "protocol", str(journal))
        out, err = done.communicate(timeout=60)
    assert done.returncode == 1
    assert (
        BOOK.screen("protocol_winner_red") in out or "Победитель" in out or "Победа" in out
    )  # still printed
    assert "cannot write the protocol" in err and "read-only" in err or "permission" in err
    assert "Traceback" not in err


# ---------------------------------------------------------------- the boot service


def test_the_boot_service_sets_bad_journals_aside_and_resumes_the_newest_good_one(lines, tmp_path):
    folder = tmp_path / "journals"
    folder.mkdir()
    good = written(folder / "a-good.jsonl", lines[:40])
    os.utime(good, (1000, 1000))
    refused = written(folder / "b-refused.jsonl", with_header(lines, players=99))
    os.utime(refused, (2000, 2000))
    empty = folder / "c-empty.jsonl"
    empty.write_bytes(b"")
    os.utime(empty, (3000, 3000))
    chosen, messages = choose_resumable(folder, lambda path: replay_journal(SETTINGS, path))
    assert chosen == good
    assert len(messages) == 2 and all("set aside" in message for message in messages)
    assert not refused.exists() and not empty.exists()
    kept = sorted(p.name for p in folder.iterdir())
    assert any(name.startswith("b-refused.jsonl.bad-") for name in kept)
    assert any(name.startswith("c-empty.jsonl.bad-") for name in kept)


def test_play_resume_or_start_starts_a_new_game_past_an_empty_journal(tmp_path):
    config = config_file(tmp_path)
    folder = tmp_path / "journals"
    folder.mkdir()
    (folder / "game-empty.jsonl").write_bytes(b"")
    run = voicehost("--config", str(config), "play", "--plain", "--resume-or-start", stdin=-1)
    out, err = run.communicate("q\n", timeout=60)
    assert run.returncode == 0, err
    # said once, on the screen (stdout, the service's log too), in the game's language
    assert "ℹ журнал отложен в сторону" in out and "Traceback" not in err
    assert "Добрый вечер" in out  # a new game started
    assert len(list(folder.glob("*.jsonl"))) == 1


# ---------------------------------------------------------------- owner-only, any umask


def test_folders_and_files_are_owner_only_under_umask_000(tmp_path):
    config = config_file(tmp_path, tmp_path / "data")
    old = os.umask(0)
    try:
        script = tmp_path / "game.script"
        script.write_text("\n".join(SCRIPT), encoding="utf-8")
        journal = tmp_path / "data" / "journals" / "game.jsonl"
        run = voicehost("--config", str(config), "play", "--script", str(script),
                        "--journal", str(journal))  # fmt: skip
        run.communicate(timeout=120)
        done = voicehost("--config", str(config), "protocol", str(journal))
        done.communicate(timeout=60)
    finally:
        os.umask(old)
    assert run.returncode == 0 and done.returncode == 0
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "data").rglob("*")}
    assert modes == {
        "journals": 0o700,
        "protocols": 0o700,
        "game.jsonl": 0o600,
        "game.finished": 0o600,
        "game.json": 0o600,
        "game.txt": 0o600,
    }


def test_resume_narrows_a_0644_journal_and_says_so(lines, tmp_path, caplog):
    path = written(tmp_path / "game.jsonl", lines[:20])
    path.chmod(0o644)
    with caplog.at_level("WARNING"):
        run_script([], SETTINGS, book=BOOK, resume=True, journal_path=path).host.close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert any("owner-only" in record.getMessage() for record in caplog.records)


# ---------------------------------------------------------------- the journal vanishes


def _vanish_by_deleting_the_folder(path: Path) -> None:
    import shutil

    shutil.rmtree(path.parent)


def _vanish_by_a_folder_in_its_place(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize(
    "vanish",
    [_vanish_by_deleting_the_folder, _vanish_by_a_folder_in_its_place],
    ids=["folder-deleted", "file-replaced-by-a-folder"],
)
def test_a_vanished_journal_is_written_anew_whole_and_the_screen_names_it(tmp_path, vanish):
    """The host notices at the next write, says so on the screen in the game's language, and
    the new journal it names holds the whole game: a crash after it loses nothing."""
    path = tmp_path / "journals" / "game.jsonl"
    host, screen, _ = _host(path)
    script = [line for line in SCRIPT if line.split("#")[0].strip()]
    run_script(script[:20], SETTINGS, book=BOOK, clock=host.clock, host=host)
    vanish(path)
    run_script(script[20:40], SETTINGS, book=BOOK, clock=host.clock, host=host)
    new = host.journal_path
    # a folder in the file's place takes its name: the game goes to a name of its own
    assert new is not None and (new != path or vanish is _vanish_by_deleting_the_folder)
    assert new is not None and new.is_file()
    key = "journal_rewritten" if new == path else "journal_moved"  # the same name, or a new one
    told = [line for line in screen.lines if BOOK.screen(key, {"old": path, "new": new}) in line]
    assert len(told) == 1, screen.lines[-12:]
    assert f"voicehost resume {new}" in told[0]
    # a crash now (no close): the new journal alone rebuilds the same game (a copy: this
    # process still holds the new journal's lock)
    copy = tmp_path / "after-crash.jsonl"
    copy.write_bytes(new.read_bytes())
    crashed = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=copy).host
    crashed.close()
    assert crashed.inputs == host.inputs
    run_script(script[40:], SETTINGS, book=BOOK, clock=host.clock, host=host)
    assert host.over
    host.close()
    finished = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=new).host
    finished.close()
    assert finished.inputs == host.inputs


def test_a_vanished_journal_is_not_told_at_night(tmp_path):
    """Telling it the moment a night choice is written would tell the table someone acted."""
    path = tmp_path / "journals" / "game.jsonl"
    host, screen, _ = _host(path)
    run_script(["2 5 9"], SETTINGS, book=BOOK, clock=host.clock, host=host)  # night 0
    _vanish_by_deleting_the_folder(path)
    run_script(["wait", "4"], SETTINGS, book=BOOK, clock=host.clock, host=host)
    assert host.state is not None and host.state.phase.is_night
    assert not any("пропал" in line for line in screen.lines)
    run_script(["wait", "7", "wait"], SETTINGS, book=BOOK, clock=host.clock, host=host)
    assert not host.state.phase.is_night
    assert sum("пропал" in line for line in screen.lines) == 1
    host.close()


# ---------------------------------------------------------------- stopped from outside


def _read_until(master: int, needle: str, seconds: float = 30) -> str:
    import select

    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and needle.encode() not in seen:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen.decode("utf-8", "replace")


def _full_screen_game_with_the_mafia_in(
    tmp_path: Path, stderr: Any = None
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """`voicehost play` at the full-screen UI on a pseudo-terminal, with the mafia's seats
    typed and journaled: the process, the terminal's master side and the journal."""
    import pty

    config = config_file(tmp_path)
    journal = tmp_path / "journals" / "game.jsonl"
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "LINES": "40", "COLUMNS": "120"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voicehost",
            "--config",
            str(config),
            "play",
            "--text",
            "--journal",
            str(journal),
        ],  # fmt: skip
        stdin=slave,
        stdout=slave,
        stderr=slave if stderr is None else stderr,
        env=env,
        cwd=REPO,
        start_new_session=True,
    )
    os.close(slave)
    try:
        _read_until(master, "мафия")  # the full screen is up and asks for the mafia
        os.write(master, b"2 5 9\r")
        deadline = time.monotonic() + 30
        while journal.read_text(encoding="utf-8").count("\n") < 2:
            assert time.monotonic() < deadline
            time.sleep(0.05)
    except BaseException:
        process.kill()
        os.close(master)
        raise
    return process, master, journal


def test_sigterm_in_the_full_screen_ui_says_so_and_keeps_the_journal(tmp_path):
    """`systemctl stop` or `kill` at the full-screen UI: the screen is given back, a line says
    what happened and where the game is, and the journal resumes."""
    import signal

    process, master, journal = _full_screen_game_with_the_mafia_in(tmp_path)
    try:
        process.send_signal(signal.SIGTERM)
        said = _read_until(master, f"resume {journal}")
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert "SIGTERM" in said and "Ведущий остановлен извне" in said
    assert f"voicehost --config {tmp_path / 'config.yaml'} resume {journal}" in said
    assert "Traceback" not in said
    resumed = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=journal).host
    resumed.close()
    assert len(resumed.inputs) == 1


def test_a_terminal_closed_under_the_full_screen_ui_ends_quietly_and_keeps_the_game(tmp_path):
    """The tmux window or the ssh link closes mid-game: no traceback (the log gets a line), the
    process ends, and the journal resumes with what was typed."""
    import signal

    errors = tmp_path / "stderr.txt"
    with errors.open("wb") as stderr:
        process, master, journal = _full_screen_game_with_the_mafia_in(tmp_path, stderr)
    try:
        os.close(master)  # the window is gone: reads and writes on the terminal fail (EIO)
        master = -1
        time.sleep(0.5)
        process.send_signal(signal.SIGHUP)  # as the kernel tells a session whose terminal hung up
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
        if master >= 0:
            os.close(master)
    said = errors.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in said, said
    resumed = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=journal).host
    resumed.close()
    assert len(resumed.inputs) == 1
