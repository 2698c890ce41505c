"""A rule set's policies are tables of functions: the engine looks each one up by the name the
rule set gives, once, and never compares a policy's name inline; no part of it grows past what
one can read in one sitting."""

from __future__ import annotations

import ast
from pathlib import Path

import voicehost.game.engine as engine
from voicehost.game.policies import KNOWN

GAME = Path(engine.__file__).parent
#: the engine and its parts
PARTS = ("engine", "table", "night", "morning", "day", "vote", "fouls", "end", "policies")
#: how a player left the table: the engine's own words (a «kill» is also an action's name)
HOW = {"vote", "kill", "disqualified", "removed"}
#: the names a comparison may not name: every policy a rule set may choose
NAMES = {name for names in KNOWN.values() for name in names} - HOW


def _compared_names(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for side in (node.left, *node.comparators):
            literals = side.elts if isinstance(side, ast.Tuple | ast.Set | ast.List) else [side]
            for literal in literals:
                if isinstance(literal, ast.Constant) and literal.value in NAMES:
                    found.append((node.lineno, literal.value))
    return found


def test_no_part_of_the_engine_compares_a_policy_name() -> None:
    compared = {
        f"{part}.py:{line}": name
        for part in PARTS
        for line, name in _compared_names(ast.parse((GAME / f"{part}.py").read_text("utf-8")))
    }
    assert compared == {}, "look the policy up in its registry instead"


def test_the_check_sees_an_inline_comparison() -> None:
    tree = ast.parse('if self.ruleset.nominations == "in_own_speech_one":\n    pass\n')
    assert _compared_names(tree) == [(1, "in_own_speech_one")]
    tree = ast.parse('ok = action in ("check", "check_or_kill", "kill")\n')
    assert [name for _, name in _compared_names(tree)] == ["check", "check_or_kill"]


def test_each_part_of_the_engine_reads_in_one_sitting() -> None:
    parts = ["engine", "table", "night", "morning", "day", "vote", "fouls", "end", "policies"]
    lines = {
        part: len((GAME / f"{part}.py").read_text(encoding="utf-8").splitlines()) for part in parts
    }
    assert max(lines.values()) <= 600, lines
