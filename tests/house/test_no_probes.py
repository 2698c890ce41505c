"""Ports, not probes: production code never asks an object what it is (``hasattr``, a fake's
class) or fishes for an optional method by name; what a port can do is in its Protocol."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: getattr with a literal name that reads something outside the project's own objects.
ALLOWED_GETATTR = {
    ("voicehost/__main__.py", "func"),  # argparse: a subcommand was given
    ("voicehost/cli/play.py", "players"),  # argparse: options `resume` does not have
    ("voicehost/cli/play.py", "lang"),
    ("voicehost/cli/play.py", "preset"),
    ("voicehost/voice_out/tts.py", "voicehost_phonemes"),  # pyttsx3's function, wrapped once
    ("voicehost/voice_in/models.py", "reason"),  # urllib's errors
    ("voicehost/voice_in/models.py", "name"),  # a file object may be nameless (BytesIO)
    ("voicehost/config.py", "problem_mark"),  # PyYAML's errors
    ("voicehost/config.py", "problem"),
}


def calls() -> list[tuple[str, ast.Call]]:
    found = []
    for path in sorted((ROOT / "voicehost").rglob("*.py")):
        if path.parent.name == "testing":
            continue  # the fakes' own helpers
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                found.append((str(path.relative_to(ROOT)), node))
    return found


def test_no_hasattr_in_production_code() -> None:
    assert [f"{p}:{c.lineno}" for p, c in calls() if c.func.id == "hasattr"] == []  # type: ignore[attr-defined]


def test_no_isinstance_on_a_test_fake() -> None:
    offenders = []
    for path, call in calls():
        if call.func.id == "isinstance" and len(call.args) == 2:  # type: ignore[attr-defined]
            names = {n.id for n in ast.walk(call.args[1]) if isinstance(n, ast.Name)}
            if any(name.startswith(("Fake", "Recording", "Timed")) for name in names):
                offenders.append(f"{path}:{call.lineno}")
    assert offenders == []


def test_getattr_by_name_only_on_foreign_objects() -> None:
    offenders = []
    for path, call in calls():
        if call.func.id != "getattr" or len(call.args) < 2:  # type: ignore[attr-defined]
            continue
        name = call.args[1]
        if isinstance(name, ast.Constant) and (path, name.value) not in ALLOWED_GETATTR:
            offenders.append(f"{path}:{call.lineno} getattr(..., {name.value!r})")
    assert offenders == []
