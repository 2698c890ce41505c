"""The game's state: plain data, cloned before every step so that a rejected input changes nothing.

Everything the protocol needs is kept here too (``record``), so the protocol of a game is a pure
function of its inputs, exactly like the state. ``clone`` copies what a step may change and
shares the rest with the state it came from: the record's earlier days, nights, fouls and
departures are never changed once written (the engine copies today's record before changing it,
``owns_day``), so a step costs the same early and late in a game, and every state the host keeps
for undo stays as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.record import GameRecord, new_record


@dataclass
class Player:
    """One seat at the table."""

    seat: Seat
    role: Role | None = None  # known after night 0
    alive: bool = True
    fouls: int = 0
    left_how: str | None = None  # "vote", "kill", "disqualified" or (FIIM) "removed"


@dataclass
class Timer:
    """The running timer, as the engine asked for it."""

    timer_id: int
    kind: TimerKind
    seconds: float
    warn_before: float | None
    listen: bool
    speaker: Seat | None = None


@dataclass
class NightActions:
    """What the roles entered during one night. Never spoken during the night."""

    shot: Seat | None = None
    shot_entered: bool = False  # a seat or an explicit miss
    check: Seat | None = None
    heal: Seat | None = None
    warned: bool = False
    disqualified: list[Seat] = field(default_factory=list)
    # FIIM: each living black player's shot in seat order (None: no shot), and the two checks
    shots: list[tuple[Seat, Seat | None]] = field(default_factory=list)
    checks: dict[Role, Seat] = field(default_factory=dict)  # each checking role's seat
    blocks: dict[Role, Seat] = field(default_factory=dict)  # the «путана»'s client
    other_kills: dict[Role, Seat | None] = field(default_factory=dict)  # Maniac, Commissar
    check_announced: bool = False  # the morning told the town of the Commissar's find
    saved: bool = False  # the morning: the heal saved the shot player
    killed: list[Seat] = field(default_factory=list)
    # the roles that have left whose step took an entry tonight, dropped (fair nights)
    dropped: tuple[Role, ...] = ()
    # FIIM: the black players who have left whose shot's turn took an entry tonight, dropped
    dropped_shots: tuple[Seat, ...] = ()

    def clone(self) -> NightActions:
        return replace(
            self,
            disqualified=list(self.disqualified),
            shots=list(self.shots),
            checks=dict(self.checks),
            blocks=dict(self.blocks),
            other_kills=dict(self.other_kills),
            killed=list(self.killed),
        )


@dataclass
class GameState:
    """Where the game is, who is at the table, and what has happened."""

    players: dict[Seat, Player]
    phase: Phase
    day: int = 0
    night: int = 0
    timer: Timer | None = None
    timer_seq: int = 0
    speech_running: bool = False
    step_entered: bool = False  # night step: the role has entered its choice
    window_over: bool = False  # night step: its fixed window has run out
    speakers: list[Seat] = field(default_factory=list)  # still to speak in this round
    current_speaker: Seat | None = None
    first_speaker: Seat | None = None
    nominations: dict[Seat, list[Seat]] = field(default_factory=dict)
    candidates: list[Seat] = field(default_factory=list)
    vote_round: int = 1
    vote_index: int = 0
    vote_counts: dict[Seat, int] = field(default_factory=dict)
    vote_settling: str | None = None  # "vote" or "third": counted, departures not yet announced
    vote_starts: int = 0  # votes started again after a disqualification (voter lists before it
    # are void)
    third_vote_for: int = 0
    last_words_queue: list[Seat] = field(default_factory=list)
    after_last_words: str = "night"  # "night", "day" or (FIIM) "end": the winner is announced
    # Players disqualified by day who speak their last words before the town falls asleep
    # (rules.disqualified_last_words): a disqualification must not interrupt a speech or a vote.
    disqualified_to_speak: list[Seat] = field(default_factory=list)
    night_actions: NightActions = field(default_factory=NightActions)
    # FIIM: seats whose next ordinary speech a third foul took (MR 9.5.1); the day whose vote a
    # removal cancelled (MR 9.8); nights-and-days in a row with nobody leaving (MR 1.5); and the
    # first night's victim while their best move is still to be entered (MR 8.17.1)
    speech_lost: list[Seat] = field(default_factory=list)
    lost_speech: Seat | None = None  # whose lost speech's window is open now
    short_speech: Seat | None = None  # whose short speech instead (3 or 4 players) runs now
    vote_cancelled_day: int | None = None
    quiet_rounds: int = 0
    departures_at_dusk: int = 0
    departures_at_morning: int = 0
    best_move_by: Seat | None = None
    pending_winner: Team | None = None  # FIIM: decided; announced after the last minute (MR 8.19.1)
    winner: Team | None = None
    record: GameRecord = field(default_factory=lambda: new_record(0, 0))
    # the seat each protecting role chose last night (not the same one twice running); roles
    # whose once-a-game choice is spent (the Doctor healing himself); who may not vote today
    previous: dict[Role, Seat | None] = field(default_factory=dict)
    used_once: tuple[Role, ...] = ()
    vote_blocked: list[Seat] = field(default_factory=list)
    owns_day: bool = False  # today's record is this state's own copy (see clone)

    def clone(self) -> GameState:
        """A copy a step may change without touching this state (see the module's note)."""
        record = self.record.copy()
        record["days"] = list(record["days"])
        record["nights"] = list(record["nights"])
        record["fouls"] = list(record["fouls"])
        record["departures"] = list(record["departures"])
        return replace(
            self,
            players={seat: replace(player) for seat, player in self.players.items()},
            speakers=list(self.speakers),
            nominations=dict(self.nominations),
            candidates=list(self.candidates),
            vote_counts=dict(self.vote_counts),
            last_words_queue=list(self.last_words_queue),
            disqualified_to_speak=list(self.disqualified_to_speak),
            night_actions=self.night_actions.clone(),
            speech_lost=list(self.speech_lost),
            record=record,
            previous=dict(self.previous),
            vote_blocked=list(self.vote_blocked),
            owns_day=False,
        )

    @property
    def over(self) -> bool:
        """The game has ended (a winner, a draw or a team's loss)."""
        return self.phase is Phase.GAME_OVER

    @property
    def discussing(self) -> bool:
        """The day's free discussion is under way."""
        return self.phase is Phase.DISCUSSION

    @property
    def voting(self) -> bool:
        """A vote by show of hands is under way (not the third one)."""
        return self.phase is Phase.VOTE

    @property
    def nominating(self) -> bool:
        """The nomination round is under way."""
        return self.phase is Phase.NOMINATION

    def living(self) -> list[Seat]:
        """Seats still at the table, in seat order."""
        return [seat for seat, player in sorted(self.players.items()) if player.alive]

    def holder(self, role: Role) -> Seat | None:
        """The seat holding a single role (Commissar or Doctor), if registered."""
        for seat, player in sorted(self.players.items()):
            if player.role is role:
                return seat
        return None

    def role_alive(self, role: Role) -> bool:
        seat = self.holder(role)
        return seat is not None and self.players[seat].alive
