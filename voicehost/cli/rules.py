"""`voicehost rules show PRESET|FILE`: a rule set as a referee reads it (roles, the night's wakes,
the morning, the day, the end). `voicehost rules check FILE`: every mistake of a club's own rule
set file, each with its line; exit status 1 when there is one."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rules", help="show a rule set, or check a club's own file")
    actions = parser.add_subparsers(dest="rules_action", required=True)
    show = actions.add_parser("show", help="print a preset's (or a file's) rules")
    show.add_argument("name", help="a preset (club, fiim) or a rule set file")
    check = actions.add_parser("check", help="name every mistake of a rule set file with its line")
    check.add_argument("file", help="the rule set file (YAML)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from voicehost.errors import VoicehostError
    from voicehost.phrases import PhraseBook
    from voicehost.rulesets import RuleSetError, load_file, load_preset, parse, preset_names

    book = PhraseBook.load("ru")
    known = set(book.keys())
    if args.rules_action == "check":
        path = Path(args.file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise VoicehostError(f"cannot read {path}: {exc.strerror or exc}") from exc
        try:
            parse(text, str(path), known.__contains__)
        except RuleSetError as error:
            for line, message in error.problems:
                print(f"{path}:{line}: {message}")
            return 1
        print(f"{path}: no mistakes")
        return 0
    name = args.name
    try:
        ruleset = load_preset(name) if name in preset_names() else load_file(Path(name))
    except RuleSetError as error:
        for line, message in error.problems:
            print(f"{error.path}:{line}: {message}")
        return 1
    except OSError as exc:
        presets = ", ".join(preset_names())
        raise VoicehostError(f"{name}: not a preset ({presets}) nor a readable file") from exc
    print("\n".join(describe(ruleset)))
    return 0


def describe(ruleset: Any) -> list[str]:
    """The rule set as a referee reads it, section by section."""
    lines = [f"{ruleset.name}  ({ruleset.source})", ""]
    low, high = ruleset.players
    lines.append(f"players: {low} to {high}; black: {ruleset.black}; cards: {ruleset.cards}")
    lines.append("roles:")
    for role, spec in ruleset.roles.items():
        extra = []
        if spec.action != "none":
            extra.append(f"night: {spec.action}")
        if spec.learns != "none":
            extra.append(f"learns: {spec.learns}" + (" (private)" if spec.private else ""))
        if spec.self_target:
            extra.append(f"self: {spec.self_target}")
        if spec.same_twice is not True:
            extra.append(f"same seat twice: {spec.same_twice}")
        if spec.enabled is not True:
            extra.append(f"in play: {spec.enabled}")
        lines.append(f"  {role.value:10} {spec.team.value:6} " + "; ".join(extra))
    lines.append("night 0 (the host learns every card):")
    for step in ruleset.night0_steps:
        lines.append(f"  {step.role.value:10} wakes for {step.window}: {step.wake} → {step.sleep}")
    if ruleset.seating:
        lines.append(f"  free seating for {ruleset.seating}")
    lines.append(
        f"night (agreement: {ruleset.agreement}; every step called whoever left: "
        f"{ruleset.call_departed}):"
    )
    for step in ruleset.night_steps:
        lines.append(f"  {step.role.value:10} wakes for {step.window}: {step.wake} → {step.sleep}")
    lines.append(f"morning: {' → '.join(ruleset.morning)} (recorded as {ruleset.night_record})")
    lines.append(
        f"day: opens with {ruleset.day_opening}; first speaker rotates: "
        f"{ruleset.rotate_first_speaker}; nominations: {ruleset.nominations}; vote: "
        f"{ruleset.vote}; ties: {ruleset.ties}; fouls: {ruleset.fouls}; removal: "
        f"{ruleset.removal}; team loss: {ruleset.team_loss}"
    )
    for kind, (phrase, seconds) in ruleset.speeches.items():
        lines.append(f"  {kind:12} {phrase} for {seconds}")
    lines.append(
        f"end: win {ruleset.win}; last words before the result: {ruleset.final_words}; draw "
        f"after quiet nights: {ruleset.draw_after}; scores: {ruleset.scores}; best move: "
        f"{ruleset.best_move}"
    )
    return lines
