"""The morning: the night resolved (blocks, heals, kills, checks), told and recorded."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from voicehost.game.effects import Effect, Say
from voicehost.game.model import Role, Seat, Team
from voicehost.game.night import ACTIONS
from voicehost.game.record import seat_key
from voicehost.game.rules import GameRules
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState, NightActions
from voicehost.game.table import Table


class Morning(Table):
    """The night resolved and told: the morning's chain of resolvers."""

    def __init__(self, settings: GameRules, ruleset: RuleSet) -> None:
        super().__init__(settings, ruleset)
        self.resolvers = tuple(MORNING[name] for name in ruleset.morning)
        self.night_record = NIGHT_RECORDS[ruleset.night_record]
        self.kills = KILLS[ruleset.kills]
        #: the town's check, whose find the morning may tell: the first red role that checks
        self.town_check = next(
            (
                role
                for role, spec in ruleset.roles.items()
                if spec.team is Team.RED and ACTIONS[self.action(spec)].asks
            ),
            None,
        )

    @staticmethod
    def _dawn(state: GameState) -> None:
        """The town wakes: the morning belongs to the next day. Night N lies between day N and
        day N+1; whatever happens from «Город просыпается» on (the victim's last minute, a foul
        in it, the day's speeches) is day N+1's, on the screen and in the protocol."""
        state.day += 1

    def first_morning(self, state: GameState, out: list[Effect]) -> None:
        """After night 0: every card is known; who left during it is told; the first day."""
        state.timer = None
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        for player in state.players.values():
            if player.role is None:
                player.role = Role.CIVILIAN
        state.record["departures"] = [  # left before the cards were known
            {**departure, "role": self._role_value(state.players[departure["seat"]].role)}
            for departure in state.record["departures"]
        ]
        state.record["roles"] = {
            seat_key(seat): player.role.value
            for seat, player in sorted(state.players.items())
            if player.role is not None
        }
        actions = state.night_actions
        self._announce_left_at_night(state, out)
        speakers = list(actions.disqualified) if self.value(self.ruleset.disqualified_speak) else []
        state.record["nights"].append({"night": 0, "disqualified": list(actions.disqualified)})
        state.night_actions = NightActions()
        if self.end.announce_winner(state, out):
            return
        if speakers:
            state.after_last_words = "day"
            state.last_words_queue = speakers
            self.day.next_last_words(state, out)
            return
        self.day.start_day(state, out)

    def _announce_left_at_night(self, state: GameState, out: list[Effect]) -> None:
        """Who left the table during the night for a foul or a removal: the morning tells."""
        for seat in state.night_actions.disqualified:
            out.append(self.card_rule.left_at_night(self, state, seat))

    def resolve_night(self, state: GameState, out: list[Effect]) -> None:
        """The morning's resolvers in the rule set's order: who left for a foul, the night's
        kills (after blocks and heals), the public word of a check."""
        state.timer = None
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        actions = state.night_actions
        killed: list[Seat] = []
        for resolver in self.resolvers:
            killed = resolver(self, state, out, killed)
        self._record_night(state, killed)
        speakers = list(actions.disqualified) if self.value(self.ruleset.disqualified_speak) else []
        for role in self.ruleset.roles:  # not the same seat two nights running
            keeps = self.night.acts[role].keeps
            if keeps is not None:
                state.previous[role] = keeps(actions, role)
        state.night_actions = NightActions()
        for seat in killed:
            self.fouls.depart(state, out, seat, "kill")
        if self.end.announce_winner(state, out) or self.end.announce_draw(state, out):
            return
        state.after_last_words = "day"
        queue: list[Seat] = []
        for seat in killed:
            card = self.ruleset.roles.get(state.players[seat].role or Role.CIVILIAN)
            # a card that leaves in silence (the club's Commissar) does so only where the
            # cards are open: with closed cards the silence would name it
            if (
                card is not None
                and not self.value(card.killed_speaks)
                and self.card_rule.shows_card
            ):
                if card.silent:
                    out.append(Say(card.silent))
            elif self.rules.last_words_after_kill:
                queue.append(seat)
        state.last_words_queue = queue + [seat for seat in speakers if seat not in killed]
        if not state.last_words_queue:
            self.day.start_day(state, out)
            return
        victim = queue[0] if len(killed) == 1 and queue else None
        best_move = victim is not None and self.day.best_move_due(state)
        if best_move:
            out.append(Say("fiim.best_move", {"seat": victim}))
        self.day.next_last_words(state, out)
        if best_move:
            state.best_move_by = victim

    def _healer(self) -> Role:
        for role, act in self.night.acts.items():
            if act.heals:
                return role
        return Role.DOCTOR

    def _told_left_at_night(
        self, state: GameState, out: list[Effect], killed: list[Seat]
    ) -> list[Seat]:
        self._announce_left_at_night(state, out)
        return killed

    def _told_kills(self, state: GameState, out: list[Effect], killed: list[Seat]) -> list[Seat]:
        return self._resolve_kills(state, out)

    def _told_checks(self, state: GameState, out: list[Effect], killed: list[Seat]) -> list[Seat]:
        self._announce_checks(state, out, killed)
        return killed

    def _resolve_kills(self, state: GameState, out: list[Effect]) -> list[Seat]:
        """Blocks, then heals, then the kills: who dies this night, announced."""
        return self.kills(self, state, out, self.night.agreed_shot(state))

    def _one_shot_told(self, state: GameState, out: list[Effect], shot: Seat | None) -> list[Seat]:
        """The black team's shot alone: killed or missed."""
        out.append(Say("fiim.killed", {"seat": shot}) if shot is not None else Say("fiim.miss"))
        return [shot] if shot is not None else []

    def _shot_or_heal(self, state: GameState, out: list[Effect], shot: Seat | None) -> list[Seat]:
        """The black team's shot, unless the heal saved its target."""
        actions = state.night_actions
        if shot is not None and shot in actions.disqualified:
            # the shot player left for a foul later that night: not a miss, nobody dies
            out.append(Say("morning.shot_disqualified", {"seat": shot}))
        elif shot is None or not state.players[shot].alive:
            out.append(Say("morning.miss"))
        elif shot == actions.heal:
            actions.saved = True
            out.append(Say("morning.saved"))
        else:
            out.append(Say("morning.killed", {"seat": shot}))
            return [shot]
        return []

    def _several_killers(
        self, state: GameState, out: list[Effect], shot: Seat | None
    ) -> list[Seat]:
        """Several killers (docs/RULES-CITY.md): the «путана»'s client does nothing that night
        (her black client: the black team does not shoot); a heal saves its patient from every
        shot; no night kill takes the Immortal. Two deaths are told together."""
        actions = state.night_actions
        blocked = set(actions.blocks.values())
        state.vote_blocked = []
        black_blocked = any(
            self.team_of(state.players[seat].role) is Team.BLACK
            and state.players[seat].role is not None
            for seat in blocked
        )
        shots: list[Seat] = []
        if shot is not None and not black_blocked:
            shots.append(shot)
        for role, target in actions.other_kills.items():
            holder = state.holder(role)
            if target is not None and holder is not None and holder not in blocked:
                shots.append(target)
        healed = actions.heal if not self._blocked(state, self._healer(), blocked) else None
        killed: list[Seat] = []
        saved = False
        for target in shots:
            player = state.players[target]
            card = self.ruleset.roles.get(player.role or Role.CIVILIAN)
            if not player.alive or target in killed:
                continue
            if target == healed:
                saved = True
            elif card is None or not card.immortal:
                killed.append(target)
        killed.sort()
        actions.saved = saved and not killed
        actions.killed = list(killed)
        if len(killed) >= 2:
            out.append(Say("city.killed_two", {"seats": tuple(killed)}))
        elif killed:
            out.append(Say("city.killed", {"seat": killed[0]}))
        elif saved:
            out.append(Say("city.saved"))
        else:
            out.append(Say("city.nobody_killed"))
        for seat in sorted(blocked):
            if state.players[seat].alive and seat not in killed:
                state.vote_blocked.append(seat)
                out.append(Say("city.blocked", {"seat": seat}))
        return killed

    def _blocked(self, state: GameState, role: Role, blocked: set[Seat]) -> bool:
        holder = state.holder(role)
        return holder is not None and holder in blocked

    def _announce_checks(self, state: GameState, out: list[Effect], killed: list[Seat]) -> None:
        """The town's check (the club's Commissar's) is told to the town, unless its holder
        was killed."""
        actions = state.night_actions
        role = self.town_check
        check = None if role is None else actions.checks.get(role)
        commissar = None if role is None else state.holder(role)
        heard = (
            check is not None
            and commissar is not None
            and commissar not in killed
            and state.players[commissar].alive
        )
        actions.check_announced = heard
        if heard and check is not None and role is not None:
            found = self.night.finds(self.ruleset.roles[role], state.players[check].role)
            out.append(Say("morning.commissar_found" if found else "morning.commissar_not_found"))

    def _record_night(self, state: GameState, killed: list[Seat]) -> None:
        """The night in the protocol, in the rule set's shape (``night.record``)."""
        self.night_record(self, state, killed)

    def _record_shots_checks(self, state: GameState, killed: list[Seat]) -> None:
        """Each black player's shot and each check with its find (FIIM's protocol)."""
        actions = state.night_actions
        players = state.players
        shots: dict[str, Any] = {
            "night": state.night,
            "shots": {seat_key(shooter): target for shooter, target in actions.shots},
            "shot": killed[0] if killed else None,
            "killed": killed[0] if killed else None,
        }
        for role, check_key, found_key, _, _ in self.ruleset.recorded_checks():
            spec = self.ruleset.spec(Role(role))
            checked = actions.checks.get(spec.name)
            shots[check_key] = checked
            if checked is None:
                shots[found_key] = None
            else:
                shots[found_key] = self.night.finds(spec, players[checked].role)
        shots["disqualified"] = list(actions.disqualified)
        state.record["nights"].append(shots)  # type: ignore[arg-type]

    def _record_shot_check_heal(self, state: GameState, killed: list[Seat]) -> None:
        """The shot, the town's check, the heal and who was killed (the club's protocol)."""
        state.record["nights"].append(self._night_entry(state, killed))  # type: ignore[arg-type]

    def _record_actions(self, state: GameState, killed: list[Seat]) -> None:
        """The club's record and every role's action by name (the city's protocol)."""
        actions = state.night_actions
        night = self._night_entry(state, killed)
        night["kills"] = {role.value: target for role, target in actions.other_kills.items()}
        night["checks"] = {role.value: seat for role, seat in actions.checks.items()}
        night["blocks"] = {role.value: seat for role, seat in actions.blocks.items()}
        night["killed_all"] = list(killed)
        state.record["nights"].append(night)  # type: ignore[arg-type]

    def _night_entry(self, state: GameState, killed: list[Seat]) -> dict[str, Any]:
        actions = state.night_actions
        players = state.players
        role = self.town_check
        check = None if role is None else actions.checks.get(role)
        checked_mafia = None if check is None else self.team_of(players[check].role) is Team.BLACK
        night: dict[str, Any] = {
            "night": state.night,
            "shot": self.night.agreed_shot(state),
            "check": check,
            "check_found_mafia": checked_mafia,
            "check_announced": actions.check_announced,
            "heal": actions.heal,
            "saved": actions.saved,
            "killed": killed[0] if killed else None,
            "disqualified": list(actions.disqualified),
        }
        return night

    def end_night_with_win(self, state: GameState, out: list[Effect]) -> None:
        """A departure at night decided the game: the town wakes now and hears it."""
        self._stop_timer(state, out)
        self._dawn(state)
        out.append(Say(self.ruleset.morning_phrase))
        self._announce_left_at_night(state, out)
        # the night as it was entered up to here (a shot entered is kept, not a miss); nothing
        # of it was carried out: nobody was killed, healed or told
        self._record_night(state, [])
        state.record["nights"][-1]["ended_by_win"] = True
        state.night_actions = NightActions()
        self.end.announce_winner(state, out)


#: ``night.morning``: the morning's resolvers, each told in the rule set's order; each gets
#: and returns who was killed this night.
MORNING: dict[str, Callable[[Morning, GameState, list[Effect], list[Seat]], list[Seat]]] = {
    "left_at_night": Morning._told_left_at_night,
    "kills": Morning._told_kills,
    "checks": Morning._told_checks,
}


#: ``night.kills``: how the night's kills resolve, told; each gets the black team's agreed shot
#: (None: a miss) and returns who was killed.
KILLS: dict[str, Callable[[Morning, GameState, list[Effect], Seat | None], list[Seat]]] = {
    "one_shot": Morning._one_shot_told,
    "shot_or_heal": Morning._shot_or_heal,
    "after_blocks_and_heals": Morning._several_killers,
}

#: ``night.record``: the shape of a night in the protocol.
NIGHT_RECORDS: dict[str, Callable[[Morning, GameState, list[Seat]], None]] = {
    "shot_check_heal": Morning._record_shot_check_heal,
    "shots_checks": Morning._record_shots_checks,
    "actions": Morning._record_actions,
}
