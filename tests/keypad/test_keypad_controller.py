"""Key sequences -> host commands, for each question the game can ask.

Keys are written as one character each: digits, E = Enter, C = correct (Backspace or .),
M = miss, S = end speech, F = foul, U = undo.
"""

from __future__ import annotations

import pytest

from voicehost.clock import FakeClock
from voicehost.game.effects import Prompt, PromptKind
from voicehost.game.inputs import EndSpeech, EnterSeats, Foul, Miss, VoteCount
from voicehost.game.model import Cue
from voicehost.host.commands import Command, Submit, Undo
from voicehost.host.loop import Host
from voicehost.keypad.controller import KeypadController
from voicehost.ports import Key
from voicehost.testing.fakes import RecordingCues

LETTERS = {
    "E": Key.ENTER,
    "C": Key.CORRECT,
    "M": Key.MISS,
    "S": Key.END_SPEECH,
    "F": Key.FOUL,
    "U": Key.UNDO,
}


def keys(text: str) -> list[Key]:
    return [LETTERS.get(char) or Key(char) for char in text if not char.isspace()]


class FakeHost:
    def __init__(self, prompt: Prompt) -> None:
        self.current = prompt
        self.posted: list[Command] = []

    def prompt(self) -> Prompt:
        return self.current

    def handle(self, command: Command) -> bool:
        self.posted.append(command)
        return True

    step = 0  # no night step changes under this fake

    def refuses_out_of_step(self, *entry: object) -> bool:
        return False


def keypad(
    prompt: Prompt, timeout: float = 8.0
) -> tuple[KeypadController, FakeHost, RecordingCues, FakeClock]:
    host, cues, clock = FakeHost(prompt), RecordingCues(), FakeClock()
    return KeypadController(host, cues, clock, entry_timeout_seconds=timeout), host, cues, clock


def press(controller: KeypadController, text: str) -> None:
    for key in keys(text):
        controller.on_key(key)


def kp(event: object) -> Submit:
    return Submit(event, source="keypad")  # type: ignore[arg-type]


MAFIA_3 = Prompt(PromptKind.SEATS, 3, 3, night=True, role="mafia", action="register")
COMMISSAR_0 = Prompt(PromptKind.SEATS, 1, 1, night=True, role="commissar", action="register")
TARGET = Prompt(PromptKind.SEATS, 1, 1, night=True, role="mafia", action="kill", may_miss=True)
CHECK = Prompt(PromptKind.SEATS, 1, 1, night=True, role="commissar", action="check")
HEAL = Prompt(PromptKind.SEATS, 1, 1, night=True, role="doctor", action="heal")
NOMINATE_SPEAKING = Prompt(
    PromptKind.SEATS, 0, 2, subject=4, speech_running=True, action="nominate"
)
NOMINATE_AFTER = Prompt(PromptKind.SEATS, 1, 2, subject=4, action="nominate")
VOTE = Prompt(PromptKind.VOTE_COUNT, subject=3, max_count=9)
THIRD_VOTE = Prompt(PromptKind.THIRD_VOTE_COUNT, max_count=6)
COUNTED = Prompt(PromptKind.CONFIRM_VOTE)  # the counts are announced; nobody has left yet
SPEECH = Prompt(PromptKind.NONE, speech_running=True)
NOTHING = Prompt(PromptKind.NONE)

CASES = [
    # (what is asked, keys, commands posted, REJECT cues)
    (TARGET, "5E", [kp(EnterSeats((5,)))], 0),
    (TARGET, "M", [kp(Miss())], 0),
    (TARGET, "12E", [kp(EnterSeats((12,)))], 0),
    (TARGET, "13C2E", [kp(EnterSeats((12,)))], 0),
    (TARGET, "E", [], 1),
    (TARGET, "0E", [kp(EnterSeats((0,)))], 0),  # the rules refuse it: see the real-table test
    (TARGET, "1234", [], 1),  # a fourth digit: no number has four; the entry is cleared
    (TARGET, "12345E", [kp(EnterSeats((5,)))], 1),  # after the reject, a fresh start
    (CHECK, "7E", [kp(EnterSeats((7,)))], 0),
    (HEAL, "07E", [kp(EnterSeats((7,)))], 0),
    (COMMISSAR_0, "4E", [kp(EnterSeats((4,)))], 0),
    (MAFIA_3, "3E7E10E", [kp(EnterSeats((3, 7, 10)))], 0),
    (MAFIA_3, "3E7E", [], 0),  # two of three: waiting for the third
    (MAFIA_3, "3E7EE", [kp(EnterSeats((3, 7)))], 0),  # the host says how many are needed
    (MAFIA_3, "3E7ECC8E9E1E", [kp(EnterSeats((8, 9, 1)))], 0),  # C twice: typo gone, then all
    (NOMINATE_SPEAKING, "5E", [kp(EnterSeats((5,)))], 0),
    (NOMINATE_SPEAKING, "5E11E", [kp(EnterSeats((5,))), kp(EnterSeats((11,)))], 0),
    (NOMINATE_SPEAKING, "E", [kp(EndSpeech())], 0),
    (NOMINATE_AFTER, "5EE", [kp(EnterSeats((5,)))], 0),
    (NOMINATE_AFTER, "5E7E", [kp(EnterSeats((5, 7)))], 0),
    (NOMINATE_AFTER, "E", [], 1),
    (VOTE, "4E", [kp(VoteCount(4))], 0),
    (VOTE, "0E", [kp(VoteCount(0))], 0),
    (VOTE, "E", [], 1),
    (THIRD_VOTE, "6E", [kp(VoteCount(6))], 0),
    (COUNTED, "E", [kp(EndSpeech())], 0),  # the count is right: go on now
    (COUNTED, "S", [kp(EndSpeech())], 0),
    (COUNTED, "4E", [], 1),  # the counts are in: a number is no answer now
    (COUNTED, "12E", [], 1),
    (COUNTED, "4CE", [kp(EndSpeech())], 0),  # the digit deleted: a plain Enter
    (COUNTED, "U", [Undo(source="keypad")], 0),  # a miscount: take it back
    (COUNTED, "4U", [], 0),  # with something typed, undo only clears it
    (COUNTED, "4UU", [Undo(source="keypad")], 0),
    (COUNTED, "F7E", [kp(Foul(7))], 0),  # a foul during the pause is still a foul
    (SPEECH, "S", [kp(EndSpeech())], 0),
    (SPEECH, "E", [], 1),
    (NOTHING, "5E", [], 1),
    (SPEECH, "F5E", [kp(Foul(5))], 0),
    (VOTE, "F11E", [kp(Foul(11))], 0),  # a foul during a vote is not a count
    (TARGET, "F5E", [kp(Foul(5))], 0),
    (SPEECH, "FE", [], 1),
    (SPEECH, "F5CCS", [kp(EndSpeech())], 0),  # C with nothing typed drops the foul
    (NOTHING, "U", [Undo(source="keypad")], 0),
    (TARGET, "5U", [], 0),  # with something typed, undo only clears it
    (TARGET, "5UU", [Undo(source="keypad")], 0),
    (TARGET, "5U7E", [kp(EnterSeats((7,)))], 0),
]


@pytest.mark.parametrize(("prompt", "typed", "posted", "rejects"), CASES)
def test_key_sequence_gives_commands(
    prompt: Prompt, typed: str, posted: list[Command], rejects: int
) -> None:
    controller, host, cues, _ = keypad(prompt)
    press(controller, typed)
    assert host.posted == posted
    assert cues.played.count(Cue.REJECT) == rejects


@pytest.mark.parametrize(("prompt", "typed", "posted", "rejects"), CASES)
def test_every_key_press_sounds_the_same(
    prompt: Prompt, typed: str, posted: list[Command], rejects: int
) -> None:
    controller, _, cues, _ = keypad(prompt)
    press(controller, typed)
    sounding = [key for key in keys(typed) if not prompt.night or key in (Key.ENTER, Key.MISS)]
    assert cues.played.count(Cue.KEY_ACK) == len(sounding)
    assert set(cues.played) <= {Cue.KEY_ACK, Cue.REJECT}


def test_by_day_every_key_sounds() -> None:
    controller, _, cues, _ = keypad(VOTE)
    press(controller, "12CF3U")
    assert cues.played == [Cue.KEY_ACK] * 6


@pytest.mark.parametrize("prompt", [TARGET, CHECK, HEAL, COMMISSAR_0])
def test_a_night_entry_sounds_the_same_whatever_the_seat(prompt: Prompt) -> None:
    heard = set()
    for typed in ("1E", "5E", "9E", "10E", "13E", "1C3E") + (("M",) if prompt is TARGET else ()):
        controller, _, cues, _ = keypad(prompt)
        press(controller, typed)
        heard.add(tuple(cues.played))
    assert heard == {(Cue.KEY_ACK,)}  # one acknowledgement per entry, for any choice


def test_an_idle_pause_clears_a_half_typed_entry() -> None:
    controller, host, _, clock = keypad(TARGET, timeout=8)
    press(controller, "1")
    clock.advance(9)
    press(controller, "2E")
    assert host.posted == [kp(EnterSeats((2,)))]


def test_a_slow_but_steady_typist_keeps_the_entry() -> None:
    controller, host, _, clock = keypad(TARGET, timeout=8)
    for key in keys("12E"):
        clock.advance(5)
        controller.on_key(key)
    assert host.posted == [kp(EnterSeats((12,)))]


def test_collected_seats_are_cleared_when_the_game_moves_on() -> None:
    controller, host, _, _ = keypad(MAFIA_3)
    press(controller, "3E7E")
    host.current = COMMISSAR_0
    press(controller, "4E")
    assert host.posted == [kp(EnterSeats((4,)))]


def test_a_half_typed_foul_survives_the_next_speaker() -> None:
    controller, host, _, _ = keypad(NOMINATE_SPEAKING)
    press(controller, "F6")
    host.current = Prompt(PromptKind.SEATS, 0, 2, subject=5, speech_running=True, action="nominate")
    press(controller, "E")
    assert host.posted == [kp(Foul(6))]


def test_unplug_and_replug_drop_the_entry() -> None:
    controller, host, _, _ = keypad(TARGET)
    press(controller, "1")
    controller.on_status(False)
    controller.on_status(True)
    press(controller, "2E")
    assert host.posted == [kp(EnterSeats((2,)))]


def test_the_screen_can_show_what_is_typed() -> None:
    controller, _, _, _ = keypad(MAFIA_3)
    press(controller, "3E1")
    assert controller.entry.describe() == "3, 1_"
    press(controller, "CCF1")
    assert controller.entry.describe() == "фол 1_"


def test_a_key_before_the_game_starts_is_refused_without_a_crash() -> None:
    from voicehost.errors import VoicehostError

    class NotStarted(FakeHost):
        def prompt(self) -> Prompt:
            raise VoicehostError("the game has not started")

    host, cues = NotStarted(NOTHING), RecordingCues()
    controller = KeypadController(host, cues, FakeClock())
    press(controller, "5E")
    assert host.posted == []
    assert cues.played == [Cue.KEY_ACK, Cue.KEY_ACK, Cue.REJECT]


# Night 0 and day 1 of the golden game, up to the vote between seats 5 and 9.
TO_THE_VOTE = ["2 5 9", "wait", "4", "wait", "7", "wait", ".", "5 9", "."] + [
    line for seat in (5, 9, 5, 9, 5, 9, 9, 5, 9) for line in (str(seat), ".")
] + [".", "."]  # fmt: skip


def host_at_the_vote() -> tuple[Host, KeypadController, RecordingCues]:
    from voicehost import config
    from voicehost.console.script import run_script
    from voicehost.phrases import PhraseBook

    settings = config.loads("")
    clock = FakeClock()
    cues = RecordingCues()
    host = run_script(
        TO_THE_VOTE, settings, clock=clock, cues=cues, book=PhraseBook.load("ru")
    ).host
    assert host.prompt().kind is PromptKind.VOTE_COUNT and host.prompt().subject == 5
    return host, KeypadController(host, cues, clock), cues


def test_on_a_real_table_enter_confirms_the_count_and_a_number_is_refused() -> None:
    host, controller, cues = host_at_the_vote()
    press(controller, "6E")  # 6 against 5, the other 4 against 9
    host.process_pending()
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    press(controller, "7E")  # a second count during the pause: refused, nothing changes
    host.process_pending()
    assert cues.played[-1] is Cue.REJECT
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE and host.state.players[5].alive
    host.clock.advance(1.5)  # type: ignore[attr-defined]  # a FakeClock
    press(controller, "E")  # the count is right
    host.process_pending()
    assert not host.state.players[5].alive
    assert host.transcript[-2:] == [
        "Игрок номер пять покидает стол. Роль игрока: мафия.",
        "Последнее слово игроку номер пять.",
    ]


def test_on_a_real_table_undo_during_the_pause_asks_the_same_count_again() -> None:
    host, controller, cues = host_at_the_vote()
    press(controller, "4E")  # a miscount: 4 against 5, so 6 against 9
    host.process_pending()
    press(controller, "U")
    host.process_pending()
    assert host.prompt().kind is PromptKind.VOTE_COUNT and host.prompt().subject == 5
    press(controller, "6E")
    host.process_pending()
    host.clock.advance(1.5)  # type: ignore[attr-defined]  # a FakeClock
    press(controller, "E")
    host.process_pending()
    assert not host.state.players[5].alive and host.state.players[9].alive
    assert Cue.REJECT not in cues.played


def test_a_doubled_enter_right_after_the_count_does_not_skip_the_pause() -> None:
    host, controller, cues = host_at_the_vote()
    press(controller, "4E")
    host.process_pending()
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    press(controller, "E")  # a bounced Enter, 0 s later: it must not confirm a miscount
    host.process_pending()
    assert host.prompt().kind is PromptKind.CONFIRM_VOTE
    assert cues.played[-1] is Cue.REJECT
    press(controller, "U")  # so the miscount can still be taken back
    host.process_pending()
    assert host.prompt().kind is PromptKind.VOTE_COUNT and host.state.players[9].alive


@pytest.mark.parametrize("typed", ["0", "11", "100"])
def test_a_seat_not_at_the_table_is_refused_alike_from_the_keypad_and_the_keyboard(
    typed: str,
) -> None:
    """One seat rule: the rules refuse it, with the same words whichever way it came."""
    from voicehost.console.commandline import parse

    refusals = []
    for source in ("keypad", "keyboard"):
        host, controller, cues = host_at_the_vote()
        host.handle(Submit(VoteCount(6), source="keypad"))  # type: ignore[arg-type]
        assert host.prompt().kind is PromptKind.CONFIRM_VOTE
        fouls_before = [player.fouls for player in host.state.players.values()]
        before = list(host.inputs)
        if source == "keypad":
            press(controller, f"F{typed}E")
            host.process_pending()
            assert cues.played[-1] is Cue.REJECT
        else:
            host.handle(parse(f"f {typed}", host.prompt(), host.book))  # type: ignore[arg-type]
        assert host.inputs == before
        assert [player.fouls for player in host.state.players.values()] == fouls_before
        refusals.append(host.rejections[-1])
    assert refusals[0] == refusals[1]
    assert typed in refusals[0] and "10" in refusals[0]  # names the seat and the table's seats
