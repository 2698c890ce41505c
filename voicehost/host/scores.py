"""The referee's extra points after a FIIM game (`voicehost protocol --score`).

One line per player: the seat, the points (+0.3, -0.2, a comma works too) and a comment. A wrong
line is refused with a message naming what is wrong and what to type instead; the points are
kept beside the protocol (``<game>.extra.json``), so every later `voicehost protocol` prints them.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from voicehost.errors import VoicehostError
from voicehost.game.model import Seat
from voicehost.host import storage
from voicehost.host.actions import number_of
from voicehost.host.protocol import ExtraPoints
from voicehost.phrases import PhraseBook


class ScoreInputError(VoicehostError):
    """A line of extra points that cannot be taken; the text says why and what to type."""


def parse_extra(line: str, players: int, limit: float, book: PhraseBook) -> ExtraPoints:
    """``SEAT POINTS [COMMENT]`` as extra points; raises ScoreInputError saying what is wrong."""
    parts = line.split(maxsplit=2)
    if not parts:
        raise ScoreInputError.written(
            book.screen("score_bad_seat", {"text": "", "players": players})
        )
    number = number_of(parts[0])
    if number is None:
        raise ScoreInputError.written(
            book.screen("score_bad_seat", {"text": parts[0][:20], "players": players})
        )
    if not 1 <= number <= players:
        raise ScoreInputError.written(
            book.screen("score_no_seat", {"seat": number, "players": players})
        )
    if len(parts) < 2:
        raise ScoreInputError.written(book.screen("score_no_points", {"seat": number}))
    text = parts[1]
    value = _number(text)
    if value is None:
        raise ScoreInputError.written(
            book.screen("score_bad_points", {"seat": number, "text": text[:20]})
        )
    if abs(value) > limit:
        raise ScoreInputError.written(
            book.screen(
                "score_out_of_range",
                {"seat": number, "points": text[:20], "limit": _limit(limit)},
            )
        )
    comment = parts[2].strip() if len(parts) > 2 else ""
    return ExtraPoints(seat=Seat(number), points=value, comment=comment)


def _number(text: str) -> float | None:
    cleaned = text.replace(",", ".").replace("−", "-")  # a comma and the typographic minus
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _limit(limit: float) -> str:
    return f"{limit:g}"


def taken(entries: list[ExtraPoints], entry: ExtraPoints) -> list[ExtraPoints]:
    """``entries`` with ``entry`` in place of that seat's earlier one, in seat order."""
    kept = [old for old in entries if old["seat"] != entry["seat"]]
    return sorted([*kept, entry], key=lambda item: item["seat"])


def path_for(protocol_dir: Path, stem: str) -> Path:
    return protocol_dir / f"{stem}.extra.json"


def load(path: Path, players: int, limit: float, book: PhraseBook) -> list[ExtraPoints]:
    """The extra points kept for a game (none if the file is missing); a damaged file raises
    ScoreInputError naming it and what to do."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise ScoreInputError.written(
            book.screen("score_file_damaged", {"path": path, "reason": exc})
        ) from exc
    if not isinstance(data, list):
        raise ScoreInputError.written(
            book.screen("score_file_damaged", {"path": path, "reason": "[…]"})
        )
    entries: list[ExtraPoints] = []
    for item in data:
        if not isinstance(item, dict):
            raise ScoreInputError.written(
                book.screen("score_file_damaged", {"path": path, "reason": repr(item)[:40]})
            )
        line = f"{item.get('seat')} {item.get('points')} {item.get('comment', '')}"
        try:
            entries = taken(entries, parse_extra(line, players, limit, book))
        except ScoreInputError as exc:
            raise ScoreInputError(f"{path}: {exc}") from exc
    return entries


def save(path: Path, entries: list[ExtraPoints], book: PhraseBook) -> None:
    """Write the extra points (owner-only, like the protocol beside them)."""
    text = json.dumps(entries, ensure_ascii=False, indent=2) + "\n"
    try:
        storage.private_folder(path.parent)
        storage.write_private(path, text.encode("utf-8"))
    except OSError as exc:
        raise ScoreInputError.written(
            book.screen("score_cannot_write", {"path": path, "reason": storage.reason(exc)})
        ) from exc
