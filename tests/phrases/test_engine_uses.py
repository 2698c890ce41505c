"""Every phrase and error the engine names literally exists in both books with those parameters.

A missing key would only show up mid-game, when that announcement is due; this reads the
engine's source instead, so a renamed key fails here at once.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import voicehost.game.engine as engine
from voicehost.phrases import PhraseBook
from voicehost.rulesets import load_preset, preset_names

Use = tuple[str, str, frozenset[str] | None]  # section, key, parameter names (None: not literal)


def literal_uses() -> list[Use]:
    """(section, key, params) for each Say("...") and RuleViolation("...") in the engine, and
    each phrase, refusal and screen line every preset's rule set names."""
    uses: list[Use] = []
    for path in sorted(Path(engine.__file__).parent.glob("*.py")):  # the engine and its parts
        uses.extend(_uses(ast.parse(path.read_text(encoding="utf-8"))))
    for name in preset_names():
        rules = load_preset(name)
        none: frozenset[str] = frozenset()
        phrases = [rules.night0_opening, rules.night_opening, rules.morning_phrase]
        for step in (*rules.night0_steps, *rules.night_steps):
            phrases += [step.wake, step.sleep]
            action = rules.roles[step.role].action
            if "." in action and step in rules.night_steps:  # a setting chooses the action
                questions = [f"{step.prompt}_{choice}" for choice in ("check", "kill")]
            else:
                questions = [step.prompt]
            uses.extend(("screen", question, None) for question in questions)
        uses.extend(("phrases", key, none) for key in phrases)
        uses.extend(
            ("phrases", phrase, frozenset({"seat"})) for phrase, _ in rules.speeches.values()
        )
        for spec in rules.roles.values():
            uses.extend(("screen", key, none) for key in spec.answer)
            uses.append(("errors", spec.already, none))
            if spec.silent:
                uses.append(("phrases", spec.silent, none))
    return uses


def _uses(tree: ast.Module) -> list[Use]:
    uses: list[Use] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if not node.args or not isinstance(node.args[0], ast.Constant):
            continue
        key = node.args[0].value
        if node.func.id == "Say":
            uses.append(("phrases", key, _say_params(node)))
        elif node.func.id == "RuleViolation":
            names = frozenset(k.arg for k in node.keywords if k.arg is not None)
            uses.append(("errors", key, names))
    for node in ast.walk(tree):  # a private answer's words: Private(kind, answer="...")
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        for keyword in node.keywords:
            constant = isinstance(keyword.value, ast.Constant)
            if node.func.id == "Private" and keyword.arg == "answer" and constant:
                uses.append(("screen", str(keyword.value.value), frozenset()))  # type: ignore[attr-defined]
    return uses


def _say_params(node: ast.Call) -> frozenset[str] | None:
    if len(node.args) < 2:
        return frozenset()
    params = node.args[1]
    if isinstance(params, ast.Dict) and all(isinstance(k, ast.Constant) for k in params.keys):
        return frozenset(str(k.value) for k in params.keys if isinstance(k, ast.Constant))
    return None


USES = literal_uses()


def test_the_engine_is_read() -> None:
    assert len(USES) > 20
    assert ("phrases", "day.speech_nomination", frozenset({"seat"})) in USES
    assert ("phrases", "fiim.killed", frozenset({"seat"})) in USES
    assert ("screen", "private_no_check", frozenset()) in USES


@pytest.mark.parametrize(("section", "key", "params"), sorted(set(USES), key=str))
def test_engine_keys_exist_with_their_parameters(
    book: PhraseBook, section: str, key: str, params: frozenset[str] | None
) -> None:
    needed = {placeholder.name for placeholder in book.placeholders(key, section)}
    if params is not None:
        assert needed <= params, f"{key} needs {sorted(needed)}, the engine gives {sorted(params)}"
