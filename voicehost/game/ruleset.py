"""A rule set as data: the roles, the night, the day and the end.

The presets (``club``, ``fiim``, ``city``) are YAML files in ``voicehost/game/presets/``, read by
``voicehost.rulesets`` (the rules themselves import nothing but the standard library); a club may
write its own and check it with ``voicehost rules check FILE``. A rule set names small policies
that the one engine implements, each kind in one registry of its parts (their names:
``voicehost.game.policies.KNOWN``); a value written ``section.key`` is read from the game's
settings (config.yaml), so a club keeps choosing e.g. whether the Doctor may heal himself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from voicehost.game.model import Role, Team


@dataclass(frozen=True)
class RoleSpec:
    """One card: its team, what it does at night, what it learns, its limits."""

    name: Role
    team: Team
    action: str = "none"
    learns: str = "none"  # check: what the answer says
    finds: tuple[Role, ...] = ()  # check, learns "role": the cards that answer yes
    private: bool = False  # the answer goes to the one who asked alone
    count: str | int = 1  # "black": the table's black count, less the other black roles
    enabled: str | bool = True  # a setting or a constant
    self_target: str | bool = False  # may choose oneself
    self_once: bool = False  # ... once per game
    same_twice: str | bool = True  # may choose the same seat two nights running
    killed_speaks: str | bool = True  # last words when killed at night
    immortal: bool = False  # a night kill does not take them
    wins_alone: bool = False  # a third team: wins when only they and one other remain
    any_seat: bool = False  # may choose a seat that has left (a wasted check)
    already: str = "fiim_already_checked"  # the refusal of a second check in one night
    answer: tuple[str, str] = ("private_mafia", "private_not_mafia")  # screen keys: yes, no
    silent: str = ""  # said when killed without last words (killed_speaks false)


@dataclass(frozen=True)
class NightStep:
    """One wake of the night: whose, with what phrases, for how long."""

    role: Role
    wake: str
    sleep: str
    window: str  # a setting: the step's fixed window in seconds
    warn_after: str | None = None  # a setting: the «no agreed shot» warning's moment
    registers: tuple[Role, ...] = ()  # night 0: the cards this entry names
    prompt: str = ""  # the screen's question (a key of the book's screen section)


@dataclass(frozen=True)
class RuleSet:
    """Everything that decides how a game goes, as data."""

    name: str
    players: tuple[int, int]
    black: str | dict[int, int]
    roles: dict[Role, RoleSpec]
    cards: str
    night0_opening: str
    night0_steps: tuple[NightStep, ...]
    seating: str | None  # a setting: free seating before the first morning (FIIM)
    morning_phrase: str
    morning: tuple[str, ...]  # the morning's resolvers, in the order they are announced
    night_record: str  # the shape of a night in the protocol
    night_opening: str
    night_steps: tuple[NightStep, ...]
    call_departed: bool  # every step is called even when its holder has left
    agreement: str
    day_opening: str
    rotate_first_speaker: str | bool
    nominations: str
    vote: str
    ties: str
    fouls: str
    removal: bool
    team_loss: bool
    disqualified_speak: str | bool
    win: str
    final_words: str | bool
    draw_after: str | None
    scores: str
    best_move: str | bool
    record_preset: bool
    speeches: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: each speech kind's warning setting (default ``timers.warning_seconds.<kind>``)
    speech_warnings: dict[str, str] = field(default_factory=dict)
    composition: dict[int, dict[Role, int]] = field(default_factory=dict)
    source: str = ""
    # the cards the host names aloud and on the screen when the game is over, in this order
    # (``end.cards``; a file without it: every card but the civilian's)
    end_cards: tuple[Role, ...] = ()
    # night 0 opens with the deal (``night0.deal``: its phrase): the host waits until the cards
    # are dealt (`.`, or the black team's seats typed) before the first wake; "" : no deal
    deal: str = ""
    # the night's opening is said once the cards are dealt (a deal by the phone before a night 0
    # that has no deal of its own: ``dealt_by_device``)
    deal_opens_night: bool = False
    # the vote's question for each candidate (``day.vote_question``)
    vote_question: str = "day.vote_for"
    # how the night's kills resolve (``night.kills``; a file without it: as its ``night.record``
    # always had them, policies.KILLS_OF_RECORD)
    kills: str = ""

    def spec(self, role: Role) -> RoleSpec:
        return self.roles[role]

    def dealt_by_device(self) -> RuleSet:
        """These rules with the cards dealt by the phone (``web.deal: device``) before night 0
        wakes anyone: a rule set with a deal of its own keeps it; another waits for the deal
        («night0.deal_device») and then opens the night as it would have."""
        if self.deal:
            return self
        return dataclasses.replace(self, deal="night0.deal_device", deal_opens_night=True)

    def team(self, role: Role | None) -> Team:
        """The team of a card (a player whose card is not yet known is red)."""
        if role is None or role not in self.roles:
            return Team.RED
        return self.roles[role].team

    def black_roles(self) -> tuple[Role, ...]:
        return tuple(role for role, spec in self.roles.items() if spec.team is Team.BLACK)

    def recorded_checks(self) -> tuple[tuple[str, str, str, str, str], ...]:
        """The checks a night's protocol keeps (``night.record: shots_checks``), in the order of
        the night: for each checking role, (its name, the record's key of the seat it checked,
        the key of what it found, the protocol's word for yes and for no): the Don's
        ``don_check``/``don_found_sheriff`` («шериф / не шериф»), the Sheriff's
        ``sheriff_check``/``sheriff_found_black`` («чёрный / красный»)."""
        out: list[tuple[str, str, str, str, str]] = []
        for step in self.night_steps:
            spec = self.roles.get(step.role)
            if spec is None or spec.action != "check" or any(c[0] == spec.name for c in out):
                continue
            role = spec.name.value
            if spec.learns == "role" and spec.finds:
                found = spec.finds[0].value
                out.append((role, f"{role}_check", f"{role}_found_{found}", found, f"not_{found}"))
            else:
                out.append((role, f"{role}_check", f"{role}_found_black", "black", "red"))
        return tuple(out)

    def step_of(self, phase_value: str) -> NightStep | None:
        for prefix, steps in (("night0_", self.night0_steps), ("night_", self.night_steps)):
            for step in steps:
                if phase_value == prefix + step.role.value:
                    return step
        return None
