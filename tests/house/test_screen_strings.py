"""Every string a person reads on the host's screen comes from the phrase book of the game's
language. The console's code holds no sentence of its own: a string of two or more words in
console/ (docstrings and the command words aside) is a text that bypassed the book."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

CONSOLE = Path(__file__).resolve().parents[2] / "voicehost" / "console"
WORDS = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}")


def literal_texts(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


@pytest.mark.parametrize("path", sorted(CONSOLE.glob("*.py")), ids=lambda p: p.name)
def test_no_screen_sentence_bypasses_the_phrase_book(path: Path) -> None:
    found = [f"line {line}: {text!r}" for line, text in literal_texts(path) if WORDS.search(text)]
    assert not found, "\n".join(found)
