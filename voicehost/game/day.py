"""The day: speeches, nominations, candidates, defence, last words and the best move."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from voicehost.game.effects import Effect, Prompt, PromptKind, Say
from voicehost.game.errors import RuleViolation
from voicehost.game.model import Phase, Seat, Team, TimerKind
from voicehost.game.record import DayRecord, seat_key
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.game.table import Table

#: The speech kinds of a rule set's ``day.speeches``, by the timer that measures them.
SPEECH_KINDS = {
    TimerKind.ACQUAINTANCE_SPEECH: "acquaintance",
    TimerKind.NOMINATION_SPEECH: "nomination",
    TimerKind.DEFENCE_SPEECH: "defence",
    TimerKind.LAST_WORDS: "last_words",
}


class Day(Table):
    """The day's speeches and nominations, up to the vote."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.nominating = NOMINATIONS[ruleset.nominations]
        self.opening = DAY_OPENINGS[ruleset.day_opening]

    def next_acquaintance(self, state: GameState, out: list[Effect]) -> None:
        """The next player in seat order introduces themselves; after the last, night 0."""
        state.phase = Phase.ACQUAINTANCE
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self.night.start_night0(state, out)
            return
        self._give_floor(state, out, state.speakers.pop(0), TimerKind.ACQUAINTANCE_SPEECH)

    def nomination_prompt(self, state: GameState) -> Prompt | None:
        speaker = state.current_speaker
        if speaker is None:
            return None
        return self.nominating.prompt(self, state, speaker)

    def _prompt_in_speech(self, state: GameState, speaker: Seat) -> Prompt | None:
        """One name, in the speaker's own speech, if none yet."""
        if state.speech_running and not state.nominations.get(speaker):
            return Prompt(
                PromptKind.SEATS,
                1,
                1,
                subject=speaker,
                speech_running=True,
                action="nominate",
                question="prompt_nominate",
            )
        return Prompt(PromptKind.NONE, speech_running=state.speech_running)

    def _prompt_after_speech(self, state: GameState, speaker: Seat) -> Prompt | None:
        """Up to the limit, during the speech or after it; one is owed once it is over."""
        already = len(state.nominations.get(speaker, []))
        room = self._nomination_limit(state) - already
        if room <= 0:
            return None
        owed = not state.speech_running and not already  # the speech is over, no name yet
        return Prompt(
            PromptKind.SEATS,
            0 if already or state.speech_running else 1,
            room,
            subject=speaker,
            speech_running=state.speech_running,
            action="nominate",
            question="prompt_nomination_required" if owed else "prompt_nominate",
        )

    def owes_nomination(self, state: GameState) -> bool:
        """The club's speaker whose speech is over has still to name a candidate."""
        speaker = state.current_speaker
        return (
            state.phase is Phase.NOMINATION
            and speaker is not None
            and self.nominating.owed(self, state, speaker)
        )

    def _owed_after_speech(self, state: GameState, speaker: Seat) -> bool:
        return not state.speech_running and not state.nominations.get(speaker)

    def _never_owed(self, state: GameState, speaker: Seat) -> bool:
        return False  # nominating is a choice, not a duty

    def nomination_speech_over(self, state: GameState, out: list[Effect]) -> None:
        self.nominating.speech_over(self, state, out)

    def _speech_over_owing(self, state: GameState, out: list[Effect]) -> None:
        """The next speaker, once this one has named a candidate."""
        speaker = state.current_speaker
        if speaker is not None and state.nominations.get(speaker):
            self.next_nomination_speaker(state, out)
        elif speaker is not None:
            # The club's rules: nominating nobody is not allowed. The speech is over (time, or
            # «спасибо» before a name): the table hears that a candidate is still owed.
            out.append(Say("day.nomination_required", {"seat": speaker}))

    def _open_day(self, state: GameState, phase: Phase) -> None:
        """Today (``_dawn`` counted it) opens in ``phase``: no nominations or candidates yet,
        the first vote, and its record."""
        state.phase = phase
        state.nominations = {}
        state.candidates = []
        state.vote_counts = {}  # yesterday's counts are not today's candidates'
        state.vote_index = 0
        state.vote_round = 1
        state.record["days"] = [
            *state.record["days"],
            {"day": state.day, "nominations": {}, "candidates": [], "votes": [],
             "third_vote": None, "left": []},
        ]  # fmt: skip

    def start_day(self, state: GameState, out: list[Effect]) -> None:
        self.opening(self, state, out)

    def _open_with_speeches(self, state: GameState, out: list[Effect]) -> None:
        self._open_day(state, Phase.NOMINATION)  # speeches at once (MR 6.1 to 6.3.1)
        self._order_speakers(state)
        self.next_nomination_speaker(state, out)

    def _open_with_discussion(self, state: GameState, out: list[Effect]) -> None:
        self._open_day(state, Phase.DISCUSSION)
        seconds = self.timers.discussion_seconds
        out.append(self.discussion_phrase())
        state.speech_running = True
        warning = self._speech_warning("timers.warning_seconds.discussion", seconds)
        self._start_timer(state, out, TimerKind.DISCUSSION, seconds, warning)

    def day_record(self, state: GameState) -> DayRecord:
        """Today's record, copied before it is changed (earlier states share the old one)."""
        days = state.record["days"]
        if not state.owns_day:
            days = [*days[:-1], dict(days[-1])]  # type: ignore[list-item]
            today = days[-1]
            today["nominations"] = dict(today["nominations"])
            today["candidates"] = list(today["candidates"])
            today["votes"] = list(today["votes"])
            today["left"] = list(today["left"])
            state.record["days"] = days
            state.owns_day = True
        return days[-1]

    def _first_speaker(self, state: GameState) -> Seat:
        living = state.living()
        previous = state.first_speaker
        if not self.value(self.ruleset.rotate_first_speaker) or previous is None:
            return living[0]
        later = [seat for seat in living if seat > previous]
        return later[0] if later else living[0]

    def _order_speakers(self, state: GameState) -> None:
        first = self._first_speaker(state)
        state.first_speaker = first
        living = state.living()
        start = living.index(first)
        state.speakers = living[start:] + living[:start]

    def start_nominations(self, state: GameState, out: list[Effect]) -> None:
        state.phase = Phase.NOMINATION
        self._order_speakers(state)
        one_black = self.black_known(state) == 1
        out.append(Say("day.nominations_one" if one_black else "day.nominations"))
        self.next_nomination_speaker(state, out)

    def _nomination_limit(self, state: GameState) -> int:
        return 1 if self.black_known(state) == 1 else 2

    def next_nomination_speaker(self, state: GameState, out: list[Effect]) -> None:
        """The next speaker; a speech a third foul took (MR 9.5.1) is said to be lost (at three
        or four players a short one instead), and a nomination is still waited for briefly."""
        state.lost_speech = state.short_speech = None
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self._announce_candidates(state, out)
            return
        if state.speakers[0] not in state.speech_lost:
            self._give_floor(state, out, state.speakers.pop(0), TimerKind.NOMINATION_SPEECH)
            return
        seat = state.speakers.pop(0)
        state.speech_lost = [s for s in state.speech_lost if s != seat]
        fiim = self.settings.fiim
        short = len(state.living()) <= 4
        key = "fiim.short_speech" if short else "fiim.speech_skipped"
        seconds = fiim.short_speech_seconds if short else fiim.skipped_speech_seconds
        state.current_speaker = seat
        state.lost_speech = None if short else seat
        state.short_speech = seat if short else None
        out.append(Say(key, {"seat": seat}))
        state.speech_running = True
        warning = (
            self._speech_warning("timers.warning_seconds.fiim_short_speech", seconds)
            if short
            else None
        )
        self._start_timer(state, out, TimerKind.NOMINATION_SPEECH, seconds, warning, seat)

    def nominate(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
        self.nominating.nominate(self, state, seats, out)

    def _nominate_after_speech(
        self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
        """The club's: up to two seats (one when one black is left), during or after one's
        speech; the speech over, the next speaker."""
        speaker = state.current_speaker
        if speaker is None:
            raise RuleViolation("not_now", phase=state.phase.value)
        if not seats:
            raise RuleViolation("nomination_required")
        for seat in seats:
            self._validate_seat(state, seat)
            if seat == speaker:
                raise RuleViolation("self_nomination", seat=seat)
        already = state.nominations.get(speaker, [])
        added = [seat for seat in self._distinct(seats) if seat not in already]
        limit = self._nomination_limit(state)
        if len(already) + len(added) > limit:
            if limit == 1:
                raise RuleViolation("one_nomination_only")
            raise RuleViolation("too_many_nominations", seat=speaker, count=len(already))
        state.nominations[speaker] = already + added
        self.day_record(state)["nominations"][seat_key(speaker)] = list(state.nominations[speaker])
        if self.rules.confirm_nominations:
            for seat in added:
                out.append(Say("day.nomination_accepted", {"seat": seat}))
        if not state.speech_running:
            self.next_nomination_speaker(state, out)

    def _nominate_in_speech(
        self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]
    ) -> None:
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
        self.day_record(state)["nominations"][seat_key(speaker)] = [seat]
        out.append(Say("day.nomination_accepted", {"seat": seat}))

    @staticmethod
    def _nominated(state: GameState) -> list[Seat]:
        """The nominated seats in the order they were nominated."""
        return [seat for nominees in state.nominations.values() for seat in nominees]

    def _announce_candidates(self, state: GameState, out: list[Effect]) -> None:
        self.nominating.candidates(self, state, out)

    def _candidates_by_tally(self, state: GameState, out: list[Effect]) -> None:
        """The club's: the most nominated (select_candidates), each defends in seat order."""
        tally: Counter[Seat] = Counter()
        for nominees in state.nominations.values():
            tally.update(seat for seat in nominees if state.players[seat].alive)
        candidates = select_candidates(tally)
        state.candidates = candidates
        self.day_record(state)["candidates"] = list(candidates)
        if not candidates:
            self.night.begin_night(state, out)
            return
        if len(candidates) == 1:
            out.append(Say("day.single_candidate", {"seat": candidates[0]}))
        else:
            out.append(Say("day.candidates", {"seats": tuple(candidates)}))
        state.phase = Phase.DEFENCE
        state.speakers = list(candidates)
        self.next_defence(state, out)

    def _candidates_in_nomination_order(self, state: GameState, out: list[Effect]) -> None:
        candidates = [seat for seat in self._nominated(state) if state.players[seat].alive]
        state.candidates = candidates
        self.day_record(state)["candidates"] = list(candidates)
        if state.vote_cancelled_day == state.day:  # a removal cancelled it (MR 9.8)
            self.fouls.cancel_vote(state, out)
        elif not candidates:
            out.append(Say("fiim.no_nominations"))
            self.night.begin_night(state, out)
        elif (
            len(candidates) == 1
            and state.day == 1
            and not FIRST_DAY_SINGLE_NOMINEE_VOTED[self.settings.fiim.first_day_single_nominee]
        ):
            out.append(Say("fiim.single_no_vote", {"seat": candidates[0]}))  # MR 7.16.1
            self.night.begin_night(state, out)
        else:
            self.vote.start_vote(state, out)

    def next_defence(self, state: GameState, out: list[Effect]) -> None:
        state.phase = Phase.DEFENCE
        while state.speakers and not state.players[state.speakers[0]].alive:
            state.speakers.pop(0)
        if not state.speakers:
            state.current_speaker = None
            self.vote.start_vote(state, out)
            return
        self._give_floor(state, out, state.speakers.pop(0), TimerKind.DEFENCE_SPEECH)

    def next_last_words(self, state: GameState, out: list[Effect]) -> None:
        state.best_move_by = None  # the victim's minute is over: no best move after it
        if state.after_last_words == "end" and not state.last_words_queue:
            state.current_speaker = None
            assert state.pending_winner is not None  # set with "end"
            self.end.declare(state, out, state.pending_winner)
            return
        state.phase = Phase.LAST_WORDS
        if not state.last_words_queue:
            state.current_speaker = None
            if state.after_last_words == "day":
                self.start_day(state, out)
            else:
                self.night.begin_night(state, out)
            return
        self._give_floor(state, out, state.last_words_queue.pop(0), TimerKind.LAST_WORDS)

    def _give_floor(
        self, state: GameState, out: list[Effect], speaker: Seat, kind: TimerKind
    ) -> None:
        """Announce a player's timed speech and start its timer (after the announcement)."""
        phrase, seconds = self.floor(kind)
        state.current_speaker = speaker
        out.append(Say(phrase, {"seat": speaker}))
        state.speech_running = True
        name = SPEECH_KINDS[kind]
        setting = self.ruleset.speech_warnings.get(name, f"timers.warning_seconds.{name}")
        warning = self._speech_warning(setting, seconds)
        self._start_timer(state, out, kind, seconds, warning, speaker)

    def floor(self, kind: TimerKind) -> tuple[str, float]:
        """The announcement and the length of a timed speech."""
        phrase, seconds = self.ruleset.speeches[SPEECH_KINDS[kind]]
        return phrase, self.value(seconds)

    def best_move_due(self, state: GameState) -> bool:
        """The first night's victim, unless two or more left by the vote on day 1."""
        days = state.record["days"]
        return (
            bool(self.value(self.ruleset.best_move))
            and state.night == 1
            and not (days and len(days[0]["left"]) >= 2)
            and state.record.get("best_move") is None
        )

    @staticmethod
    def best_move_open(state: GameState) -> bool:
        return (
            state.best_move_by is not None
            and state.phase is Phase.LAST_WORDS
            and state.current_speaker == state.best_move_by
            and state.speech_running
        )

    def best_move(self, state: GameState, seats: tuple[Seat, ...], out: list[Effect]) -> None:
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
        black = sum(1 for seat in seats if self.team_of(state.players[seat].role) is Team.BLACK)
        state.record["best_move"] = {"seat": victim, "seats": list(seats), "black": black}
        state.best_move_by = None
        out.append(Say("fiim.best_move_taken", {"seat": victim, "seats": seats}))

    def discussion_phrase(self) -> Say:
        """«У вас три минуты» / «…две минуты тридцать секунд» / «…сорок пять секунд»."""
        minutes, seconds = divmod(int(self.timers.discussion_seconds), 60)
        if seconds == 0:
            return Say("day.discussion", {"minutes": minutes})
        if minutes == 0:
            return Say("day.discussion_seconds", {"seconds": seconds})
        return Say("day.discussion_mixed", {"minutes": minutes, "seconds": seconds})


def select_candidates(tally: Counter[Seat]) -> list[Seat]:
    """RULES.md day 3: all tied first; else first plus all at second; a lone nominee alone."""
    if not tally:
        return []
    ranked = sorted(set(tally.values()), reverse=True)
    first = [seat for seat, count in tally.items() if count == ranked[0]]
    if len(first) >= 2 or len(ranked) == 1:
        return sorted(first)
    second = [seat for seat, count in tally.items() if count == ranked[1]]
    return sorted(first + second)


@dataclass(frozen=True)
class Nominations:
    """How candidates are put up (``day.nominations``): each of its moments, a function."""

    prompt: Callable[[Day, GameState, Seat], Prompt | None]  # the speaker's question
    owed: Callable[[Day, GameState, Seat], bool]  # the table waits for the speaker's name
    speech_over: Callable[[Day, GameState, list[Effect]], None]
    nominate: Callable[[Day, GameState, tuple[Seat, ...], list[Effect]], None]
    candidates: Callable[[Day, GameState, list[Effect]], None]  # after the last speech


#: ``day.nominations``: how candidates are put up.
NOMINATIONS: dict[str, Nominations] = {
    "after_speech_up_to_two": Nominations(
        Day._prompt_after_speech,
        Day._owed_after_speech,
        Day._speech_over_owing,
        Day._nominate_after_speech,
        Day._candidates_by_tally,
    ),
    "in_own_speech_one": Nominations(
        Day._prompt_in_speech,
        Day._never_owed,
        Day.next_nomination_speaker,
        Day._nominate_in_speech,
        Day._candidates_in_nomination_order,
    ),
}

#: ``day.opening``: how the day opens.
DAY_OPENINGS: dict[str, Callable[[Day, GameState, list[Effect]], None]] = {
    "discussion": Day._open_with_discussion,
    "speeches": Day._open_with_speeches,
}

#: ``fiim.first_day_single_nominee`` (config.yaml): whether a lone nominee of day 1 is voted on
#: (MR 7.16.1: no vote; «leaves»: the vote's rule, every vote not cast goes to them).
FIRST_DAY_SINGLE_NOMINEE_VOTED: dict[str, bool] = {"no_vote": False, "leaves": True}
