"""The settings that decide a game: the club's rules, the speech timers and the night windows.

They are the game's own type (``GameRules``), so the rules never read the YAML loader;
``voicehost.config`` builds them from config.yaml, and the journal's header records them, so a
resumed game keeps the rules it started with whatever config.yaml says now. A field's metadata
may hold ``choices`` (allowed strings) or ``range`` (inclusive numeric bounds); config.yaml's
loader checks them and names the key and the line.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any

from voicehost.game.errors import BadRecord


def choices(*values: str, default: str) -> Any:
    """A text setting that takes one of ``values``."""
    return field(default=default, metadata={"choices": values})


def bounded(low: float, high: float, default: float) -> Any:
    """A number setting from ``low`` to ``high``, both included."""
    return field(default=default, metadata={"range": (low, high)})


DEFAULT_MAFIA_COUNT = {8: 2, 9: 3, 10: 3, 11: 3, 12: 4, 13: 4}


@dataclass(frozen=True)
class RulesSettings:
    """The club's rules; every decision of docs/RULES.md is one of these, with its default."""

    preset: str = choices("club", "fiim", "city", default="club")
    file: str = ""  # a club's own rule set (YAML, `voicehost rules check FILE`); "": the preset's
    mafia_count: dict[int, int] = field(default_factory=lambda: dict(DEFAULT_MAFIA_COUNT))
    commissar: bool = True
    doctor: bool = True
    rotate_first_speaker: bool = False
    fouls_to_disqualify: int = bounded(1, 10, 3)
    night_foul_disqualifies: bool = True
    third_vote_tie: str = choices("all_stay", "all_leave", default="all_stay")
    doctor_self_heal: bool = True
    doctor_same_patient_twice: bool = False
    commissar_may_check_self: bool = False
    last_words_after_vote: bool = True
    last_words_after_kill: bool = True
    killed_commissar_last_words: bool = False
    disqualified_last_words: bool = False
    four_players_skip_third_vote: bool = True
    confirm_nominations: bool = True
    acquaintance: bool = False
    acquaintance_topic: str = ""


@dataclass(frozen=True)
class SpeechWarnings:
    """The warning cue before a speech ends, by speech kind (seconds; 0: none). A club's 15 s
    nomination speech is warned 5 s before its end; a FIIM referee warns a 60 s speech at 10 s.
    Each kind of speech names its warning in its rule set (``day.speeches``: ``warning``)."""

    discussion: float = bounded(0, 600, 5)  # the club's free discussion
    nomination: float = bounded(0, 60, 5)  # a nomination speech (timers.nomination_speech_seconds)
    defence: float = bounded(0, 60, 5)
    last_words: float = bounded(0, 60, 5)
    acquaintance: float = bounded(0, 60, 5)
    fiim_speech: float = bounded(0, 60, 10)  # FIIM's speech (fiim.speech_seconds)
    fiim_tie_speech: float = bounded(0, 60, 10)
    fiim_last_words: float = bounded(0, 60, 10)
    fiim_short_speech: float = bounded(0, 60, 10)  # FIIM: a lost speech at 3 or 4 players

    @classmethod
    def every(cls, seconds: float) -> SpeechWarnings:
        """One warning for every kind: what an older config or journal's single number meant."""
        return cls(**{f.name: float(seconds) for f in dataclasses.fields(cls)})


#: Each warning and the speech length it must be shorter than.
WARNED_SPEECHES = {
    "discussion": "timers.discussion_seconds",
    "nomination": "timers.nomination_speech_seconds",
    "defence": "timers.defence_speech_seconds",
    "last_words": "timers.last_words_seconds",
    "acquaintance": "timers.acquaintance_seconds",
    "fiim_speech": "fiim.speech_seconds",
    "fiim_tie_speech": "fiim.tie_speech_seconds",
    "fiim_last_words": "fiim.last_words_seconds",
    "fiim_short_speech": "fiim.short_speech_seconds",
}


@dataclass(frozen=True)
class TimerSettings:
    """Speech timers (seconds)."""

    discussion_seconds: float = bounded(10, 3600, 180)
    nomination_speech_seconds: float = bounded(3, 600, 15)
    defence_speech_seconds: float = bounded(3, 600, 30)
    last_words_seconds: float = bounded(3, 600, 15)
    warning_seconds: SpeechWarnings = field(default_factory=SpeechWarnings)
    vote_result_seconds: float = bounded(0, 30, 8)
    acquaintance_seconds: float = bounded(3, 600, 30)

    def __post_init__(self) -> None:
        if not isinstance(self.warning_seconds, SpeechWarnings):  # an older single number
            warnings = SpeechWarnings.every(self.warning_seconds)
            object.__setattr__(self, "warning_seconds", warnings)


@dataclass(frozen=True)
class NightWindows:
    """Night steps last a fixed window (seconds), however quickly the role acts."""

    registration_window_seconds: float = bounded(3, 300, 15)
    mafia_window_seconds: float = bounded(3, 300, 20)
    no_agreed_shot_after_seconds: float = bounded(1, 300, 12)
    commissar_window_seconds: float = bounded(3, 300, 15)
    doctor_window_seconds: float = bounded(3, 300, 15)


@dataclass(frozen=True)
class FiimSettings:
    """The points docs/RULES-FIIM.md leaves to the referee, with their common defaults
    (``rules.preset: fiim``; the club preset never reads them)."""

    speech_seconds: float = bounded(10, 600, 60)
    tie_speech_seconds: float = bounded(5, 600, 30)
    last_words_seconds: float = bounded(5, 600, 60)
    night0_black_seconds: float = bounded(10, 600, 60)
    night0_role_window_seconds: float = bounded(3, 300, 15)
    free_seating_seconds: float = bounded(0, 300, 20)
    shot_window_seconds: float = bounded(5, 300, 20)
    check_window_seconds: float = bounded(3, 300, 15)
    first_day_single_nominee: str = choices("no_vote", "leaves", default="no_vote")
    lift_two_of_four: bool = True
    lift_three_of_nine: bool = False
    best_move: bool = True
    fouls_to_remove: int = bounded(2, 10, 4)
    skipped_speech_seconds: float = bounded(3, 120, 10)
    short_speech_seconds: float = bounded(5, 600, 30)
    removal_cancels_vote: bool = True
    draw_after_nights: int = bounded(0, 10, 3)
    game_end_last_words: bool = True
    score_win: float = bounded(-10, 10, 1)
    score_loss: float = bounded(-10, 10, 0)
    score_best_move_3: float = bounded(-10, 10, 0.7)
    score_best_move_2: float = bounded(-10, 10, 0.5)
    score_removal: float = bounded(-10, 10, -0.5)
    score_team_loss: float = bounded(-10, 10, -0.7)
    score_extra_limit: float = bounded(0, 10, 1)


@dataclass(frozen=True)
class CitySettings:
    """The choices of city Mafia (docs/RULES-CITY.md; ``rules.preset: city``; the other presets
    never read them): which roles are dealt, what the Commissar does at night, what the table is
    told of a card that leaves, and the windows of the city's own night steps."""

    don: bool = True
    commissar: bool = True
    commissar_action: str = choices("check", "kill", default="check")
    doctor: bool = True
    putana: bool = True
    maniac: bool = True
    immortal: bool = True
    cards: str = choices("open", "closed", "half_closed", default="open")
    don_window_seconds: float = bounded(3, 300, 15)
    putana_window_seconds: float = bounded(3, 300, 15)
    maniac_window_seconds: float = bounded(3, 300, 15)


@dataclass(frozen=True)
class Preset:
    """What a preset fixes about the table: its size (None: the config's), its black team (None:
    the config's, or the rule set's table) and the table sizes it is played at."""

    players: int | None = None
    black: int | None = None
    sizes: tuple[int, int] = (8, 13)


#: The presets ``rules.preset`` names. The rules of each are voicehost/game/presets/NAME.yaml.
PRESETS = {
    "club": Preset(),
    "fiim": Preset(players=10, black=3, sizes=(10, 10)),
    "city": Preset(sizes=(6, 20)),
}

#: City Mafia's black team (the Don among them) at each table size (docs/RULES-CITY.md).
CITY_BLACK = {6: 1, 7: 2, 8: 2, 9: 2, 10: 3, 11: 3, 12: 3, 13: 4, 14: 4, 15: 4, 16: 5, 17: 5,
              18: 5, 19: 6, 20: 6}  # fmt: skip

#: Keys an earlier voicehost wrote into a journal's night record that do not decide the game.
_NOT_RULES = {"masking", "masking_noise", "masking_file", "masking_volume"}


@dataclass(frozen=True)
class GameRules:
    """Everything that decides one game: the table size and the three rule sections."""

    players: int = 10
    rules: RulesSettings = field(default_factory=RulesSettings)
    timers: TimerSettings = field(default_factory=TimerSettings)
    night: NightWindows = field(default_factory=NightWindows)
    fiim: FiimSettings = field(default_factory=FiimSettings)
    city: CitySettings = field(default_factory=CitySettings)
    ruleset_text: str = ""  # a club's own rule set file's text (rules.file), kept in the journal

    @property
    def preset(self) -> Preset:
        return PRESETS[self.rules.preset]

    @property
    def mafia_count(self) -> int:
        """How many black players sit at this table."""
        if self.rules.preset == "city":
            return CITY_BLACK[self.players]
        return self.preset.black or self.rules.mafia_count[self.players]

    def to_record(self) -> dict[str, Any]:
        """The rules as plain JSON data, for the journal's header. A club game's header has no
        preset and no fiim section, as before presets existed."""
        rules = dataclasses.asdict(self.rules)
        rules["mafia_count"] = {str(k): v for k, v in self.rules.mafia_count.items()}
        club = self.rules.preset == "club"
        if club:
            del rules["preset"]
        if not self.rules.file:
            del rules["file"]  # a game by a preset's rules: the header as before rule set files
        record: dict[str, Any] = {
            "players": self.players,
            "rules": rules,
            "timers": dataclasses.asdict(self.timers),
            "night": {
                f.name: getattr(self.night, f.name) for f in dataclasses.fields(NightWindows)
            },
        }
        if self.rules.preset == "fiim":
            record["fiim"] = dataclasses.asdict(self.fiim)
        if self.rules.preset == "city":
            record["city"] = dataclasses.asdict(self.city)
        if self.ruleset_text:
            record["ruleset"] = self.ruleset_text  # resumes by it even if the file changes
        return record

    @classmethod
    def from_record(cls, record: Any) -> GameRules:
        """Read the rules back from a journal header; raises BadRecord saying what is wrong."""
        if not isinstance(record, dict):
            raise BadRecord("the header's game record is not a mapping")
        players = record.get("players")
        if not isinstance(players, int) or isinstance(players, bool) or not 4 <= players <= 20:
            raise BadRecord(
                f"players is {players!r}; a table has 8 to 13 players (6 to 20 in city Mafia)"
            )
        rules = _section(RulesSettings, record.get("rules"), "rules", set())
        if "mafia_count" in rules:
            rules["mafia_count"] = _mafia_count(rules["mafia_count"])
        game = cls(
            players=players,
            rules=RulesSettings(**rules),
            timers=TimerSettings(**_section(TimerSettings, record.get("timers"), "timers", set())),
            night=NightWindows(**_section(NightWindows, record.get("night"), "night", _NOT_RULES)),
            fiim=FiimSettings(**_section(FiimSettings, record.get("fiim"), "fiim", set())),
            city=CitySettings(**_section(CitySettings, record.get("city"), "city", set())),
            ruleset_text=_text(record.get("ruleset", "")),
        )
        low, high = game.preset.sizes
        if game.preset.players is None and not low <= players <= high:
            raise BadRecord(
                f"players is {players}; the {game.rules.preset} rules seat {low} to {high}"
            )
        if game.rules.preset == "club" and players not in game.rules.mafia_count:
            raise BadRecord(f"rules.mafia_count has no entry for {players} players")
        fixed = game.preset.players
        if fixed is not None and players != fixed:
            raise BadRecord(f"players is {players}; the {game.rules.preset} preset has {fixed}")
        return game


def _section(cls: type[Any], data: Any, name: str, ignored: set[str]) -> dict[str, Any]:
    """The fields of one section, each checked against its type; a missing one takes its
    default, an unknown one means a newer voicehost wrote the journal."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise BadRecord(f"{name} is not a mapping")
    known = {f.name: f for f in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in ignored:
            continue
        spec = known.get(key)
        if spec is None:
            raise BadRecord(
                f"{name}.{key} is a rule this voicehost does not know; the journal was written "
                "by a newer version: update voicehost to resume it"
            )
        values[key] = _checked(spec, hints[key], value, f"{name}.{key}")
    return values


def _checked(spec: dataclasses.Field[Any], kind: Any, value: Any, key: str) -> Any:
    if kind is SpeechWarnings:  # a mapping by speech kind; an older journal's single number
        if isinstance(value, dict):
            return SpeechWarnings(**_section(SpeechWarnings, value, key, set()))
        every = _checked(dataclasses.fields(SpeechWarnings)[1], float, value, key)
        return SpeechWarnings.every(every)
    if typing.get_origin(kind) is dict:
        return value  # mafia_count, checked by its own reader
    if kind is bool:
        if not isinstance(value, bool):
            raise BadRecord(f"{key} is {value!r}; it must be true or false")
        return value
    if kind is int or kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadRecord(f"{key} is {value!r}; it must be a number")
        bounds = spec.metadata.get("range")
        if bounds and not bounds[0] <= value <= bounds[1]:
            raise BadRecord(f"{key} is {value}; allowed: {bounds[0]} to {bounds[1]}")
        return int(value) if kind is int else float(value)
    allowed = spec.metadata.get("choices")
    if not isinstance(value, str) or (allowed and value not in allowed):
        raise BadRecord(f"{key} is {value!r}; allowed: {', '.join(allowed or ())}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise BadRecord("the recorded rule set is not text")
    return value


def _mafia_count(data: Any) -> dict[int, int]:
    if not isinstance(data, dict):
        raise BadRecord("rules.mafia_count is not a mapping")
    counts: dict[int, int] = {}
    for key, value in data.items():
        try:
            players, mafia = int(key), int(value)
        except (TypeError, ValueError):
            raise BadRecord(f"rules.mafia_count.{key} is {value!r}; it must be a number") from None
        if not 8 <= players <= 13 or mafia < 1 or 2 * mafia >= players:
            raise BadRecord(f"rules.mafia_count.{key} is {value!r}; that is not a game")
        counts[players] = mafia
    return counts
