"""The pause after a vote's last count: the counts are announced, nobody has left yet, and a
miscount can still be taken back (``timers.vote_result_seconds``, 8 s by default).

During the pause `.` (EndSpeech) goes on at once, the timer's end goes on by itself, `u` takes
the count back, and another count is refused. The third vote's count pauses the same way; a lone
candidate has no count and no pause; ``vote_result_seconds: 0`` keeps the immediate result.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gamekit import Table, at_vote, keys, make_settings, params_of, plan_for, timers

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.script import ScriptResult, run_script
from voicehost.console.view import status_lines
from voicehost.game.effects import CancelTimer, PlayCue, PromptKind
from voicehost.game.inputs import EndSpeech, EnterSeats, TimeUp, VoteCount
from voicehost.game.model import Phase, Team, TimerKind
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook

BOOK = PhraseBook.load("ru")
SETTINGS = config.loads("")

#: Night 0 and day 1 of a 10-seat table (mafia 2, 5, 9; Commissar 4; Doctor 7) up to the vote
#: between seats 5 and 9: everyone names 5 or 9, ten speeches, two defences.
TO_THE_VOTE = ["2 5 9", "wait", "4", "wait", "7", "wait", ".", "5 9", "."] + [
    line for seat in (5, 9, 5, 9, 5, 9, 9, 5, 9) for line in (str(seat), ".")
] + [".", "."]  # fmt: skip

#: From the vote between 5 and 9 to the third vote: a tie, a revote, a tie again.
TO_THE_THIRD_VOTE = [*TO_THE_VOTE, "5", ".", ".", ".", "5", "."]


def departures(table: Table) -> list[int]:
    return [departure["seat"] for departure in table.state.record["departures"]]


def play(lines: list[str], journal: Path | None = None, text: str = "") -> ScriptResult:
    result = run_script(lines, config.loads(text), book=BOOK, journal_path=journal)
    assert result.errors == []
    return result


def then(host: Host, *lines: str) -> ScriptResult:
    """More script lines for a host already at the table."""
    result = run_script(list(lines), host.settings, clock=host.clock, host=host)  # type: ignore[arg-type]
    assert result.errors == []
    return result


# ---- what the count itself does -------------------------------------------------------------


def test_the_last_count_announces_the_counts_and_pauses_before_anyone_leaves() -> None:
    table = at_vote(3, 6)
    effects = table.votes(7, settle=False)
    assert params_of(effects, "day.vote_result") == [
        {"seat": 3, "votes": 7},
        {"seat": 6, "votes": 3},
    ]
    assert keys(effects)[-1] == "day.vote_result"  # nobody leaves, no revote, no night yet
    assert [(t.timer, t.seconds, t.warn_before, t.listen) for t in timers(effects)] == [
        (TimerKind.VOTE_RESULT, 8, None, False)
    ]
    assert table.prompt.kind is PromptKind.CONFIRM_VOTE
    assert departures(table) == [] and table.phase is Phase.VOTE
    assert table.state.record["days"][-1]["votes"] == []  # not in the protocol until settled


def test_counts_before_the_last_one_do_not_pause() -> None:
    table = at_vote(1, 5, 9)
    effects = table.votes(4, settle=False)
    assert timers(effects) == []
    assert (table.prompt.kind, table.prompt.subject) == (PromptKind.VOTE_COUNT, 5)


def test_a_lone_candidate_has_no_count_and_no_pause() -> None:
    table = at_vote(1, 5, 9)
    table.votes(4)
    table.votes(4)  # 4 / 4 / 2: a revote between 1 and 5
    table.defend()
    table.foul(5)
    table.foul(5)
    mark = table.mark()
    table.foul(5)  # disqualified: 1 is the only candidate left, the vote starts again
    effects = table.since(mark)
    assert params_of(effects, "day.vote_result") == [{"seat": 1, "votes": 8}]
    assert TimerKind.VOTE_RESULT not in [t.timer for t in timers(effects)]
    assert departures(table) == [5, 1] and table.phase is Phase.LAST_WORDS


# ---- during the pause -----------------------------------------------------------------------


def test_the_count_is_right_goes_on_at_once() -> None:
    table = at_vote(3, 6)
    table.votes(7, settle=False)
    effects = table.end()
    assert isinstance(effects[0], CancelTimer)
    assert not any(isinstance(effect, PlayCue) for effect in effects)  # no speech ended
    assert keys(effects) == ["day.leaves", "day.last_words"]
    assert departures(table) == [3]


def test_the_end_of_the_pause_goes_on() -> None:
    table = at_vote(3, 6)
    table.votes(7, settle=False)
    timer = table.state.timer
    assert timer is not None
    effects = table.do(TimeUp(timer.timer_id))
    assert keys(effects) == ["day.leaves", "day.last_words"]
    assert [t.timer for t in timers(effects)] == [TimerKind.LAST_WORDS]
    assert departures(table) == [3]
    assert table.reject(TimeUp(timer.timer_id)).code == "timer_stale"


def test_a_tie_goes_on_to_the_revote_only_after_the_pause() -> None:
    table = at_vote(3, 6)
    effects = table.votes(5, settle=False)
    assert "day.revote" not in keys(effects)
    effects = table.end()
    assert params_of(effects, "day.revote") == [{"seats": (3, 6)}]
    assert params_of(effects, "day.defence") == [{"seat": 3}]


def test_a_second_count_during_the_pause_is_refused() -> None:
    table = at_vote(3, 6)
    table.votes(7, settle=False)
    for count in (3, 0):
        assert table.reject(VoteCount(count)).code == "vote_counted"
    assert table.reject(EnterSeats((3,))).code == "not_now"


def test_a_second_count_is_refused_with_how_to_confirm_or_correct() -> None:
    result = play([*TO_THE_VOTE, "6"])
    rejected = run_script(["7"], SETTINGS, clock=result.host.clock, host=result.host)  # type: ignore[arg-type]
    assert rejected.errors == [f"строка 1: {BOOK.error('vote_counted')}"]
    assert "«.» — подтвердить сразу" in rejected.errors[0]
    assert result.host.state is not None and result.host.state.players[5].alive


def test_undo_during_the_pause_asks_the_same_candidate_again_and_nobody_leaves() -> None:
    result = play([*TO_THE_VOTE, "4"])  # meant: 6 against 5; typed 4 (so 6 against 9)
    host = result.host
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    said = len(host.transcript)
    assert host.undo()
    assert (host.prompt().kind, host.prompt().subject) == (PromptKind.VOTE_COUNT, 5)
    assert host.timer is None
    # The question is asked again, then the pause that was running has gone: nothing happens.
    asked_again = ["Кто за то, чтобы игрок номер пять покинул стол? Раз… два… три!"]
    assert host.transcript[said:] == asked_again
    then(host, "wait 30")
    assert host.transcript[said:] == asked_again
    assert all(player.alive for player in host.state.players.values())  # type: ignore[union-attr]
    then(host, "6", ".")
    assert host.transcript[-2] == "Игрок номер пять покидает стол. Роль игрока: мафия."
    assert host.state is not None and host.state.players[9].alive


def test_undo_during_the_pause_of_three_candidates_returns_to_the_last_one_asked() -> None:
    result = play(
        ["2 5 9", "wait", "4", "wait", "7", "wait", "."]
        + [line for seat in (3, 6, 8, 3, 6, 8, 3, 6, 8, 3) for line in (str(seat), ".")]
        + [".", ".", "."]  # the defences of 3, 6 and 8
    )
    host = result.host
    assert host.state is not None and host.state.candidates == [3, 6, 8]
    then(host, "4", "5")  # 4 against 3, 5 against 6, so 1 against 8
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    assert host.undo()
    assert (host.prompt().kind, host.prompt().subject) == (PromptKind.VOTE_COUNT, 6)
    assert host.state.vote_counts == {3: 4}


def test_a_foul_that_disqualifies_a_voter_during_the_pause_restarts_the_vote() -> None:
    table = at_vote(3, 6)
    table.foul(8)
    table.foul(8)
    table.votes(7, settle=False)
    effects = table.foul(8)  # the third: 8 leaves, and the table has 9 voters now
    assert params_of(effects, "foul.disqualified") == [{"seat": 8, "role": "civilian"}]
    assert keys(effects)[-2:] == ["day.vote_start", "day.vote_for"]
    assert params_of(effects, "day.vote_for") == [{"seat": 3}]
    assert any(isinstance(effect, CancelTimer) for effect in effects)
    assert table.state.timer is None and table.state.vote_counts == {}
    assert (table.prompt.kind, table.prompt.subject) == (PromptKind.VOTE_COUNT, 3)
    table.votes(6)
    assert table.state.record["days"][-1]["votes"] == [
        {"round": 1, "counts": {"3": 7, "6": 3}, "interrupted_by": 8},  # the count 8 stopped
        {"round": 1, "counts": {"3": 6, "6": 3}},
    ]
    assert departures(table) == [8, 3]


def test_a_foul_that_only_warns_during_the_pause_keeps_the_pause() -> None:
    table = at_vote(3, 6)
    table.votes(7, settle=False)
    timer = table.state.timer
    effects = table.foul(8)
    assert keys(effects) == ["foul.warning"]
    assert table.state.timer == timer and table.prompt.kind is PromptKind.CONFIRM_VOTE


def test_a_foul_during_the_pause_that_ends_the_game_leaves_nothing_to_confirm() -> None:
    table = Table()
    for seat in (1, 3, 6):
        table.foul(seat)  # night 0: any foul disqualifies; 3 black against 4 red are left
    table.register()
    table.end()
    table.nominate(plan_for(4, 8))
    table.defend()
    table.foul(10)
    table.foul(10)
    table.votes(4, settle=False)
    table.foul(10)  # 3 black against 3 red: the mafia win
    assert (table.phase, table.winner) == (Phase.GAME_OVER, Team.BLACK)
    assert table.state.timer is None
    assert table.prompt.kind is PromptKind.NONE


# ---- the third vote -------------------------------------------------------------------------


def at_third_vote() -> Table:
    table = at_vote(3, 6)
    table.votes(5)
    table.defend()
    table.votes(5)
    assert table.phase is Phase.THIRD_VOTE
    return table


def test_the_third_votes_count_pauses_too() -> None:
    table = at_third_vote()
    effects = table.votes(5, settle=False)
    assert keys(effects) == ["day.third_vote_result"]
    assert [t.timer for t in timers(effects)] == [TimerKind.VOTE_RESULT]
    assert table.prompt.kind is PromptKind.CONFIRM_VOTE
    assert table.reject(VoteCount(2)).code == "vote_counted"
    effects = table.end()
    assert keys(effects)[:3] == ["day.all_leave", "day.leaves", "day.leaves"]
    assert departures(table) == [3, 6]


def test_a_foul_that_disqualifies_a_voter_during_the_third_votes_pause_asks_again() -> None:
    table = at_third_vote()
    table.foul(8)
    table.foul(8)
    table.votes(4, settle=False)
    effects = table.foul(8)
    assert keys(effects)[-1] == "day.third_vote"
    assert table.state.timer is None
    assert (table.prompt.kind, table.prompt.max_count) == (PromptKind.THIRD_VOTE_COUNT, 7)
    table.votes(4)  # 4 of 7: a majority now
    assert table.state.record["days"][-1]["third_vote"]["outcome"] == "all_leave"


def test_undo_during_the_third_votes_pause_asks_the_count_again() -> None:
    host = play(TO_THE_THIRD_VOTE).host
    then(host, "4")  # a miscount: both would stay
    assert host.undo()
    assert host.prompt().kind is PromptKind.THIRD_VOTE_COUNT
    then(host, "5", ".")
    assert host.state is not None
    assert not host.state.players[5].alive and not host.state.players[9].alive


# ---- resume during the pause ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "count", "after"),
    [
        (TO_THE_VOTE, "6", "Игрок номер пять покидает стол. Роль игрока: мафия."),
        (TO_THE_THIRD_VOTE, "5", "Все кандидаты покидают стол."),
    ],
    ids=["vote", "third vote"],
)
def test_resume_during_the_pause_restarts_the_pause_without_asking_again(
    lines: list[str], count: str, after: str, tmp_path: Path
) -> None:
    journal = tmp_path / "game.jsonl"
    # The power goes out during the pause (the dead process's journal lock goes with it).
    play([*lines, count], journal).host.close()
    clock = FakeClock()
    resumed = run_script([], SETTINGS, book=BOOK, clock=clock, resume=True, journal_path=journal)
    host = resumed.host
    # No count is asked for again; the counts the host must confirm are said again.
    assert resumed.transcript[0] == "Продолжаем игру."
    assert resumed.transcript[1:] and all(
        line.startswith(("Против игрока номер", "За то, чтобы все покинули стол"))
        for line in resumed.transcript[1:]
    )
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    assert host.timer is not None and host.timer.effect.timer is TimerKind.VOTE_RESULT
    assert host.remaining() == pytest.approx(8)
    assert not host.submit(VoteCount(int(count)))
    then(host, "wait")
    assert after in host.transcript


# ---- no pause -------------------------------------------------------------------------------


def test_with_no_pause_the_count_sends_the_player_away_at_once() -> None:
    table = at_vote(3, 6, settings=make_settings(timers={"vote_result_seconds": 0}))
    effects = table.votes(7, settle=False)
    assert keys(effects)[-2:] == ["day.leaves", "day.last_words"]
    assert TimerKind.VOTE_RESULT not in [t.timer for t in timers(table.log)]
    assert table.state.vote_settling is None and table.phase is Phase.LAST_WORDS


def test_with_no_pause_the_third_vote_decides_at_once() -> None:
    table = Table(make_settings(timers={"vote_result_seconds": 0}))
    table.register()
    table.end()
    table.nominate(plan_for(3, 6))
    table.defend()
    table.votes(5, settle=False)
    table.defend()
    table.votes(5, settle=False)
    effects = table.votes(4, settle=False)
    assert keys(effects)[:2] == ["day.third_vote_result", "day.all_stay"]
    assert table.phase is Phase.NIGHT_MAFIA


def test_the_old_scripts_play_unchanged_with_no_pause() -> None:
    """A script written before the pause (no `.` after a count) still plays with 0 seconds."""
    result = play([*TO_THE_VOTE, "6", "."], text="timers:\n  vote_result_seconds: 0\n")
    assert result.host.state is not None
    assert result.host.state.phase is Phase.NIGHT_MAFIA  # the `.` ended 5's last words


def test_end_speech_outside_the_pause_and_a_speech_is_still_refused() -> None:
    table = at_vote(3, 6)
    assert table.reject(EndSpeech()).code == "no_speech"


def test_the_screen_says_how_to_confirm_or_correct_during_the_pause() -> None:
    host = play([*TO_THE_VOTE, "6"]).host
    # A Russian game's screen speaks Russian: what `.` and `u` do, and the seconds left.
    assert status_lines(host)[-1] == (
        "→ голоса подсчитаны: «.» — дальше сразу, «u» — исправить; осталось 8 с"
    )
    assert "⏱ 0:08" in status_lines(host)[0]
    then(host, ".")
    assert status_lines(host)[-1] == "→ «.» — закончить речь"  # 5's last words
