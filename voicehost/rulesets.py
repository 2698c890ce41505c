"""Rule set files: the presets shipped in ``voicehost/game/presets/`` and a club's own, read
from YAML into ``voicehost.game.ruleset.RuleSet`` with every mistake named by its line.

The rules (``game/``) import only the standard library, so the YAML is read here.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voicehost.game.engine import Engine
from voicehost.game.errors import BadRecord
from voicehost.game.model import Role, Team
from voicehost.game.policies import KILLS_OF_RECORD, KNOWN, asks
from voicehost.game.rules import (
    CitySettings,
    FiimSettings,
    GameRules,
    NightWindows,
    RulesSettings,
    SpeechWarnings,
    TimerSettings,
)
from voicehost.game.ruleset import NightStep, RoleSpec, RuleSet

#: A mistake of a rule set file: its line, the ``cli`` phrase ``rules.error.KEY`` of the phrase
#: books that names it, and that phrase's parameters. The command line renders it in the game's
#: language (this layer has no phrase book).
Mistake = tuple[int, str, dict[str, Any]]


def plain(key: str, params: dict[str, Any]) -> str:
    """A mistake in the book-less words of the log: ``night.steps: missing (…)``."""
    name = params.get("name")
    rest = ", ".join(f"{k}={v}" for k, v in params.items() if k != "name")
    head = f"{name}: {key}" if name else key
    return f"{head} ({rest})" if rest else head


def _dot(name: str, key: str) -> str:
    """The rule's full name (``night.steps``); a top-level rule is its own key."""
    return f"{name}.{key}" if name else key


PRESET_DIR = Path(__file__).resolve().parent / "game" / "presets"


class RuleSetError(BadRecord):
    """A rule set file with mistakes: ``mistakes`` holds each as (line, phrase key, params) for
    the phrase books, ``problems`` as (line, the log's words)."""

    def __init__(self, path: str, mistakes: list[Mistake]) -> None:
        self.path = path
        self.mistakes = mistakes
        self.problems = [(line, plain(key, params)) for line, key, params in mistakes]
        text = "; ".join(f"line {line}: {problem}" for line, problem in self.problems)
        super().__init__(f"{path}: {text}")


def preset_path(name: str) -> Path:
    return PRESET_DIR / f"{name}.yaml"


def preset_names() -> list[str]:
    return sorted(path.stem for path in PRESET_DIR.glob("*.yaml"))


@functools.cache
def load_preset(name: str) -> RuleSet:
    """The rule set of a preset shipped with voicehost."""
    return load_file(preset_path(name))


def load_file(path: Path) -> RuleSet:
    """Read and check a rule set file; raises RuleSetError naming every mistake with its line."""
    text = path.read_text(encoding="utf-8")
    return parse(text, str(path))


def parse(text: str, where: str, phrase_known: Callable[[str], bool] | None = None) -> RuleSet:
    """Read a rule set from YAML text; ``phrase_known`` (when given) checks each phrase key."""
    import yaml  # only when a rule set is read

    from voicehost import yamltext

    problems: list[Mistake] = []
    try:
        node = yamltext.compose(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else 1
        raise RuleSetError(where, [(line, "not_yaml", {"problem": exc.problem})]) from None
    except yaml.YAMLError as exc:
        raise RuleSetError(where, [(1, "not_yaml", {"problem": exc})]) from None
    if node is None or not isinstance(node, yaml.MappingNode):
        raise RuleSetError(where, [(1, "not_mapping", {})])
    reader = _Reader(problems, phrase_known)
    ruleset = reader.ruleset(node)
    if problems or ruleset is None:
        raise RuleSetError(where, sorted(problems, key=lambda mistake: mistake[:2]))
    return ruleset


class _Reader:
    """Reads the YAML node tree, noting each mistake with its line and going on."""

    def __init__(self, problems: list[Mistake], phrase_known: Callable[[str], bool] | None) -> None:
        self.problems = problems
        self.phrase_known = phrase_known

    def fail(self, node: Any, key: str, /, **params: Any) -> None:
        """Note the mistake ``key`` (the ``cli`` phrase ``rules.error.KEY``) at ``node``'s line."""
        self.problems.append((node.start_mark.line + 1, key, params))

    def mapping(self, node: Any, name: str) -> dict[str, Any]:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            self.fail(node, "mapping", name=name)
            return {}
        out: dict[str, Any] = {}
        for key, value in node.value:
            if key.value in out:
                self.fail(key, "twice", name=_dot(name, key.value))
            out[key.value] = value
        return out

    def take(self, section: dict[str, Any], key: str, name: str, parent: Any, kind: str) -> Any:
        """A scalar of ``kind``: str, bool, int, setting (a setting path or a constant), or a
        choice list given as ``kind`` = ``choice:a,b``."""
        import yaml

        node = section.pop(key, None)
        if node is None:
            self.fail(parent, "missing", name=_dot(name, key))
            return None
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, "single", name=_dot(name, key))
            return None
        from voicehost import yamltext

        value = yamltext.plain_value(node.value) if yamltext.is_plain(node) else node.value
        full = _dot(name, key)
        if kind.startswith("choice_or_setting:"):
            allowed = kind.split(":", 1)[1].split(",")
            if value not in allowed and not (isinstance(value, str) and _setting_known(value)):
                self.fail(
                    node,
                    "choice_or_setting",
                    name=full,
                    value=repr(value),
                    allowed=", ".join(allowed),
                )
                return None
            return value
        if kind.startswith("choice:"):
            allowed = kind[7:].split(",")
            if value not in allowed:
                self.fail(node, "choice", name=full, value=repr(value), allowed=", ".join(allowed))
                return None
            return value
        if kind == "str" or kind == "phrase":
            if not isinstance(value, str) or not value:
                self.fail(node, "text", name=full)
                return None
            if kind == "phrase" and self.phrase_known and not self.phrase_known(value):
                self.fail(node, "phrase", name=full, value=repr(value))
            return value
        if kind == "bool":
            if not isinstance(value, bool):
                self.fail(node, "bool", name=full, value=repr(value))
                return None
            return value
        if kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                self.fail(node, "int", name=full, value=repr(value))
                return None
            return value
        if kind in ("setting", "setting_or_bool", "setting_or_none"):
            if kind == "setting_or_bool" and isinstance(value, bool):
                return value
            if kind == "setting_or_none" and value is None:
                return None
            if not isinstance(value, str) or not _setting_known(value):
                self.fail(node, "setting", name=full, value=repr(value))
                return None
            return value
        raise AssertionError(kind)  # pragma: no cover

    def optional(
        self, section: dict[str, Any], key: str, name: str, kind: str, default: Any
    ) -> Any:
        if key not in section:
            return default
        return self.take(section, key, name, None, kind)

    @staticmethod
    def items(node: Any) -> list[Any]:
        """The entries of a YAML list (none when the node is not a list)."""
        import yaml

        return list(node.value) if isinstance(node, yaml.SequenceNode) else []

    def leftovers(self, section: dict[str, Any], name: str) -> None:
        for key, node in section.items():
            self.fail(node, "unknown_rule", name=_dot(name, key))

    def role_name(self, node: Any, name: str) -> Role | None:
        try:
            return Role(node.value)
        except ValueError:
            known = ", ".join(role.value for role in Role)
            self.fail(node, "unknown_role", name=name, value=repr(node.value), known=known)
            return None

    def ruleset(self, node: Any) -> RuleSet | None:
        top = self.mapping(node, "")
        got: dict[str, Any] = {}
        got["name"] = self.take(top, "name", "", node, "str")
        got["source"] = self.optional(top, "source", "", "str", "")
        players_node = top.pop("players", None)
        got["players"] = self.players(players_node, node)
        got["black"] = self.black(top.pop("black", None), node)
        got["cards"] = self.take(
            top, "cards", "", node, "choice_or_setting:" + ",".join(KNOWN["cards"])
        )
        roles_node = top.pop("roles", None)
        roles = self.roles(roles_node, node)
        got["roles"] = roles
        got["composition"] = self.composition(top.pop("composition", None), roles)
        for section in ("night0", "night", "day", "end"):
            body = top.pop(section, None)
            if body is None:
                self.fail(node, "no_section", name=section)
                continue
            reader = {
                "night0": self.section_night0,
                "night": self.section_night,
                "day": self.section_day,
                "end": self.section_end,
            }[section]
            reader(self.mapping(body, section), body, got, roles)
        self.leftovers(top, "")
        if self.problems:
            return None
        return RuleSet(**got)

    def players(self, node: Any, parent: Any) -> tuple[int, int]:
        import yaml

        if node is None:
            self.fail(parent, "missing", name="players")
            return (0, 0)
        if not isinstance(node, yaml.SequenceNode) or len(node.value) != 2:
            self.fail(node, "players_pair", name="players")
            return (0, 0)
        try:
            low, high = (int(item.value) for item in node.value)
        except ValueError:
            self.fail(node, "players_pair", name="players")
            return (0, 0)
        if not 4 <= low <= high <= 20:
            self.fail(node, "players", name="players", low=low, high=high)
        return (low, high)

    def black(self, node: Any, parent: Any) -> str | dict[int, int]:
        import yaml

        if node is None:
            self.fail(parent, "missing", name="black")
            return {}
        if isinstance(node, yaml.ScalarNode):
            if not _setting_known(node.value):
                self.fail(node, "setting", name="black", value=repr(node.value))
            return str(node.value)
        counts: dict[int, int] = {}
        for key, value in self.mapping(node, "black").items():
            try:
                players, black = int(key), int(value.value)
            except (ValueError, TypeError):  # a word, or a list or mapping
                shown = repr(value.value) if isinstance(value.value, str) else "[…]"
                self.fail(value, "int", name=f"black.{key}", value=shown)
                continue
            if black < 1 or 2 * black >= players:
                self.fail(value, "black", name=f"black.{key}", value=black)
            counts[players] = black
        return counts

    def roles(self, node: Any, parent: Any) -> dict[Role, RoleSpec]:
        if node is None:
            self.fail(parent, "no_section", name="roles")
            return {}
        roles: dict[Role, RoleSpec] = {}
        for key, body in self.mapping(node, "roles").items():
            try:
                role = Role(key)
            except ValueError:
                known = ", ".join(r.value for r in Role)
                self.fail(body, "unknown_role", name=f"roles.{key}", value=repr(key), known=known)
                continue
            name = f"roles.{key}"
            spec = self.mapping(body, name)
            team_name = self.take(spec, "team", name, body, "choice:red,black,maniac")
            values: dict[str, Any] = {
                "action": self.optional(
                    spec, "action", name, "choice_or_setting:" + ",".join(KNOWN["action"]), "none"
                ),
                "learns": self.optional(
                    spec, "learns", name, "choice:" + ",".join(KNOWN["learns"]), "none"
                ),
                "private": self.optional(spec, "private", name, "bool", False),
                "enabled": self.optional(spec, "enabled", name, "setting_or_bool", True),
                "self_target": self.optional(spec, "self", name, "setting_or_bool", False),
                "self_once": self.optional(spec, "self_once", name, "bool", False),
                "same_twice": self.optional(spec, "same_twice", name, "setting_or_bool", True),
                "killed_speaks": self.optional(
                    spec, "killed_speaks", name, "setting_or_bool", True
                ),
                "immortal": self.optional(spec, "immortal", name, "bool", False),
                "wins_alone": self.optional(spec, "wins_alone", name, "bool", False),
                "any_seat": self.optional(spec, "any_seat", name, "bool", False),
                "already": self.optional(spec, "already", name, "str", "fiim_already_checked"),
                "silent": self.optional(spec, "silent", name, "str", ""),
            }
            answer = spec.pop("answer", None)
            if answer is not None:
                words = [item.value for item in self.items(answer)]
                if len(words) != 2:
                    self.fail(answer, "answer", name=f"{name}.answer")
                else:
                    values["answer"] = (words[0], words[1])
            count = spec.pop("count", None)
            if count is not None:
                values["count"] = "black" if count.value == "black" else int(count.value)
            finds_node = spec.pop("finds", None)
            if finds_node is not None:
                finds = []
                for item in self.items(finds_node):
                    found = self.role_name(item, f"{name}.finds")
                    if found is not None:
                        finds.append(found)
                values["finds"] = tuple(finds)
            if asks(values["action"]) and values["learns"] == "none":
                self.fail(body, "learns", name=name)
            if values["learns"] == "role" and not values.get("finds"):
                self.fail(body, "finds", name=name)
            self.leftovers(spec, name)
            if team_name is None:
                continue
            roles[role] = RoleSpec(name=role, team=Team(team_name), **values)
        if Role.CIVILIAN not in roles:
            self.fail(node, "no_civilian")
        if not any(spec.team is Team.BLACK for spec in roles.values()):
            self.fail(node, "no_black")
        if not any(spec.action == "kill" and spec.team is Team.BLACK for spec in roles.values()):
            self.fail(node, "no_kill")
        return roles

    def composition(self, node: Any, roles: dict[Role, RoleSpec]) -> dict[int, dict[Role, int]]:
        if node is None:
            return {}
        out: dict[int, dict[Role, int]] = {}
        for key, body in self.mapping(node, "composition").items():
            try:
                players = int(key)
            except ValueError:
                self.fail(body, "table_size", name=f"composition.{key}")
                continue
            counts: dict[Role, int] = {}
            for role_key, value in self.mapping(body, f"composition.{key}").items():
                try:
                    role = Role(role_key)
                except ValueError:
                    self.fail(value, "not_role", name=f"composition.{key}.{role_key}")
                    continue
                if role not in roles:
                    self.fail(value, "role_missing", name=f"composition.{key}.{role_key}")
                counts[role] = int(value.value)
            out[players] = counts
        return out

    def steps(self, node: Any, name: str, roles: dict[Role, RoleSpec]) -> tuple[NightStep, ...]:
        import yaml

        if not isinstance(node, yaml.SequenceNode):
            self.fail(node, "steps", name=name)
            return ()
        steps: list[NightStep] = []
        for index, body in enumerate(node.value):
            where = f"{name}[{index + 1}]"
            spec = self.mapping(body, where)
            role_node = spec.pop("role", None)
            role = None if role_node is None else self.role_name(role_node, f"{where}.role")
            if role_node is None:
                self.fail(body, "missing", name=f"{where}.role")
            elif role is not None and role not in roles:
                self.fail(role_node, "role_missing", name=f"{where}.role {role.value}")
            registers: list[Role] = []
            reg_node = spec.pop("registers", None)
            if reg_node is not None:
                for item in self.items(reg_node):
                    found = self.role_name(item, f"{where}.registers")
                    if found is not None:
                        registers.append(found)
            values = {
                "wake": self.take(spec, "wake", where, body, "phrase"),
                "sleep": self.take(spec, "sleep", where, body, "phrase"),
                "window": self.take(spec, "window", where, body, "setting"),
                "warn_after": self.optional(spec, "warn_after", where, "setting", None),
                "prompt": self.optional(spec, "prompt", where, "str", ""),
            }
            self.leftovers(spec, where)
            if role is None:
                continue
            steps.append(NightStep(role=role, registers=tuple(registers), **values))
        return tuple(steps)

    def section_night0(self, s: dict[str, Any], node: Any, got: dict[str, Any], roles: Any) -> None:
        got["night0_opening"] = self.take(s, "opening", "night0", node, "phrase")
        steps = s.pop("steps", None)
        got["night0_steps"] = () if steps is None else self.steps(steps, "night0.steps", roles)
        if not got["night0_steps"]:
            self.fail(steps or node, "no_steps", name="night0.steps")
        got["seating"] = self.optional(s, "seating", "night0", "setting_or_none", None)
        got["morning_phrase"] = self.take(s, "morning", "night0", node, "phrase")
        got["deal"] = self.optional(s, "deal", "night0", "phrase", "")
        self.leftovers(s, "night0")

    def section_night(self, s: dict[str, Any], node: Any, got: dict[str, Any], roles: Any) -> None:
        import yaml

        morning = s.pop("morning", None)
        chain: list[str] = []
        if not isinstance(morning, yaml.SequenceNode):
            self.fail(morning or node, "resolvers")
        else:
            for item in morning.value:
                if item.value not in KNOWN["morning"]:
                    self.fail(
                        item,
                        "choice",
                        name="night.morning",
                        value=repr(item.value),
                        allowed=", ".join(KNOWN["morning"]),
                    )
                chain.append(item.value)
        got["morning"] = tuple(chain)
        got["night_record"] = self.take(
            s, "record", "night", node, "choice:" + ",".join(KNOWN["record"])
        )
        kills = self.optional(s, "kills", "night", "choice:" + ",".join(KNOWN["kills"]), None)
        got["kills"] = kills or KILLS_OF_RECORD.get(got["night_record"] or "", "")
        self.night_rest(s, node, got, roles)

    def night_rest(self, s: dict[str, Any], node: Any, got: dict[str, Any], roles: Any) -> None:
        got["night_opening"] = self.take(s, "opening", "night", node, "phrase")
        steps = s.pop("steps", None)
        got["night_steps"] = () if steps is None else self.steps(steps, "night.steps", roles)
        if not got["night_steps"]:
            self.fail(steps or node, "no_steps", name="night.steps")
        got["call_departed"] = self.take(s, "call_departed", "night", node, "bool")
        got["agreement"] = self.take(
            s, "agreement", "night", node, "choice:" + ",".join(KNOWN["agreement"])
        )
        self.leftovers(s, "night")

    def section_day(self, s: dict[str, Any], node: Any, got: dict[str, Any], roles: Any) -> None:
        choice = "choice:"
        got["day_opening"] = self.take(
            s, "opening", "day", node, choice + ",".join(KNOWN["opening"])
        )
        got["rotate_first_speaker"] = self.take(
            s, "rotate_first_speaker", "day", node, "setting_or_bool"
        )
        got["nominations"] = self.take(
            s, "nominations", "day", node, choice + ",".join(KNOWN["nominations"])
        )
        got["vote"] = self.take(s, "vote", "day", node, choice + ",".join(KNOWN["vote"]))
        got["ties"] = self.take(s, "ties", "day", node, choice + ",".join(KNOWN["ties"]))
        got["fouls"] = self.take(s, "fouls", "day", node, choice + ",".join(KNOWN["fouls"]))
        got["removal"] = self.take(s, "removal", "day", node, "bool")
        got["team_loss"] = self.take(s, "team_loss", "day", node, "bool")
        got["disqualified_speak"] = self.take(
            s, "disqualified_speak", "day", node, "setting_or_bool"
        )
        speeches: dict[str, tuple[str, str]] = {}
        warnings: dict[str, str] = {}
        body = s.pop("speeches", None)
        if body is None:
            self.fail(node, "missing", name="day.speeches")
        else:
            for kind, spec_node in self.mapping(body, "day.speeches").items():
                if kind not in ("acquaintance", "nomination", "defence", "last_words"):
                    self.fail(spec_node, "speech", name=f"day.speeches.{kind}")
                    continue
                spec = self.mapping(spec_node, f"day.speeches.{kind}")
                phrase = self.take(spec, "phrase", f"day.speeches.{kind}", spec_node, "phrase")
                seconds = self.take(spec, "seconds", f"day.speeches.{kind}", spec_node, "setting")
                warning = self.optional(spec, "warning", f"day.speeches.{kind}", "setting", None)
                self.leftovers(spec, f"day.speeches.{kind}")
                speeches[kind] = (phrase, seconds)
                if warning is not None:
                    warnings[kind] = warning
        got["speeches"] = speeches
        got["speech_warnings"] = warnings
        got["vote_question"] = self.optional(s, "vote_question", "day", "phrase", "day.vote_for")
        self.leftovers(s, "day")

    def section_end(self, s: dict[str, Any], node: Any, got: dict[str, Any], roles: Any) -> None:
        got["win"] = self.take(s, "win", "end", node, "choice:" + ",".join(KNOWN["win"]))
        got["final_words"] = self.take(s, "final_words", "end", node, "setting_or_bool")
        got["draw_after"] = self.optional(s, "draw_after", "end", "setting_or_none", None)
        got["scores"] = self.take(s, "scores", "end", node, "choice:" + ",".join(KNOWN["scores"]))
        got["best_move"] = self.take(s, "best_move", "end", node, "setting_or_bool")
        got["record_preset"] = self.take(s, "record_preset", "end", node, "bool")
        got["end_cards"] = self.end_cards(s.pop("cards", None), roles)
        self.leftovers(s, "end")

    def end_cards(self, node: Any, roles: dict[Role, RoleSpec]) -> tuple[Role, ...]:
        """``end.cards``: the cards named when the game is over (default: all but the
        civilian's, in the order of ``roles``)."""
        if node is None:
            return tuple(role for role in roles if role is not Role.CIVILIAN)
        cards: list[Role] = []
        for item in self.items(node):
            role = self.role_name(item, "end.cards")
            if role is None:
                continue
            if role not in roles:
                self.fail(item, "role_missing", name=f"end.cards {role.value}")
            elif role in cards:
                self.fail(item, "twice", name=f"end.cards {role.value}")
            else:
                cards.append(role)
        return tuple(cards)


def _setting_known(path: str) -> bool:
    """Whether ``path`` (``section.key``, or ``timers.warning_seconds.KIND``) names one of the
    game's settings."""
    section, _, key = path.partition(".")
    if key.startswith("warning_seconds.") and section == "timers":
        return key.partition(".")[2] in {f.name for f in dataclasses.fields(SpeechWarnings)}
    return key in SETTINGS.get(section, set())


#: The settings a rule set may name, by section.
SETTINGS = {
    name: {f.name for f in dataclasses.fields(kind)}
    for name, kind in (
        ("rules", RulesSettings),
        ("timers", TimerSettings),
        ("night", NightWindows),
        ("fiim", FiimSettings),
        ("city", CitySettings),
    )
}


def engine_for(settings: GameRules, *, dealt_by_device: bool = False) -> Engine:
    """The one engine, playing by the rule set ``settings`` names: the preset's, or a club's own
    file's (its text, as config.yaml read it or the journal recorded it); ``dealt_by_device``:
    the phone deals the cards before night 0 (the journal's header says so)."""
    ruleset = ruleset_for(settings)
    return Engine(settings, ruleset.dealt_by_device() if dealt_by_device else ruleset)


def ruleset_for(settings: GameRules) -> RuleSet:
    """The rule set ``settings`` names: a club's own file's (its text) or the preset's."""
    if settings.ruleset_text:
        return _parse_text(settings.ruleset_text)
    return load_preset(settings.rules.preset)


def recorded_ruleset(record: Any) -> RuleSet:
    """The rule set a game was played by, as its protocol (or its record) keeps it: a club's own
    file's text (``ruleset``), else the preset it names (no preset: the club's rules). Whoever
    reads a finished game (the protocol's table, the club's scores) asks it for each card's
    team, so a club file that moves a card to another team is scored by its own rules."""
    text = record.get("ruleset") if isinstance(record, dict) else None
    if isinstance(text, str) and text:
        return _parse_text(text)
    name = record.get("preset") if isinstance(record, dict) else None
    if name in preset_names():
        return load_preset(name)
    # a protocol with no preset: the club's rules, or (a city game's protocol written before
    # protocols named the city preset) the first preset that has every card dealt
    seats = record.get("seats") if isinstance(record, dict) else None
    cards = {s.get("role") for s in seats or [] if isinstance(s, dict) and s.get("role")}
    for candidate in ("club", *preset_names()):
        ruleset = load_preset(candidate)
        if cards <= {role.value for role in ruleset.roles}:
            return ruleset
    return load_preset("club")


@functools.lru_cache(maxsize=8)
def _parse_text(text: str) -> RuleSet:
    return parse(text, "the game's rule set (rules.file)")
