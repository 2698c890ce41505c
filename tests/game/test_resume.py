"""Resume equivalence: a game cut anywhere in its journal, resumed and finished, has the same
protocol as the game played straight through (issue 2, "A journal and resume")."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from gamekit import REPO

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.script import run_script
from voicehost.game.inputs import from_json
from voicehost.host import protocol as protocol_module
from voicehost.host.journal import read
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook

SCRIPT = (REPO / "tests" / "game" / "resume.script").read_text(encoding="utf-8").splitlines()
SETTINGS = config.loads("")
BOOK = PhraseBook.load("ru")


def played_straight(journal: Path) -> dict[str, Any]:
    result = run_script(SCRIPT, SETTINGS, book=BOOK, journal_path=journal)
    assert result.errors == []
    assert result.host.over
    return result.protocol


def journal_records(path: Path) -> tuple[str, list[str]]:
    """The header line and the entry lines (inputs and undos) of a journal."""
    header, *entries = path.read_text(encoding="utf-8").splitlines()
    return header, [line for line in entries if "note" not in json.loads(line)]


def write_cut(path: Path, header: str, entries: list[str], tail: str = "") -> None:
    path.write_text("\n".join([header, *entries]) + "\n" + tail, encoding="utf-8")
    path.chmod(0o600)


def resume_and_feed(cut: Path, remaining: list[str]) -> Host:
    """Resume from ``cut``, then give the host the entries the cut lost, as they came."""
    host = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=cut).host
    for line in remaining:
        record = json.loads(line)
        if record.get("undo"):
            assert host.undo(record.get("source", "keyboard"))
        else:
            assert host.submit(from_json(record["input"]), record.get("source", "keyboard"))
    return host


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    journal = tmp_path_factory.mktemp("straight") / "game.jsonl"
    return journal, played_straight(journal)


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every cut point replays the game: skip the disk flush (durability is tested below)."""
    monkeypatch.setattr("voicehost.host.journal.os.fsync", lambda descriptor: None)


def test_the_script_uses_every_kind_of_entry(straight: tuple[Path, dict[str, Any]]) -> None:
    _, entries = journal_records(straight[0])
    kinds = {json.loads(line).get("input", {}).get("kind", "undo") for line in entries}
    assert kinds == {
        "seats", "miss", "votes", "end_speech", "timer_warning", "time_up", "foul", "undo",
    }  # fmt: skip
    assert straight[1]["winner"] == "red"


@pytest.mark.slow  # about 5 s: 100 resumes, each replaying the whole game
@pytest.mark.usefixtures("no_fsync")
def test_resuming_at_every_cut_point_gives_the_same_protocol(
    straight: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    header, entries = journal_records(straight[0])
    assert len(entries) > 90
    for k in range(len(entries) + 1):
        cut = tmp_path / f"cut-{k}.jsonl"
        write_cut(cut, header, entries[:k])
        host = resume_and_feed(cut, entries[k:])
        assert host.over, f"cut after {k} entries: the game did not end"
        assert host.state is not None
        assert protocol_module.build(host.state) == straight[1], f"cut after {k} entries"


@pytest.mark.usefixtures("no_fsync")
def test_resuming_a_script_between_its_lines_gives_the_same_protocol(
    straight: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    """The person at the keyboard types the rest of the script after `voicehost resume`."""
    journal = tmp_path / "lines.jsonl"
    clock = FakeClock()
    host = run_script([], SETTINGS, book=BOOK, clock=clock, journal_path=journal).host
    entries_after_line: list[int] = []
    for line in SCRIPT:
        run_script([line], SETTINGS, clock=clock, host=host)
        entries_after_line.append(len(journal_records(journal)[1]))
    header, entries = journal_records(journal)
    for index in range(0, len(SCRIPT), 7):
        cut = tmp_path / f"line-{index}.jsonl"
        write_cut(cut, header, entries[: entries_after_line[index]])
        result = run_script(SCRIPT[index + 1 :], SETTINGS, book=BOOK, resume=True, journal_path=cut)
        assert result.errors == [], f"resumed after script line {index + 1}"
        assert result.protocol == straight[1], f"resumed after script line {index + 1}"


def test_a_torn_last_line_is_ignored(straight: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    header, entries = journal_records(straight[0])
    for k in (0, 11, 40, len(entries) - 1):
        torn_line = entries[k][: len(entries[k]) // 2]  # the power went out mid-write
        cut = tmp_path / f"torn-{k}.jsonl"
        write_cut(cut, header, entries[:k], tail=torn_line)
        clean = tmp_path / f"clean-{k}.jsonl"
        write_cut(clean, header, entries[:k])
        assert read(cut)[1] == read(clean)[1]
        host = resume_and_feed(cut, entries[k:])
        assert host.state is not None
        assert protocol_module.build(host.state) == straight[1]


def test_a_game_resumed_after_a_torn_line_can_be_resumed_again(
    straight: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    header, entries = journal_records(straight[0])
    k = 30
    cut = tmp_path / "torn-twice.jsonl"
    write_cut(cut, header, entries[:k], tail=entries[k][:10])
    # The power fails again after 5 more entries: the dead process's lock goes with it.
    resume_and_feed(cut, entries[k : k + 5]).close()
    host = resume_and_feed(cut, entries[k + 5 :])
    assert host.state is not None
    assert protocol_module.build(host.state) == straight[1]


def test_the_journal_is_readable_by_its_owner_only(
    straight: tuple[Path, dict[str, Any]],
) -> None:
    mode = stat.S_IMODE(os.stat(straight[0]).st_mode)
    assert mode == 0o600


def test_undo_is_journaled_and_replays_the_same(
    straight: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    header, entries = journal_records(straight[0])
    undos = [i for i, line in enumerate(entries) if json.loads(line).get("undo")]
    assert len(undos) == 4
    journal = tmp_path / "whole.jsonl"
    write_cut(journal, header, entries)
    host = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=journal).host
    assert host.over
    assert host.state is not None
    assert protocol_module.build(host.state) == straight[1]
    # the undone entries are gone from the game: seat 3's warning, seat 1's nomination of 6,
    # the miscounted vote, the shot at 3
    assert host.state.players[3].fouls == 0
    assert host.state.record["days"][0]["nominations"]["1"] == [5]
    assert host.state.record["nights"][1]["shot"] == 1


def test_a_resumed_game_keeps_the_rules_it_started_with(tmp_path: Path) -> None:
    journal = tmp_path / "rules.jsonl"
    eight = config.loads("players: 8\nrules:\n  third_vote_tie: all_leave\n")
    run_script(["1 2", "wait", "3", "wait"], eight, book=BOOK, journal_path=journal).host.close()
    host = run_script([], SETTINGS, book=BOOK, resume=True, journal_path=journal).host
    assert host.settings.players == 8
    assert host.settings.rules.third_vote_tie == "all_leave"
    assert host.state is not None and len(host.state.players) == 8
