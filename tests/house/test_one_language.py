"""One language everywhere a person reads: `language: ru` makes every command's help, argument
errors and output Russian, `en` English; both books hold every text the command line says."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost import config
from voicehost.__main__ import main
from voicehost.cli import texts
from voicehost.testing.words import latin_words

ROOT = Path(__file__).resolve().parents[2]
CLI = sorted((ROOT / "voicehost" / "cli").glob("*.py")) + [ROOT / "voicehost" / "__main__.py"]
SECTIONS = {language: texts.load_section(language) for language in ("ru", "en")}


def used_keys() -> set[str]:
    """Every key a command-line module looks up with text(...) or message(...)."""
    keys = set()
    for path in CLI:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("text", "message")
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                keys.add(node.args[0].value)
    return keys


def test_both_books_say_every_text_the_command_line_looks_up() -> None:
    keys = used_keys()
    assert len(keys) > 80
    for language, section in SECTIONS.items():
        assert sorted(keys - set(section)) == [], language
    assert set(SECTIONS["ru"]) == set(SECTIONS["en"])
    assert set(texts.ARGPARSE_KEYS.values()) <= set(SECTIONS["ru"])


@pytest.mark.parametrize("key", sorted(SECTIONS["en"]))
def test_each_text_has_the_same_placeholders_in_both_books(key: str) -> None:
    def holes(text: str) -> list[str]:
        return sorted(re.findall(r"\{\w+\}|%\(\w+\)[rsd]|%[rsd]", text))

    assert holes(SECTIONS["ru"][key]) == holes(SECTIONS["en"][key])


def test_the_command_line_reads_the_default_config_config_py_reads() -> None:
    assert texts.DEFAULT_CONFIG == config.DEFAULT_CONFIG


def config_in(folder: Path, language: str) -> str:
    path = folder / "config.yaml"
    path.write_text(f"language: {language}\nstorage:\n  journal_dir: journals\n", encoding="utf-8")
    return str(path)


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "voicehost", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "command",
    [
        [],
        ["play"],
        ["service", "install"],
        ["protocol"],
        ["rehearse"],
        ["doctor"],
        ["models", "list"],
        ["phrases", "build"],
    ],
)
def test_every_help_is_in_the_games_language(tmp_path: Path, command: list[str]) -> None:
    russian = run("--config", config_in(tmp_path, "ru"), *command, "--help")
    assert russian.returncode == 0, russian.stderr
    assert russian.stdout.startswith("использование: voicehost")
    assert "параметры:" in russian.stdout and "options:" not in russian.stdout
    assert "show this help" not in russian.stdout
    english = run("--config", config_in(tmp_path, "en"), *command, "--help")
    assert english.stdout.startswith("usage: voicehost")
    assert "options:" in english.stdout
    for russian_word in ("параметры", "показать", "игр", "файл"):
        assert russian_word not in english.stdout


def test_service_install_help_says_what_it_does(tmp_path: Path) -> None:
    result = run("--config", config_in(tmp_path, "ru"), "service", "install", "--help")
    said = " ".join(result.stdout.split())
    assert "стартует при каждой загрузке" in said
    assert "voicehost service uninstall" in said


@pytest.mark.parametrize(
    ("argv", "russian", "english"),
    [
        (["play", "--players", "14"], "за столом от 8 до 13 игроков", "a table has 8 to 13"),
        (["play", "--players", "x"], "значение 'x': нужно число", "'x': a number is needed"),
        (["play", "--preset", "mafia"], "недопустимый выбор: 'mafia'", "invalid choice"),
        (["play", "--bogus"], "непонятные аргументы: --bogus", "unrecognized arguments"),
    ],
)
def test_argument_errors_are_in_the_games_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv, russian: str, english: str
) -> None:
    for language, expected in (("ru", russian), ("en", english)):
        try:
            code = main(["--config", config_in(tmp_path, language), *argv])
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        assert code != 0
        err = capsys.readouterr().err
        assert expected in err, (language, err)
        if language == "ru":
            assert "ошибка" in err or err.startswith("voicehost: ")


def test_a_missing_example_script_says_where_the_examples_are(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # outside the checkout
    config_path = config_in(tmp_path, "ru")
    assert main(["--config", config_path, "play", "--script", "examples/town-wins.txt"]) == 0
    assert "Победа: красные (город)" in capsys.readouterr().out
    assert main(["--config", config_path, "play", "--script", "examples/nope.txt"]) == 1
    err = capsys.readouterr().err
    assert "не удаётся прочитать сценарий examples/nope.txt" in err
    assert str(ROOT / "examples") in err


def test_club_hosts_read_the_hosts_pages_in_russian_linked_both_ways() -> None:
    pairs = [(ROOT / "README.md", ROOT / "README.ru.md"),
             (ROOT / "docs" / "RASPBERRY_PI.md", ROOT / "docs" / "RASPBERRY_PI.ru.md")]  # fmt: skip
    for english, russian in pairs:
        assert f"({russian.name})" in english.read_text(encoding="utf-8")
        assert f"({english.name})" in russian.read_text(encoding="utf-8")
    readme = (ROOT / "README.ru.md").read_text(encoding="utf-8")
    for section in ("## Два шага", "## Справочник по клавиатуре", "## Повседневные команды"):
        assert section in readme
    for english, russian in ((ROOT / "README.md", readme),):
        block = re.search(r"```sh\n(.*?)```", english.read_text(encoding="utf-8"), re.S)
        ru_block = re.search(r"```sh\n(.*?)```", russian, re.S)
        assert block is not None and ru_block is not None
        for text in (block.group(1), ru_block.group(1)):
            commands = [line.split("#")[0].strip() for line in text.splitlines()]
            assert [c for c in commands if c] == ["make run", "make test"]


def test_the_russian_keyboard_reference_names_every_command() -> None:
    from voicehost.host.actions import ACTIONS

    readme = (ROOT / "README.ru.md").read_text(encoding="utf-8")
    for spec in ACTIONS.values():
        assert f"`{spec.words[0]}" in readme, spec.words[0]


def test_config_mistakes_are_said_in_the_language_of_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "config.yaml"
    bad.write_text("language: ru\nplayers: 25\ntimers:\n  discussion_seconds: abc\n")
    assert main(["--config", str(bad), "play", "--text"]) == 1
    err = capsys.readouterr().err
    assert "в config.yaml неверных значений: 2:" in err
    assert "строка 2: players = 25 — вне допустимого: от 6 до 20" in err
    assert "строка 4: timers.discussion_seconds — число, а не 'abc'" in err
    bad.write_text("language: en\nplayers: 25\n")
    assert main(["--config", str(bad), "play", "--text"]) == 1
    assert "line 2: players = 25 is out of range; allowed: 6 to 20" in capsys.readouterr().err


NO_CARD = "pcm.!default { type hw; card 99 }\n"


def no_sound_card(folder: Path) -> dict[str, str]:
    import os

    conf = folder / "no-card.conf"
    conf.write_text(f"</usr/share/alsa/alsa.conf>\n{NO_CARD}", encoding="utf-8")
    return {**os.environ, "ALSA_CONFIG_PATH": str(conf)}


@pytest.mark.parametrize(
    ("language", "said", "not_said"),
    [("ru", "Звука нет:", "no sound output"), ("en", "No sound:", "Звука")],
)
def test_a_commands_notices_are_in_its_language(
    tmp_path: Path, language: str, said: str, not_said: str
) -> None:
    """rehearse without a sound card: the notice (and its reason) in the game's language, once;
    a library's own message is quoted after it."""
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", config_in(tmp_path, language),
         "rehearse", "--key", "game.start"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=no_sound_card(tmp_path),
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if said in line]
    assert len(lines) == 1, result.stderr
    assert not_said not in result.stderr
    if language == "ru":
        assert latin_words(result.stderr) == [], result.stderr


def test_a_game_in_line_mode_says_its_notices_once_in_its_language(tmp_path: Path) -> None:
    """`play --plain`: the notices are on the screen in Russian; stderr repeats none of them
    in English (it keeps only lines for the log alone)."""
    result = subprocess.run(
        [sys.executable, "-m", "voicehost", "--config", config_in(tmp_path, "ru"),
         "play", "--plain"],
        capture_output=True, text=True, timeout=120, cwd=ROOT, env=no_sound_card(tmp_path),
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    notices = [line for line in result.stdout.splitlines() if line.startswith("ℹ")]
    assert any("Звука нет" in line for line in notices), result.stdout
    assert any("кейпад не найден" in line for line in notices), result.stdout
    assert latin_words("\n".join(notices)) == [], notices
    assert result.stderr == ""


@pytest.mark.parametrize(
    ("argv", "russian"),
    [
        (["phrases", "check", "nopack"], "папки голосового пакета"),
        (["phrases", "pack", "import", "nozip.zip", "pack"], "файла nozip.zip нет"),
        (["models", "install", "nomodel.zip"], "файла nomodel.zip нет"),
        (["club", "import", "nofolder"], "nofolder — не папка"),
        (["listen", "--model", "nomodel"], "--model nomodel: такой папки нет"),
    ],
)
def test_a_commands_refusals_are_in_the_games_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch, argv, russian: str
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--config", config_in(tmp_path, "ru"), *argv]) == 1
    err = capsys.readouterr().err
    assert russian in err, err
    for typed in argv:  # what the host typed is named as typed
        err = err.replace(typed, "")
    assert latin_words(err) == [], err


def test_an_error_the_book_cannot_say_is_quoted_after_a_sentence_in_the_games_language() -> None:
    from voicehost.errors import VoicehostError
    from voicehost.phrases import PhraseBook

    english = VoicehostError("the frobnicator is cold; warm it up")
    russian = PhraseBook.load("ru").explain(english)
    assert russian.startswith("не получилось; что случилось и что делать, сказано по-английски")
    assert russian.endswith("«the frobnicator is cold; warm it up»")
    assert PhraseBook.load("en").explain(english) == "the frobnicator is cold; warm it up"
    # a text already written from the book is said as it is
    written = VoicehostError.written("журнал пуст")
    assert PhraseBook.load("ru").explain(written) == "журнал пуст"


def test_rules_show_says_yes_and_no_in_the_games_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["--config", config_in(tmp_path, "ru"), "rules", "show", "club"]) == 0
    out = capsys.readouterr().out
    assert "удаление: нет" in out
    for python_word in ("True", "False", "None"):
        assert python_word not in out


def _leaf_parsers(parser, path=()):
    import argparse

    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for word, sub in action.choices.items():
            yield from _leaf_parsers(sub, (*path, word))


def test_every_subcommands_help_says_what_it_does_and_names_its_values_in_russian(
    tmp_path: Path,
) -> None:
    """`club standings --help`, `service status --help`...: a line saying what the command
    does, and the placeholders of the values (`--csv ФАЙЛ`, `ЖУРНАЛ`) in Russian words."""
    from voicehost import cli
    from voicehost.__main__ import build_parser

    texts.choose("ru")
    try:
        seen = 0
        for name in cli.SUBCOMMANDS:
            parser = build_parser([name])
            texts.name_placeholders(parser)
            for path, leaf in _leaf_parsers(parser):
                if not path or path[0] != name:
                    continue
                seen += 1
                assert leaf.description, path
                usage = leaf.format_usage()
                placeholders = re.findall(r"--[\w-]+ ([A-Za-z_]+)\]", usage)
                placeholders += re.findall(r" ([a-z_]+)\n?$", usage.strip())
                assert placeholders == [], (path, usage)
        assert seen > 20
    finally:
        texts.choose(texts.language_of([]))


@pytest.mark.parametrize(
    ("content", "russian"),
    [
        ("language: ru\nplayers: 10\n".encode("utf-16"), "файл сохранён в UTF-16"),
        (b"language: ru\nrules:\n  mafia_count:\n    8: 7\n", "7 мафии на 8 игроков не игра"),
        (b"language: ru\nplayers: [1\n", "это не YAML (сообщение разборщика: «"),
        (b"language: ru\nplayers: 9\nrules:\n  preset: fiim\n", "играют 10 игроков, а не 9"),
    ],
)
def test_a_broken_config_is_said_in_russian(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, russian: str
) -> None:
    bad = tmp_path / "config.yaml"
    bad.write_bytes(content)
    assert main(["--config", str(bad), "play", "--text"]) == 1
    err = capsys.readouterr().err
    assert russian in err, err
    assert latin_words(err.replace("fiim", "")) == [], err  # a preset by its config name


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("ru", "voicehost: команда `voicehost` теперь запускает"),
        ("en", "voicehost: the command `voicehost` now runs"),
    ],
)
def test_make_run_says_its_own_lines_in_the_clubs_language(
    tmp_path: Path, language: str, said: str
) -> None:
    """`make run` puts the `voicehost` command in place and says so in config.yaml's language."""
    root = Path(__file__).resolve().parents[2]
    if not (root / ".stamp-venv").exists():
        pytest.skip("make's venv is not set up in this checkout (make run or make test sets it)")
    config = tmp_path / "config.yaml"
    config.write_text(f"language: {language}\n", encoding="utf-8")
    launcher = tmp_path / "bin" / "voicehost"
    done = subprocess.run(
        ["make", "-s", "-C", str(root), "launcher", f"LAUNCHER={launcher}", f"CONFIG={config}"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert said in done.stdout
    assert launcher.is_file()
