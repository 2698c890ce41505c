"""Every example plays under any valid timer settings: a script waits for the game's moments
(``wait``: the timer's end, ``wait warning``: its warning), never for a number of seconds the
default config.yaml happens to give (issue 43: with a rehearsal's shorter windows
`play --script examples/mafia-wins.txt` stopped at line 82)."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost import config
from voicehost.console.script import run_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.txt"))

#: A rehearsal's short windows, and a slow club's long ones (every timer of every rule set).
TIMERS = {
    "rehearsal": {
        "timers": {"discussion_seconds": 30, "nomination_speech_seconds": 5,
                   "defence_speech_seconds": 10, "last_words_seconds": 5,
                   "vote_result_seconds": 2, "acquaintance_seconds": 5,
                   "warning_seconds": 1},
        "night": {"registration_window_seconds": 6, "mafia_window_seconds": 8,
                  "no_agreed_shot_after_seconds": 5, "commissar_window_seconds": 6,
                  "doctor_window_seconds": 6},
        "fiim": {"speech_seconds": 20, "tie_speech_seconds": 10, "last_words_seconds": 20,
                 "night0_black_seconds": 10, "night0_role_window_seconds": 5,
                 "free_seating_seconds": 5, "shot_window_seconds": 6, "check_window_seconds": 5,
                 "skipped_speech_seconds": 3, "short_speech_seconds": 10},
        "city": {"don_window_seconds": 5, "putana_window_seconds": 5, "maniac_window_seconds": 5},
    },
    "slow club": {
        "timers": {"discussion_seconds": 600, "nomination_speech_seconds": 60,
                   "defence_speech_seconds": 90, "last_words_seconds": 60,
                   "vote_result_seconds": 30, "acquaintance_seconds": 60},
        "night": {"registration_window_seconds": 40, "mafia_window_seconds": 60,
                  "no_agreed_shot_after_seconds": 45, "commissar_window_seconds": 40,
                  "doctor_window_seconds": 40},
        "fiim": {"speech_seconds": 90, "tie_speech_seconds": 45, "last_words_seconds": 90,
                 "night0_black_seconds": 90, "night0_role_window_seconds": 30,
                 "free_seating_seconds": 40, "shot_window_seconds": 40, "check_window_seconds": 30,
                 "skipped_speech_seconds": 20, "short_speech_seconds": 45},
        "city": {"don_window_seconds": 30, "putana_window_seconds": 30,
                 "maniac_window_seconds": 30},
    },
}  # fmt: skip


def settings_with(tmp_path: Path, timers: dict[str, dict[str, int]]) -> config.Settings:
    lines = ["voice:\n  engine: text\n", "listener:\n  enabled: false\n"]
    for section, values in timers.items():
        lines.append(f"{section}:\n" + "".join(f"  {k}: {v}\n" for k, v in values.items()))
    path = tmp_path / "config.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return config.load(path)


def played(example: Path, settings: config.Settings) -> tuple[list[str], str | None]:
    lines = example.read_text(encoding="utf-8").splitlines()
    result = run_script(lines, settings)
    state = result.host.state
    assert state is not None
    return result.errors, None if state.winner is None else state.winner.value


@pytest.mark.parametrize("setting", sorted(TIMERS))
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_every_example_plays_to_the_same_end_whatever_the_timers(
    example: Path, setting: str, tmp_path: Path
) -> None:
    _, winner = played(example, config.load(None))
    errors, other = played(example, settings_with(tmp_path, TIMERS[setting]))
    assert errors == []
    assert other == winner


def test_wait_warning_without_a_warning_says_so(tmp_path: Path) -> None:
    """A timer that has warned already: `wait warning` says what it waits for, in words."""
    settings = settings_with(tmp_path, TIMERS["rehearsal"])
    result = run_script(["1 6 8", "wait", "3", "wait", "10", "wait", "wait warning",
                         "wait warning"], settings)  # fmt: skip
    assert result.errors == [
        "строка 8: «wait warning»: у этого таймера предупреждения нет или оно уже прозвучало; "
        "«wait» ждёт конца таймера."
    ]
