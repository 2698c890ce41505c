"""What the table hears: numbers in words, nouns that agree with them, genders and lists."""

from __future__ import annotations

import pytest

from voicehost.phrases import PhraseBook

RUSSIAN_VOTES = [
    (0, "ноль голосов"),
    (1, "один голос"),
    (2, "два голоса"),
    (4, "четыре голоса"),
    (5, "пять голосов"),
    (11, "одиннадцать голосов"),
    (12, "двенадцать голосов"),
    (14, "четырнадцать голосов"),
    (20, "двадцать голосов"),
    (21, "двадцать один голос"),
    (22, "двадцать два голоса"),
    (25, "двадцать пять голосов"),
    (40, "сорок голосов"),
    (99, "девяносто девять голосов"),
]


@pytest.mark.parametrize(("votes", "heard"), RUSSIAN_VOTES)
def test_russian_vote_count_agrees(books: dict[str, PhraseBook], votes: int, heard: str) -> None:
    text = books["ru"].render("day.vote_result", {"seat": 5, "votes": votes}).text
    assert text == f"Против игрока номер пять — {heard}."


@pytest.mark.parametrize(
    ("minutes", "heard"),
    [
        (1, "одна минута"),
        (2, "две минуты"),
        (3, "три минуты"),
        (5, "пять минут"),
        (11, "одиннадцать минут"),
        (12, "двенадцать минут"),
        (21, "двадцать одна минута"),
        (22, "двадцать две минуты"),
        (25, "двадцать пять минут"),
    ],
)
def test_russian_feminine_numerals(books: dict[str, PhraseBook], minutes: int, heard: str) -> None:
    text = books["ru"].render("day.discussion", {"minutes": minutes}).text
    assert text == f"Свободное обсуждение. У вас {heard}."


@pytest.mark.parametrize(
    ("fouls", "heard"),
    [(1, "одно замечание"), (2, "два замечания"), (3, "три замечания"), (5, "пять замечаний")],
)
def test_russian_neuter_numerals(books: dict[str, PhraseBook], fouls: int, heard: str) -> None:
    text = books["ru"].render("foul.warning", {"seat": 1, "fouls": fouls}).text
    assert text == f"Замечание игроку номер один. У игрока {heard}."


def test_russian_numeral_segments_carry_their_gender(books: dict[str, PhraseBook]) -> None:
    segments = books["ru"].render("day.discussion", {"minutes": 21}).segments
    assert [(s.key, s.text) for s in segments][1:] == [
        ("num.f.21", "двадцать одна"),
        ("form.минута", "минута"),
    ]


@pytest.mark.parametrize(
    ("seat", "heard"),
    [
        (0, "ноль"),
        (1, "один"),
        (10, "десять"),
        (13, "тринадцать"),
        (19, "девятнадцать"),
        (30, "тридцать"),
        (58, "пятьдесят восемь"),
        (90, "девяносто"),
    ],
)
def test_russian_seats(books: dict[str, PhraseBook], seat: int, heard: str) -> None:
    assert books["ru"].render("day.last_words", {"seat": seat}).text == (
        f"Последнее слово игроку номер {heard}."
    )


@pytest.mark.parametrize(
    ("votes", "heard"),
    [
        (0, "zero votes"),
        (1, "one vote"),
        (2, "two votes"),
        (11, "eleven votes"),
        (21, "twenty-one votes"),
        (40, "forty votes"),
        (99, "ninety-nine votes"),
    ],
)
def test_english_vote_count_agrees(books: dict[str, PhraseBook], votes: int, heard: str) -> None:
    text = books["en"].render("day.vote_result", {"seat": 5, "votes": votes}).text
    assert text == f"Against player number five: {heard}."


def test_english_ignores_gender(books: dict[str, PhraseBook]) -> None:
    utterance = books["en"].render("day.discussion", {"minutes": 1})
    assert utterance.text == "Free discussion. You have one minute."
    assert [s.key for s in utterance.segments][1:] == ["num.m.1", "form.minute"]
    assert books["en"].render("day.discussion", {"minutes": 2}).text.endswith("two minutes.")


@pytest.mark.parametrize(
    ("seats", "russian", "english"),
    [
        ((5,), "пять", "five"),
        ((5, 7), "пять и семь", "five and seven"),
        ((5, 7, 9), "пять, семь и девять", "five, seven and nine"),
        ((1, 2, 11, 12), "один, два, одиннадцать и двенадцать", "one, two, eleven and twelve"),
    ],
)
def test_lists(
    books: dict[str, PhraseBook], seats: tuple[int, ...], russian: str, english: str
) -> None:
    ru = books["ru"].render("day.candidates", {"seats": seats})
    en = books["en"].render("day.candidates", {"seats": seats})
    assert ru.text == f"На голосование выставлены игроки номер {russian}."
    assert en.text == f"The candidates for the vote are players number {english}."
    keys = [s.key for s in ru.segments][1:]
    expected = [f"num.m.{seat}" for seat in seats]
    if len(seats) > 1:
        expected.insert(-1, "word.and")
    assert keys == expected


def test_a_seat_list_may_be_any_sequence(books: dict[str, PhraseBook]) -> None:
    text = books["en"].render("day.revote", {"seats": [4, 6]}).text
    assert text == "The votes are split equally. A revote between players number four and six."


def test_roles_are_named(books: dict[str, PhraseBook]) -> None:
    text = books["ru"].render("day.leaves", {"seat": 3, "role": "commissar"}).text
    assert text == "Игрок номер три покидает стол. Роль игрока: комиссар."
    text = books["en"].render("foul.disqualified", {"seat": 3, "role": "civilian"}).text
    assert text.endswith("The player's role: civilian.")


def test_a_whole_float_counts_as_a_number(books: dict[str, PhraseBook]) -> None:
    assert books["ru"].render("day.discussion", {"minutes": 3.0}).text.endswith("три минуты.")


@pytest.mark.parametrize(
    ("language", "code", "params", "shown"),
    [
        ("ru", "wrong_seat_count", {"expected": 1, "given": 2}, "ровно 1 номер (введено 2)"),
        ("ru", "wrong_seat_count", {"expected": 2, "given": 1}, "ровно 2 номера (введено 1)"),
        ("ru", "wrong_seat_count", {"expected": 5, "given": 1}, "ровно 5 номеров"),
        ("en", "wrong_seat_count", {"expected": 1, "given": 2}, "exactly 1 seat (you entered 2)"),
        ("en", "wrong_seat_count", {"expected": 3, "given": 2}, "exactly 3 seats"),
        ("ru", "no_such_seat", {"seat": 14, "players": 10}, "Места номер 14 нет"),
        ("ru", "votes_exceed_voters", {"total": 11, "voters": 9}, "11, а голосующих только 9"),
        ("ru", "not_now", {"phase": "vote"}, "идёт этап «голосование»"),
        ("en", "not_now", {"phase": "third_vote"}, 'the phase is "third vote"'),
        ("ru", "role_taken", {"seat": 4, "role": "doctor"}, "записан как доктор"),
        ("ru", "unknown_command", {"text": "голос"}, "Непонятная команда «голос»"),
    ],
)  # fmt: skip
def test_errors_show_digits_and_agreeing_nouns(
    books: dict[str, PhraseBook], language: str, code: str, params: dict[str, object], shown: str
) -> None:
    assert shown in books[language].error(code, params)
