"""Sport Mafia by the FIIM rules (docs/RULES-FIIM.md) on the club engine.

``FiimEngine`` is ``Engine`` with the rule functions that differ replaced: night 0 («договорка»),
the day of 60 s speeches with one nomination each, the vote in nomination order, the tie rules
and «поднять всех», the night's three steps (the shot that counts only when every black player
agrees, the Don's and the Sheriff's private checks) and hidden roles. Everything else (timers,
speeches, the vote's count and pause, last words, the win check, the record) is the club's code.
Rule numbers in the comments are those of docs/RULES-FIIM.md's sources (MR = mafiaratings).
"""

from __future__ import annotations

from voicehost.game.effects import (
    Effect,
    GameOver,
    Private,
    PrivateKind,
    Prompt,
    PromptKind,
    Say,
)
from voicehost.game.engine import REGISTRATION_STEPS, Engine, _role_value
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import EnterSeats, Foul, Miss, Remove, TeamLoss, TimeUp, VoteCount
from voicehost.game.model import Phase, Role, Seat, Team, TimerKind
from voicehost.game.record import GameRecord, ScoreLine, seat_key
from voicehost.game.rules import FiimSettings, GameRules
from voicehost.game.state import GameState, NightActions

NIGHT0_ORDER = (Phase.NIGHT0_MAFIA, Phase.NIGHT0_DON, Phase.NIGHT0_SHERIFF)
NIGHT_ORDER = (Phase.NIGHT_MAFIA, Phase.NIGHT_DON, Phase.NIGHT_SHERIFF)

WAKES = {
    Phase.NIGHT0_MAFIA: "fiim.black_wakes",
    Phase.NIGHT0_DON: "fiim.don_seen",
    Phase.NIGHT0_SHERIFF: "fiim.sheriff_seen",
    Phase.NIGHT_MAFIA: "fiim.shot_wakes",
    Phase.NIGHT_DON: "fiim.don_wakes",
    Phase.NIGHT_SHERIFF: "fiim.sheriff_wakes",
    Phase.NIGHT0_SEATING: "fiim.free_seating",
}

SLEEPS = {
    Phase.NIGHT0_MAFIA: "night.mafia_sleeps",
    Phase.NIGHT_MAFIA: "night.mafia_sleeps",
    Phase.NIGHT0_DON: "fiim.don_sleeps",
    Phase.NIGHT_DON: "fiim.don_sleeps",
    Phase.NIGHT0_SHERIFF: "fiim.sheriff_sleeps",
    Phase.NIGHT_SHERIFF: "fiim.sheriff_sleeps",
}

PROMPTS = {
    Phase.NIGHT0_DON: PromptKind.REGISTER_DON,
    Phase.NIGHT0_SHERIFF: PromptKind.REGISTER_SHERIFF,
    Phase.NIGHT_MAFIA: PromptKind.MAFIA_TARGET,
    Phase.NIGHT_DON: PromptKind.DON_CHECK,
    Phase.NIGHT_SHERIFF: PromptKind.SHERIFF_CHECK,
}

BLACK = (Role.MAFIA, Role.DON)


class FiimEngine(Engine):
    """The FIIM rules for one table of ten; stateless between calls, like ``Engine``."""

    def __init__(self, settings: GameRules) -> None:
        super().__init__(settings)
        self.fiim = settings.fiim

    def new_game(self) -> tuple[GameState, list[Effect]]:
        state, out = super().new_game()
        state.record["preset"] = "fiim"
        state.record["best_move"] = None
        return state, out

    # ------------------------------------------------------------------ questions

    def prompt(self, state: GameState) -> Prompt:
        phase = state.phase
        late = state.window_over
        if self._best_move_open(state):
            return Prompt(
                PromptKind.BEST_MOVE, 3, 3, subject=state.best_move_by, speech_running=True
            )
        if phase is Phase.NIGHT0_MAFIA:
            count = self.settings.mafia_count
            return Prompt(PromptKind.REGISTER_MAFIA, count, count, night=True, late=late)
        if phase in PROMPTS:
            late = late and phase in REGISTRATION_STEPS
            return Prompt(PROMPTS[phase], 1, 1, night=True, late=late)
        if phase is Phase.NIGHT0_SEATING:
            return Prompt(PromptKind.NONE, night=True)
        if phase is Phase.NOMINATION:
            speaker = state.current_speaker
            if speaker is not None and state.speech_running and not state.nominations.get(speaker):
                return Prompt(PromptKind.NOMINATE, 1, 1, subject=speaker, speech_running=True)
            return Prompt(PromptKind.NONE, speech_running=state.speech_running)
        if phase is Phase.VOTE and state.vote_settling is None:
            voters = len(state.living())
            room = voters - sum(state.vote_counts.values())
            candidate = state.candidates[state.vote_index]
            return Prompt(PromptKind.VOTE_COUNT, subject=candidate, max_count=room)
        return super().prompt(state)

    def resume_effects(self, state: GameState) -> list[Effect]:
        out: list[Effect] = [Say("game.resumed")]
        if state.phase is Phase.GAME_OVER:
            return out
        phase = state.phase
        if phase in WAKES:
            out.append(Say(WAKES[phase]))
        elif phase is Phase.THIRD_VOTE and state.vote_settling is None:
            out.append(Say("fiim.lift_question", {"seats": tuple(state.candidates)}))
        elif phase is Phase.VOTE and state.vote_settling is None:
            out.append(Say(self._vote_start_key(state), {"seats": tuple(state.candidates)}))
            out.append(Say("day.vote_for", {"seat": state.candidates[state.vote_index]}))
        elif state.current_speaker is not None and state.speech_running:
            seat = state.current_speaker
            kind = state.timer.kind if state.timer is not None else TimerKind.NOMINATION_SPEECH
            if seat == state.lost_speech:  # MR 9.5.1: the table hears again it is no speech
                out.append(Say("fiim.speech_skipped", {"seat": seat}))
            elif seat == state.short_speech:
                out.append(Say("fiim.short_speech", {"seat": seat}))
            else:
                out.append(Say(self._floor(kind)[0], {"seat": seat}))
        timer = state.timer
        if timer is not None and not (phase in REGISTRATION_STEPS and state.window_over):
            out.append(self.timer_effect(timer))
        return out

    # ------------------------------------------------------------------ night 0 (MR 4.3 to 5.4)

    def _start_night0(self, state: GameState, out: list[Effect]) -> None:
        out.append(Say("fiim.night0_start"))
        self._wake(state, out, Phase.NIGHT0_MAFIA)

    def _wake(self, state: GameState, out: list[Effect], phase: Phase) -> None:
        state.phase = phase
        state.step_entered = False
        state.window_over = False
        out.append(Say(WAKES[phase]))
        fiim = self.fiim
        seconds = {
            Phase.NIGHT0_MAFIA: fiim.night0_black_seconds,
            Phase.NIGHT0_DON: fiim.night0_role_window_seconds,
            Phase.NIGHT0_SHERIFF: fiim.night0_role_window_seconds,
            Phase.NIGHT_MAFIA: fiim.shot_window_seconds,
            Phase.NIGHT_DON: fiim.check_window_seconds,
            Phase.NIGHT_SHERIFF: fiim.check_window_seconds,
        }[phase]
        self._start_timer(state, out, TimerKind.NIGHT_WINDOW, seconds, None)

    @staticmethod
    def _wake_key(phase: Phase) -> str:
        return WAKES[phase]

    def _on_seats(self, state: GameState, event: EnterSeats, out: list[Effect]) -> None:
        phase = state.phase
        if phase in NIGHT0_ORDER:
            self._register(state, event.seats, out)
        elif phase is Phase.NIGHT_MAFIA:
            self._exactly(event.seats, 1)
            self._validate_seat(state, event.seats[0])
            self._shoot(state, event.seats[0], out)
        elif phase in (Phase.NIGHT_DON, Phase.NIGHT_SHERIFF):
            self._check(state, event.seats, out)
        elif phase is Phase.NOMINATION:
            self._nominate(state, event.seats, out)
        elif self._best_move_open(state):
            self._best_move(state, event.seats, out)
        else:
            raise RuleViolation("not_now", phase=phase.value)

    def _register(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        """Night 0: the black team gives its three seats, then the Don and the Sheriff their
        own (MR 5.1, 5.2); the host learns the cards, the table hears nothing of them."""
        phase = state.phase
        self._exactly(seats, self.settings.mafia_count if phase is Phase.NIGHT0_MAFIA else 1)
        for index, seat in enumerate(seats):
            self._validate_seat(state, seat, alive=False)
            if seat in seats[:index]:
                raise RuleViolation("duplicate_seats", seat=seat)
        players = state.players
        if phase is Phase.NIGHT0_MAFIA:
            for player in players.values():  # a corrected entry replaces the earlier one
                if player.role in BLACK:
                    player.role = None
            for seat in seats:
                players[seat].role = Role.MAFIA
        elif phase is Phase.NIGHT0_DON:
            seat = seats[0]
            if players[seat].role not in BLACK:
                raise RuleViolation("fiim_don_not_black", seat=seat)
            for player in players.values():
                if player.role is Role.DON:
                    player.role = Role.MAFIA
            players[seat].role = Role.DON
        else:
            seat = seats[0]
            if players[seat].role in BLACK:
                raise RuleViolation("fiim_sheriff_is_black", seat=seat)
            for player in players.values():
                if player.role is Role.SHERIFF:
                    player.role = None
            players[seat].role = Role.SHERIFF
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=tuple(sorted(seats))))
        self._maybe_finish_night_step(state, out)

    def _maybe_finish_night_step(self, state: GameState, out: list[Effect]) -> None:
        """A night step ends when its fixed window is over; on night 0 only once the role has
        entered, so that the host knows every card. Every step is called, even when its role has
        left: skipping it would tell the table who that was."""
        if not state.window_over:
            return
        if state.phase in REGISTRATION_STEPS and not state.step_entered:
            return
        out.append(Say(SLEEPS[state.phase]))
        order = NIGHT0_ORDER if state.phase in NIGHT0_ORDER else NIGHT_ORDER
        position = order.index(state.phase)
        if position + 1 < len(order):
            self._wake(state, out, order[position + 1])
        elif order is NIGHT0_ORDER:
            self._free_seating(state, out)
        else:
            self._morning(state, out)

    def _free_seating(self, state: GameState, out: list[Effect]) -> None:
        """MR 5.3: the players may sit more comfortably before the first morning."""
        state.phase = Phase.NIGHT0_SEATING
        state.window_over = False
        seconds = self.fiim.free_seating_seconds
        if seconds <= 0:
            self._first_morning(state, out)
            return
        out.append(Say(WAKES[Phase.NIGHT0_SEATING]))
        self._start_timer(state, out, TimerKind.NIGHT_WINDOW, seconds, None)

    def _on_time_up(self, state: GameState, event: TimeUp, out: list[Effect]) -> None:
        if state.phase is Phase.NIGHT0_SEATING:
            self._check_timer(state, event.timer_id)
            state.timer = None
            self._first_morning(state, out)
            return
        super()._on_time_up(state, event, out)

    def _first_morning(self, state: GameState, out: list[Effect]) -> None:
        for player in state.players.values():
            if player.role is None:
                player.role = Role.CIVILIAN
        for departure in state.record["departures"]:  # left before the cards were known
            departure["role"] = _role_value(state.players[departure["seat"]].role)
        state.record["roles"] = {
            seat_key(seat): player.role.value
            for seat, player in sorted(state.players.items())
            if player.role is not None
        }
        removed = list(state.night_actions.disqualified)
        state.record["nights"].append({"night": 0, "disqualified": removed})
        state.night_actions = NightActions()
        out.append(Say("fiim.morning"))
        for seat in removed:
            out.append(Say("fiim.removed", {"seat": seat}))
        if self._announce_winner(state, out):
            return
        self._start_day(state, out)

    # ------------------------------------------------------------------ the night (MR 8)

    def _black_seats(self, state: GameState) -> list[Seat]:
        return [seat for seat in state.living() if state.players[seat].role in BLACK]

    def _shoot(self, state: GameState, target: Seat | None, out: list[Effect]) -> None:
        """MR 8.4: each living black player shoots in turn, in seat order."""
        actions = state.night_actions
        shot = {shooter for shooter, _ in actions.shots}
        waiting = [seat for seat in self._black_seats(state) if seat not in shot]
        if not waiting:
            raise RuleViolation("fiim_shots_entered")
        actions.shots.append((waiting[0], target))
        actions.shot_entered = True
        state.step_entered = True
        out.append(Private(PrivateKind.ENTRY_CONFIRMED, seats=() if target is None else (target,)))

    def _on_miss(self, state: GameState, event: Miss, out: list[Effect]) -> None:
        if state.phase is not Phase.NIGHT_MAFIA:
            raise RuleViolation("not_now", phase=state.phase.value)
        self._shoot(state, None, out)

    def _check(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        """MR 8.8 to 8.15: one check a night; the answer goes to the one who asked alone."""
        self._exactly(seats, 1)
        seat = seats[0]
        self._validate_seat(state, seat, alive=False)  # any seat: a departed one is wasted
        actions = state.night_actions
        don = state.phase is Phase.NIGHT_DON
        role = Role.DON if don else Role.SHERIFF
        if not state.role_alive(role):
            raise RuleViolation("fiim_role_left")
        if (actions.don_check if don else actions.sheriff_check) is not None:
            raise RuleViolation("fiim_already_checked")
        card = state.players[seat].role
        if don:
            actions.don_check = seat
            out.append(Private(PrivateKind.DON_ANSWER, found=card is Role.SHERIFF))
        else:
            actions.sheriff_check = seat
            out.append(Private(PrivateKind.SHERIFF_ANSWER, found=card in BLACK))
        state.step_entered = True

    def _morning(self, state: GameState, out: list[Effect]) -> None:
        """MR 8.5, 8.7: the shot kills only when every living black player shot the same
        living seat; anything else is a miss. No role is named."""
        state.timer = None
        actions = state.night_actions
        shooters = self._black_seats(state)
        targets = [target for shooter, target in actions.shots if shooter in shooters]
        agreed = (
            bool(shooters)
            and len(targets) == len(shooters)
            and len(set(targets)) == 1
            and targets[0] is not None
            and state.players[targets[0]].alive
        )
        killed = targets[0] if agreed else None
        out.append(Say("fiim.morning"))
        if killed is not None:
            out.append(Say("fiim.killed", {"seat": killed}))
        else:
            out.append(Say("fiim.miss"))
        removed = list(actions.disqualified)
        for seat in removed:  # at night the host never speaks a seat number (MR 9.7)
            out.append(Say("fiim.removed", {"seat": seat}))
        players = state.players
        don_check, sheriff_check = actions.don_check, actions.sheriff_check
        state.record["nights"].append(
            {
                "night": state.night,
                "shots": {seat_key(shooter): target for shooter, target in actions.shots},
                "shot": killed,
                "killed": killed,
                "don_check": don_check,
                "don_found_sheriff": (
                    None if don_check is None else players[don_check].role is Role.SHERIFF
                ),
                "sheriff_check": sheriff_check,
                "sheriff_found_black": (
                    None if sheriff_check is None else players[sheriff_check].role in BLACK
                ),
                "disqualified": removed,
            }
        )
        state.night_actions = NightActions()
        if killed is not None:
            self._depart(state, out, killed, "kill")
        if self._announce_winner(state, out) or self._announce_draw(state, out):
            return
        state.after_last_words = "day"
        state.last_words_queue = [killed] if killed is not None else []
        if state.last_words_queue and self.rules.last_words_after_kill:
            best_move = killed is not None and self._best_move_due(state)
            if best_move:
                out.append(Say("fiim.best_move", {"seat": killed}))
            self._next_last_words(state, out)
            if best_move:
                state.best_move_by = killed
        else:
            state.last_words_queue = []
            self._start_day(state, out)

    # ------------------------------------------------------------------ departures

    def _announce_departure(
        self, state: GameState, out: list[Effect], seat: Seat, how: str
    ) -> None:
        """A player leaves with their card hidden (MR 7.24, 8.5)."""
        if how == "vote":
            out.append(Say("fiim.leaves", {"seat": seat}))
        elif how != "kill" and not state.phase.is_night:  # the morning tells of these
            out.append(Say("fiim.removed", {"seat": seat}))
        if seat in state.speech_lost:
            state.speech_lost.remove(seat)

    # ------------------------------------------------------------------ the day (MR 6, 7)

    def _floor(self, kind: TimerKind) -> tuple[str, float]:
        fiim = self.fiim
        if kind is TimerKind.NOMINATION_SPEECH:
            return "day.speech_nomination", fiim.speech_seconds
        if kind is TimerKind.DEFENCE_SPEECH:
            return "fiim.tie_speech", fiim.tie_speech_seconds
        if kind is TimerKind.LAST_WORDS:
            return "day.last_words", fiim.last_words_seconds
        return super()._floor(kind)

    def _start_day(self, state: GameState, out: list[Effect]) -> None:
        """Speeches at once, opened one seat further on each day (MR 6.1 to 6.3.1)."""
        self._open_day(state, Phase.NOMINATION)
        living = state.living()
        previous = state.first_speaker
        later = [seat for seat in living if previous is not None and seat > previous]
        first = later[0] if later else living[0]
        state.first_speaker = first
        start = living.index(first)
        state.speakers = living[start:] + living[:start]
        self._next_nomination_speaker(state, out)

    def _nomination_speech_over(self, state: GameState, out: list[Effect]) -> None:
        self._next_nomination_speaker(state, out)  # nominating is a choice, not a duty

    def _nominate(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        """MR 7.2 to 7.6: during one's own speech, at most one seat, not one already up; the
        host confirms it aloud."""
        speaker = state.current_speaker
        if speaker is None or not state.speech_running:
            raise RuleViolation("fiim_nominate_in_speech")
        self._exactly(seats, 1)
        seat = seats[0]
        self._validate_seat(state, seat)
        if state.nominations.get(speaker):
            raise RuleViolation("fiim_one_nomination", seat=speaker)
        if seat in self._nominated(state):
            raise RuleViolation("fiim_already_nominated", seat=seat)
        state.nominations[speaker] = [seat]
        self._day_record(state)["nominations"][seat_key(speaker)] = [seat]
        out.append(Say("day.nomination_accepted", {"seat": seat}))

    @staticmethod
    def _nominated(state: GameState) -> list[Seat]:
        """The nominated seats in the order they were nominated."""
        return [seat for nominees in state.nominations.values() for seat in nominees]

    def _announce_candidates(self, state: GameState, out: list[Effect]) -> None:
        candidates = [seat for seat in self._nominated(state) if state.players[seat].alive]
        state.candidates = candidates
        self._day_record(state)["candidates"] = list(candidates)
        if state.vote_cancelled_day == state.day:  # a removal cancelled it (MR 9.8)
            self._cancel_vote(state, out)
        elif not candidates:
            out.append(Say("fiim.no_nominations"))
            self._begin_night(state, out)
        elif (
            len(candidates) == 1
            and state.day == 1
            and (self.fiim.first_day_single_nominee == "no_vote")
        ):
            out.append(Say("fiim.single_no_vote", {"seat": candidates[0]}))  # MR 7.16.1
            self._begin_night(state, out)
        else:
            self._start_vote(state, out)

    def _vote_start_key(self, state: GameState) -> str:
        return "fiim.vote_start" if state.vote_round == 1 else "fiim.revote_start"

    def _start_vote(self, state: GameState, out: list[Effect]) -> None:
        state.candidates = [seat for seat in state.candidates if state.players[seat].alive]
        state.vote_counts = {}
        state.vote_index = 0
        state.vote_settling = None
        if not state.candidates:
            self._begin_night(state, out)
            return
        if len(state.candidates) == 1:
            # Every vote not cast goes to the last candidate (MR 7.13): the lone one leaves.
            seat = state.candidates[0]
            out.append(Say("fiim.single_leaves", {"seat": seat}))
            state.vote_counts = {seat: len(state.living())}
            self._finish_vote(state, out)
            return
        state.phase = Phase.VOTE
        out.append(Say(self._vote_start_key(state), {"seats": tuple(state.candidates)}))
        out.append(Say("day.vote_for", {"seat": state.candidates[0]}))

    def _on_vote_count(self, state: GameState, event: VoteCount, out: list[Effect]) -> None:
        """MR 7.8 to 7.13: candidates are asked in nomination order; anyone may vote against
        anyone, themselves too; the votes not cast go to the last candidate, who is not asked."""
        if state.phase is not Phase.VOTE or state.vote_settling is not None:
            super()._on_vote_count(state, event, out)
            return
        count = event.count
        voters = len(state.living())
        counted = sum(state.vote_counts.values())
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters:
            raise RuleViolation("votes_exceed_table", count=count, voters=voters)
        if counted + count > voters:
            raise RuleViolation("votes_exceed_voters", total=counted + count, voters=voters)
        candidate = state.candidates[state.vote_index]
        state.vote_counts[candidate] = count
        out.append(Say("day.vote_result", {"seat": candidate, "votes": count}))
        state.vote_index += 1
        if state.vote_index < len(state.candidates) - 1:
            out.append(Say("day.vote_for", {"seat": state.candidates[state.vote_index]}))
            return
        last = state.candidates[-1]
        state.vote_counts[last] = voters - counted - count
        out.append(Say("fiim.vote_rest", {"seat": last, "votes": state.vote_counts[last]}))
        self._settle(state, out, "vote")

    def _finish_vote(self, state: GameState, out: list[Effect]) -> None:
        """MR 7.15 to 7.20: the most votes leaves; a tie speaks again and revotes, and again
        while the number of leaders changes; the same number twice puts «поднять всех»."""
        counts = dict(state.vote_counts)
        self._day_record(state)["votes"].append(
            {"round": state.vote_round, "counts": {seat_key(s): n for s, n in counts.items()}}
        )
        top = max(counts.values())
        leaders = [seat for seat in state.candidates if counts.get(seat) == top]
        if len(leaders) == 1:
            self._voted_out(state, out, leaders)
        elif state.vote_round == 1 or len(leaders) != len(state.candidates):
            state.vote_round += 1
            state.candidates = leaders
            out.append(Say("fiim.tie", {"seats": tuple(leaders)}))
            state.speakers = list(leaders)
            self._next_defence(state, out)
        else:
            out.append(Say("fiim.tie_again", {"seats": tuple(leaders)}))
            self._start_third_vote(state, out)

    def _start_third_vote(self, state: GameState, out: list[Effect]) -> None:
        """«Поднять всех» (MR 7.17), unless the rules bar it for this table (MR 7.21 to 7.23)."""
        living, tied = len(state.living()), len(state.candidates)
        barred: str | None = None
        if tied == living:
            barred = "fiim.lift_whole_table"  # MR 7.21.1
        elif living == 9 and tied == 3 and not self.fiim.lift_three_of_nine:
            barred = "fiim.lift_three_of_nine"  # MR 7.23.2
        elif living == 4 and tied == 2 and not self.fiim.lift_two_of_four:
            barred = "fiim.lift_two_of_four"  # MR 7.22.2
        if barred is not None:
            out.append(Say(barred))
            self._day_record(state)["third_vote"] = {
                "candidates": list(state.candidates), "votes_for": None, "voters": None,
                "outcome": "all_stay", "four_players": False,
            }  # fmt: skip
            self._begin_night(state, out)
            return
        state.phase = Phase.THIRD_VOTE
        out.append(Say("fiim.lift_question", {"seats": tuple(state.candidates)}))

    def _third_vote_voters(self, state: GameState) -> int:
        return len(state.living())  # every living player answers yes or no

    def _all_leave(self, votes_for: int, voters: int) -> bool:
        return 2 * votes_for > voters  # a majority; an even split keeps them (MR 7.17)

    def repeat_question(self, state: GameState) -> Say | None:
        if state.phase is Phase.THIRD_VOTE and state.vote_settling is None:
            return Say("fiim.lift_question", {"seats": tuple(state.candidates)})
        return super().repeat_question(state)

    def _voted_out(self, state: GameState, out: list[Effect], seats: list[Seat]) -> None:
        # a player removed during the pause after the count has left already (MR 9.8)
        super()._voted_out(state, out, [seat for seat in seats if state.players[seat].alive])

    def _next_nomination_speaker(self, state: GameState, out: list[Effect]) -> None:
        """MR 9.5.1: a third foul takes the player's next ordinary speech (at three or four
        players a short one instead); the host says so and waits briefly for a nomination."""
        state.lost_speech = state.short_speech = None
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers or state.speakers[0] not in state.speech_lost:
            super()._next_nomination_speaker(state, out)
            return
        seat = state.speakers.pop(0)
        state.speech_lost.remove(seat)
        fiim = self.fiim
        short = len(state.living()) <= 4
        key = "fiim.short_speech" if short else "fiim.speech_skipped"
        seconds = fiim.short_speech_seconds if short else fiim.skipped_speech_seconds
        state.current_speaker = seat
        state.lost_speech = None if short else seat
        state.short_speech = seat if short else None
        out.append(Say(key, {"seat": seat}))
        state.speech_running = True
        warning = self._speech_warning() if short else None
        self._start_timer(state, out, TimerKind.NOMINATION_SPEECH, seconds, warning, seat)

    # ------------------------------------------------------------------ the best move (MR 8.17)

    def _best_move_due(self, state: GameState) -> bool:
        """The first night's victim, unless two or more left by the vote on day 1."""
        days = state.record["days"]
        return (
            self.fiim.best_move
            and state.night == 1
            and not (days and len(days[0]["left"]) >= 2)
            and state.record.get("best_move") is None
        )

    @staticmethod
    def _best_move_open(state: GameState) -> bool:
        return (
            state.best_move_by is not None
            and state.phase is Phase.LAST_WORDS
            and state.current_speaker == state.best_move_by
            and state.speech_running
        )

    def _best_move(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        """Three different seats other than the victim's own; recorded, scored, said aloud."""
        self._exactly(seats, 3)
        victim = state.best_move_by
        assert victim is not None  # _best_move_open
        for index, seat in enumerate(seats):
            self._validate_seat(state, seat, alive=False)
            if seat == victim:
                raise RuleViolation("fiim_best_move_self", seat=seat)
            if seat in seats[:index]:
                raise RuleViolation("duplicate_seats", seat=seat)
        black = sum(1 for seat in seats if state.players[seat].role in BLACK)
        state.record["best_move"] = {"seat": victim, "seats": list(seats), "black": black}
        state.best_move_by = None
        out.append(Say("fiim.best_move_taken", {"seat": victim, "seats": seats}))

    def _next_last_words(self, state: GameState, out: list[Effect]) -> None:
        state.best_move_by = None  # the victim's minute is over: no best move after it
        if state.after_last_words == "end" and not state.last_words_queue:
            state.current_speaker = None
            assert state.pending_winner is not None  # set with "end"
            self._declare(state, out, state.pending_winner)
            return
        super()._next_last_words(state, out)

    # ------------------------------------------------------------------ fouls, removal (MR 9)

    def _on_foul(self, state: GameState, event: Foul, out: list[Effect]) -> None:
        """MR 9.5 to 9.7: warnings; the third costs the next speech; the fourth removes."""
        seat = event.seat
        removed = self._count_foul(state, seat)
        player = state.players[seat]
        limit = self.fiim.fouls_to_remove
        if removed:
            self._remove(state, seat, out)
            return
        night = state.phase.is_night  # at night no seat number is spoken
        if not night:
            out.append(Say("foul.warning", {"seat": seat, "fouls": player.fouls}))
        if player.fouls == limit - 1:
            state.speech_lost.append(seat)
            if not night:
                out.append(Say("fiim.speech_lost", {"seat": seat}))

    def _foul_sends_away(self, state: GameState, fouls: int) -> bool:
        return fouls >= self.fiim.fouls_to_remove  # MR 9.7: the fourth, by day or by night

    def _on_remove(self, state: GameState, event: Remove, out: list[Effect]) -> None:
        """MR 10.11 to 10.20: the gravest faults remove a player at once."""
        self._validate_seat(state, event.seat)
        self._remove(state, event.seat, out)

    def _on_team_loss(self, state: GameState, event: TeamLoss, out: list[Effect]) -> None:
        """MR 10.21 to 10.24: the gravest faults (deliberate peeking, help from the audience,
        oaths, blackmail, threats, bribes, bets) cost the player's whole team the game. It is
        the referee's decision and ends the game at once, so it must be confirmed; the player
        is penalised ``fiim.score_team_loss``. A player who has left can still cause it."""
        seat = event.seat
        self._validate_seat(state, seat, alive=False)
        role = state.players[seat].role
        if role is None or not state.record["roles"]:
            raise RuleViolation("team_loss_before_morning", seat=seat)
        if not event.confirmed:
            raise RuleViolation("team_loss_confirm", seat=seat)
        loser = role.team
        state.record["team_loss"] = {
            "seat": seat, "team": loser.value, "day": state.day, "night": state.night,
            "phase": state.phase.value,
        }  # fmt: skip
        out.append(Say("fiim.team_loss", {"seat": seat}))
        self._declare(state, out, Team.RED if loser is Team.BLACK else Team.BLACK)

    def _remove(self, state: GameState, seat: Seat, out: list[Effect]) -> None:
        """The player leaves at once without a last word (MR 9.7); at night the morning says
        so; by day the vote is cancelled as MR 9.8 says."""
        decided = self._vote_decided(state)
        leaving = seat in self._leaving(state) if decided else False
        self._depart(state, out, seat, "removed")
        if state.phase.is_night:
            state.night_actions.disqualified.append(seat)
            if self.winner(state) is not None:
                self._end_night_with_win(state, out)
            return
        if self._announce_winner(state, out):
            return
        if seat in state.candidates and not decided:
            state.candidates.remove(seat)
        if not self.fiim.removal_cancels_vote:
            self._after_day_departure(state, out, seat)
            return
        if decided:
            if not leaving:
                state.vote_cancelled_day = state.day + 1
            return
        state.vote_cancelled_day = state.day
        phase = state.phase
        if phase is Phase.NOMINATION:
            if state.current_speaker == seat:
                self._stop_timer(state, out)
                self._next_nomination_speaker(state, out)
        elif phase in (Phase.DEFENCE, Phase.VOTE, Phase.THIRD_VOTE):
            self._stop_timer(state, out)
            self._cancel_vote(state, out)

    @staticmethod
    def _vote_decided(state: GameState) -> bool:
        """The day's result is known: counted and pausing, or its last words (MR 9.8)."""
        return state.vote_settling is not None or state.phase is Phase.LAST_WORDS

    @staticmethod
    def _leaving(state: GameState) -> list[Seat]:
        """Who the counted vote sends away (empty when it ties or keeps them)."""
        if state.vote_settling == "third":
            return list(state.candidates) if 2 * state.third_vote_for > len(state.living()) else []
        if state.vote_settling == "vote" and state.vote_counts:
            top = max(state.vote_counts.values())
            leaders = [seat for seat, count in state.vote_counts.items() if count == top]
            return leaders if len(leaders) == 1 else []
        return []

    def _cancel_vote(self, state: GameState, out: list[Effect]) -> None:
        state.vote_settling = None
        state.vote_cancelled_day = None
        self._day_record(state)["vote_cancelled"] = True
        out.append(Say("fiim.vote_cancelled"))
        self._begin_night(state, out)

    def _end_night_with_win(self, state: GameState, out: list[Effect]) -> None:
        """A removal at night decided the game: the town wakes now and hears it."""
        self._stop_timer(state, out)
        out.append(Say("fiim.morning"))
        removed = list(state.night_actions.disqualified)
        for seat in removed:
            out.append(Say("fiim.removed", {"seat": seat}))
        state.record["nights"].append(
            {"night": state.night, "disqualified": removed, "killed": None, "ended_by_win": True}
        )
        state.night_actions = NightActions()
        self._announce_winner(state, out)

    # ------------------------------------------------------------------ the end (MR 1.4, 1.5)

    def _begin_night(self, state: GameState, out: list[Effect]) -> None:
        state.departures_at_dusk = len(state.record["departures"])
        super()._begin_night(state, out)

    def _announce_winner(self, state: GameState, out: list[Effect]) -> bool:
        """MR 1.4, 8.19.1: the result is fixed at the departure; the last to leave by a vote or
        a kill still has their minute, then the winner is announced. Nothing in that minute
        changes the result."""
        if state.after_last_words == "end":
            return True  # decided already: a foul in the final minute changes nothing
        winner = self.winner(state)
        if winner is None:
            return False
        final = self._final_words(state)
        if not final:
            self._declare(state, out, winner)
            return True
        self._stop_timer(state, out)
        state.vote_settling = None
        state.pending_winner = winner
        state.after_last_words = "end"
        state.last_words_queue = final
        self._next_last_words(state, out)
        return True

    def _final_words(self, state: GameState) -> list[Seat]:
        """Who speaks before the winner is announced: those who just left by the vote or the
        night's kill; nobody after a removal (MR 8.19.1, 9.7)."""
        departures = state.record["departures"]
        if not self.fiim.game_end_last_words or not departures:
            return []
        last = departures[-1]
        if last["how"] not in ("vote", "kill"):
            return []
        same = [
            d["seat"]
            for d in departures
            if (d["how"], d["day"], d["night"]) == (last["how"], last["day"], last["night"])
        ]
        return same

    def _declare(self, state: GameState, out: list[Effect], winner: Team) -> None:
        self._stop_timer(state, out)
        state.vote_settling = None
        state.phase = Phase.GAME_OVER
        state.winner = winner
        state.record["winner"] = winner.value
        state.record["scores"] = score_lines(state.record, self.fiim)
        out.append(Say("game.red_wins" if winner is Team.RED else "game.black_wins"))
        out.append(GameOver(winner))

    def _announce_draw(self, state: GameState, out: list[Effect]) -> bool:
        """MR 1.5, MH 1.13: after the third night in a row, with the days between, in which
        nobody left, the game is a draw (``fiim.draw_after_nights``; 0: never)."""
        now = len(state.record["departures"])
        quiet_night = now == state.departures_at_dusk
        quiet_day = state.departures_at_dusk == state.departures_at_morning
        state.departures_at_morning = now
        if not quiet_night:
            state.quiet_rounds = 0
            return False
        state.quiet_rounds = state.quiet_rounds + 1 if quiet_day and state.night > 1 else 1
        limit = self.fiim.draw_after_nights
        if limit <= 0 or state.quiet_rounds < limit:
            return False
        self._stop_timer(state, out)
        state.phase = Phase.GAME_OVER
        state.winner = None
        state.record["winner"] = "draw"
        state.record["scores"] = score_lines(state.record, self.fiim)
        out.append(Say("fiim.draw", {"nights": limit}))
        out.append(GameOver(None))
        return True


def score_lines(record: GameRecord, fiim: FiimSettings) -> list[ScoreLine]:
    """Each seat's points by line (docs/RULES-FIIM.md section 11): the win or the loss, the
    best move of a red first-night victim who named two or three black seats, the penalties for
    a removal and for causing the team's loss. The referee's extra points are added to these by
    the protocol."""
    winner = record["winner"]
    best = record.get("best_move")
    removed = {d["seat"] for d in record["departures"] if d["how"] == "removed"}
    caused = record.get("team_loss")
    lines: list[ScoreLine] = []
    for key, role in sorted(record["roles"].items(), key=lambda item: int(item[0])):
        seat = Seat(int(key))
        team = "black" if role in (Role.MAFIA.value, Role.DON.value) else "red"
        win = fiim.score_win if winner == team else fiim.score_loss
        best_move = 0.0
        if best is not None and best["seat"] == seat and team == "red":
            hits = best["black"]
            if hits >= 3:
                best_move = fiim.score_best_move_3
            elif hits == 2:
                best_move = fiim.score_best_move_2
        penalty = fiim.score_removal if seat in removed else 0.0
        if caused is not None and caused["seat"] == seat:
            penalty += fiim.score_team_loss
        lines.append(ScoreLine(seat=seat, win=win, best_move=best_move, penalty=penalty))
    return lines
