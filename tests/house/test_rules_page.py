"""docs/RULES.md tells a club host what the machine does: every default it names is config.yaml's,
and every phrase it quotes is one the host says (issue 23: it quoted «Его роль» and a warning of
8 s long after both had changed)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from voicehost.game.model import Role
from voicehost.phrases import PhraseBook, shown

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "RULES.md").read_text(encoding="utf-8")


def _config_value(path: str) -> object:
    node: object = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    for part in path.split("."):
        assert isinstance(node, dict) and part in node, f"{path} is not in config.yaml"
        node = node[part]
    return node


def test_every_default_the_page_names_is_config_yamls() -> None:
    """`setting` (default `N`) in the text, and `setting` ... | `N` s | in the timers' table."""
    named = re.findall(r"`([a-z_]+\.[a-z_]+)` \(default `([^`]+)`", PAGE)
    named += re.findall(r"\| `([a-z_]+\.[a-z_]+)`[^|]*\| `([^`]+)` s \|", PAGE)
    assert len(named) >= 20
    for setting, default in named:
        value = _config_value(setting)
        if isinstance(value, bool):  # YAML 1.1 reads `off` as false
            value = {True: ("true", "on"), False: ("false", "off")}[value]
        else:
            value = (str(value).lower(),)
        assert default.lower() in value, f"{setting}: page {default}, config {value}"


def test_every_sentence_the_page_quotes_as_the_hosts_is_in_the_phrase_book() -> None:
    """A quoted sentence (it ends in . ! or ?) is the host's: it must be said as quoted, N
    standing for a number and «…» for the rest."""
    book = PhraseBook.load("ru")
    spoken = [
        shown(book.render(key, _sample(book, key, number, word=word)).text)
        for key in book.keys()  # noqa: SIM118
        for number in (2, 3, 5)
        for word in _words(book, key)
    ]
    spoken += [book.screen(key, _sample(book, key, 5, "screen")) for key in book.screen_keys()]
    quoted = [q for q in re.findall(r"«([^«»]*)»", PAGE) if re.search(r"[.!?]\Z", q.strip())]
    assert len(quoted) >= 20
    missing: list[str] = []
    for sentence in quoted:
        sentence = " ".join(sentence.split())  # the page wraps its lines
        pattern = re.escape(sentence).replace(r"N", r"\S+").replace(r"…", ".*")
        pattern = pattern.replace(r"\ …", ".*").replace(r"\.\.\.", ".*")
        if not any(re.search(pattern, text) for text in spoken):
            missing.append(sentence)
    assert missing == [], "\n".join(missing)


def _words(book: PhraseBook, key: str) -> list[str]:
    """Every role's word where the phrase names a role, else one."""
    if any(p.kind.value == "word" for p in book.placeholders(key)):
        return [role.value for role in Role]
    return ["mafia"]


def _sample(
    book: PhraseBook, key: str, number: int, section: str = "phrases", word: str = "mafia"
) -> dict[str, object]:
    values: dict[str, object] = {}
    for placeholder in book.placeholders(key, section):
        kind = placeholder.kind.value
        values[placeholder.name] = {
            "list": (2, 5), "word": word, "text": "тема", "phase": "vote"
        }.get(kind, number)  # fmt: skip
    return values
