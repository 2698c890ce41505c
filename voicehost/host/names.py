"""Players' names: what a person typed for a seat, made safe to show anywhere, never interpreted.

A name is host-level data, not a rule of the game: the engine knows seats only. Names are given
before a game (a roster file, the evening's last game) or during it (`имя 5 Анна`), journaled
with the game (the header's ``names`` and ``{"names": {...}}`` lines) and shown wherever people
read: the screen, the status, the protocol, the board. The voice keeps seat numbers unless
``club.voice_names`` asks for the name too.

A name is any Unicode text, cleaned so that it cannot break a screen, a table, JSON, CSV or a
query: control and format characters (bidi overrides, zero-width joiners, escape codes) are
dropped, runs of blanks become one space, combining marks are limited (no "zalgo" towers), and
the name is cut to ``MAX_WIDTH`` terminal cells (a wide character counts two). It is compared
by ``key``: case-folded, so «анна» and «Анна» are the same person.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from voicehost.errors import VoicehostError
from voicehost.game.model import Seat
from voicehost.host.actions import number_of

MAX_WIDTH = 24
"""A name's longest width on a screen, in terminal cells (a Chinese character or an emoji: 2)."""

MAX_MARKS = 2
"""Combining marks kept on one letter (Vietnamese needs two; a "zalgo" name has dozens)."""

#: Unicode categories never kept: controls, format (bidi, zero-width), surrogates, private,
#: unassigned, line and paragraph separators.
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
_MARKS = frozenset({"Mn", "Me", "Mc"})


class NameRefused(VoicehostError):
    """A name or a roster line that cannot be taken. ``code`` is the phrase book's screen key
    (``name_<code>``) and ``params`` its values, so the person reads it in the game's language:
    ``in_words(book)``."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code, phrase=f"name_{code}", **params)
        self.code = code
        self.params = params

    def in_words(self, book: Any) -> str:
        return str(book.screen(f"name_{self.code}", self.params))


def char_width(char: str) -> int:
    """Terminal cells a character takes: 0 for a combining mark, 2 for a wide one."""
    if unicodedata.category(char) in _MARKS:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def width(text: str) -> int:
    """Terminal cells ``text`` takes."""
    return sum(char_width(char) for char in text)


def clean(text: str) -> str:
    """``text`` as a name: safe to show and store; "" when nothing of it is left. Cleaning a
    clean name changes nothing."""
    name = _clean_once(text)
    for _ in range(3):  # dropping a character may let two others compose (NFC): settle it
        again = _clean_once(name)
        if again == name:
            break
        name = again
    return name


def _clean_once(text: str) -> str:
    kept: list[str] = []
    marks = 0
    for char in unicodedata.normalize("NFC", text):
        category = unicodedata.category(char)
        if category.startswith("Z") or char in "\t\n\r\v\f":
            char, category = " ", "Zs"
        elif category in _DROPPED:
            continue
        if category in _MARKS:
            if marks >= MAX_MARKS or not kept or kept[-1] == " ":
                continue
            marks += 1
        else:
            marks = 0
        kept.append(char)
    name = " ".join("".join(kept).split())
    cut: list[str] = []
    used = 0
    for char in name:
        cells = char_width(char)
        if used + cells > MAX_WIDTH:
            break
        cut.append(char)
        used += cells
    return "".join(cut).strip()


def key(name: str) -> str:
    """What makes two names the same person: the cleaned name, case-folded."""
    return unicodedata.normalize("NFC", clean(name).casefold())


def padded(text: str, cells: int) -> str:
    """``text`` padded with spaces to ``cells`` terminal cells (for a table's column)."""
    return text + " " * max(0, cells - width(text))


class Names:
    """The names at one table: seat -> name, one person per seat and one seat per person."""

    def __init__(self, players: int, names: Mapping[Seat, str] | None = None) -> None:
        self.players = players
        self._names: dict[Seat, str] = {}
        for seat, name in (names or {}).items():
            if 1 <= seat <= players and clean(name):
                self._names[Seat(seat)] = clean(name)

    def __len__(self) -> int:
        return len(self._names)

    def __bool__(self) -> bool:
        return bool(self._names)

    def get(self, seat: int) -> str | None:
        return self._names.get(Seat(seat))

    def items(self) -> list[tuple[Seat, str]]:
        return sorted(self._names.items())

    def as_dict(self) -> dict[Seat, str]:
        return dict(sorted(self._names.items()))

    def seat_of(self, name: str) -> Seat | None:
        wanted = key(name)
        return next((seat for seat, held in self._names.items() if key(held) == wanted), None)

    def check(self, seat: int, name: str) -> str:
        """The cleaned name for ``seat``, or NameRefused naming the problem ("" clears)."""
        if not 1 <= seat <= self.players:
            raise NameRefused("no_seat", seat=seat, players=self.players)
        cleaned = clean(name)
        holder = self.seat_of(cleaned) if cleaned else None
        if holder is not None and holder != seat:
            raise NameRefused("taken", seat=holder, name=cleaned)
        return cleaned

    def set(self, seat: int, name: str) -> str:
        """Give ``seat`` the name (checked, cleaned); "" takes the seat's name away."""
        cleaned = self.check(seat, name)
        if cleaned:
            self._names[Seat(seat)] = cleaned
        else:
            self._names.pop(Seat(seat), None)
        return cleaned

    def label(self, seat: int) -> str:
        """«5 Анна» or «5»: a seat as people read it."""
        name = self._names.get(Seat(seat))
        return f"{seat} {name}" if name else str(seat)

    def record(self) -> dict[str, str]:
        """The JSON form: seat key -> name (as the journal and the protocol keep it)."""
        return {str(seat): name for seat, name in sorted(self._names.items())}


def from_record(data: Any, players: int) -> dict[Seat, str]:
    """Names read back from a journal or a protocol (``{"5": "Анна"}``); what is not a seat
    number and a text is passed over, and every name is cleaned again."""
    found: dict[Seat, str] = {}
    if not isinstance(data, dict):
        return found
    for raw_seat, raw_name in data.items():
        seat = number_of(str(raw_seat))
        if seat is None or not 1 <= seat <= players or not isinstance(raw_name, str):
            continue
        found[Seat(seat)] = clean(raw_name)
    return found


def parse_roster(lines: Iterable[str], players: int) -> dict[Seat, str]:
    """A roster: one name a line in seat order, or ``5 Анна`` lines (the two may mix: a line
    that starts with a seat number gives that seat, the others take the next seats in turn).
    Blank lines and ``#`` comments are skipped; raises NameRefused for a seat given twice, a seat
    out of the table, a person given two seats, more names than seats or a seat number with no
    name after it."""
    names = Names(players)
    given: dict[Seat, int] = {}
    next_seat = 1
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(" ")
        seat = number_of(head)
        if seat is not None and rest.strip():
            name = rest
        elif seat is not None:  # «2» alone: a seat whose name was left out, not a name
            raise NameRefused("roster_number_only", line=number, seat=seat)
        else:
            seat, name = next_seat, line
        if seat in given:
            raise NameRefused("roster_twice", line=number, seat=seat, first=given[Seat(seat)])
        if not 1 <= seat <= players:
            raise NameRefused("roster_no_seat", line=number, seat=seat, players=players)
        try:
            cleaned = names.set(seat, name)
        except NameRefused as exc:
            raise NameRefused(f"roster_{exc.code}", line=number, **exc.params) from exc
        if not cleaned:
            raise NameRefused("roster_empty", line=number, seat=seat)
        given[Seat(seat)] = number
        next_seat = seat + 1
    return names.as_dict()


def read_roster(path: Path, players: int) -> dict[Seat, str]:
    """The roster file at ``path`` (UTF-8 text); raises NameRefused for a missing or unreadable
    file as for a wrong line."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise NameRefused("roster_unreadable", path=path, reason=exc.strerror) from exc
    except UnicodeDecodeError as exc:
        raise NameRefused("roster_not_text", path=path) from exc
    return parse_roster(text.splitlines(), players)


def beyond(names: Mapping[Seat, str], players: int) -> list[Seat]:
    """The named seats a table of ``players`` does not have (a last game at a bigger table)."""
    return [seat for seat in sorted(names) if seat > players]


def at_smaller_table(
    names: Mapping[Seat, str], players: int, away: Iterable[int]
) -> dict[Seat, str]:
    """A bigger table's names at a table of ``players``, the seats in ``away`` gone: who stays
    keeps a seat the table has, and the players of the seats it has not take the free seats in
    turn. Raises NameRefused (``smaller_too_few``) when more stay than there are seats."""
    gone = set(away)
    staying = [(seat, name) for seat, name in sorted(names.items()) if seat not in gone]
    kept = {seat: name for seat, name in staying if seat <= players}
    movers = [name for seat, name in staying if seat > players]
    free = [Seat(seat) for seat in range(1, players + 1) if seat not in kept]
    if len(movers) > len(free):
        raise NameRefused("smaller_too_few", players=players, more=len(movers) - len(free))
    kept.update(zip(free, movers, strict=False))
    return dict(sorted(kept.items()))
