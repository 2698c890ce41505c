"""config.yaml holds the code's defaults; a wrong config names key, line and what is allowed."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

import pytest

from voicehost import config
from voicehost.errors import ConfigError
from voicehost.phrases import PhraseBook


def leaf_fields(settings: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) for every setting, sections opened up."""
    for spec in dataclasses.fields(settings):
        if spec.metadata.get("internal"):
            continue
        value = getattr(settings, spec.name)
        if dataclasses.is_dataclass(value):
            yield from leaf_fields(value, f"{prefix}{spec.name}.")
        else:
            yield f"{prefix}{spec.name}", value


def test_config_yaml_holds_every_default() -> None:
    loaded = config.load(config.DEFAULT_CONFIG)
    defaults = config.Settings()
    loaded_fields = dict(leaf_fields(loaded))
    for key, default in leaf_fields(defaults):
        assert key in loaded_fields
        assert loaded_fields[key] == default, key
    assert dataclasses.replace(loaded, base_dir=defaults.base_dir) == defaults
    assert loaded.base_dir == str(config.DEFAULT_CONFIG.parent)


def line_of(lines: list[str], dotted: str) -> int:
    """Index of the line that sets ``dotted`` (``section.key`` or ``key``) in config.yaml."""
    *section, name = dotted.split(".")
    start = 0
    if section:
        start = next(i for i, line in enumerate(lines) if line == f"{section[0]}:")
    pattern = rf"\s+{name}:" if section else rf"{name}:"
    found = [i for i, line in enumerate(lines[start:], start) if re.match(pattern, line)]
    assert found, f"{dotted} is not in config.yaml"
    return found[0]


def test_config_yaml_writes_out_every_key() -> None:
    """Defaults come from the code anyway; the file must still show (and explain) each one."""
    text = config.DEFAULT_CONFIG.read_text(encoding="utf-8")
    lines = text.splitlines()
    for key, value in leaf_fields(config.Settings()):
        index = line_of(lines, key)
        assert lines[index - 1].lstrip().startswith("#"), f"{key} has no comment above it"
        if isinstance(value, dict):
            for entry in value:
                assert re.search(rf"^\s+{entry}:", text, re.MULTILINE), f"{key}.{entry}"


def test_config_yaml_marks_the_rules_decisions() -> None:
    text = config.DEFAULT_CONFIG.read_text(encoding="utf-8")
    for key in ("mafia_count", "rotate_first_speaker", "third_vote_tie", "disqualified_last_words"):
        block = text.split(f"  {key}:")[0].rsplit("\n\n", 1)[-1]
        comment = block.rsplit(":\n", 1)[-1] if key != "mafia_count" else block
        assert "Decision" in comment, key


@pytest.mark.parametrize(
    ("text", "key", "line", "named"),
    [
        (
            "rules:\n  comissar: true\n",
            "rules.comissar",
            2,
            "allowed keys here: acquaintance, acquaintance_topic, commissar,",
        ),
        ("players: 10\nlanguge: ru\n", "languge", 2, "language"),
        ("players: ten\n", "players", 1, "must be a whole number, not 'ten'"),
        ("players: 10.5\n", "players", 1, "must be a whole number"),
        ("rules:\n  doctor: maybe\n", "rules.doctor", 2, "must be true or false"),
        ("timers:\n  warning_seconds: soon\n", "timers.warning_seconds", 2, "must be a number"),
        ("voice:\n  rate: [150]\n", "voice.rate", 2, "must be a single value"),
        ("rules: 5\n", "rules", 1, "must be a mapping"),
        ("players: 14\n", "players", 1, "out of range; allowed: 8 to 13"),
        ("timers:\n\n  discussion_seconds: 5\n", "timers.discussion_seconds", 3, "10 to 3600"),
        ("night:\n  masking_volume: 1.5\n", "night.masking_volume", 2, "allowed: 0 to 1"),
        ("language: de\n", "language", 1, "use one of: ru, en"),
        ("night:\n  masking: loud\n", "night.masking", 2, "use one of: off, noise, music"),
        ("night:\n  masking: yes\n", "night.masking", 2, "'yes' is not allowed"),
        ("rules:\n  third_vote_tie: coin\n", "rules.third_vote_tie", 2, "all_stay, all_leave"),
        ("players: [10\n", "(file)", 2, "not valid YAML"),
        ("rules:\n  doctor: true\n   commissar: true\n", "(file)", 3, "not valid YAML"),
        ("rules:\n  mafia_count:\n    10: 5\n", "rules.mafia_count.10", 3, "allowed: 1 to 4"),
        ("rules:\n  mafia_count:\n    8: 0\n", "rules.mafia_count.8", 3, "allowed: 1 to 3"),
        ("rules:\n  mafia_count:\n    14: 4\n", "rules.mafia_count.14", 3, "8 to 13 players"),
        ("rules:\n  mafia_count:\n    9: many\n", "rules.mafia_count.9", 3, "whole number"),
        ("night:\n  no_agreed_shot_after_seconds: 30\n", "night.no_agreed_shot_after_seconds",
         2, "shorter than night.mafia_window_seconds"),
        ("timers:\n  warning_seconds: 20\n", "timers.warning_seconds", 2,
             "not shorter than the speech it warns (timers.nomination_speech_seconds: 15 s)"),
        ("keypad:\n  keymap:\n    KEY_KP0: zero\n", "keypad.keymap.KEY_KP0", 3,
         "not a key action; use one of: 0, 1,"),
    ],
)  # fmt: skip
def test_config_mistakes_name_key_line_and_what_is_allowed(
    text: str, key: str, line: int, named: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        config.loads(text)
    assert (caught.value.key, caught.value.line) == (key, line)
    message = str(caught.value)
    assert message.startswith(f"config: {key} (line {line}): ")
    assert named in message


def test_several_bad_timers_are_named_all_at_once() -> None:
    """A host fixing config.yaml sees every wrong value in one go, each with its line."""
    text = (
        "timers:\n  nomination_speech_seconds: -5\n  discussion_seconds: abc\n"
        "  last_words_seconds: 99999\n  warning_seconds: 5\nvoice:\n  volume: 3\n"
    )
    with pytest.raises(ConfigError) as caught:
        config.loads(text)
    message = str(caught.value)
    for key, line in (
        ("timers.nomination_speech_seconds", 2),
        ("timers.discussion_seconds", 3),
        ("timers.last_words_seconds", 4),
        ("voice.volume", 7),
    ):
        assert f"config: {key} (line {line}): " in message, message
    assert message.startswith("config.yaml has 4 wrong values:")


def test_values_wrong_together_are_named_all_at_once() -> None:
    """A warning too long for its speech, a night window and a key action, each wrong: one
    attempt names all three with their lines, not one per attempt."""
    text = (
        "timers:\n  warning_seconds: 20\nnight:\n  no_agreed_shot_after_seconds: 30\n"
        "keypad:\n  keymap:\n    KEY_KP0: zero\n"
    )
    with pytest.raises(ConfigError) as caught:
        config.loads(text)
    message = str(caught.value)
    assert message.startswith("config.yaml has 3 wrong values:"), message
    for key, line in (
        ("timers.warning_seconds", 2),
        ("night.no_agreed_shot_after_seconds", 4),
        ("keypad.keymap.KEY_KP0", 7),
    ):
        assert f"config: {key} (line {line}): " in message, message


@pytest.mark.parametrize(
    "text",
    [
        "players: 20\n",
        "rules:\n  preset: fiim\nplayers: 9\n",
        "rules:\n  mafia_count:\n    20: 3\n",
        "rules:\n  mafia_count:\n    10: 5\n",
        "night:\n  no_agreed_shot_after_seconds: 30\n",
        "scoring:\n  points:\n    foo: 1\n",
        "scoring:\n  points:\n    loss: 500\n",
        "club:\n  database: mysql://x\n",
        "keypad:\n  keymap:\n    KEY_KP0: zero\n",
    ],
)
def test_values_wrong_together_are_said_in_russian(text: str) -> None:
    """A Russian club reads every config mistake in Russian, with its line."""
    with pytest.raises(ConfigError) as caught:
        config.loads(text)
    said = PhraseBook.load("ru").explain(caught.value)
    assert said.startswith("config.yaml, строка "), said
    for english in ("must", " is not ", "allowed", "out of range", "give one"):
        assert english not in said, said


@pytest.mark.parametrize(
    ("text", "setting", "value"),
    [
        ("night:\n  masking: off\n", "night.masking", "off"),
        ("keypad:\n  enabled: on\n", "keypad.enabled", "on"),
        ("keypad:\n  enabled: 'off'\n", "keypad.enabled", "off"),
        ("voice:\n  pack:\n", "voice.pack", ""),
        ("audio:\n  output_device: 2\n", "audio.output_device", "2"),
        ("timers:\n  discussion_seconds: 120\n", "timers.discussion_seconds", 120.0),
        ("rules:\n  mafia_count:\n    10: 4\n", "rules.mafia_count.10", 4),
        ("rules:\n  mafia_count:\n    10: 4\n", "rules.mafia_count.12", 4),
        ("keypad:\n  keymap:\n    KEY_F1: foul\n", "keypad.keymap.KEY_F1", "foul"),
    ],
)  # fmt: skip
def test_config_values_a_person_would_write(text: str, setting: str, value: Any) -> None:
    settings = config.loads(text)
    current: Any = settings
    for part in setting.split("."):
        if isinstance(current, dict):
            current = current[int(part) if part.isdigit() else part]
        else:
            current = getattr(current, part)
    assert current == value


def test_an_empty_config_is_the_defaults() -> None:
    assert config.loads("") == dataclasses.replace(config.Settings(), base_dir=".")
    assert config.loads("# nothing\n") == config.Settings()


def test_a_mistake_in_a_file_given_with_config_names_that_file(tmp_path) -> None:
    # `voicehost --config club.yaml …`: the host opens club.yaml to fix it, not config.yaml.
    book = PhraseBook.load("ru")
    club = tmp_path / "club.yaml"
    club.write_text("language: ru\nlanguag: en\n", encoding="utf-8")
    with pytest.raises(ConfigError) as one:
        config.load(club)
    assert book.explain(one.value).startswith(f"{club}, строка 2: неизвестный ключ languag")
    club.write_text("players: 99\ntimers:\n  speech_seconds: 5\n", encoding="utf-8")
    with pytest.raises(ConfigError) as two:
        config.load(club)
    said = book.explain(two.value)
    assert said.startswith(f"в {club} неверных значений: 2") and "config.yaml" not in said
    club.write_text("players 10\ntimers:\n  discussion_seconds: 60\n", encoding="utf-8")
    with pytest.raises(ConfigError) as three:
        config.load(club)
    assert "строка 2 или чуть выше: это не YAML" in book.explain(three.value)
    own = tmp_path / "config.yaml"  # the usual name: said as it always was
    own.write_text("languag: ru\n", encoding="utf-8")
    with pytest.raises(ConfigError) as four:
        config.load(own)
    assert book.explain(four.value).startswith("config.yaml, строка 1")
