"""Fuzzers over what files feed in: the journal reader and the config loader never raise
anything but their own error, and that error names the file's line (issue 10).

``make test`` runs a quick round; ``VOICEHOST_FUZZ_EXAMPLES=10000 .venv/bin/pytest -q
tests/host/test_file_fuzz.py`` runs the long one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from faultkit import REPO, SETTINGS, straight_journal
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from voicehost import config
from voicehost.errors import ConfigError
from voicehost.host.journal import JournalError
from voicehost.host.replay import replay_journal

EXAMPLES = int(os.environ.get("VOICEHOST_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_JOURNAL: list[str] = []


def journal_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The first 40 lines of the straight game (header, night 0, day 1 under way): every kind
    of record, and a replay short enough for 10,000 cases."""
    if not _JOURNAL:
        lines = straight_journal(tmp_path_factory.mktemp("fuzz") / "game.jsonl")
        _JOURNAL.extend(lines[:40])
    return _JOURNAL


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),  # fmt: skip
    max_leaves=10,
)
FIELDS = "input kind seats count timer_id seat source undo note game players rules timers night"
FIELDS += " format language mafia_count fouls_to_disqualify discussion_seconds"
keys = st.sampled_from(FIELDS.split())


def _mutate_record(record: Any, path: list[str], value: Any) -> Any:
    """Set ``value`` at the first key of ``path`` found anywhere in ``record``."""
    if isinstance(record, dict):
        for key in list(record):
            if key == path[0]:
                record[key] = value
                return record
            _mutate_record(record[key], path, value)
    return record


mutation = st.one_of(
    st.tuples(st.just("value"), st.integers(0, 200), keys, json_values),
    st.tuples(st.just("line"), st.integers(0, 200), json_values),
    st.tuples(st.just("bytes"), st.integers(0, 20000), st.binary(min_size=1, max_size=12)),
    st.tuples(st.just("cut"), st.integers(0, 20000)),
    st.tuples(st.just("swap"), st.integers(0, 200), st.integers(0, 200)),
    st.tuples(st.just("dup"), st.integers(0, 200)),
)


def apply(lines: list[str], steps: list[Any]) -> bytes:
    current = list(lines)
    data: bytes | None = None
    for step in steps:
        if data is not None:
            break
        kind, *args = step
        index = args[0] % len(current) if current and isinstance(args[0], int) else 0
        if kind == "value" and current:
            record = json.loads(current[index])
            current[index] = json.dumps(_mutate_record(record, [args[1]], args[2]))
        elif kind == "line" and current:
            current[index] = json.dumps(args[1])
        elif kind == "swap" and current:
            other = args[1] % len(current)
            current[index], current[other] = current[other], current[index]
        elif kind == "dup" and current:
            current.insert(index, current[index])
        elif kind == "bytes":
            whole = ("\n".join(current) + "\n").encode()
            at = args[0] % (len(whole) + 1)
            data = whole[:at] + args[1] + whole[at:]
        elif kind == "cut":
            whole = ("\n".join(current) + "\n").encode()
            data = whole[: args[0] % (len(whole) + 1)]
    return data if data is not None else ("\n".join(current) + "\n").encode()


@FUZZ
@given(steps=st.lists(mutation, min_size=1, max_size=3))
@example(steps=[("value", 0, "mafia_count", None)])  # found by make fuzz: a TypeError on resume
def test_the_journal_reader_never_raises_anything_but_a_journal_error(
    steps: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    lines = journal_lines(tmp_path_factory)
    path = tmp_path_factory.getbasetemp() / "fuzzed.jsonl"
    path.write_bytes(apply(lines, steps))
    try:
        replay_journal(SETTINGS, path)
    except JournalError as exc:
        text = str(exc)
        assert str(path) in text
        assert "Traceback" not in text and "{'" not in text.split(":", 1)[0]


# config.yaml without its comments: the same keys and values, read twice as fast.
CONFIG_LINES = [
    line
    for line in (REPO / "config.yaml").read_text(encoding="utf-8").splitlines()
    if line.split("#")[0].strip()
]
snippets = st.sampled_from([
    "!!int \"[1, 2\"", "? [1]\n: 2", "[" * 50, "{", "&a 1", "*a", "!!binary x", "!!python/none",
    "- 1", "[1, 2]", "{a: 1}", "~", "yes", "0x1F", "1e400", ".nan", "\"\\x00\"", "'", "|", ">",
    "\t", "%YAML 1.1", "---", "...", "!!timestamp 2001", "!!float abc", "? a", "<<: *a",
])  # fmt: skip
config_mutation = st.one_of(
    st.tuples(st.just("value"), st.integers(0, 400), st.one_of(snippets, st.text(max_size=6))),
    st.tuples(st.just("insert"), st.integers(0, 400), st.one_of(snippets, st.text(max_size=12))),
    st.tuples(st.just("bytes"), st.integers(0, 20000), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("drop"), st.integers(0, 400)),
)


def apply_config(steps: list[Any]) -> bytes:
    lines = list(CONFIG_LINES)
    for kind, at, *rest in steps:
        index = at % len(lines)
        if kind == "value" and ":" in lines[index]:
            head = lines[index].split(":", 1)[0]
            lines[index] = f"{head}: {rest[0]}"
        elif kind == "insert":
            lines.insert(index, rest[0])
        elif kind == "drop":
            del lines[index]
        elif kind == "bytes":
            whole = ("\n".join(lines) + "\n").encode()
            at %= len(whole) + 1
            return whole[:at] + rest[0] + whole[at:]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


@FUZZ
@given(steps=st.lists(config_mutation, min_size=1, max_size=3))
def test_the_config_loader_never_raises_anything_but_a_config_error_with_a_line(
    steps: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = tmp_path_factory.getbasetemp() / "fuzzed.yaml"
    path.write_bytes(apply_config(steps))
    try:
        config.load(Path(path))
    except ConfigError as exc:
        assert exc.line is not None, str(exc)
        assert "Traceback" not in str(exc)


@pytest.mark.parametrize(
    "text",
    [
        'players: !!int "[1, 2"\n',
        "rules:\n  mafia_count:\n    ? [1]\n    : 2\n",
        "keypad:\n  keymap:\n    ? [1]\n    : enter\n",
        "[" * 5000,
        "players: 8\x00\n",
        "language: ru\nplayers: 9\x1b\n",
    ],
    ids=["tag", "complex-mafia", "complex-keymap", "nested", "nul", "control"],
)
def test_each_config_that_crashed_names_a_line_and_what_to_do(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config.loads(text)
    assert caught.value.line is not None
    assert any(word in caught.value.problem for word in ("delete", "write", "key", "nested"))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ("players: 8 # é\n".encode("latin-1"), "save it as UTF-8"),
        ("players: 8\n".encode("utf-16"), "UTF-16"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file"),
        (bytes(range(256)), "not a text file"),
    ],
    ids=["latin-1", "utf-16", "png", "binary"],
)
def test_a_file_that_is_not_utf8_text_says_so(data: bytes, words: str, tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as caught:
        config.load(path)
    assert words in str(caught.value) and caught.value.line is not None
