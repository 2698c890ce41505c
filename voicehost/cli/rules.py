"""`voicehost rules show PRESET|FILE`: a rule set as a referee reads it (roles, the night's wakes,
the morning, the day, the end). `voicehost rules check FILE`: every mistake of a club's own rule
set file, each with its line; exit status 1 when there is one."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rules", help="show a rule set, or check a club's own file")
    actions = parser.add_subparsers(dest="rules_action", required=True)
    show = actions.add_parser(
        "show", help="print a preset's (or a file's) rules and draw its night and day"
    )
    show.add_argument("name", help="a preset (club, fiim, city) or a rule set file")
    show.add_argument(
        "--diagram",
        help="the drawing's file, .png or .svg (default: rules-NAME.png in this folder)",
    )
    check = actions.add_parser("check", help="name every mistake of a rule set file with its line")
    check.add_argument("file", help="the rule set file (YAML)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from voicehost import config
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
    target = Path(args.diagram or f"rules-{Path(name).stem}.png")
    draw(ruleset, target, book, config.load(args.config).game)
    print(f"\n{target}")
    return 0


def draw(ruleset: Any, target: Any, book: Any, game: Any) -> None:
    """The night and the day as a graph: each wake with its window, the morning's resolvers, the
    day's steps, the ties and the end; written to ``target`` (.png or .svg) by Graphviz."""
    import graphviz

    from voicehost.errors import VoicehostError

    fmt = target.suffix.lstrip(".") or "png"
    if fmt not in ("png", "svg"):
        raise VoicehostError(f"{target}: the drawing is written as .png or .svg")
    graph = graphviz.Digraph(ruleset.name, format=fmt)
    graph.attr(rankdir="TB", fontname="DejaVu Sans", label=f"{ruleset.name}", labelloc="t")
    graph.attr("node", fontname="DejaVu Sans", shape="box", style="rounded")

    def seconds(setting: str) -> str:
        section, key = setting.split(".", 1)
        return f"{getattr(getattr(game, section), key):g} s ({setting})"

    def wake(step: Any) -> str:
        return f"{book.render(step.wake, {}).text}\n{seconds(step.window)}"

    with graph.subgraph(name="cluster_night0") as night0:
        night0.attr(label=book.phase_name("night0_mafia", ruleset.name).split(":")[0])
        previous = None
        for index, step in enumerate(ruleset.night0_steps):
            node = f"n0_{index}"
            night0.node(node, wake(step))
            if previous:
                night0.edge(previous, node)
            previous = node
        if ruleset.seating:
            seating = book.render("fiim.free_seating", {}).text
            night0.node("seating", f"{seating}\n{seconds(ruleset.seating)}")
            night0.edge(previous or "seating", "seating")
            previous = "seating"
    graph.node("morning0", book.render(ruleset.morning_phrase, {}).text, shape="ellipse")
    graph.edge(previous or "morning0", "morning0")
    day = [
        ("discussion", "day.discussion") if ruleset.day_opening == "discussion" else None,
        ("nomination", None),
        ("defence", None),
        ("vote", None),
        ("third_vote", None),
        ("last_words", None),
    ]
    with graph.subgraph(name="cluster_day") as days:
        days.attr(label=book.screen("day", {"day": "N"}))
        previous_day = "morning0"
        for item in day:
            if item is None:
                continue
            phase, _ = item
            label = book.phase_name(phase, ruleset.name)
            if phase == "nomination":
                label += f"\n{ruleset.nominations}"
            if phase == "vote":
                label += f"\n{ruleset.vote}"
            if phase == "third_vote":
                label += f"\n{ruleset.ties}"
            days.node(phase, label)
            if phase != "third_vote":
                days.edge(previous_day, phase)
                previous_day = phase
        days.edge("vote", "defence", label="tie", style="dashed")
        days.edge("vote", "third_vote", label="tie again", style="dashed")
        days.edge("third_vote", "last_words", style="dashed")
    with graph.subgraph(name="cluster_night") as night:
        night.attr(label=book.screen("night", {"night": "N"}))
        previous = "last_words"
        for index, step in enumerate(ruleset.night_steps):
            node = f"n_{index}"
            night.node(node, wake(step))
            graph.edge(previous, node)
            previous = node
    morning = " → ".join(ruleset.morning)
    wakes = book.render(ruleset.morning_phrase, {}).text
    graph.node("morning", f"{wakes}\n{morning}", shape="ellipse")
    graph.edge(previous, "morning")
    graph.edge("morning", "discussion" if ruleset.day_opening == "discussion" else "nomination")
    graph.node("end", f"{ruleset.win}\n{ruleset.cards}", shape="doubleoctagon")
    graph.edge("morning", "end", style="dotted")
    graph.edge("last_words", "end", style="dotted")
    try:
        data = graph.pipe()
    except graphviz.ExecutableNotFound as exc:
        raise VoicehostError(
            "the drawing needs Graphviz's `dot`: `sudo apt-get install graphviz` (make run does)"
        ) from exc
    target.write_bytes(data)


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
