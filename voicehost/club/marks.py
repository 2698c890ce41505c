"""The end-of-game marks (``club.marks``): best player, best move, extra points, penalties,
typed by the host after the game, one answer a line; a wrong line is refused with its reason."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

from voicehost.club.facts import Mark, Marks, no_marks
from voicehost.errors import VoicehostError
from voicehost.host.actions import number_of

#: Marks' points are bounded: a typo (30 for 0.3) must not make a season.
LIMIT = 5.0


class MarkRefused(VoicehostError):
    """A marks line that cannot be taken; ``code``/``params`` name the book's screen text."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code, phrase=code, **params)
        self.code = code
        self.params = params


def seat_of(text: str, players: int) -> int | None:
    """A seat typed alone ("" = none); raises MarkRefused."""
    text = text.strip()
    if not text:
        return None
    number = number_of(text)
    if number is None or not 1 <= number <= players:
        raise MarkRefused("mark_bad_seat", text=text[:20], players=players)
    return number


def mark_of(text: str, players: int, *, points_needed: bool) -> Mark:
    """``SEAT [POINTS] [COMMENT]``; raises MarkRefused."""
    parts = text.split(maxsplit=2)
    number = seat_of(parts[0], players) if parts else None
    if number is None:
        raise MarkRefused("mark_bad_seat", text=text[:20], players=players)
    points = _points(parts[1]) if len(parts) > 1 else None
    comment = " ".join(parts[1 if points is None else 2 :]).strip()
    if points is None and points_needed:
        raise MarkRefused("mark_no_points", seat=number)
    if points is not None and abs(points) > LIMIT:
        raise MarkRefused("mark_out_of_range", seat=number, limit=f"{LIMIT:g}")
    return Mark(seat=number, points=points or 0.0, comment=comment[:200])


def _points(text: str) -> float | None:
    try:
        value = float(text.replace(",", ".").replace("−", "-"))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def ask(
    players: int,
    lines: Iterator[str],
    tell: Callable[[str], None],
    words: Callable[..., str],
) -> Marks:
    """Ask each mark in turn from ``lines``; the end of input keeps what was given."""
    marks = no_marks()
    tell(words("marks_intro"))
    for key in ("best_player", "best_move"):
        tell(words(f"marks_{key}"))
        for line in lines:
            try:
                marks[key] = seat_of(line, players)
                break
            except MarkRefused as exc:
                tell("  ✗ " + words(exc.code, **exc.params))
    for key in ("extra", "penalty"):
        tell(words(f"marks_{key}"))
        for line in lines:
            if not line.strip():
                break
            try:
                mark = mark_of(line, players, points_needed=key == "extra")
            except MarkRefused as exc:
                tell("  ✗ " + words(exc.code, **exc.params))
                continue
            marks[key].append(mark)  # type: ignore[literal-required]
    return marks
