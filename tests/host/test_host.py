"""The host loop: timers on the clock, the journal before effects, undo, pause, voice, keypad."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.text import ScreenPrivateChannel, SilentCues
from voicehost.game.inputs import EndSpeech, EnterSeats, Foul, VoteCount
from voicehost.game.model import Cue, Phase, Role, TimerKind
from voicehost.host.commands import Submit, TogglePause, Undo, VoiceStop
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.testing.clocked import wait_timer
from voicehost.testing.fakes import RecordingListener, TimedSpeaker

BOOK = PhraseBook.load("ru")


def make_host(tmp_path: Path | None = None, settings: str = "", **kwargs):
    clock = FakeClock()
    speaker = kwargs.pop("speaker", None) or TimedSpeaker(clock)
    cues = SilentCues()
    private = ScreenPrivateChannel(None)
    host = Host(
        config.loads(settings),
        BOOK,
        clock,
        speaker=speaker,
        cues=cues,
        private=private,
        journal_path=(tmp_path / "game.jsonl") if tmp_path else None,
        **kwargs,
    )
    return host, clock, speaker, cues, private


def register_roles(host: Host) -> None:
    for seats in ((2, 5, 9), (4,), (7,)):
        assert host.submit(EnterSeats(seats))
        wait_timer(host)


def test_speech_timer_starts_when_its_announcement_has_finished():
    host, clock, speaker, _, _ = make_host()
    host.start()
    # «Добрый вечер…», «Наступает ночь знакомства…», «Просыпается мафия!»: 3 × 2 s
    assert host.timer is not None
    assert host.timer.starts_at == pytest.approx(6.0)
    assert host.timer.ends_at == pytest.approx(6.0 + 15)


def test_warning_cue_is_scheduled_at_its_deadline_even_when_the_loop_is_late():
    host, clock, speaker, cues, _ = make_host()
    host.start()
    register_roles(host)
    host.submit(EndSpeech())  # end the discussion: nominations begin
    timer = host.timer
    assert timer is not None and timer.effect.timer is TimerKind.NOMINATION_SPEECH
    warn_at = timer.ends_at - 5
    clock.set(warn_at + 0.3)  # the loop woke 300 ms late
    host.process_due()
    assert cues.played[-1] == (Cue.WARNING, pytest.approx(warn_at))
    clock.set(timer.ends_at + 0.01)
    host.process_due()
    assert (Cue.TIME_UP, pytest.approx(timer.ends_at)) in cues.played


def test_pause_freezes_the_countdown_and_shifts_the_deadline():
    host, clock, *_ = make_host(speaker=None)
    host.start()
    register_roles(host)
    clock.advance(30)
    host.process_due()
    left = host.remaining()
    host.handle(TogglePause())
    clock.advance(100)
    host.process_due()
    assert host.state.phase is Phase.DISCUSSION
    assert host.remaining() == pytest.approx(left)
    host.handle(TogglePause())
    assert host.remaining() == pytest.approx(left, abs=2.1)  # «Продолжаем.» plays first


def test_voice_stop_ends_only_the_speech_it_was_heard_in():
    listener = RecordingListener()
    host, clock, *_ = make_host(listener=listener)
    host.start()
    register_roles(host)
    host.submit(EndSpeech())
    host.submit(EnterSeats((5,)))
    token = host.timer.timer_id
    assert ("listen", token) in listener.calls
    assert host.handle(VoiceStop(token - 1)) is False  # a stale word from an earlier timer
    assert host.state.current_speaker == 1
    assert host.handle(VoiceStop(token)) is True
    assert host.state.current_speaker == 1  # held for listener.spoke_on_seconds
    clock.advance(0.6)
    host.process_due()
    assert host.state.current_speaker == 2
    assert host.transcript[-1] == "Слово игроку номер два."


def test_listener_is_deaf_at_night_and_while_the_host_speaks():
    listener = RecordingListener()
    host, clock, speaker, *_ = make_host(listener=listener)
    host.start()
    assert ("listen", host.timer.timer_id) not in listener.calls  # night window: deaf
    assert listener.calls[-1] == ("stop", None)
    deafened = [until for name, until in listener.calls if name == "deafen"]
    assert deafened[-1] == pytest.approx(speaker.busy_until())


def test_every_input_is_on_disk_before_its_effects_happen(tmp_path):
    journal = tmp_path / "game.jsonl"
    host, clock, speaker, *_ = make_host(tmp_path)
    seen: list[str] = []

    def check(utterance):
        if journal.exists():
            seen.append(journal.read_text(encoding="utf-8").splitlines()[-1])

    host.start()
    speaker.on_say = check
    register_roles(host)
    host.submit(EndSpeech())
    host.submit(EnterSeats((5,)))  # «Номер пять принят» is said only after the line is on disk
    assert json.loads(seen[-1])["input"] == {"kind": "seats", "seats": [5]}
    assert stat.S_IMODE(os.stat(journal).st_mode) == 0o600


def test_undo_takes_back_a_nomination_and_the_journal_replays_it(tmp_path):
    host, *_ = make_host(tmp_path)
    host.start()
    register_roles(host)
    host.submit(EndSpeech())
    host.submit(EnterSeats((5, 7)))
    assert host.handle(Undo())
    assert host.state.nominations.get(1, []) == []
    host.submit(EnterSeats((6,)))
    host.close()  # the process ends: its journal lock goes
    resumed, *_ = make_host(tmp_path)
    resumed.resume()
    assert resumed.state.nominations == {1: [6]}
    assert resumed.transcript[0] == "Продолжаем игру."


def test_commissar_check_cannot_be_undone():
    host = at_vote_on_1_and_5()
    host.handle(Submit(VoteCount(1)))
    wait_timer(host)  # the pause for a correction runs out: 5 leaves
    wait_timer(host)  # last words of 5
    host.submit(EnterSeats((3,)))
    wait_timer(host)
    assert host.state.phase is Phase.NIGHT_COMMISSAR
    host.submit(EnterSeats((9,)))
    assert host.handle(Undo()) is False
    assert host.rejections[-1] == BOOK.error("nothing_to_undo")


def test_a_rejected_keypad_entry_plays_the_neutral_cue_and_keyboard_does_not():
    host, clock, speaker, cues, _ = make_host()
    host.start()
    assert not host.handle(Submit(EnterSeats((1, 2, 42)), source="keypad"))
    assert cues.played[-1] == (Cue.REJECT, None)
    count = len(cues.played)
    assert not host.handle(Submit(EnterSeats((1, 2, 42)), source="keyboard"))
    assert len(cues.played) == count
    assert "42" in host.rejections[-1]


def test_a_day_foul_is_announced_and_counted():
    host, *_ = make_host()
    host.start()
    register_roles(host)
    host.submit(Foul(3))
    assert host.transcript[-1].startswith("Замечание игроку номер три.")
    assert host.state.players[3].fouls == 1


def test_a_whole_last_record_without_its_newline_is_kept_on_resume(tmp_path):
    host, *_ = make_host(tmp_path)
    host.start()
    host.submit(EnterSeats((2, 5, 9)))
    host.close()  # the process ends: its journal lock goes
    journal = tmp_path / "game.jsonl"
    journal.write_bytes(journal.read_bytes().rstrip(b"\n"))  # the newline never reached the disk
    resumed, *_ = make_host(tmp_path)
    resumed.resume()
    mafia = [seat for seat, p in resumed.state.players.items() if p.role is Role.MAFIA]
    assert mafia == [2, 5, 9]
    wait_timer(resumed)
    assert resumed.submit(EnterSeats((4,)))
    resumed.close()
    again, *_ = make_host(tmp_path)
    again.resume()
    assert again.state.players[4].role is Role.COMMISSAR
    assert again.state.players[2].role is Role.MAFIA


def at_vote_on_1_and_5(settings: str = "") -> Host:
    """Day 1's vote between seats 1 and 5 (everyone names 5, seat 5 names 1)."""
    host, *_ = make_host(settings=settings)
    host.start()
    register_roles(host)
    host.submit(EndSpeech())
    for speaker in range(1, 11):
        host.submit(EnterSeats((5,) if speaker != 5 else (1,)))
        host.submit(EndSpeech())
    wait_timer(host)  # defence of 1
    wait_timer(host)  # defence of 5
    assert host.state.phase is Phase.VOTE
    return host


@pytest.mark.parametrize(
    ("settings", "confirm"),
    [
        ("", True),  # `.` ends the pause for a correction at once
        ("", False),  # the pause runs out
        ("timers:\n  vote_result_seconds: 0\n", False),  # no pause: the count itself sends 5 away
    ],
)
def test_a_vote_that_revealed_a_role_cannot_be_undone(settings: str, confirm: bool):
    host = at_vote_on_1_and_5(settings)
    host.handle(Submit(VoteCount(1)))  # 1 against 1, 9 against 5
    if confirm:
        assert host.handle(Submit(EndSpeech()))
    elif host.state.players[5].alive:
        wait_timer(host)
    assert host.transcript[-2] == "Игрок номер пять покидает стол. Роль игрока: мафия."
    assert host.handle(Undo()) is False
    assert host.rejections[-1] == BOOK.error("nothing_to_undo")
    assert not host.state.players[5].alive


def test_a_miscount_is_undone_during_the_pause_before_anyone_leaves():
    host = at_vote_on_1_and_5()
    host.handle(Submit(VoteCount(9)))  # meant: 9 against 5, typed against 1
    assert host.timer is not None and host.timer.effect.timer is TimerKind.VOTE_RESULT
    assert host.handle(Undo())
    assert host.timer is None  # the pause is over: the count is asked again
    assert host.prompt().subject == 1
    assert all(player.alive for player in host.state.players.values())
    # The table hears the question again, so the masks go up again.
    assert host.transcript[-1] == "Кто за то, чтобы игрок номер один покинул стол? Раз… два… три!"
    host.handle(Submit(VoteCount(1)))
    wait_timer(host)
    assert not host.state.players[5].alive and host.state.players[1].alive


class LeadingCues(SilentCues):
    """A sound card that already holds 50 ms of audio: cues must be asked for that early."""

    def lead_seconds(self) -> float:
        return 0.05


def test_timer_events_fire_early_enough_for_the_card_to_start_the_cue_on_time():
    clock = FakeClock()
    cues = LeadingCues()
    host = Host(
        config.loads(""),
        BOOK,
        clock,
        speaker=TimedSpeaker(clock),
        cues=cues,
        private=ScreenPrivateChannel(None),
    )
    host.start()
    register_roles(host)
    host.submit(EndSpeech())
    warn_at = host.timer.ends_at - 5
    clock.set(warn_at - 0.06)
    host.process_due()
    assert not [cue for cue, _ in cues.played if cue is Cue.WARNING]  # too early still
    clock.set(warn_at - 0.04)
    host.process_due()
    assert cues.played[-1] == (Cue.WARNING, pytest.approx(warn_at))  # placed on its deadline
