"""The end: the win conditions, the draw, the final words, the cards named and the scores."""

from __future__ import annotations

from collections.abc import Callable

from voicehost.game.effects import Effect, GameOver, Say
from voicehost.game.model import Phase, Role, Seat, Team
from voicehost.game.record import GameRecord, ScoreLine
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.game.table import Table


class End(Table):
    """Who has won, the draw and the scores."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.win = WINS[ruleset.win]
        self.scoring = SCORES[ruleset.scores]

    def winner(self, state: GameState) -> Team | None:
        """The team that has won, if any (checked after every departure)."""
        if any(player.role is None for player in state.players.values()):
            return None  # night 0: the roles are not all known until the morning
        return self.win(self, state)

    def _parity_with_third_team(self, state: GameState) -> Team | None:
        """The Maniac wins alone when one other player is left; red when no black and no
        Maniac is left; black at parity once the Maniac has left."""
        black = self.living_of(state, Team.BLACK)
        red = self.living_of(state, Team.RED)
        third = self.living_of(state, Team.MANIAC)
        if third and black + red <= 1:
            return Team.MANIAC  # the Maniac wins alone: one other player is left
        if black == 0 and third == 0:
            return Team.RED
        if third == 0 and black >= red:
            return Team.BLACK
        return None

    def _parity(self, state: GameState) -> Team | None:
        """Red when no black is left; black at parity."""
        black = self.living_of(state, Team.BLACK)
        red = self.living_of(state, Team.RED)
        if black == 0:
            return Team.RED
        if black >= red:
            return Team.BLACK
        return None

    def announce_winner(self, state: GameState, out: list[Effect]) -> bool:
        """The result is fixed at the departure; where the rules give the last to leave their
        minute first (MR 8.19.1), the winner is announced after it."""
        if state.after_last_words == "end":
            return True  # decided already: a foul in the final minute changes nothing
        winner = self.winner(state)
        if winner is None:
            return False
        final = self._final_words(state)
        if not final:
            self.declare(state, out, winner)
            return True
        self._stop_timer(state, out)
        state.vote_settling = None
        state.pending_winner = winner
        state.after_last_words = "end"
        state.last_words_queue = final
        self.day.next_last_words(state, out)
        return True

    def _final_words(self, state: GameState) -> list[Seat]:
        """Who speaks before the winner is announced: those who just left by the vote or the
        night's kill; nobody after a removal (MR 8.19.1, 9.7)."""
        departures = state.record["departures"]
        if not self.value(self.ruleset.final_words) or not departures:
            return []
        last = departures[-1]
        if last["how"] not in ("vote", "kill"):
            return []
        return [
            d["seat"]
            for d in departures
            if (d["how"], d["day"], d["night"]) == (last["how"], last["day"], last["night"])
        ]

    def declare(self, state: GameState, out: list[Effect], winner: Team) -> None:
        self._stop_timer(state, out)
        state.vote_settling = None  # a foul during the pause after a count can end the game
        state.phase = Phase.GAME_OVER
        state.winner = winner
        state.record["winner"] = winner.value
        self._score(state)
        key = {Team.RED: "game.red_wins", Team.BLACK: "game.black_wins"}.get(winner)
        out.append(Say(key or "city.maniac_wins"))
        self._announce_cards(state, out)
        out.append(GameOver(winner))

    def _announce_cards(self, state: GameState, out: list[Effect]) -> None:
        """The game is over: the host names the cards the rule set lists (``end.cards``), each
        with every seat that held it, as clubs open the cards at the end."""
        named: list[tuple[Role, tuple[Seat, ...]]] = []
        for role in self.cards_at_end():
            seats = tuple(s for s, p in sorted(state.players.items()) if p.role is role)
            if seats:
                named.append((role, seats))
        if not named:
            return
        out.append(Say("game.cards"))
        for role, seats in named:
            if len(seats) == 1:
                out.append(Say("game.card", {"role": role.value, "seat": seats[0]}))
            else:
                out.append(Say("game.card_many", {"role": role.value, "seats": seats}))

    def _score(self, state: GameState) -> None:
        """The game is over: its scores, where the rule set scores."""
        scores = self.scoring(state.record, self.settings, self.ruleset)
        if scores is not None:
            state.record["scores"] = scores

    def cards_at_end(self) -> tuple[Role, ...]:
        """The cards named when the game is over, in the rule set's order: those in play."""
        return tuple(role for role in self.ruleset.end_cards if self.enabled(role))

    def announce_draw(self, state: GameState, out: list[Effect]) -> bool:
        """MR 1.5, MH 1.13: after the third night in a row, with the days between, in which
        nobody left, the game is a draw (``fiim.draw_after_nights``; 0: never)."""
        if self.ruleset.draw_after is None:
            return False
        now = len(state.record["departures"])
        quiet_night = now == state.departures_at_dusk
        quiet_day = state.departures_at_dusk == state.departures_at_morning
        state.departures_at_morning = now
        if not quiet_night:
            state.quiet_rounds = 0
            return False
        state.quiet_rounds = state.quiet_rounds + 1 if quiet_day and state.night > 1 else 1
        limit = self.value(self.ruleset.draw_after)
        if limit <= 0 or state.quiet_rounds < limit:
            return False
        self._stop_timer(state, out)
        state.phase = Phase.GAME_OVER
        state.winner = None
        state.record["winner"] = "draw"
        self._score(state)
        out.append(Say("fiim.draw", {"nights": limit}))
        self._announce_cards(state, out)
        out.append(GameOver(None))
        return True


def score_lines(record: GameRecord, settings: GameRules, ruleset: RuleSet) -> list[ScoreLine]:
    """Each seat's points by line (docs/RULES-FIIM.md section 11): the win or the loss, the
    best move of a red first-night victim who named two or three black seats, the penalties for
    a removal and for causing the team's loss. The referee's extra points are added to these by
    the protocol."""
    fiim = settings.fiim
    winner = record["winner"]
    best = record.get("best_move")
    removed = {d["seat"] for d in record["departures"] if d["how"] == "removed"}
    caused = record.get("team_loss")
    lines: list[ScoreLine] = []
    for key, role in sorted(record["roles"].items(), key=lambda item: int(item[0])):
        seat = Seat(int(key))
        team = ruleset.team(Role(role)).value
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


def no_scores(record: GameRecord, settings: GameRules, ruleset: RuleSet) -> list[ScoreLine] | None:
    """The rule set keeps no scores."""
    return None


#: ``end.win``: who has won, if anyone, once every card is known.
WINS: dict[str, Callable[[End, GameState], Team | None]] = {
    "parity": End._parity,
    "parity_with_third_team": End._parity_with_third_team,
}

#: ``end.scores``: each seat's points when the game is over (None: no scores).
SCORES: dict[str, Callable[[GameRecord, GameRules, RuleSet], list[ScoreLine] | None]] = {
    "none": no_scores,
    "fiim": score_lines,
}
