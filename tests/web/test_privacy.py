"""Nothing secret reaches the board or an unpaired client, ever: every byte they receive during
whole games (club and FIIM) is the same whatever the night's choices were."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.recorder import BoardRecorder, fetch_everything
from tests.web.webkit import EXAMPLES, settings_for, web_table
from voicehost.console.script import ScriptFeed

CLUB = (EXAMPLES / "town-wins.txt").read_text(encoding="utf-8").splitlines()
FIIM = (EXAMPLES / "fiim-town-wins.txt").read_text(encoding="utf-8").splitlines()


def variant(lines: list[str], changes: dict[int, str], extra: dict[int, list[str]]) -> list[str]:
    """The script with some night lines changed (1-based line numbers) and entries added before
    others (refused or corrected entries at night)."""
    out = []
    for number, line in enumerate(lines, start=1):
        out.extend(extra.get(number, []))
        out.append(changes.get(number, line))
    return out


# Other checks by the Commissar, refused entries at night (a seat not at the table, a
# Commissar's own seat), a mafia target corrected before the window ends.
CLUB_B = variant(CLUB, {44: "6", 79: "8"}, {44: ["77"], 46: ["0"], 42: ["7"]})
FIIM_B = variant(FIIM, {37: "7", 60: "6"}, {37: ["42"]})


def record(preset: str, lines: list[str]) -> tuple[list[str], list[Any], int, int]:
    with web_table(settings_for(preset), start=True) as table:
        board = BoardRecorder(table.base).start()
        thief = BoardRecorder(table.base, "/ws/host").start()  # unpaired: refused
        feed = ScriptFeed(table.host, table.clock, lines, None)
        for _ in lines:  # line by line, each seen by the board before the next
            command = feed()
            if command is None or table.host.over:
                break
            table.run_on_loop(lambda command=command: table.host.handle(command))
            board.wait_for(table.web.server.board_frame)
        pages = fetch_everything(table.base)
        board.stop()
        assert table.host.over, "the game did not end"
        return board.frames, pages, thief.status or 0, len(feed.errors)


@pytest.mark.parametrize(
    ("preset", "first", "second"), [("club", CLUB, CLUB_B), ("fiim", FIIM, FIIM_B)]
)
def test_the_board_receives_the_same_bytes_whatever_the_night(
    preset: str, first: list[str], second: list[str]
) -> None:
    frames_a, pages_a, refused_a, errors_a = record(preset, first)
    frames_b, pages_b, refused_b, errors_b = record(preset, second)
    assert errors_a == 0
    assert errors_b == (2 if preset == "club" else 1)  # the refused entries were typed
    assert len(frames_a) > 30  # a whole game was watched
    assert frames_a == frames_b
    assert pages_a == pages_b
    assert refused_a == refused_b == 403
    night = [frame for frame in frames_a if '"night": true' in frame]
    assert night and all('"seats"' not in frame and '"timer"' not in frame for frame in night)
    # The cards are on the board at the end only.
    assert '"card": "mafia"' in frames_a[-1]
    assert all(
        '"card": "mafia"' not in frame for frame in frames_a[:-1] if '"over": false' in frame
    )
