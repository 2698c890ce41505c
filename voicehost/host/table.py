"""What the table may see: the one function every shared screen draws from.

The terminal's status lines, the board on a TV (voicehost.web) and the remote's day view all
render a ``TableView``; privacy is decided here and nowhere else. It is built on the loop's
thread from the host (``table_view(host)``), and holds only what everyone at the table knows:

- by night, that it is night and which role is being woken (said aloud anyway), and the table as
  it was at nightfall: a foul typed at night (and the disqualification it brings) is heard in the
  morning, so it is not shown before;
- by day, the phase, who has the floor, the timer (its warning and its end), the table (who has
  left, the fouls), the nominations, the candidates with each count as it is entered, the result
  while it can still be corrected, and at the end the winner and the cards.

A ``TableView`` is plain data (``to_public()`` gives its JSON form); it carries no role before the
end of the game, no night choice and no private answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from voicehost.game.effects import Private, PrivateKind, PromptKind
from voicehost.game.inputs import Foul, Remove, TeamLoss, TimeUp
from voicehost.game.model import Seat
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook


@dataclass(frozen=True)
class SeatView:
    """One seat as the table sees it."""

    seat: int
    left: bool
    fouls: int
    card: str | None = None  # the role, at the end of the game only (those the host names)
    name: str | None = None  # the player's name, when the host gave one (host/names.py)


@dataclass(frozen=True)
class TimerView:
    """The running timer: what is left, whether the warning has sounded, whether time is up."""

    left: int  # whole seconds, rounded up
    total: int
    warning: bool
    ended: bool
    paused: bool


@dataclass(frozen=True)
class TableView:
    """Everything a shared screen may show at this moment."""

    language: str
    preset: str
    started: bool
    night: bool
    day: int
    night_number: int
    phase: str  # the phase's value (for styling), e.g. "nomination"
    phase_name: str  # its name in the game's language
    speaker: int | None
    lost_speech: bool
    timer: TimerView | None
    seats: tuple[SeatView, ...]
    nominations: tuple[tuple[int, tuple[int, ...]], ...]
    candidates: tuple[tuple[int, int | None], ...]  # seat, count as entered (None: not yet)
    counted: bool  # every count is in: the result, while it can still be corrected
    all_leave_votes: int | None  # the third vote's count for «all leave», once entered
    voting_on: int | None  # the candidate whose hands are being counted now
    winner: str | None
    over: bool
    paused: bool

    def to_public(self) -> dict[str, Any]:
        """The JSON form the board receives (nothing in it is secret). By night: that it is
        night and which role is woken, nothing else (not even the table as it was at dusk)."""
        if self.night:
            return {
                "language": self.language,
                "preset": self.preset,
                "started": self.started,
                "night": True,
                "night_number": self.night_number,
                "phase": self.phase,
                "phase_name": self.phase_name,
                "paused": self.paused,
            }
        return {
            "language": self.language,
            "preset": self.preset,
            "started": self.started,
            "night": self.night,
            "day": self.day,
            "night_number": self.night_number,
            "phase": self.phase,
            "phase_name": self.phase_name,
            "speaker": self.speaker,
            "lost_speech": self.lost_speech,
            "timer": None
            if self.timer is None
            else {
                "left": self.timer.left,
                "total": self.timer.total,
                "warning": self.timer.warning,
                "ended": self.timer.ended,
                "paused": self.timer.paused,
            },
            "seats": [
                {"seat": s.seat, "left": s.left, "fouls": s.fouls, "card": s.card, "name": s.name}
                for s in self.seats
            ],
            "nominations": [[by, list(seats)] for by, seats in self.nominations],
            "candidates": [[seat, count] for seat, count in self.candidates],
            "counted": self.counted,
            "all_leave_votes": self.all_leave_votes,
            "voting_on": self.voting_on,
            "winner": self.winner,
            "over": self.over,
            "paused": self.paused,
        }


def table_view(host: Host) -> TableView:
    """What the table may see now. On the loop's thread (it reads the game's state)."""
    settings = host.settings
    preset = settings.game.rules.preset
    state = host.state
    book = host.book
    if state is None:
        return TableView(
            settings.language, preset, False, False, 0, 0, "", book.screen("no_game"), None,
            False, None, (), (), (), False, None, None, None, False, False,
        )  # fmt: skip
    night = state.phase.is_night
    over = state.over
    speaker = None
    lost = False
    if not night and state.current_speaker is not None and state.speech_running:
        speaker = int(state.current_speaker)
        lost = state.nominating and state.lost_speech == state.current_speaker
    nominations: tuple[tuple[int, tuple[int, ...]], ...] = ()
    candidates: tuple[tuple[int, int | None], ...] = ()
    counted = False
    all_leave: int | None = None
    voting_on: int | None = None
    if not night:
        if state.nominating:
            nominations = tuple(
                (int(by), tuple(int(seat) for seat in seats))
                for by, seats in state.nominations.items()
                if seats
            )
        candidates = tuple((int(seat), state.vote_counts.get(seat)) for seat in state.candidates)
        counted = state.vote_settling is not None
        voting = state.voting and state.vote_settling is None
        if voting and state.vote_index < len(state.candidates):
            voting_on = int(state.candidates[state.vote_index])
        if state.vote_settling == "third":
            all_leave = state.third_vote_for
    return TableView(
        language=settings.language,
        preset=preset,
        started=True,
        night=night,
        day=state.day,
        night_number=state.night,
        phase=state.phase.value,
        phase_name=book.phase_name(state.phase.value, preset),
        speaker=speaker,
        lost_speech=lost,
        timer=None if night or over else _timer(host),  # a finished game has no clock
        seats=_seats(host, night, over),
        nominations=nominations,
        candidates=candidates,
        counted=counted,
        all_leave_votes=all_leave,
        voting_on=voting_on,
        winner=None if state.winner is None else state.winner.value,
        over=over,
        paused=host.paused_at is not None,
    )


def _timer(host: Host) -> TimerView | None:
    timer = host.timer
    paused = host.paused_at is not None
    if timer is not None:
        left = host.remaining() or 0.0
        total = int(timer.effect.seconds + 0.999)
        return TimerView(int(left + 0.999), total, timer.warned, False, paused)
    last = host.accepted[-1] if host.accepted else None
    state = host.state
    if (
        last is not None
        and isinstance(last.event, TimeUp)
        and state is not None
        and last.phase_before is state.phase
    ):  # the time ran out and the table still waits for that step (a late nomination)
        return TimerView(0, 0, True, True, paused)
    return None  # (a vote that followed the last speech is no time-up)


def _seats(host: Host, night: bool, over: bool) -> tuple[SeatView, ...]:
    """The table; by night as it was at nightfall (a night foul is heard in the morning)."""
    state = host.state
    assert state is not None
    hidden_fouls: dict[Seat, int] = {}
    hidden_left: set[Seat] = set()
    if night:
        for item in reversed(host.accepted):
            if not item.phase_before.is_night:
                break
            event = item.event
            if isinstance(event, Foul):
                hidden_fouls[event.seat] = hidden_fouls.get(event.seat, 0) + 1
                hidden_left.add(event.seat)
            elif isinstance(event, Remove | TeamLoss):
                hidden_left.add(event.seat)
    shown_cards = host.engine.cards_at_end() if over else ()  # the cards the host names
    seats = []
    for seat, player in sorted(state.players.items()):
        left = not player.alive
        if seat in hidden_left and player.left_how in ("disqualified", "removed"):
            left = False
        fouls = max(0, player.fouls - hidden_fouls.get(seat, 0))
        card = player.role.value if player.role in shown_cards else None
        seats.append(SeatView(int(seat), left, fouls, card, host.names.get(seat)))
    return tuple(seats)


def private_text(message: Private, book: PhraseBook) -> str:
    """The private answer as its role reads it (the screen line, the remote): neutral, and the
    same length for 'mafia' and 'not mafia'; a refusal's reason for the role that is awake; an
    entry taken, with the step that took it («ввод принят: мафия»), the same whatever seat."""
    if message.kind in (PrivateKind.ANSWER, PrivateKind.REFUSED):
        return book.screen(message.answer)  # the rule set's words for its answer, the reason
    if not message.role:
        return book.screen("private_ack")
    return book.screen("private_ack_step", {"role": book.screen(f"card_{message.role}")})


def night_clock(host: Host, book: PhraseBook) -> str:
    """What is left of the night step's window («0:12»), for the host's screen and remote
    only; empty by day or when no window runs. A window lasts the same whatever is entered."""
    state = host.state
    left = host.remaining()
    if state is None or not state.phase.is_night or left is None or state.over:
        return ""
    minutes, seconds = divmod(int(left + 0.999), 60)
    return f"{minutes}:{seconds:02d}"


#: The screen text of the questions that are not a rule set's own (a key of the ``screen``
#: section); a seats question carries its words (``Prompt.question``).
PROMPT_KEYS = {
    PromptKind.VOTE_COUNT: "prompt_vote_count",
    PromptKind.THIRD_VOTE_COUNT: "prompt_third_vote_count",
    PromptKind.CONFIRM_VOTE: "prompt_confirm_vote",
}


def prompt_text(host: Host, face: str = "") -> str:
    """The question of the moment, as the person at the keyboard reads it; ``face`` names
    another way of answering (``web``: the remote's buttons; ``plain``: the line mode), whose
    own wording of a question (``web_prompt_...`` in the book) is used where it has one. Where
    nothing can be entered (FIIM's free seating, the end of the game) it says what happens."""
    book = host.book
    keys = book.screen_keys()

    def worded(key: str) -> str:
        return f"{face}_{key}" if face and f"{face}_{key}" in keys else key

    prompt = host.prompt()
    key = prompt.question or PROMPT_KEYS.get(prompt.kind)
    if key == "prompt_confirm_vote":
        left = host.remaining()
        if left is not None:
            left_key = worded("prompt_confirm_vote_left")
            return book.screen(left_key, {"seconds": int(left + 0.999)})
    own = f"{host.settings.game.rules.preset}_{key}"  # a preset's own wording of a question
    if key is not None and own in keys:
        key = own
    if key is not None:
        key = worded(key)
        text = book.screen(
            key,
            {
                "seats": prompt.seats_max,
                "seat": prompt.subject,
                "max": prompt.max_count,
                "turn": prompt.turn,
                "turns": prompt.turns,
                "seconds": int((host.remaining() or 0.0) + 0.999),
            },
        )
        if prompt.late:
            return book.screen("prompt_still_waiting", {"question": text})
        if host.resumed_step == host.step and key != "prompt_check_done":
            return book.screen("prompt_entry_held", {"question": text})  # resumed, entered
        return text
    if prompt.speech_running:
        state = host.state
        if state is not None and state.discussing:
            return book.screen(worded("prompt_end_discussion"))
        return book.screen(worded("prompt_end_speech"))
    return ""
