"""config.yaml -> frozen settings, with errors that name the key, the line and the allowed values.

Each section is a frozen dataclass; a field's docstring-like comment in ``config.yaml`` explains
it for a person. A field's metadata may hold ``choices`` (allowed strings) or ``range`` (inclusive
numeric bounds). Unknown keys are errors, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from voicehost import yamltext
from voicehost.errors import ConfigError, ConfigErrors
from voicehost.game.rules import (
    PRESETS,
    WARNED_SPEECHES,
    CitySettings,
    FiimSettings,
    GameRules,
    NightWindows,
    RulesSettings,
    SpeechWarnings,
    TimerSettings,
    bounded,
    choices,
)
from voicehost.hearing import HEARING

DEFAULT_CONFIG = Path(__file__).resolve().parent.parent / "config.yaml"


@dataclass(frozen=True)
class NightSettings(NightWindows):
    """The night's windows (rules) and the sound under the night (not rules)."""

    masking: str = choices("off", "noise", "music", default="off")
    masking_noise: str = choices("pink", "brown", default="pink")
    masking_file: str = ""
    masking_volume: float = bounded(0, 1, 0.15)


@dataclass(frozen=True)
class VoiceSettings:
    """Speech synthesis and voice packs."""

    engine: str = choices("espeak", "text", default="espeak")
    voice: str = "auto"
    rate: int = bounded(60, 400, 150)
    volume: float = bounded(0, 1, 1.0)
    pack: str = ""
    cache_dir: str = "cache"
    count_pause_seconds: float = bounded(0, 3, 0.6)


@dataclass(frozen=True)
class AudioSettings:
    """Sound devices and cue loudness."""

    output_device: str = ""
    input_device: str = ""
    sample_rate: int = bounded(8000, 48000, 22050)
    cue_volume: float = bounded(0, 1, 0.5)
    target_loudness_dbfs: float = bounded(-40, 0, -18)
    block_frames: int = bounded(32, 4096, 256)
    """Frames per sound-card callback: how soon a sound can start (256 = 11.6 ms at 22050 Hz)."""


@dataclass(frozen=True)
class ListenerSettings:
    """Hearing «спасибо» / «пас» with Vosk."""

    enabled: bool = True
    model: str = "auto"
    models_dir: str = "models"
    silence_seconds: float = bounded(0.1, 3, HEARING.silence_seconds)
    fillers: bool = False
    sample_rate: int = bounded(8000, 48000, 16000)
    filler_count: int = bounded(1, 5000, 50)
    """How many words of the model's vocabulary stand in for other speech (with ``fillers``)."""
    min_confidence: float = bounded(0, 1, HEARING.min_confidence)
    """A last stop word heard with less confidence than this (Vosk's 0..1) ends nothing."""
    echo_tail_seconds: float = bounded(0, 3, HEARING.echo_tail_seconds)
    """After the host stops speaking, the microphone stays ignored this long (room echo)."""
    block_seconds: float = bounded(0.01, 0.5, 0.05)
    """Microphone audio is handed to Vosk in blocks this long (seconds)."""
    competitors: int = bounded(0, 50, 8)
    """Words of the model that sound most like each stop word, put in the grammar."""
    vad: str = choices("auto", "silero", "webrtc", default=HEARING.vad)
    """The voice-activity detector that hears the silence after a stop word."""
    room_margin_db: float = bounded(3, 40, HEARING.room_margin_db)
    """Voice this much quieter than the speaker is the room's (dB)."""
    speech_dbfs: float = bounded(-80, 0, -25.0)
    """The players' voices at the microphone (dBFS); `voicehost listen --calibrate` measures it."""
    denoise: float = bounded(0, 6, HEARING.denoise)
    """A stop word's audio is heard as captured, then with this many times the room's steady
    noise taken out; 0: only as captured."""
    denoise_stronger: float = bounded(0, 6, HEARING.denoise_stronger)
    """In a room noisier than 30 dB under the voices, a third hearing with the noise taken out
    this many times more than ``denoise``; 0: no third hearing."""
    denoise_smooth: float = bounded(0, 6, HEARING.denoise_smooth)
    """In a room noisier than 30 dB under the voices, a fourth hearing with this many times
    the room's noise taken out by a gain that follows the voice; 0: no fourth hearing."""
    referee_doubt: float = bounded(0, 5, HEARING.referee_doubt)
    """In a quiet room, a referee that scores the stop word alone within this much of its best
    guess does not refuse it; 0: only its best guess counts."""
    spoke_on_seconds: float = bounded(0, 3, 0.6)
    """After a stop word, the host holds the end this long with the speech's clock stopped: a
    player who talks on within it keeps the speech and the rest of its time (said aloud); 0:
    a stop word ends the speech at once."""


@dataclass(frozen=True)
class KeypadSettings:
    """The USB numeric keypad (evdev)."""

    enabled: str = choices("auto", "on", "off", default="auto")
    device: str = ""
    keymap: dict[str, str] = field(
        default_factory=lambda: {
            "KEY_KP0": "0",
            "KEY_KP1": "1",
            "KEY_KP2": "2",
            "KEY_KP3": "3",
            "KEY_KP4": "4",
            "KEY_KP5": "5",
            "KEY_KP6": "6",
            "KEY_KP7": "7",
            "KEY_KP8": "8",
            "KEY_KP9": "9",
            "KEY_KPENTER": "enter",
            "KEY_BACKSPACE": "correct",
            "KEY_KPDOT": "correct",
            "KEY_KPMINUS": "miss",
            "KEY_KPPLUS": "end_speech",
            "KEY_KPASTERISK": "foul",
            "KEY_KPSLASH": "undo",
        }
    )
    entry_timeout_seconds: float = bounded(1, 60, 8)


@dataclass(frozen=True)
class PrivateSettings:
    """How the Commissar gets the answer privately."""

    channel: str = choices("led", "screen", default="led")
    led: str = choices("numlock", "capslock", "scrolllock", default="numlock")
    led_seconds: float = bounded(0.5, 30, 3)
    led_on_means_mafia: bool = True
    screen_seconds: float = bounded(0.5, 30, 3)


@dataclass(frozen=True)
class WebSettings:
    """The web face: the board, the host's remote and dealing by the device (voicehost.web)."""

    enabled: bool = False
    port: int = bounded(1024, 65535, 8080)
    listen: str = ""
    """The address the web face listens on: "" every network of this machine; 127.0.0.1 this
    machine alone (a test, or a board on the same computer)."""
    pairing_code: str = ""
    """The club's own code a phone may type to become a remote (never printed, shown or said);
    empty: a phone becomes a remote only when the host types the number it shows."""
    pairing_lasts: str = choices("game", "evening", default="game")
    """How long a remote stays paired: this game (and its resume), or the club's open evening."""
    deal: str = choices("cards", "device", default="cards")
    """cards: the roles are drawn from real cards; device: the phone deals them (/deal)."""


@dataclass(frozen=True)
class StorageSettings:
    """Where journals and protocols are written."""

    journal_dir: str = "journals"
    protocol_dir: str = "protocols"


#: Points of a game for the evening and the season, by scoring preset (docs/CLUB.md). A
#: winner gets ``win_<team>`` and ``win_role_<role>`` on top; ``best_player`` and ``best_move``
#: go with the host's marks; a penalty mark without points of its own costs ``penalty``; a
#: player who left disqualified (or removed) gets ``disqualified``; ``game_score_lines`` weighs
#: the FIIM game's own best-move and penalty lines (1: counted as they are, 0: not at all).
#: The referee's extra points are added as given.
SCORING_PRESETS: dict[str, dict[str, float]] = {
    "club": {
        "win_red": 1.0,
        "win_black": 1.0,
        "win_maniac": 1.0,
        "win_role_civilian": 0.0,
        "win_role_mafia": 0.0,
        "win_role_commissar": 0.3,
        "win_role_doctor": 0.0,
        "win_role_don": 0.0,
        "win_role_sheriff": 0.0,
        "loss": 0.0,
        "best_player": 0.3,
        "best_move": 0.3,
        "penalty": -0.5,
        "disqualified": -0.5,
        "game_score_lines": 0.0,
    },
    "fiim": {
        "win_red": 1.0,
        "win_black": 1.0,
        "win_maniac": 1.0,
        "win_role_civilian": 0.0,
        "win_role_mafia": 0.0,
        "win_role_commissar": 0.0,
        "win_role_doctor": 0.0,
        "win_role_don": 0.0,
        "win_role_sheriff": 0.0,
        "loss": 0.0,
        "best_player": 0.0,
        "best_move": 0.0,
        "penalty": -0.5,
        "disqualified": 0.0,
        "game_score_lines": 1.0,
    },
}


@dataclass(frozen=True)
class ClubSettings:
    """The club's records: players' names, the evening, the season's database."""

    database: str = ""
    """"" keeps the club's records in SQLite in ``data_dir``; ``postgresql://user:password@host/db``
    sends every table's games to one PostgreSQL server (docs/CLUB.md)."""
    table: str = ""
    """This table's name in the club's records ("" = the machine's host name)."""
    season: str = ""
    """The season a game counts for ("" = the year it was played)."""
    data_dir: str = ""
    """The evening, the outbox and the SQLite database: "" = the club's folder every config file
    shares (``club/`` beside voicehost's own config.yaml); a folder named here (relative to this
    file's folder) keeps a separate club."""
    voice_names: bool = False
    """Say the player's name after the seat number (espeak-ng or a recorded voice pack)."""
    marks: bool = False
    """After each game, ask for the marks: best player, best move, extra points, penalties."""
    sync_timeout_seconds: float = bounded(0.5, 60, 3)
    """How long a table waits for the club's server before it keeps a game in the outbox."""


@dataclass(frozen=True)
class ScoringSettings:
    """Points for the evening's table and the season (docs/CLUB.md)."""

    preset: str = choices("club", "fiim", default="club")
    points: dict[str, float] = field(default_factory=dict)
    """Entries that replace the preset's (``win_red: 1.5``)."""

    def table(self) -> dict[str, float]:
        """The points of every entry: the preset's, with this file's changes."""
        return {**SCORING_PRESETS[self.preset], **self.points}


@dataclass(frozen=True)
class Settings:
    """Everything config.yaml holds."""

    language: str = choices("ru", "en", default="ru")
    players: int = bounded(6, 20, 10)
    rules: RulesSettings = field(default_factory=RulesSettings)
    timers: TimerSettings = field(default_factory=TimerSettings)
    night: NightSettings = field(default_factory=NightSettings)
    fiim: FiimSettings = field(default_factory=FiimSettings)
    city: CitySettings = field(default_factory=CitySettings)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    audio: AudioSettings = field(default_factory=AudioSettings)
    listener: ListenerSettings = field(default_factory=ListenerSettings)
    keypad: KeypadSettings = field(default_factory=KeypadSettings)
    private: PrivateSettings = field(default_factory=PrivateSettings)
    web: WebSettings = field(default_factory=WebSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    club: ClubSettings = field(default_factory=ClubSettings)
    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    base_dir: str = field(default=".", metadata={"internal": True})
    ruleset_text: str = field(default="", metadata={"internal": True})  # rules.file's text
    # the settings file given with --config when it is not the default one (the hints that
    # name a command to type name it too)
    config_file: str = field(default="", metadata={"internal": True})

    def path(self, relative: str) -> Path:
        """A path from the config, relative to the config file's folder."""
        candidate = Path(relative).expanduser()
        return candidate if candidate.is_absolute() else Path(self.base_dir) / candidate

    @property
    def mafia_count(self) -> int:
        return self.game.mafia_count

    @property
    def game(self) -> GameRules:
        """The settings that decide the game, as the rules take them."""
        windows = {f.name: getattr(self.night, f.name) for f in dataclasses.fields(NightWindows)}
        return GameRules(
            self.players,
            self.rules,
            self.timers,
            NightWindows(**windows),
            self.fiim,
            self.city,
            self.ruleset_text,
        )

    def with_game(self, game: GameRules) -> Settings:
        """These settings with the game-deciding parts replaced (a journal's recorded rules)."""
        night = dataclasses.replace(self.night, **dataclasses.asdict(game.night))
        return dataclasses.replace(
            self,
            players=game.players,
            rules=game.rules,
            timers=game.timers,
            night=night,
            fiim=game.fiim,
            city=game.city,
            ruleset_text=game.ruleset_text,
        )


def with_preset(settings: Settings, preset: str) -> Settings:
    """``settings`` played by ``preset`` (club, fiim, city), at the table size the preset fixes."""
    fixed = PRESETS[preset].players
    rules = dataclasses.replace(settings.rules, preset=preset)
    return dataclasses.replace(settings, rules=rules, players=fixed or settings.players)


def load(path: str | Path | None = None, *, rules_file: bool = True) -> Settings:
    """Read config.yaml (or defaults when ``path`` is None and no default file exists).

    ``rules_file=False`` (a command that goes on a journal: resume, protocol) leaves rules.file
    unread: the journal keeps the rule set its game was played by, and a club that has since
    moved, edited or deleted its file still resumes and prints that game."""
    config_path = Path(path) if path is not None else DEFAULT_CONFIG
    if path is None and not config_path.exists():
        return _from_environment(Settings(base_dir=str(DEFAULT_CONFIG.parent)))
    try:
        data = config_path.read_bytes()
    except OSError as exc:
        raise ConfigError(
            str(config_path),
            None,
            f"cannot read the file: {exc.strerror}",
            phrase="config_cannot_read",
            reason=exc.strerror,
        ) from exc
    base_dir = config_path.resolve().parent
    try:
        settings = loads(_text(data, config_path), base_dir, rules_file=rules_file)
    except ConfigError as exc:
        if config_path.name != "config.yaml":  # «--config club.yaml»: say which file
            raise exc.in_file(str(path)) from None
        raise
    if config_path.resolve() != DEFAULT_CONFIG.resolve():
        settings = dataclasses.replace(settings, config_file=str(path))
    return _from_environment(settings)


def sqlite_file_named(database: str) -> bool:
    """Whether a ``sqlite:///`` address names a file (not memory, not a folder)."""
    path = database.removeprefix("sqlite:///").split("?", 1)[0]
    return bool(path) and path != ":memory:" and not path.endswith("/")


def server_named(database: str) -> bool:
    """Whether a ``postgresql://`` address names a user, a server, a numbered port (if any) and
    a database, as the driver needs them."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(database)
        port = parts.port
    except ValueError:
        return False
    return bool(parts.username and parts.hostname and parts.path.strip("/") and port != 0)


#: Environment variables that move the game's data (the service puts it under /var/lib).
STORAGE_ENVIRONMENT = {
    "VOICEHOST_JOURNAL_DIR": "journal_dir",
    "VOICEHOST_PROTOCOL_DIR": "protocol_dir",
}
#: ... and the club's data (the evening, the outbox, the SQLite file).
CLUB_ENVIRONMENT = {"VOICEHOST_CLUB_DIR": "data_dir"}


def _from_environment(settings: Settings) -> Settings:
    changes = {
        name: os.environ[variable]
        for variable, name in STORAGE_ENVIRONMENT.items()
        if os.environ.get(variable)
    }
    club: dict[str, Any] = {
        name: os.environ[variable]
        for variable, name in CLUB_ENVIRONMENT.items()
        if os.environ.get(variable)
    }
    if club:
        settings = dataclasses.replace(settings, club=dataclasses.replace(settings.club, **club))
    if not changes:
        return settings
    return dataclasses.replace(settings, storage=dataclasses.replace(settings.storage, **changes))


def _text(data: bytes, path: Path) -> str:
    """The file as text, or a ConfigError saying what kind of file it is instead."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ConfigError(
            str(path),
            1,
            "the file is saved as UTF-16; save it as UTF-8 (plain text)",
            phrase="config_utf16",
        )
    if data.startswith(b"\x89PNG") or b"\x00" in data[:4096]:
        raise ConfigError(
            str(path),
            1,
            "this is not a text file (a picture or a program?); give config.yaml",
            phrase="config_not_text",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(
            str(path),
            line,
            f"byte 0x{data[exc.start]:02X} is not UTF-8 text (the file was saved in another "
            "encoding, e.g. Latin-1 or Windows-1251); save it as UTF-8",
            phrase="config_not_utf8",
            byte=f"0x{data[exc.start]:02X}",
        ) from exc


def loads(text: str, base_dir: str | Path = ".", *, rules_file: bool = True) -> Settings:
    """Parse config text; every problem raises ConfigError naming key and line (rules.file is
    read and checked unless ``rules_file`` is False: see ``load``)."""
    try:
        node = yamltext.compose(text)
    except yaml.reader.ReaderError as exc:
        raise ConfigError(
            "(file)",
            text[: exc.position].count("\n") + 1,
            f"character U+{exc.character:04X} is not allowed in a settings file; delete it",
            phrase="config_bad_character",
            character=f"U+{exc.character:04X}",
        ) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise ConfigError(
            "(file)",
            line,
            f"not valid YAML: {getattr(exc, 'problem', exc)}",
            phrase="config_not_yaml",
            library=getattr(exc, "problem", exc),
        ) from exc
    except RecursionError as exc:
        raise ConfigError(
            "(file)",
            1,
            "lists or mappings are nested too deeply; this is not config.yaml",
            phrase="config_nested",
        ) from exc
    if node is None:
        return Settings(base_dir=str(base_dir))
    settings = _build(Settings, node, "")
    settings = dataclasses.replace(settings, base_dir=str(base_dir))
    _check_cross_fields(settings, node)
    if settings.rules.file and rules_file:
        settings = _with_rule_set_file(settings, node)
    return settings


def _with_rule_set_file(settings: Settings, root: yaml.Node) -> Settings:
    """Read and check rules.file (a club's own rule set); its mistakes are named by line."""
    from voicehost.rulesets import RuleSetError, parse

    path = settings.path(settings.rules.file)
    line = _find_line(root, "rules.file")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ConfigError(
            "rules.file",
            line,
            f"cannot read {path}: {reason}",
            phrase="config_rules_unreadable",
            path=path,
            reason=reason,
        ) from exc
    try:
        ruleset = parse(text, str(path))
    except RuleSetError as exc:
        mistakes = "; ".join(f"{path}:{at}: {message}" for at, message in exc.problems)
        raise ConfigError(
            "rules.file",
            line,
            f"{mistakes} (`voicehost rules check {path}` lists them)",
            phrase="config_rules_mistakes",
            lines=", ".join(sorted({str(at) for at, _ in exc.problems}, key=int)),
            path=path,
        ) from exc
    low, high = ruleset.players
    if not low <= settings.players <= high:
        raise ConfigError(
            "players",
            _find_line(root, "players") or line,
            f"{settings.players} is out of range; allowed: {low} to {high} ({path})",
            phrase="config_rules_players",
            value=settings.players,
            low=low,
            high=high,
            path=path,
        )
    return dataclasses.replace(settings, ruleset_text=text)


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _build(cls: type[Any], node: yaml.Node, prefix: str) -> Any:
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(
            prefix.rstrip(".") or "(top)", _line(node), "must be a mapping of key: value"
        )
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
    values: dict[str, Any] = {}
    problems: list[ConfigError] = []  # every wrong value of the file is named at once
    for key_node, value_node in node.value:
        key = _key(key_node, prefix)
        dotted = f"{prefix}{key}"
        if key not in known:
            allowed = ", ".join(sorted(known))
            problems.append(
                ConfigError(
                    dotted,
                    _line(key_node),
                    f"unknown key; allowed keys here: {allowed}",
                    phrase="config_unknown_key",
                    allowed=allowed,
                )
            )
            continue
        try:
            value = _convert(known[key], hints[key], value_node, dotted)
        except ConfigError as exc:
            problems.extend(exc.problems if isinstance(exc, ConfigErrors) else [exc])
            continue
        factory = known[key].default_factory
        if isinstance(value, dict) and callable(factory):
            # A mapping in the file overrides single entries of the default mapping.
            value = {**factory(), **value}
        values[key] = value
    if problems:
        raise problems[0] if len(problems) == 1 else ConfigErrors(problems)
    return cls(**values)


def _convert(spec: dataclasses.Field[Any], hint: Any, node: yaml.Node, key: str) -> Any:
    if hint is SpeechWarnings and isinstance(node, yaml.ScalarNode):
        # An older config's one number for every speech (`warning_seconds: 5`) still works.
        every = _convert(dataclasses.fields(SpeechWarnings)[1], float, node, key)
        return SpeechWarnings.every(every)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _build(hint, node, key + ".")
    origin = typing.get_origin(hint)
    if origin is dict:
        return _convert_dict(hint, node, key)
    if not isinstance(node, yaml.ScalarNode):
        raise ConfigError(
            key,
            _line(node),
            "must be a single value, not a list or mapping",
            phrase="config_single_value",
        )
    raw = _plain(node, key) if node.tag != "tag:yaml.org,2002:str" else node.value
    if node.style in ("'", '"') or (hint is str and node.tag != "tag:yaml.org,2002:null"):
        raw = node.value  # a text field takes `off`, `on`, `no` as words, not YAML 1.1 booleans
    value = _scalar(hint, raw, key, _line(node))
    _check_metadata(spec.metadata, value, key, _line(node))
    return value


def _key(node: yaml.Node, prefix: str) -> str:
    """A mapping key as written; a list or mapping used as a key (``? [1]``) is an error."""
    if not isinstance(node, yaml.ScalarNode):
        raise ConfigError(
            prefix.rstrip(".") or "(top)",
            _line(node),
            "a key must be a plain name or number, not a list or mapping (`? [...]`)",
        )
    return str(node.value)


def _plain(node: yaml.ScalarNode, key: str) -> Any:
    """A scalar's value as YAML reads it (``10`` is a number, ``true`` a boolean).

    A plain scalar's tag is resolved from its text; a quoted one with a `!!` tag (rare) is read
    as a document of its own, as a value written plainly would be."""
    try:
        if yamltext.is_plain(node):
            return yamltext.plain_value(node.value)
        return yaml.safe_load(node.value)
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise ConfigError(
            key,
            _line(node),
            f"{node.value!r} cannot be read as a value; write it plainly (a number, true or "
            "false, or text) without a `!!` tag",
        ) from exc


def _scalar(hint: Any, raw: Any, key: str, line: int) -> Any:
    if hint is bool:
        if isinstance(raw, bool):
            return raw
        raise ConfigError(
            key, line, f"must be true or false, not {raw!r}", phrase="config_bool", value=repr(raw)
        )
    if hint is int:
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw
        raise ConfigError(
            key, line, f"must be a whole number, not {raw!r}", phrase="config_int", value=repr(raw)
        )
    if hint is float:
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return float(raw)
        raise ConfigError(
            key, line, f"must be a number, not {raw!r}", phrase="config_number", value=repr(raw)
        )
    if hint is str:
        return "" if raw is None else str(raw)
    if isinstance(hint, types.UnionType):  # pragma: no cover - no such fields yet
        return raw
    return raw


def _check_metadata(metadata: Any, value: Any, key: str, line: int) -> None:
    choices = metadata.get("choices")
    if choices and value not in choices:
        raise ConfigError(
            key,
            line,
            f"{value!r} is not allowed; use one of: {', '.join(choices)}",
            phrase="config_choice",
            value=repr(value),
            choices=", ".join(choices),
        )
    bounds = metadata.get("range")
    if bounds and not bounds[0] <= value <= bounds[1]:
        raise ConfigError(
            key,
            line,
            f"{value} is out of range; allowed: {bounds[0]} to {bounds[1]}",
            phrase="config_range",
            value=f"{value:g}" if isinstance(value, float) else value,
            low=bounds[0],
            high=bounds[1],
        )


def _convert_dict(hint: Any, node: yaml.Node, key: str) -> dict[Any, Any]:
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError(key, _line(node), "must be a mapping of key: value")
    key_type, value_type = typing.get_args(hint)
    result: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        item_key = f"{key}.{_key(key_node, key + '.')}"
        if not isinstance(value_node, yaml.ScalarNode):
            raise ConfigError(item_key, _line(value_node), "must be a single value")
        parsed_key = _scalar(key_type, _plain(key_node, item_key), item_key, _line(key_node))
        raw = _plain(value_node, item_key) if yamltext.is_plain(value_node) else value_node.value
        result[parsed_key] = _scalar(value_type, raw, item_key, _line(value_node))
    return result


def _find_line(node: yaml.Node, dotted: str) -> int | None:
    found = _find_node(node, dotted)
    return None if found is None else _line(found)


def _find_node(node: yaml.Node, dotted: str) -> yaml.Node | None:
    current: yaml.Node = node
    for part in dotted.split("."):
        if not isinstance(current, yaml.MappingNode):
            return None
        for key_node, value_node in current.value:
            if str(key_node.value) == part:
                current = value_node
                break
        else:
            return None
    return current


def _check_cross_fields(settings: Settings, root: yaml.Node) -> None:
    """Values that are wrong together; every one is named at once, so one edit fixes them all."""
    problems = sorted(_cross_field_problems(settings, root), key=lambda p: p.line or 0)
    if problems:
        raise problems[0] if len(problems) == 1 else ConfigErrors(problems)


def _cross_field_problems(settings: Settings, root: yaml.Node) -> Iterator[ConfigError]:
    low, high = PRESETS[settings.rules.preset].sizes
    fixed_size = PRESETS[settings.rules.preset].players is not None  # said below, as before
    if not fixed_size and not low <= settings.players <= high:
        yield ConfigError(
            "players",
            _find_line(root, "players") or _find_line(root, "rules.preset"),
            f"{settings.players} is out of range; allowed: {low} to {high} "
            f"(rules.preset {settings.rules.preset})",
            phrase="config_players_range",
            value=settings.players,
            low=low,
            high=high,
            preset=settings.rules.preset,
        )
    fixed = PRESETS[settings.rules.preset].players
    if fixed is not None and settings.players != fixed:
        yield ConfigError(
            "players",
            _find_line(root, "players") or _find_line(root, "rules.preset"),
            f"rules.preset {settings.rules.preset} is played by {fixed} players, not "
            f"{settings.players}: set players: {fixed}",
            phrase="config_players_fixed",
            value=settings.players,
            fixed=fixed,
            preset=settings.rules.preset,
        )
    counts = settings.rules.mafia_count
    for players in range(8, 14):
        if players not in counts:
            yield ConfigError(
                "rules.mafia_count",
                _find_line(root, "rules.mafia_count"),
                f"has no entry for {players} players; give one for each of 8 to 13",
                phrase="config_mafia_count_missing",
                players=players,
            )
    for players, mafia in counts.items():
        if not 8 <= players <= 13:
            yield ConfigError(
                f"rules.mafia_count.{players}",
                _find_line(root, f"rules.mafia_count.{players}"),
                "tables have 8 to 13 players",
                phrase="config_mafia_count_table",
            )
            continue
        if mafia < 1 or 2 * mafia >= players:
            yield ConfigError(
                f"rules.mafia_count.{players}",
                _find_line(root, f"rules.mafia_count.{players}"),
                f"{mafia} mafia at {players} players is not a game; allowed: 1 to "
                f"{(players - 1) // 2}",
                phrase="config_mafia_count_game",
                mafia=mafia,
                players=players,
                high=(players - 1) // 2,
            )
    night = settings.night
    if night.no_agreed_shot_after_seconds >= night.mafia_window_seconds:
        yield ConfigError(
            "night.no_agreed_shot_after_seconds",
            _find_line(root, "night.no_agreed_shot_after_seconds"),
            f"must be shorter than night.mafia_window_seconds ({night.mafia_window_seconds})",
            phrase="config_shot_window",
            value=f"{night.no_agreed_shot_after_seconds:g}",
            window=f"{night.mafia_window_seconds:g}",
        )
    try:
        _check_warnings(settings, root)
    except ConfigError as exc:
        yield from exc.problems if isinstance(exc, ConfigErrors) else [exc]
    known_points = SCORING_PRESETS["club"]
    for entry in settings.scoring.points:
        if entry not in known_points:
            yield ConfigError(
                f"scoring.points.{entry}",
                _find_line(root, f"scoring.points.{entry}"),
                f"not a scoring entry; use one of: {', '.join(known_points)}",
                phrase="config_scoring_entry",
                allowed=", ".join(known_points),
            )
    for entry, value in settings.scoring.points.items():
        if not -100 <= value <= 100:
            yield ConfigError(
                f"scoring.points.{entry}",
                _find_line(root, f"scoring.points.{entry}"),
                f"{value} is out of range; allowed: -100 to 100",
                phrase="config_range",
                value=f"{value:g}",
                low=-100,
                high=100,
            )
    database = settings.club.database
    if database and not database.startswith(("postgresql://", "postgres://", "sqlite:///")):
        yield ConfigError(
            "club.database",
            _find_line(root, "club.database"),
            f"{database!r} is not a database address; leave it empty for the table's own SQLite "
            "file, or give postgresql://USER:PASSWORD@HOST/DATABASE (docs/CLUB.md)",
            phrase="config_database",
            value=database,
        )
    elif database.startswith("sqlite:///") and not sqlite_file_named(database):
        yield ConfigError(
            "club.database",
            _find_line(root, "club.database"),
            f"{database!r} names no file (SQLite would keep the season in memory and lose it); "
            "write sqlite:///FILE (beside this file) or sqlite:////FULL/PATH, or leave it empty "
            "for the table's own club/club.sqlite",
            phrase="config_database_sqlite",
            value=database,
        )
    elif database.startswith(("postgresql://", "postgres://")) and not server_named(database):
        yield ConfigError(
            "club.database",
            _find_line(root, "club.database"),
            f"{database!r} lacks the user, the server or the database, or its port is not a "
            "number; write postgresql://USER:PASSWORD@HOST/DATABASE (a port: HOST:5432)",
            phrase="config_database_server",
            value=database,
        )
    for key_name, key_value in settings.keypad.keymap.items():
        allowed = {
            "0", "1", "2", "3", "4", "5", "6", "7", "8", "9",
            "enter", "correct", "miss", "end_speech", "foul", "undo",
        }  # fmt: skip
        if key_value not in allowed:
            yield ConfigError(
                f"keypad.keymap.{key_name}",
                _find_line(root, f"keypad.keymap.{key_name}"),
                f"{key_value!r} is not a key action; use one of: {', '.join(sorted(allowed))}",
                phrase="config_key_action",
                value=key_value,
                allowed=", ".join(sorted(allowed)),
            )


def _check_warnings(settings: Settings, root: yaml.Node) -> None:
    """Each speech's warning the file gives must sound before the speech ends; every one that
    would not is named at once. An older config's single number is held to the speeches it was
    held to before (nomination, defence, last words), so a file that loaded then loads now."""
    warnings = settings.timers.warning_seconds
    single = isinstance(_find_node(root, "timers.warning_seconds"), yaml.ScalarNode)
    if single:  # the shortest of the speeches it was held to before: one number, one problem
        kinds: tuple[str, ...] = (
            min(
                ("nomination", "defence", "last_words"), key=lambda k: _speech_seconds(settings, k)
            ),
        )
    else:  # the kinds the file gives; a default too long for its speech is simply not sounded
        kinds = tuple(k for k in WARNED_SPEECHES if _find_node(root, f"timers.warning_seconds.{k}"))
    problems: list[ConfigError] = []
    for kind in kinds:
        speech = WARNED_SPEECHES[kind]
        seconds = _speech_seconds(settings, kind)
        warning = getattr(warnings, kind)
        if warning and warning >= seconds:
            key = "timers.warning_seconds" if single else f"timers.warning_seconds.{kind}"
            problems.append(
                ConfigError(
                    key,
                    _find_line(root, key) or _find_line(root, "timers.warning_seconds"),
                    f"{warning:g} s is not shorter than the speech it warns ({speech}: "
                    f"{seconds:g} s); make it shorter, or 0 for no warning",
                    phrase="config_warning_too_long",
                    value=f"{warning:g}",
                    speech=speech,
                    seconds=f"{seconds:g}",
                )
            )
    if problems:
        raise problems[0] if len(problems) == 1 else ConfigErrors(problems)


def _speech_seconds(settings: Settings, kind: str) -> float:
    """The length of the speech a warning of ``kind`` warns (``WARNED_SPEECHES``)."""
    section, _, name = WARNED_SPEECHES[kind].partition(".")
    return float(getattr(getattr(settings, section), name))


def update(path: str | Path, section: str, values: dict[str, Any]) -> str:
    """Set ``section.key: value`` for each of ``values`` in the config file at ``path``, keeping
    its comments and layout; a key the section lacks is added at its end. The new text is
    checked (``loads``) before it replaces the file, so a file is never left broken; returns it.
    """
    config_path = Path(path)
    try:
        text = _text(config_path.read_bytes(), config_path) if config_path.exists() else ""
    except OSError as exc:
        raise ConfigError(str(config_path), None, f"cannot read the file: {exc.strerror}") from exc
    new_text = set_in_text(text, section, values)
    loads(new_text, base_dir=config_path.resolve().parent)
    temporary = config_path.with_name(f".{config_path.name}.new")
    try:
        temporary.write_text(new_text, encoding="utf-8")
        if config_path.exists():
            os.chmod(temporary, config_path.stat().st_mode & 0o777)
        temporary.replace(config_path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise ConfigError(str(config_path), None, f"cannot write the file: {exc.strerror}") from exc
    return new_text


def set_in_text(text: str, section: str, values: dict[str, Any]) -> str:
    """``text`` with ``section.key`` set to each value (see :func:`update`)."""
    lines = text.splitlines()
    heading = re.compile(rf"{re.escape(section)}:\s*(#.*)?$")
    header = next((index for index, line in enumerate(lines) if heading.match(line)), None)
    if header is None:
        lines += ["", f"{section}:"]
        header = len(lines) - 1
    end = header + 1
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "\t"))):
        end += 1
    while end > header + 1 and not lines[end - 1].strip():
        end -= 1
    for key, value in values.items():
        rendered = _yaml_value(value)
        pattern = re.compile(rf"^(\s+){re.escape(key)}:\s*([^#]*?)(\s+#.*)?$")
        for index in range(header + 1, end):
            match = pattern.match(lines[index])
            if match:
                lines[index] = f"{match.group(1)}{key}: {rendered}{match.group(3) or ''}"
                break
        else:
            lines.insert(end, f"  {key}: {rendered}")
            end += 1
    return "\n".join(lines) + "\n"


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else f"{value:.1f}"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)
