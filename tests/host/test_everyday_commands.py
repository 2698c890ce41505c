"""The commands a host types every club night, as a person would: after `make run` every
`voicehost …` the README and the program name works in a new shell; after a crash `play` offers
the unfinished game and `resume` never prefers an empty one; `protocol` shows the last game;
a closed pipe or a closed stdin ends quietly with a message, never a traceback."""

from __future__ import annotations

import dataclasses
import io
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from voicehost import config
from voicehost.cli.play import offer_resume
from voicehost.console.script import run_script
from voicehost.host.journal import Journal, newest_game, newest_unfinished, played
from voicehost.phrases import PhraseBook

ROOT = Path(__file__).resolve().parents[2]
TOWN_WINS = (ROOT / "examples" / "town-wins.txt").read_text(encoding="utf-8").splitlines()


class Terminal(io.StringIO):
    """A person at a terminal typing ``answer``."""

    def isatty(self) -> bool:
        return True


def setup(folder: Path) -> tuple[Path, config.Settings]:
    path = folder / "config.yaml"
    path.write_text(
        "storage:\n  journal_dir: journals\n  protocol_dir: protocols\nvoice:\n  engine: text\n"
        "listener:\n  enabled: false\nkeypad:\n  enabled: off\n",
        encoding="utf-8",
    )
    return path, config.load(path)


def a_game(settings: config.Settings, name: str, lines: list[str], age: float) -> Path:
    """A journal of ``lines`` played, last written ``age`` seconds ago."""
    journal = settings.path(settings.storage.journal_dir) / f"{name}.jsonl"
    if lines:
        run_script(lines, settings, journal_path=journal).host.close()  # the lock goes with it
    else:
        Journal.create(journal, settings).close()  # started and left at once
    stamp = time.time() - age
    os.utime(journal, (stamp, stamp))
    return journal


def voicehost(
    config_path: Path,
    *args: str,
    stdin: int | None = subprocess.DEVNULL,
    input_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", str(config_path), *args],
        capture_output=True,
        text=True,
        stdin=stdin if input_text is None else None,
        input=input_text,
        timeout=120,
        cwd=config_path.parent,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_resume_never_picks_an_empty_new_game_over_a_played_one(tmp_path: Path) -> None:
    _, settings = setup(tmp_path)
    real = a_game(settings, "game-real", ["2 5 9", "wait", "4"], age=60)
    empty = a_game(settings, "game-empty", [], age=0)  # newer: `make run` started it and quit
    folder = settings.path(settings.storage.journal_dir)
    assert played(real) == 2 and played(empty) == 0
    assert newest_unfinished(folder) == real
    assert newest_unfinished(folder, played_only=True) == real
    real.with_suffix(".finished").touch()
    assert newest_unfinished(folder) == empty  # only empty ones left: that one
    assert newest_unfinished(folder, played_only=True) is None


def test_play_after_a_crash_asks_and_resumes_on_enter(tmp_path: Path, capsys) -> None:
    _, settings = setup(tmp_path)
    settings = dataclasses.replace(settings, language="en")
    real = a_game(settings, "game-real", ["2 5 9", "wait", "4"], age=60)
    a_game(settings, "game-empty", [], age=0)
    assert offer_resume(settings, Terminal("\n")) == real
    out = capsys.readouterr().out
    assert f"An unfinished game is in {real}" in out and "Resume it? [Y/n]" in out
    assert offer_resume(settings, Terminal("n\n")) is None
    assert "Starting a new game" in capsys.readouterr().out
    assert offer_resume(settings, io.StringIO("")) is None  # no person to ask: a new game
    assert f"resume {real}` carries the unfinished one on" in capsys.readouterr().out


def test_a_russian_game_asks_in_russian_and_takes_da(tmp_path: Path, capsys) -> None:
    _, settings = setup(tmp_path)
    settings = dataclasses.replace(settings, language="ru")
    real = a_game(settings, "game-real", ["2 5 9", "wait", "4"], age=60)
    assert offer_resume(settings, Terminal("да\n")) == real
    out = capsys.readouterr().out
    assert f"Есть незаконченная игра: {real}" in out and "Продолжить её? [Д/н]" in out
    assert offer_resume(settings, Terminal("нет\n")) is None
    assert "Начинается новая игра" in capsys.readouterr().out


def test_a_declined_resume_names_the_command_that_carries_it_on(tmp_path: Path, capsys) -> None:
    """«Начинается новая игра; незаконченная сохранена: её продолжает …»: the command as it
    works, with the settings file and the journal (a bare resume would pick another game)."""
    config_path, settings = setup(tmp_path)
    settings = dataclasses.replace(settings, language="ru")
    real = a_game(settings, "game-real", ["2 5 9", "wait", "4"], age=60)
    command = f"voicehost --config {config_path} resume {real}"
    assert offer_resume(settings, Terminal("н\n")) is None
    assert f"её продолжает «{command}»" in capsys.readouterr().out
    assert offer_resume(settings, io.StringIO("")) is None  # no person to ask
    assert f"незаконченную продолжает «{command}»" in capsys.readouterr().out


def test_a_line_that_is_no_answer_is_asked_again_not_taken(tmp_path: Path, capsys) -> None:
    """The host types the new game's first line ("2 5 9") while the question is up: neither a
    new game nor the old one starts from it; the question names the problem and is asked again."""
    _, settings = setup(tmp_path)
    settings = dataclasses.replace(settings, language="ru")
    real = a_game(settings, "game-real", ["2 5 9", "wait", "4"], age=60)
    assert offer_resume(settings, Terminal("2 5 9\nд\n")) == real
    out = capsys.readouterr().out
    assert "«2 5 9» — не ответ на вопрос" in out
    assert out.count("Продолжить её? [Д/н]") == 2
    assert offer_resume(settings, Terminal("2 5 9\nн\n")) is None
    assert "Начинается новая игра" in capsys.readouterr().out
    # The terminal closes before an answer: nothing is resumed, the game stays for `resume`.
    assert offer_resume(settings, Terminal("2 5 9\n")) is None
    assert f"resume {real}»" in capsys.readouterr().out


def test_play_with_nothing_unfinished_asks_nothing(tmp_path: Path, capsys) -> None:
    _, settings = setup(tmp_path)
    a_game(settings, "game-won", TOWN_WINS, age=0)
    assert offer_resume(settings, Terminal("\n")) is None
    assert capsys.readouterr().out == ""


def test_protocol_without_a_journal_shows_the_last_game_even_finished(tmp_path: Path) -> None:
    config_path, settings = setup(tmp_path)
    a_game(settings, "game-old", ["2 5 9"], age=120)
    won = a_game(settings, "game-won", TOWN_WINS, age=0)
    assert won.with_suffix(".finished").exists()
    assert newest_game(settings.path(settings.storage.journal_dir)) == won
    result = voicehost(config_path, "protocol")
    assert result.returncode == 0, result.stderr
    assert "game-won" in result.stdout
    assert "game-old" not in result.stdout


def test_protocol_with_no_game_yet_says_so(tmp_path: Path) -> None:
    config_path, _ = setup(tmp_path)
    result = voicehost(config_path, "protocol")
    assert result.returncode == 1
    assert "no game has been played yet" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    config_path, settings = setup(tmp_path)
    a_game(settings, "game-won", TOWN_WINS, age=0)
    command = (
        f"{shlex_quote(sys.executable)} -m voicehost --config {shlex_quote(str(config_path))} "
        "protocol | head -n 2; echo status=${PIPESTATUS[0]}"
    )
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert len(result.stdout.splitlines()) == 3  # two lines of the protocol and the status
    assert "status=0" in result.stdout
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr


def test_play_plain_with_stdin_at_its_end_stops_with_a_message(tmp_path: Path) -> None:
    config_path, settings = setup(tmp_path)
    result = voicehost(config_path, "play", "--plain", "--text")
    assert result.returncode == 0, result.stderr
    book = PhraseBook.load(settings.language)
    assert book.screen("keyboard_closed") in result.stdout  # in the game's language
    assert "Traceback" not in result.stderr
    journal = newest_unfinished(settings.path(settings.storage.journal_dir))
    assert journal is not None
    # The game was left empty, so a bare `voicehost resume` would pick another: the hint names
    # this one, and the settings file it was played with (typed as shown, it resumes the same).
    command = f"voicehost --config {config_path} resume {journal}"
    assert book.screen("game_paused", {"journal": journal, "command": command}) in result.stdout


def shlex_quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_launcher_makes_every_readme_command_work_in_a_new_shell(tmp_path: Path) -> None:
    launcher = tmp_path / "bin" / "voicehost"
    made = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "launcher", f"LAUNCHER={launcher}", "-o", "venv"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert launcher.is_file() and os.access(launcher, os.X_OK)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = sorted(set(re.findall(r"`voicehost ([a-z]+)", readme)))
    assert {"play", "resume", "protocol", "doctor"} <= set(commands)
    fresh = {"PATH": f"{launcher.parent}:/usr/bin:/bin", "HOME": str(tmp_path)}  # a new shell
    for command in commands:
        result = subprocess.run(
            ["sh", "-c", f"voicehost {command} --help"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
            env=fresh,
        )
        assert result.returncode == 0, (command, result.stderr)
        assert "voicehost" in result.stdout.splitlines()[0]  # «использование: voicehost …»


def test_play_does_not_offer_a_game_another_host_is_hosting(tmp_path: Path, capsys) -> None:
    """Two terminals on one machine: the second `play` must not offer to resume the game the
    first is hosting (the resume would be refused); it says so and starts a new game."""
    from voicehost.host.journal import Journal

    _, settings = setup(tmp_path)
    busy = a_game(settings, "game-busy", ["2 5 9", "wait", "4"], age=0)
    held = Journal.reopen(busy)
    try:
        assert offer_resume(settings, Terminal("\n")) is None
        assert f"Незаконченную игру {busy} сейчас ведёт другой voicehost" in capsys.readouterr().out
    finally:
        held.close()
    assert offer_resume(settings, Terminal("\n")) == busy  # once it is free, it is offered


def test_the_quit_question_names_the_journal_a_bare_resume_would_not_pick(tmp_path: Path) -> None:
    """An empty game quit at once: `voicehost resume` alone would carry on an older played game,
    so the question (and the line after it) names this game's journal."""
    config_path, settings = setup(tmp_path)
    older = a_game(settings, "older", TOWN_WINS[:30], age=600)
    result = voicehost(config_path, "play", "--plain", "--text", stdin=None, input_text="q\nq\n")
    assert result.returncode == 0, result.stderr
    journals = sorted(settings.path(settings.storage.journal_dir).glob("game-*.jsonl"))
    assert len(journals) == 1
    asked = [line for line in result.stdout.splitlines() if line.startswith("Выйти из игры?")]
    # The command as the line after quitting prints it: with the settings file it was played with
    command = f"voicehost --config {config_path} resume {journals[0]} --text"  # as it was played
    assert asked and command in asked[0]
    assert f"продолжить: {command}" in result.stdout
    assert newest_unfinished(journals[0].parent) == older  # why the name matters


def test_ctrl_c_in_a_game_names_its_journal(tmp_path: Path) -> None:
    import signal

    config_path, settings = setup(tmp_path)
    game = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "--config", str(config_path), "play", "--plain",
         "--text"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert game.stdout is not None
    for line in game.stdout:  # the game is on once the night's first prompt is shown
        if "→" in line:
            break
    game.send_signal(signal.SIGINT)
    out, err = game.communicate(timeout=60)
    journal = newest_game(settings.path(settings.storage.journal_dir))
    assert journal is not None
    assert f"voicehost --config {config_path} resume {journal}" in out, out + err
    assert "Traceback" not in err


def test_resume_of_a_journal_that_is_not_there_says_so_at_once(tmp_path: Path) -> None:
    """In the game's language, before any device is looked for: no notice about the sound card
    or the keypad comes first."""
    config_path = tmp_path / "config.yaml"  # the devices as config.yaml leaves them: all looked for
    config_path.write_text("storage:\n  journal_dir: journals\n", encoding="utf-8")
    result = voicehost(config_path, "resume", str(tmp_path / "nope.jsonl"))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"voicehost: журнала {tmp_path / 'nope.jsonl'} нет; voicehost resume без файла найдёт "
        "самую новую незаконченную игру"
    ]
    assert not (tmp_path / "cache").exists()  # no announcement was synthesised for nothing


@pytest.mark.parametrize("language", ["ru", "en"])
def test_play_help_names_every_rule_set_and_its_document(language: str) -> None:
    """`voicehost play --help` says what --preset takes: each rule set with its rules page."""
    from voicehost.cli.texts import message_in
    from voicehost.game.rules import PRESETS

    words = message_in(language, "play.preset")
    for preset in PRESETS:
        assert preset in words
    for page in ("docs/RULES.md", "docs/RULES-FIIM.md", "docs/RULES-CITY.md"):
        assert page in words


def test_the_resume_hint_names_the_settings_file_only_when_one_was_given(tmp_path: Path) -> None:
    from voicehost.cli.session import resume_command

    journal = tmp_path / "игры" / "game 1.jsonl"
    assert resume_command(config.load(None), journal) == f"voicehost resume '{journal}'"
    club = tmp_path / "клуб.yaml"
    club.write_text("language: ru\n", encoding="utf-8")
    assert resume_command(config.load(club), journal) == (
        f"voicehost --config '{club}' resume '{journal}'"  # quoted: typed into a shell as is
    )
