"""The vote: counts, where the votes not cast go, ties and the third vote."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from voicehost.game.effects import Effect, Say
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import VoteCount
from voicehost.game.model import Phase, Seat, TimerKind
from voicehost.game.record import VoteRound, seat_key
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.game.table import Table


class Vote(Table):
    """The day's vote and its ties."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.order = VOTES[ruleset.vote]
        self.ties = TIES[ruleset.ties]
        self.half_leaves = THIRD_VOTE_TIES[settings.rules.third_vote_tie]

    def vote_start_key(self, state: GameState) -> str:
        return self.order.start_key(self, state)

    def _start_key_seat_order(self, state: GameState) -> str:
        return "day.vote_start"

    def _start_key_rest_to_last(self, state: GameState) -> str:
        return "fiim.vote_start" if state.vote_round == 1 else "fiim.revote_start"

    def _voters(self, state: GameState) -> list[Seat]:
        """Who votes today: the living, less a client the «путана» blocked for the day."""
        return [seat for seat in state.living() if seat not in state.vote_blocked]

    def start_vote(self, state: GameState, out: list[Effect]) -> None:
        state.candidates = [seat for seat in state.candidates if state.players[seat].alive]
        state.vote_counts = {}
        state.vote_index = 0
        state.vote_settling = None
        if not state.candidates:
            self.night.begin_night(state, out)
            return
        if len(state.candidates) == 1:
            self.order.lone(self, state, out)
            return
        state.phase = Phase.VOTE
        out.append(Say(self.vote_start_key(state), {"seats": tuple(state.candidates)}))
        out.append(Say(self.ruleset.vote_question, {"seat": state.candidates[0]}))

    def _lone_leaves(self, state: GameState, out: list[Effect]) -> None:
        """Every vote not cast goes to the last candidate (MR 7.13): the lone one leaves."""
        seat = state.candidates[0]
        out.append(Say("fiim.single_leaves", {"seat": seat}))
        state.vote_counts = {seat: len(state.living())}
        self._finish_vote(state, out)

    def _lone_voted_on(self, state: GameState, out: list[Effect]) -> None:
        """A lone candidate: every other player's vote can only go against them."""
        state.phase = Phase.VOTE
        seat = state.candidates[0]
        out.append(Say("day.vote_start_single", {"seat": seat}))
        voters = self._voters(state)
        state.vote_counts = {seat: len(voters) - (1 if seat in voters else 0)}
        out.append(Say("day.vote_result", {"seat": seat, "votes": state.vote_counts[seat]}))
        self._finish_vote(state, out)

    def vote_room(self, state: GameState) -> int:
        return self.order.room(self, state, self._voters(state))

    def _room_less_own(self, state: GameState, voters: list[Seat]) -> int:
        counted = sum(state.vote_counts.values())
        return min(self._against_limit(state, voters), len(voters) - counted)

    def _room_any(self, state: GameState, voters: list[Seat]) -> int:
        return len(voters) - sum(state.vote_counts.values())

    def _own_vote_kept(self, state: GameState, count: int, voting: list[Seat]) -> None:
        """A candidate does not vote against themselves: more hands than the others' is a
        mistake."""
        limit = self._against_limit(state, voting)
        if count > limit:
            raise RuleViolation("self_vote", seat=state.candidates[state.vote_index], limit=limit)

    def _any_vote(self, state: GameState, count: int, voting: list[Seat]) -> None:
        """MR 7.8: anyone may vote against anyone."""

    @staticmethod
    def _against_limit(state: GameState, voters: list[Seat]) -> int:
        """The most votes the candidate being voted on can get: every voter's but their own (a
        candidate the «путана» blocked for the day has no vote to keep back)."""
        candidate = state.candidates[state.vote_index]
        return len(voters) - (1 if candidate in voters else 0)

    def on_vote_count(self, state: GameState, event: VoteCount, out: list[Effect]) -> None:
        if state.vote_settling is not None:
            raise RuleViolation("vote_counted")
        if state.phase is Phase.THIRD_VOTE:
            self._third_vote_count(state, event.count, out)
            return
        if state.phase is not Phase.VOTE:
            raise RuleViolation("not_now", phase=state.phase.value)
        count = event.count
        voting = self._voters(state)
        voters = len(voting)
        candidate = state.candidates[state.vote_index]
        counted = sum(state.vote_counts.values())
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters and state.vote_blocked:  # the «путана»'s client has no hand today
            blocked = ", ".join(str(seat) for seat in state.vote_blocked)
            raise RuleViolation("votes_exceed_voting", count=count, voters=voters, blocked=blocked)
        if count > voters:  # more hands than people at the table: a typo, not a self-vote
            raise RuleViolation("votes_exceed_table", count=count, voters=voters)
        self.order.own_vote(self, state, count, voting)
        if counted + count > voters:
            raise RuleViolation("votes_exceed_voters", total=counted + count, voters=voters)
        state.vote_counts[candidate] = count
        out.append(Say("day.vote_result", {"seat": candidate, "votes": count}))
        state.vote_index += 1
        if state.vote_index < len(state.candidates) - 1:
            out.append(
                Say(self.ruleset.vote_question, {"seat": state.candidates[state.vote_index]})
            )
            return
        self.order.last(self, state, voters - counted - count, out)

    def _rest_to_last(self, state: GameState, rest: int, out: list[Effect]) -> None:
        """MR 7.8 to 7.13: the votes not cast (``rest``) go to the last candidate, who is not
        asked."""
        last = state.candidates[-1]
        state.vote_counts[last] = rest
        out.append(Say("fiim.vote_rest", {"seat": last, "votes": state.vote_counts[last]}))
        self._settle(state, out, "vote")

    def _remainder_less_own(self, state: GameState, rest: int, out: list[Effect]) -> None:
        self._count_last_candidate(state, out)

    def _count_last_candidate(self, state: GameState, out: list[Effect]) -> None:
        """The remainder goes to the last candidate; their own lost vote goes to the one before."""
        voters = self._voters(state)
        last = state.candidates[-1]
        remainder = len(voters) - sum(state.vote_counts.values())
        moved_to: Seat | None = None
        own = 1 if last in voters else 0
        if remainder > len(voters) - own:
            moved_to = state.candidates[-2]
            state.vote_counts[moved_to] += 1
            remainder -= 1
        state.vote_counts[last] = remainder
        out.append(Say(self.ruleset.vote_question, {"seat": last}))
        out.append(Say("day.vote_result", {"seat": last, "votes": remainder}))
        if moved_to is not None:
            votes = state.vote_counts[moved_to]
            out.append(Say("day.own_vote_moved", {"seat": moved_to, "votes": votes}))
        self._settle(state, out, "vote")

    def _settle(self, state: GameState, out: list[Effect], kind: str) -> None:
        """Counts announced: a short pause lets a miscount be undone before anyone leaves."""
        state.vote_settling = kind
        seconds = self.timers.vote_result_seconds
        if seconds <= 0:
            self.settled(state, out)
            return
        self._start_timer(state, out, TimerKind.VOTE_RESULT, seconds, None)

    def settled(self, state: GameState, out: list[Effect]) -> None:
        kind, state.vote_settling = state.vote_settling, None
        if kind == "third":
            self._finish_third_vote(state, out)
        else:
            self._finish_vote(state, out)

    def record_count(self, state: GameState, interrupted_by: Seat | None = None) -> None:
        """Today's record keeps the round's counts (and the seat whose removal stopped them)."""
        vote: VoteRound = {
            "round": state.vote_round,
            "counts": {seat_key(s): n for s, n in state.vote_counts.items()},
        }
        if interrupted_by is not None:
            vote["interrupted_by"] = interrupted_by
        self.day.day_record(state)["votes"].append(vote)

    def _finish_vote(self, state: GameState, out: list[Effect]) -> None:
        counts = dict(state.vote_counts)
        self.record_count(state)
        self.ties.counted(self, state, counts, out)

    def _leaders_change_then_lift_all(
        self, state: GameState, counts: dict[Seat, int], out: list[Effect]
    ) -> None:
        """MR 7.15 to 7.20: the most votes leaves; a tie speaks again and revotes, and again
        while the number of leaders changes; the same number twice puts «поднять всех»."""
        top = max(counts.values())
        leaders = [seat for seat in state.candidates if counts.get(seat) == top]
        if len(leaders) == 1:
            self._voted_out(state, out, leaders)
        elif state.vote_round == 1 or len(leaders) != len(state.candidates):
            state.vote_round += 1
            state.candidates = leaders
            out.append(Say("fiim.tie", {"seats": tuple(leaders)}))
            state.speakers = list(leaders)
            self.day.next_defence(state, out)
        else:
            out.append(Say("fiim.tie_again", {"seats": tuple(leaders)}))
            self._start_third_vote(state, out)

    def _revote_then_third_vote(
        self, state: GameState, counts: dict[Seat, int], out: list[Effect]
    ) -> None:
        """The club's: the most votes leaves; a tie revotes once, then the third vote."""
        top = max(counts.values())
        leaders = sorted(seat for seat, count in counts.items() if count == top)
        # «Голоса разделились поровну» only when every candidate has as many votes as the others;
        # at 4-4-2 the two leaders go on alone.
        split = len(leaders) == len(counts)
        if len(leaders) == 1:
            self._voted_out(state, out, leaders)
        elif state.vote_round == 1:
            state.vote_round = 2
            state.candidates = leaders
            key = "day.revote" if split else "day.revote_leaders"
            out.append(Say(key, {"seats": tuple(leaders)}))
            state.speakers = list(leaders)
            self.day.next_defence(state, out)
        else:
            state.candidates = leaders
            if split:
                out.append(Say("day.tie_again"))
            else:
                out.append(Say("day.tie_again_leaders", {"seats": tuple(leaders)}))
            self._start_third_vote(state, out)

    def _no_third_vote(self, state: GameState, out: list[Effect], phrase: str, four: bool) -> None:
        out.append(Say(phrase))
        self.day.day_record(state)["third_vote"] = {
            "candidates": list(state.candidates), "votes_for": None, "voters": None,
            "outcome": "all_stay", "four_players": four,
        }  # fmt: skip
        self.night.begin_night(state, out)

    def _start_third_vote(self, state: GameState, out: list[Effect]) -> None:
        if self.ties.barred(self, state, out):
            return
        state.phase = Phase.THIRD_VOTE
        out.extend(self.third_vote_question(state, again=False))

    def _lift_barred(self, state: GameState, out: list[Effect]) -> bool:
        """«Поднять всех» (MR 7.17), unless the rules bar it for this table (MR 7.21 to 7.23):
        said, and the night comes."""
        living, tied = len(state.living()), len(state.candidates)
        fiim = self.settings.fiim
        if tied == living:
            self._no_third_vote(state, out, "fiim.lift_whole_table", False)  # MR 7.21.1
            return True
        if living == 9 and tied == 3 and not fiim.lift_three_of_nine:
            self._no_third_vote(state, out, "fiim.lift_three_of_nine", False)  # MR 7.23.2
            return True
        if living == 4 and tied == 2 and not fiim.lift_two_of_four:
            self._no_third_vote(state, out, "fiim.lift_two_of_four", False)  # MR 7.22.2
            return True
        return False

    def _third_vote_barred(self, state: GameState, out: list[Effect]) -> bool:
        """The club's: no third vote at four players, where the club says so."""
        if len(state.living()) == 4 and self.rules.four_players_skip_third_vote:
            self._no_third_vote(state, out, "day.four_players", True)
            return True
        return False

    def third_vote_question(self, state: GameState, *, again: bool) -> list[Say]:
        """«Кто за то, чтобы все покинули стол?» (the FIIM words: «поднять всех»)."""
        return self.ties.question(self, state, again)

    def _lift_question(self, state: GameState, again: bool) -> list[Say]:
        return [Say("fiim.lift_question", {"seats": tuple(state.candidates)})]

    def _all_leave_question(self, state: GameState, again: bool) -> list[Say]:
        if again:
            return [Say("day.third_vote")]
        seats = {"seats": tuple(state.candidates)}
        return [Say("day.third_vote_start", seats), Say("day.third_vote")]

    def third_vote_voters(self, state: GameState) -> int:
        return self.ties.voters(self, state)

    def _every_living(self, state: GameState) -> int:
        return len(state.living())  # every living player answers yes or no

    def _voters_not_candidates(self, state: GameState) -> int:
        return len([seat for seat in self._voters(state) if seat not in state.candidates])

    def _third_vote_count(self, state: GameState, count: int, out: list[Effect]) -> None:
        voters = self.third_vote_voters(state)
        if count < 0:
            raise RuleViolation("negative_count")
        if count > voters:
            raise RuleViolation("votes_exceed_voters", total=count, voters=voters)
        out.append(Say("day.third_vote_result", {"votes": count}))
        state.third_vote_for = count
        self._settle(state, out, "third")

    def _all_leave(self, votes_for: int, voters: int) -> bool:
        """Whether the third vote sends every candidate away: a majority, or half when the club
        settles a tie that way (rules.third_vote_tie; never under MR 7.17)."""
        return 2 * votes_for > voters or (
            2 * votes_for == voters and self.ties.half_may_leave and self.half_leaves
        )

    def _finish_third_vote(self, state: GameState, out: list[Effect]) -> None:
        voters = self.third_vote_voters(state)
        count = state.third_vote_for
        all_leave = self._all_leave(count, voters)
        self.day.day_record(state)["third_vote"] = {
            "candidates": list(state.candidates), "votes_for": count, "voters": voters,
            "outcome": "all_leave" if all_leave else "all_stay", "four_players": False,
        }  # fmt: skip
        if all_leave:
            out.append(Say("day.all_leave"))
            self._voted_out(state, out, list(state.candidates))
        else:
            out.append(Say("day.all_stay"))
            self.night.begin_night(state, out)

    def _voted_out(self, state: GameState, out: list[Effect], seats: list[Seat]) -> None:
        # Candidates sent away by one vote leave together: one departure, one win check. A
        # player removed during the pause after the count has left already (MR 9.8).
        seats = [seat for seat in seats if state.players[seat].alive]
        for seat in seats:
            self.fouls.depart(state, out, seat, "vote")
            self.day.day_record(state)["left"].append(seat)
        if self.end.announce_winner(state, out):
            return
        state.after_last_words = "night"
        if self.rules.last_words_after_vote:
            state.last_words_queue = list(seats)
            self.day.next_last_words(state, out)
        else:
            self.night.begin_night(state, out)


@dataclass(frozen=True)
class VoteOrder:
    """How the table votes (``day.vote``): who is asked, where the votes not cast go."""

    start_key: Callable[[Vote, GameState], str]  # the phrase that opens the vote
    lone: Callable[[Vote, GameState, list[Effect]], None]  # one candidate only
    room: Callable[[Vote, GameState, list[Seat]], int]  # the most hands the count may give
    own_vote: Callable[[Vote, GameState, int, list[Seat]], None]  # refuses a self-vote
    last: Callable[[Vote, GameState, int, list[Effect]], None]  # the votes left, to the last


@dataclass(frozen=True)
class Ties:
    """How a tie is settled (``day.ties``)."""

    counted: Callable[[Vote, GameState, dict[Seat, int], list[Effect]], None]  # a round's counts
    barred: Callable[[Vote, GameState, list[Effect]], bool]  # no third vote here: said, night
    question: Callable[[Vote, GameState, bool], list[Say]]  # the third vote's (again: bool)
    voters: Callable[[Vote, GameState], int]  # who answers the third vote
    half_may_leave: bool  # a half of the third vote may send all away (rules.third_vote_tie)


#: ``day.vote``: who is asked, where the votes not cast go.
VOTES: dict[str, VoteOrder] = {
    "seat_order_rest_less_own": VoteOrder(
        Vote._start_key_seat_order,
        Vote._lone_voted_on,
        Vote._room_less_own,
        Vote._own_vote_kept,
        Vote._remainder_less_own,
    ),
    "nomination_order_rest_to_last": VoteOrder(
        Vote._start_key_rest_to_last,
        Vote._lone_leaves,
        Vote._room_any,
        Vote._any_vote,
        Vote._rest_to_last,
    ),
}

#: ``day.ties``: how a tie is settled.
TIES: dict[str, Ties] = {
    "revote_then_third_vote": Ties(
        Vote._revote_then_third_vote,
        Vote._third_vote_barred,
        Vote._all_leave_question,
        Vote._voters_not_candidates,
        True,
    ),
    "revote_while_leaders_change_then_lift_all": Ties(
        Vote._leaders_change_then_lift_all,
        Vote._lift_barred,
        Vote._lift_question,
        Vote._every_living,
        False,
    ),
}

#: ``rules.third_vote_tie`` (config.yaml): whether half of the third vote sends all away.
THIRD_VOTE_TIES: dict[str, bool] = {"all_leave": True, "all_stay": False}
