"""The game's state: plain data, copied before every step so that a rejected input changes nothing.

Everything the protocol needs is kept here too (``record``), so the protocol of a game is a pure
function of its inputs, exactly like the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    don_check: Seat | None = None
    sheriff_check: Seat | None = None


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
    third_vote_for: int = 0
    last_words_queue: list[Seat] = field(default_factory=list)
    after_last_words: str = "night"  # "night", "day" or (FIIM) "end": the winner is announced
    # Players disqualified by day who speak their last words before the town falls asleep
    # (rules.disqualified_last_words): a disqualification must not interrupt a speech or a vote.
    disqualified_to_speak: list[Seat] = field(default_factory=list)
    night_actions: NightActions = field(default_factory=NightActions)
    previous_heal: Seat | None = None
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

    def living(self) -> list[Seat]:
        """Seats still at the table, in seat order."""
        return [seat for seat, player in sorted(self.players.items()) if player.alive]

    def living_of(self, team: Team) -> int:
        """How many players of a team are still at the table."""
        return sum(
            1
            for player in self.players.values()
            if player.alive and player.role is not None and player.role.team is team
        )

    def holder(self, role: Role) -> Seat | None:
        """The seat holding a single role (Commissar or Doctor), if registered."""
        for seat, player in sorted(self.players.items()):
            if player.role is role:
                return seat
        return None

    def role_alive(self, role: Role) -> bool:
        seat = self.holder(role)
        return seat is not None and self.players[seat].alive
