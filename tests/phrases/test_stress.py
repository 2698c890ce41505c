"""espeak-ng puts the stress where a Russian speaker does, in every phrase and every piece.

Each word of the table below is checked wherever the Russian book says it: the piece is given
to espeak-ng as the synthesiser gets it (a marked word as phonemes), `espeak-ng -v ru -x` prints
the phonemes, and the stress mark ``'`` must come where the table says. The table is written
from Russian, not from espeak-ng: «го́лоса» after 2-4, «голоса́» in «голоса́ разделились»,
«ма́фию», «го́рода», and words espeak-ng already says right, so that a change of wording or of
espeak-ng cannot bring a wrong stress back unnoticed.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from voicehost.game.model import Role
from voicehost.phrases import PhraseBook, Segment

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs espeak-ng")

#: word (as the screen shows it) -> where espeak-ng's stress mark must be, as a regex over its
#: phonemes (lower case). «голоса» depends on the words around it: see ``_expected``.
STRESS = {
    "го́лоса": r"^g'ol",  # два го́лоса
    "голоса́": r"s'a$",  # голоса́ разделились, все голоса́
    "мафию": r"^m'af",
    "города": r"^g'or",
    "городу": r"^g'or",
    "город": r"^g'or",
    "мафия": r"^m'af",
    "мафиози": r"'oz",
    "голос": r"^g'ol",
    "голосов": r"s'of$",
    "поровну": r"^p'or",
    "засчитан": r"'it",
    "розданы": r"'oz",
    "выставлены": r"^v'ys",
    "выставлен": r"^v'ys",
    "слова": r"^sl'o",
    "снова": r"^sn'o",
    "игрока": r"k'a$",
    "номер": r"^n'om",
    "номеров": r"r'of$",
    "покинул": r"k;'in",
    "окончена": r"k'on",
    "руки": r"'uk",
    "кандидатуры": r"t'ur",
    "выстрела": r"^v'ys",
    "столом": r"l'om$",
    "сорок": r"^s'or",  # со́рок пять секунд (espeak-ng alone says соро́к, the magpie)
    "девяносто": r"n'ost",
    "восемьдесят": r"^v'os",
    "одиннадцать": r"d;'in",
    "четырнадцать": r"t'yr",
}

NUMERALS_2_TO_4 = {"два", "две", "три", "четыре"}
_TOKEN = re.compile(r"\[\[[^\]]*\]\]|[^\W\d_][\w-]*")
_WORD = re.compile(r"[^\W\d_][\w-]*")


def _expected(word: str, before: str | None, key: str) -> str | None:
    """The table's entry for ``word``; «голоса» after 2-4 (or as a noun form) is «го́лоса»."""
    if word == "голоса":
        counted = key.startswith("form.") or before in NUMERALS_2_TO_4
        return STRESS["го́лоса" if counted else "голоса́"]
    return STRESS.get(word)


def _phonemes(tokens: list[str]) -> dict[str, str]:
    """espeak-ng's phonemes of each token (a word, or ``[[phonemes]]``), one run for all."""
    unique = sorted(set(tokens))
    result = subprocess.run(
        ["espeak-ng", "-v", "ru", "-x", "-q"],
        input="\n".join(f"{token}." for token in unique),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    lines = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == len(unique), "espeak-ng printed one line per token"
    return {token: line.lower().rstrip("#_") for token, line in zip(unique, lines, strict=True)}


def _pieces(book: PhraseBook) -> list[tuple[str, list[Segment]]]:
    """Every piece on its own, and every phrase rendered whole (each role, numbers 2 and 5)."""
    pieces = [(segment.key, [segment]) for segment in book.all_segments()]
    phrase_keys = book.keys()
    for key in phrase_keys:
        for number in (2, 5):
            for role in Role:
                params = {}
                for placeholder in book.placeholders(key):
                    kind = placeholder.kind.value
                    params[placeholder.name] = {
                        "list": (3, number),
                        "word": role.value,
                        "text": "любимая книга",
                    }.get(kind, number)
                pieces.append((key, list(book.render(key, params).segments)))
    return pieces


def _checks(book: PhraseBook) -> list[tuple[str, str, str, str]]:
    """(where, word, token, expected) for each word of the table in the book."""
    found = []
    for where, segments in _pieces(book):
        shown = [w.lower() for s in segments for w in _WORD.findall(s.shown)]
        tokens = [t for s in segments for t in _TOKEN.findall(s.text)]
        assert len(shown) == len(tokens), f"{where}: the spoken words are the shown words"
        for index, (word, token) in enumerate(zip(shown, tokens, strict=True)):
            expected = _expected(word, shown[index - 1] if index else None, segments[0].key)
            if expected is not None:
                found.append((where, word, token, expected))
    return found


def test_every_word_of_the_table_is_stressed_right_wherever_it_is_said() -> None:
    book = PhraseBook.load("ru")
    checks = _checks(book)
    said = {word for _, word, _, _ in checks}
    assert {"голоса", "мафию", "города", "голосов", "мафиози", "сорок"} <= said
    phonemes = _phonemes([token for _, _, token, _ in checks])
    wrong = [
        f"{where}: «{word}» is said {phonemes[token]!r} (wants {expected})"
        for where, word, token, expected in checks
        if not re.search(expected, phonemes[token])
    ]
    assert wrong == []


def test_espeak_alone_gets_these_words_wrong_so_the_marks_matter() -> None:
    """Without the book's phonemes espeak-ng says «голо́са», «мафи́ю», «горо́да», «соро́к»."""
    phonemes = _phonemes(["голоса", "мафию", "города", "сорок"])
    assert not re.search(STRESS["сорок"], phonemes["сорок"])
    assert not re.search(STRESS["го́лоса"], phonemes["голоса"])
    assert not re.search(STRESS["голоса́"], phonemes["голоса"])
    assert not re.search(STRESS["мафию"], phonemes["мафию"])
    assert not re.search(STRESS["города"], phonemes["города"])


def test_the_screen_never_shows_a_mark_or_phonemes() -> None:
    book = PhraseBook.load("ru")
    for _, segments in _pieces(book):
        for segment in segments:
            assert "\u0301" not in segment.shown and "[[" not in segment.shown, segment
    text = book.render("day.vote_result", {"seat": 5, "votes": 3}).text
    assert text == "Против игрока номер пять — три голоса."
    assert book.render("morning.commissar_found").text == "Комиссар нашёл мафию."
