"""The cards at the end of a game (issue 23): the host opens them aloud and on the screen, as
clubs do, on every rule set: the mafia (and the Don and the Sheriff in FIIM, every card in play
in city Mafia); the rule set names them (``end.cards``)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from voicehost import config
from voicehost.console.commandline import strip_comment
from voicehost.console.script import run_script
from voicehost.console.view import status_lines
from voicehost.game.model import Role
from voicehost.phrases import PhraseBook
from voicehost.rulesets import RuleSetError, load_preset, parse, preset_path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _lines(name: str) -> list[str]:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    return [line for line in map(strip_comment, text.splitlines()) if line]


@pytest.mark.parametrize(
    ("example", "language", "said", "shown"),
    [
        (
            "town-wins.txt",
            "ru",
            ["Открываем карты.", "Мафия — игроки номер два, пять и девять.",
             "Комиссар — игрок номер четыре.", "Доктор — игрок номер семь."],
            "карты: 2 мафия, 4 комиссар, 5 мафия, 7 доктор, 9 мафия",
        ),
        (
            "town-wins.txt",
            "en",
            ["Cards up.", "Mafia: seats two, five and nine.", "Commissar: seat four.",
             "Doctor: seat seven."],
            "cards: 2 mafia, 4 Commissar, 5 mafia, 7 Doctor, 9 mafia",
        ),
        (
            "fiim-town-wins.txt",
            "ru",
            ["Открываем карты.", "Дон — игрок номер пять.", "Мафия — игроки номер два и девять.",
             "Шериф — игрок номер четыре."],
            "карты: 2 мафия, 4 Шериф, 5 Дон, 9 мафия",
        ),
        (
            "fiim-team-loss.txt",
            "ru",
            ["Открываем карты.", "Дон — игрок номер пять.", "Мафия — игроки номер два и девять.",
             "Шериф — игрок номер четыре."],
            "карты: 2 мафия, 4 Шериф, 5 Дон, 9 мафия",
        ),
    ],
)  # fmt: skip
def test_the_cards_are_opened_aloud_and_on_the_screen(
    example: str, language: str, said: list[str], shown: str
) -> None:
    settings = dataclasses.replace(config.load(None), language=language)
    result = run_script(_lines(example), settings)
    assert result.errors == [] and result.host.over
    transcript = result.transcript
    assert transcript[-len(said) :] == said  # after the winner, the last thing the table hears
    winner = transcript[-len(said) - 1]
    assert winner.startswith(("Игра окончена", "The game is over")), winner
    assert shown in status_lines(result.host)


def test_a_draw_opens_the_cards_too() -> None:
    settings = config.with_preset(config.load(None), "fiim")
    night0 = ["2 5 9", "wait", "5", "wait", "4", "wait", "wait"]
    quiet = [*["."] * 10, "-", "-", "-", "wait", "wait", "wait"]  # nobody nominated, all miss
    result = run_script([*night0, *quiet * 3], settings)
    assert result.errors == [] and result.protocol["winner"] == "draw"
    assert result.transcript[-5].startswith("Никто не покинул стол три ночи подряд")
    assert result.transcript[-4:] == [
        "Открываем карты.",
        "Дон — игрок номер пять.",
        "Мафия — игроки номер два и девять.",
        "Шериф — игрок номер четыре.",
    ]


@pytest.mark.parametrize(
    ("preset", "cards"),
    [
        ("club", [Role.MAFIA, Role.COMMISSAR, Role.DOCTOR]),
        ("fiim", [Role.DON, Role.MAFIA, Role.SHERIFF]),
        ("city", [Role.DON, Role.MAFIA, Role.MANIAC, Role.COMMISSAR, Role.DOCTOR, Role.PUTANA,
                  Role.IMMORTAL]),
    ],
)  # fmt: skip
def test_each_preset_names_its_cards(preset: str, cards: list[Role]) -> None:
    assert list(load_preset(preset).end_cards) == cards


def test_a_rule_set_file_names_its_cards_or_gets_every_card_but_the_civilian() -> None:
    text = preset_path("club").read_text(encoding="utf-8")
    without = re.sub(r"\n  cards: .*", "", text)
    assert "cards: [mafia" not in without
    assert list(parse(without, "mine.yaml").end_cards) == [
        Role.MAFIA,
        Role.COMMISSAR,
        Role.DOCTOR,
    ]
    wrong = text.replace("cards: [mafia, commissar, doctor]", "cards: [mafia, sheriff, mafia]")
    with pytest.raises(RuleSetError) as caught:
        parse(wrong, "mine.yaml")
    problems = " ".join(problem for _, problem in caught.value.problems)
    assert "end.cards sheriff" in problems and "end.cards mafia" in problems


def test_every_announcement_is_a_sentence_on_the_screen() -> None:
    """A phrase that opens with a placeholder is still a sentence (the FIIM draw once began
    «три ночи подряд…» in lower case)."""
    for language in ("ru", "en"):
        book = PhraseBook.load(language)
        text = book.render("game.card", {"role": "don", "seat": 5}).text
        assert text[0].isupper(), text
        for key in book.keys():  # noqa: SIM118
            params = {
                p.name: {"list": (2, 5), "word": "mafia", "text": "тема"}.get(p.kind.value, 3)
                for p in book.placeholders(key)
            }
            text = book.render(key, params).text
            first = next(char for char in text if char.isalpha())
            assert first.isupper(), (language, key, text)
