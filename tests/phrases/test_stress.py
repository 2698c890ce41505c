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
from pathlib import Path

import pytest

from voicehost.game.model import Role
from voicehost.phrases import STRESS_MARK, PhraseBook, Segment, shown

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


def _phonemes(tokens: list[str], *, lower: bool = True) -> dict[str, str]:
    """espeak-ng's phonemes of each token (a word, or ``[[phonemes]]``), one run for all;
    ``lower=False`` keeps the case, which tells espeak-ng's vowels (``V``) from consonants."""
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
    return {
        token: (line.lower() if lower else line).rstrip("#_")
        for token, line in zip(unique, lines, strict=True)
    }


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


# --------------------------------------------------------------------- every piece, every word

TABLE_FILE = Path(__file__).with_name("stress-ru.txt")
VOWELS = "аеёиоуыэюя"
#: espeak-ng's Russian vowel phonemes; ``@-`` is the short schwa it puts inside «гр», «др», not a
#: syllable of its own.
PHONEME_VOWELS = frozenset("aAoOuUeEiIyYV@8")
UNSTRESSED = ("за", "по", "без", "у", "со")
"""The prepositions espeak-ng stresses on its own («за́ столом», «у́ вас»): the book says them
unstressed (``pronounce:``)."""
PREPOSITIONS = frozenset((
    "в", "во", "к", "ко", "с", "со", "о", "об", "обо", "у", "на", "до", "из", "от", "за", "по",
    "без", "при", "про", "под", "подо", "над", "надо", "пред", "перед", "для", "через", "сквозь",
))  # fmt: skip
"""Every Russian preposition of one or two syllables: wherever the book says one before a word,
espeak-ng must say it unstressed, so a new phrase cannot bring back «за́ столом»."""


def _stressed_vowel(marked: str) -> int:
    """Which vowel (0, 1, ..) of a word carries the stress: the one before U+0301, or «ё»."""
    index = -1
    for position, char in enumerate(marked):
        if char in VOWELS:
            index += 1
            if marked[position + 1 : position + 2] == STRESS_MARK or char == "ё":
                return index
    raise AssertionError(f"«{marked}» has no stress mark and no «ё»")


def _said_vowel(phonemes: str) -> tuple[int, int | None]:
    """(how many syllables, which one is stressed) in espeak-ng's phonemes of one word."""
    syllables, stressed = 0, None
    for char in phonemes.replace("@-", ""):
        if char == "'":
            stressed = syllables
        elif char in PHONEME_VOWELS:
            syllables += 1
    return syllables, stressed


def _table() -> dict[str, str]:
    rows = [line.strip() for line in TABLE_FILE.read_text(encoding="utf-8").splitlines()]
    words = [row for row in rows if row and not row.startswith("#")]
    table = {shown(word): word for word in words}
    assert len(table) == len(words), "each word once in the table"
    return table


def _words_of_every_piece(book: PhraseBook) -> list[tuple[str, str, str]]:
    """(piece key, word as shown, token as spoken) for every word of every spoken piece."""
    found = []
    for segment in book.all_segments():
        shown_words = [w.lower() for w in _WORD.findall(segment.shown)]
        tokens = _TOKEN.findall(segment.text)
        assert len(shown_words) == len(tokens), f"{segment.key}: spoken words are shown words"
        found += [(segment.key, w, t) for w, t in zip(shown_words, tokens, strict=True)]
    return found


def test_every_word_of_every_piece_is_in_the_table_or_marked_in_the_book() -> None:
    """A new phrase cannot enter unchecked: each of its words must be in stress-ru.txt (or be
    marked in the book, where its stress depends on the sentence)."""
    book = PhraseBook.load("ru")
    table = _table()
    unknown = sorted(
        {
            f"{key}: «{word}»"
            for key, word, token in _words_of_every_piece(book)
            if not token.startswith("[[")
            and sum(char in VOWELS for char in word) > 1
            and word not in table
        }
    )
    assert unknown == [], (
        f"add these words to {TABLE_FILE.name}, stressed as a Russian speaker says them "
        "(`espeak-ng -v ru -x WORD` shows what the voice does)"
    )


def test_espeak_says_every_word_of_every_piece_with_the_tables_stress() -> None:
    book = PhraseBook.load("ru")
    table = _table()
    by_phonemes = {phonemes: word for word, phonemes in book.pronunciations().items()}
    checks: dict[str, tuple[str, str]] = {}  # token -> (where, the stressed word it must be)
    for key, word, token in _words_of_every_piece(book):
        if token.startswith("[["):
            marked = by_phonemes[token[2:-2]]
            if STRESS_MARK not in marked:
                continue  # an unstressed preposition: see the next test
        elif sum(char in VOWELS for char in word) > 1 and word in table:
            marked = table[word]
        else:  # one syllable: nothing to misplace (a word not in the table: the test above)
            continue
        checks.setdefault(token, (f"{key}: «{word}»", marked))
    assert len(checks) > 150  # every word of the book, not a handful
    phonemes = _phonemes(list(checks), lower=False)
    wrong = []
    for token, (where, marked) in checks.items():
        syllables, stressed = _said_vowel(phonemes[token])
        if syllables != sum(char in VOWELS for char in marked) or stressed != _stressed_vowel(
            marked
        ):
            wrong.append(f"{where} is said {phonemes[token]!r}, wants «{marked}»")
    assert wrong == []


def test_prepositions_are_said_with_the_word_after_them_unstressed() -> None:
    """«за столом», «по решению», «без последнего», «у вас»: espeak-ng alone stresses these
    four; every preposition the book says, these and any a new phrase brings, is unstressed."""
    book = PhraseBook.load("ru")
    pairs = set()
    for segment in book.all_segments():
        tokens = _TOKEN.findall(segment.text)
        words = [w.lower() for w in _WORD.findall(segment.shown)]
        for index, word in enumerate(words[:-1]):
            if word in PREPOSITIONS:
                pairs.add((word, f"{tokens[index]} {tokens[index + 1]}"))
    assert set(UNSTRESSED) <= {word for word, _ in pairs}
    result = subprocess.run(
        ["espeak-ng", "-v", "ru", "-x", "-q"],
        input="\n".join(f"{pair}." for _, pair in sorted(pairs)),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    said = [line.split()[0] for line in result.stdout.splitlines() if line.strip()]
    assert len(said) == len(pairs)
    stressed = [f"{pair} -> {first}" for (_, pair), first in zip(sorted(pairs), said, strict=True)]
    assert [line for line in stressed if "'" in line.split("->")[1]] == []
    # and espeak-ng alone does stress them, so the book's entries matter
    alone = _phonemes([f"{word} вас" for word in UNSTRESSED])
    assert all("'" in alone[f"{word} вас"].split()[0] for word in UNSTRESSED), alone


def test_the_mis_stresses_hosts_heard_are_gone() -> None:
    book = PhraseBook.load("ru")
    spoken = {
        key: " ".join(s.text for s in book.render(key, params).segments)
        for key, params in {
            "fiim.best_move": {"seat": 3},
            "fiim.best_move_taken": {"seat": 3, "seats": (4, 5, 6)},
            "fiim.team_loss": {"seat": 3},
            "keypad.unplugged": {},
        }.items()
    }
    phonemes = _phonemes(
        [t for text in spoken.values() for t in _TOKEN.findall(text) if t.startswith("[[")],
        lower=False,
    )
    said = " ".join(phonemes.values())
    assert "n'om;ira" in said  # назовите три но́мера
    assert "nVm;ir'A" in said  # номера́ четыре, пять и шесть
    assert "sud;j'i" in said  # по решению судьи́
    assert "tS;'it;i" in said  # подключи́те


@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_phrase_begins_with_a_capital(language: str) -> None:
    book = PhraseBook.load(language)
    for key in list(book.keys()):  # PhraseBook is not iterable
        params = {}
        for placeholder in book.placeholders(key):
            params[placeholder.name] = {"list": (3, 5), "word": "mafia", "text": "книга"}.get(
                placeholder.kind.value, 2
            )
        text = book.render(key, params).text
        first = next(char for char in text if char.isalpha())
        assert first.isupper(), f"{key}: {text}"
