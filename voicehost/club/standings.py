"""The season's standings as a terminal table, as CSV and as a chart (matplotlib)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from voicehost.club.db import Standing
from voicehost.club.evening import EveningLine
from voicehost.game.model import Role
from voicehost.host.names import width

#: Every card any rule set deals (the game's own list: a season mixes club, FIIM and city games,
#: and the city's «путана», Maniac and Immortal have their columns as every other card).
ROLES = tuple(role.value for role in Role)

Say = Callable[..., str]


def number(value: float) -> str:
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def percent(part: int, whole: int) -> str:
    return f"{round(100 * part / whole)}%" if whole else "—"


def aligned(rows: Sequence[Sequence[str]], text_column: int = 1) -> str:
    """Rows of cells as aligned text, by terminal cells (a name may hold wide characters): the
    text column to the left, the numbers to the right."""
    widths = [max(width(row[index]) for row in rows) for index in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = []
        for index, cell in enumerate(row):
            pad = " " * (widths[index] - width(cell))
            cells.append(cell + pad if index == text_column else pad + cell)
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def table(rows: Sequence[Standing], say: Say, word: Callable[[str], str]) -> str:
    """The standings as aligned text: place, name, points, games, wins, win rate, best-player
    marks, and wins/games by role."""
    roles = [role for role in ROLES if any(role in row.by_role for row in rows)]
    head = [say("col_place"), say("col_name"), say("col_points"), say("col_games"),
            say("col_wins"), say("col_rate"), say("col_best")]  # fmt: skip
    head += [word(role) for role in roles]
    body = [head]
    for place, row in enumerate(rows, start=1):
        cells = [str(place), row.name, number(row.points), str(row.games),
                 str(row.wins), percent(row.wins, row.games), str(row.best_player)]  # fmt: skip
        for role in roles:
            games, wins = row.by_role.get(role, (0, 0))
            cells.append(f"{wins}/{games}" if games else "—")
        body.append(cells)
    return aligned(body)


def evening_table(rows: Sequence[EveningLine], say: Say) -> str:
    head = [say("col_place"), say("col_name"), say("col_points"), say("col_games"),
            say("col_wins"), say("col_best")]  # fmt: skip
    body = [head] + [
        [
            str(place),
            row.name,
            number(row.points),
            str(row.games),
            str(row.wins),
            str(row.best_player),
        ]  # fmt: skip
        for place, row in enumerate(rows, start=1)
    ]
    return aligned(body)


def safe_cell(value: Any) -> str:
    """A cell a spreadsheet shows as text: a name starting with = + - @ (or a tab) would be
    read as a formula, so it gets a leading apostrophe (OWASP's CSV injection advice)."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_csv(rows: Sequence[Standing], headers: Sequence[str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headers)
    for place, row in enumerate(rows, start=1):
        line: list[Any] = [place, safe_cell(row.name), number(row.points), row.games, row.wins,
                           round(row.win_rate, 4), row.best_player]  # fmt: skip
        for role in ROLES:
            games, wins = row.by_role.get(role, (0, 0))
            line += [games, wins]
        writer.writerow(line)
    return out.getvalue()


def csv_headers(say: Say, word: Callable[[str], str]) -> list[str]:
    """The CSV's column names in the book's language (each role's games and wins by its name)."""
    heads = [say("col_place"), say("col_name"), say("col_points"), say("col_games"),
             say("col_wins"), say("col_rate"), say("col_best")]  # fmt: skip
    for role in ROLES:
        heads += [say("col_role_games", role=word(role)), say("col_role_wins", role=word(role))]
    return heads


def chart(
    rows: Sequence[Standing],
    series: Sequence[tuple[str, float]],
    player: str | None,
    path: Path,
    say: Say,
    *,
    top: int = 20,
) -> Path:
    """A PNG a club can post: the standings (the best ``top`` by points) and one player's points
    over the season (cumulative), made with matplotlib."""
    import logging
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    logging.getLogger("matplotlib").setLevel(logging.ERROR)  # a glyph a font lacks: a box
    with warnings.catch_warnings(), matplotlib.rc_context({"text.parse_math": False}):
        warnings.simplefilter("ignore")  # names are text, never $math$
        return _draw(plt, rows[:top], series, player, path, say)


def _draw(
    plt: Any,
    rows: Sequence[Standing],
    series: Sequence[tuple[str, float]],
    player: str | None,
    path: Path,
    say: Say,
) -> Path:
    shown = list(rows)
    figure, (left, right) = plt.subplots(
        1, 2, figsize=(13, max(4.5, 0.38 * len(shown) + 1.5)), gridspec_kw={"width_ratios": [3, 2]}
    )
    try:
        names = [row.name for row in shown][::-1]
        points = [row.points for row in shown][::-1]
        bars = left.barh(range(len(shown)), points, color="#8b1a1a")
        left.set_yticks(range(len(shown)), names)
        left.set_xlabel(say("chart_points"))
        left.set_title(say("chart_standings"))
        low, high = min(0.0, *points), max(0.0, *points)
        room = 0.25 * ((high - low) or 1.0)  # each label beside its bar, inside the frame
        left.set_xlim(low - (room if low < 0 else 0.0), high + room)
        for bar, row in zip(bars, shown[::-1], strict=True):
            label = f"{number(row.points)} ({row.games})"
            ahead = row.points >= 0  # a negative bar's label goes on its left, off the bar
            left.text(
                bar.get_width(), bar.get_y() + bar.get_height() / 2,
                f" {label}" if ahead else f"{label} ", va="center", fontsize=8,
                ha="left" if ahead else "right",
            )  # fmt: skip
        total = 0.0
        steps = [0.0]  # the season starts at nothing
        for _, value in series:
            total += value
            steps.append(total)
        right.plot(range(len(steps)), steps, marker="o", color="#1a3d8b")
        from matplotlib.ticker import MaxNLocator

        right.xaxis.set_major_locator(MaxNLocator(integer=True))
        right.set_xlabel(say("chart_games"))
        right.set_ylabel(say("chart_points"))
        right.set_title(say("chart_player", name=player or "—"))
        right.grid(alpha=0.3)
        figure.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, dpi=110)
    finally:
        plt.close(figure)
    return path
