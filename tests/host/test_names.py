"""Players' names: given at the keyboard or from a roster, journaled with the game, shown on the
screen and in the protocol, and never able to break any of them, whatever a person typed."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost import config
from voicehost.console.script import run_script
from voicehost.console.terminal import LogScreen, screen_rows
from voicehost.console.view import status_lines
from voicehost.game.model import Phase, Seat
from voicehost.host import protocol
from voicehost.host.journal import names_in
from voicehost.host.names import (
    MAX_WIDTH,
    NameRefused,
    Names,
    clean,
    key,
    parse_roster,
    width,
)
from voicehost.phrases import PhraseBook

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HOSTILE = [
    "Анна",
    'O\'Brien "Bob"; DROP TABLE players;--',
    '=HYPERLINK("http://x")',
    "Аня 😀🎲",
    "\u202eилизаВ\u202c",  # a right-to-left override: the letters stay, the override goes
    "Z\u0301\u0302\u0303\u0304\u0305a\u0306\u0307\u0308lgo",
    "李小龍李小龍李小龍李小龍李小龍李小龍",
    "\x1b[2J\x1b[31mred\x07",
    "line\nbreak\ttab",
    "עִבְרִית",
]


def test_clean_drops_controls_and_overrides_and_limits_width() -> None:
    assert clean("  Анна   Петрова ") == "Анна Петрова"
    assert clean("\u202eилизаВ\u202c") == "илизаВ"
    assert clean("\x1b[2J\x1b[31mred\x07") == "[2J[31mred"
    assert clean("line\nbreak\ttab") == "line break tab"
    zalgo = clean("Z" + "\u0301\u0302\u0303\u0304\u0305" * 20 + "a")
    assert zalgo.startswith("Z") or zalgo.startswith("Ź")
    assert sum(unicodedata.category(char) == "Mn" for char in zalgo) <= 2
    assert zalgo.endswith("a")
    assert width(clean("李小龍" * 10)) <= MAX_WIDTH
    assert clean("\u200b\u200d") == ""


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=80))
def test_any_text_becomes_a_name_that_is_safe_everywhere(text: str) -> None:
    name = clean(text)
    assert clean(name) == name, "cleaning twice changes nothing"
    assert width(name) <= MAX_WIDTH
    assert name == name.strip()
    for char in name:
        category = unicodedata.category(char)
        assert category not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"), repr(char)
    assert json.loads(json.dumps(name, ensure_ascii=False)) == name
    out = io.StringIO()
    csv.writer(out).writerow([name, 1])
    assert next(csv.reader(io.StringIO(out.getvalue()))) == [name, "1"]


def test_one_person_one_seat_and_names_compare_without_case() -> None:
    names = Names(10)
    names.set(3, "Анна")
    with pytest.raises(NameRefused) as refused:
        names.set(7, "  анна ")
    assert refused.value.code == "taken" and refused.value.params["seat"] == 3
    assert key("АННА") == key("анна")
    names.set(3, "")
    names.set(7, "анна")
    assert names.as_dict() == {7: "анна"}
    with pytest.raises(NameRefused):
        names.set(11, "Борис")


def test_a_roster_takes_names_in_seat_order_or_by_seat() -> None:
    lines = ["# вечер пятницы", "Анна", "Борис", "", "5 Вера Ш.", "Глеб", "10 Даша"]
    assert parse_roster(lines, 10) == {1: "Анна", 2: "Борис", 5: "Вера Ш.", 6: "Глеб", 10: "Даша"}
    book = PhraseBook.load("ru")
    for bad, code in (
        (["Анна", "1 Борис"], "roster_twice"),
        (["11 Анна"], "roster_no_seat"),
        (["Анна", "анна"], "roster_taken"),
        (["1 Анна", "2", "Петя"], "roster_number_only"),  # seat 2's name left out
    ):
        with pytest.raises(NameRefused) as refused:
            parse_roster(bad, 10)
        assert refused.value.code == code
        assert "строка" in refused.value.in_words(book)


def named_game(tmp_path: Path, extra: list[str]) -> tuple[object, Path]:
    settings = config.load(None)
    journal = tmp_path / "game.jsonl"
    lines = extra + (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
    result = run_script(lines, settings, journal_path=journal)
    return result, journal


def test_names_typed_at_the_keyboard_reach_the_screen_the_journal_and_the_protocol(
    tmp_path: Path,
) -> None:
    typed = [f"имя {seat} {name}" for seat, name in enumerate(HOSTILE, start=1)]
    result, journal = named_game(tmp_path, typed)
    assert not result.errors, result.errors  # type: ignore[attr-defined]
    host = result.host  # type: ignore[attr-defined]
    assert host.over
    status = "\n".join(status_lines(host))
    assert "1 Анна" in status and "4 Аня 😀🎲" in status
    recorded = names_in(journal)
    assert recorded["1"] == "Анна" and recorded["2"].startswith("O'Brien")
    data = result.protocol  # type: ignore[attr-defined]
    assert data["seats"][0]["name"] == "Анна"
    assert json.loads(protocol.to_json(data))["seats"][3]["name"] == "Аня 😀🎲"
    table = protocol.to_table(data, host.book).splitlines()
    first = next(n for n, row in enumerate(table) if row.startswith("Место Имя")) + 1
    rows = table[first : first + len(data["seats"])]
    # the role column starts at the same screen cell on every row, whatever the names
    starts = {width(row[: row.index(word)]) for row, word in zip(rows, _roles(data), strict=True)}
    assert len(starts) == 1, table


def _roles(data: protocol.ProtocolRecord) -> list[str]:
    book = PhraseBook.load("ru")
    words = []
    for seat in data["seats"]:
        role = book.word(seat["role"]) if seat["role"] else "?"
        words.append(role.upper() if seat["role"] in ("mafia", "don") else role)
    return words


def test_a_name_is_refused_with_its_reason_and_the_game_goes_on(tmp_path: Path) -> None:
    result, _ = named_game(tmp_path, ["имя 3 Анна", "имя 4 анна", "имя 14 Борис", "имя Борис"])
    errors = result.errors  # type: ignore[attr-defined]
    assert len(errors) == 3
    assert "уже сидит на месте 3" in errors[0]
    assert "места 14 нет" in errors[1]
    assert "имя 5 Анна" in errors[2]
    assert result.host.over  # type: ignore[attr-defined]


def test_a_resumed_game_keeps_its_names(tmp_path: Path) -> None:
    settings = config.load(None)
    journal = tmp_path / "game.jsonl"
    script = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
    first = run_script(["имя 1 Анна", "имя 2 Борис", *script[:12]], settings, journal_path=journal)
    first.host.close()
    rest = run_script(["имя 2", *script[12:]], settings, journal_path=journal, resume=True)
    assert rest.host.names.as_dict() == {1: "Анна"}
    assert rest.protocol["seats"][0]["name"] == "Анна"
    assert "name" not in rest.protocol["seats"][1]


def test_a_game_without_names_keeps_its_protocol_as_it_was(tmp_path: Path) -> None:
    result, _ = named_game(tmp_path, [])
    assert all("name" not in seat for seat in result.protocol["seats"])  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(st.integers(1, 10), st.text(min_size=1, max_size=40), max_size=10),
    st.integers(20, 120),
)
def test_no_name_runs_a_screen_row_past_the_edge(raw: dict[int, str], columns: int) -> None:
    from voicehost.testing.table import text_table

    host = text_table("ru")
    host.start()
    for seat, name in raw.items():
        host.set_name(seat, name)
    rows = screen_rows(host, host.screen, "", 30, columns - 1)  # type: ignore[arg-type]
    for text, _ in rows:
        assert width(text) <= max(columns - 1, 10) or len(text) <= 2, text
        assert "\n" not in text and "\x1b" not in text


def test_names_given_before_the_game_are_in_the_journal_header(tmp_path: Path) -> None:
    from voicehost.testing.table import text_table

    host = text_table("ru")
    host.journal_path = tmp_path / "g.jsonl"
    host.names = Names(10, {Seat(2): "Вера"})
    host.start()
    host.close()
    header = json.loads((tmp_path / "g.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["names"] == {"2": "Вера"}
    assert isinstance(LogScreen, type)


def test_the_voice_keeps_numbers_unless_the_club_asks_for_names() -> None:
    import dataclasses

    from voicehost.testing.table import text_table

    base = config.load(None)
    for voice_names in (False, True):
        settings = dataclasses.replace(
            base, club=dataclasses.replace(base.club, voice_names=voice_names)
        )
        host = text_table(settings=settings)
        host.names = Names(10, {Seat(1): "Анна"})
        host.start()
        assert host.state is not None and host.state.phase.is_night
        heard = len(host.transcript)
        host.announce("day.speech_nomination", {"seat": 1})
        # by night nothing is added: each night sounds the same whoever acts
        assert len(host.transcript) == heard + 1
        host.state.phase = Phase.DISCUSSION
        host.announce("day.speech_nomination", {"seat": 1})
        assert host.transcript[-1] == ("Имя: Анна." if voice_names else "Слово игроку номер один.")


def test_the_board_gets_the_names_by_day_and_nothing_by_night() -> None:
    from voicehost.host.table import table_view
    from voicehost.testing.table import text_table

    host = text_table("ru")
    host.names = Names(10, {Seat(3): "Вера <b>"})
    host.start()
    assert "seats" not in table_view(host).to_public()  # night 0: nothing of the table
    host.state.phase = Phase.DISCUSSION  # type: ignore[union-attr]
    seats = table_view(host).to_public()["seats"]
    assert seats[2]["name"] == "Вера <b>" and seats[0]["name"] is None
