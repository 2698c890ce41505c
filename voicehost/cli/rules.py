"""`voicehost rules show PRESET|FILE`: a rule set as a referee reads it (roles, the night's wakes,
the morning, the day, the end). `voicehost rules check FILE`: every mistake of a club's own rule
set file, each with its line; exit status 1 when there is one."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    from voicehost.cli.texts import text

    parser = subparsers.add_parser(
        "rules", help=text("rules"), description=text("rules.description")
    )
    actions = parser.add_subparsers(dest="rules_action", required=True)
    show = actions.add_parser("show", help=text("rules.show"), description=text("rules.show"))
    show.add_argument("name", help=text("rules.show.name"))
    show.add_argument("--diagram", help=text("rules.show.diagram"))
    check = actions.add_parser("check", help=text("rules.check"), description=text("rules.check"))
    check.add_argument("file", help=text("rules.check.file"))
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from voicehost import config
    from voicehost.cli.texts import language, message
    from voicehost.errors import VoicehostError
    from voicehost.phrases import PhraseBook
    from voicehost.rulesets import RuleSetError, load_file, load_preset, parse, preset_names

    book = PhraseBook.load(language())
    known = set(book.keys())
    if args.rules_action == "check":
        path = Path(args.file)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise VoicehostError(
                f"cannot read {path}: {reason}", phrase="rules_unreadable", path=path, reason=reason
            ) from exc
        try:
            parse(text, str(path), known.__contains__)
        except RuleSetError as error:
            print_mistakes(error)
            return 1
        print(message("rules.no_mistakes", path=path))
        return 0
    name = args.name
    try:
        ruleset = load_preset(name) if name in preset_names() else load_file(Path(name))
    except RuleSetError as error:
        print_mistakes(error)
        return 1
    except OSError as exc:
        presets = ", ".join(preset_names())
        raise VoicehostError(
            f"{name}: not a preset ({presets}) nor a readable file",
            phrase="rules_not_found",
            name=name,
            presets=presets,
        ) from exc
    print("\n".join(describe(ruleset)))
    target = Path(args.diagram or f"rules-{Path(name).stem}.png")
    draw(ruleset, target, book, config.load(args.config).game)
    print("\n" + message("rules.diagram_written", path=target))
    return 0


def print_mistakes(error: Any) -> None:
    """Each mistake of a rule set file (a ``RuleSetError``) on its own line, with its line
    number, in the language of the command line."""
    from voicehost.cli.texts import message

    for line, key, params in error.mistakes:
        problem = message(f"rules.error.{key}", **params)
        print(message("rules.mistake", path=error.path, line=line, message=problem))


def draw(ruleset: Any, target: Any, book: Any, game: Any) -> None:
    """The night and the day as a graph: each wake with its window, the morning's resolvers, the
    day's steps, the ties and the end; written to ``target`` (.png or .svg) by Graphviz."""
    import graphviz

    from voicehost.cli.texts import message
    from voicehost.errors import VoicehostError

    fmt = target.suffix.lstrip(".") or "png"
    if fmt not in ("png", "svg"):
        raise VoicehostError(
            f"{target}: the drawing is written as .png or .svg",
            phrase="rules_diagram_format",
            path=target,
        )
    graph = graphviz.Digraph(ruleset.name, format=fmt)
    graph.attr(rankdir="TB", fontname="DejaVu Sans", label=f"{ruleset.name}", labelloc="t")
    graph.attr("node", fontname="DejaVu Sans", shape="box", style="rounded")

    def seconds(setting: str) -> str:
        section, key = setting.split(".", 1)
        value = f"{getattr(getattr(game, section), key):g}"
        return message("rules.diagram.seconds", seconds=value, setting=setting)

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
        days.edge("vote", "defence", label=message("rules.diagram.tie"), style="dashed")
        days.edge("vote", "third_vote", label=message("rules.diagram.tie_again"), style="dashed")
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
            "the drawing needs Graphviz's `dot`: `sudo apt-get install graphviz` (make run does)",
            phrase="rules_needs_dot",
        ) from exc
    target.write_bytes(data)


def describe(ruleset: Any) -> list[str]:
    """The rule set as a referee reads it, section by section, in the language of the command
    line; the values are the rule file's own words (what a club writes in its file), but for
    yes and no (``true``, ``false``, nothing), which are said in that language."""
    from voicehost.cli.texts import message

    def m(key: str, **params: Any) -> str:
        return message(key, **{name: _word(value) for name, value in params.items()})

    lines = [m("rules.describe.header", name=ruleset.name, source=ruleset.source), ""]
    low, high = ruleset.players
    lines.append(
        m("rules.describe.players", low=low, high=high, black=ruleset.black, cards=ruleset.cards)
    )
    lines.append(m("rules.describe.roles"))
    for role, spec in ruleset.roles.items():
        extra = []
        if spec.action != "none":
            extra.append(m("rules.describe.night_action", action=spec.action))
        if spec.learns != "none":
            learns = (
                m("rules.describe.private", learns=spec.learns) if spec.private else spec.learns
            )
            extra.append(m("rules.describe.learns", learns=learns))
        if spec.self_target:
            extra.append(m("rules.describe.self", value=spec.self_target))
        if spec.same_twice is not True:
            extra.append(m("rules.describe.same_twice", value=spec.same_twice))
        if spec.enabled is not True:
            extra.append(m("rules.describe.in_play", value=spec.enabled))
        lines.append(f"  {role.value:10} {spec.team.value:6} " + "; ".join(extra))

    def step_line(step: Any) -> str:
        return m(
            "rules.describe.step",
            role=f"{step.role.value:10}",
            window=step.window,
            wake=step.wake,
            sleep=step.sleep,
        )

    lines.append(m("rules.describe.night0"))
    lines.extend(step_line(step) for step in ruleset.night0_steps)
    if ruleset.seating:
        lines.append(m("rules.describe.seating", window=ruleset.seating))
    lines.append(
        m("rules.describe.night", agreement=ruleset.agreement, called=ruleset.call_departed)
    )
    lines.extend(step_line(step) for step in ruleset.night_steps)
    chain = " → ".join(ruleset.morning)
    lines.append(m("rules.describe.morning", chain=chain, record=ruleset.night_record))
    lines.append(
        m(
            "rules.describe.day",
            opening=ruleset.day_opening,
            rotate=ruleset.rotate_first_speaker,
            nominations=ruleset.nominations,
            vote=ruleset.vote,
            ties=ruleset.ties,
            fouls=ruleset.fouls,
            removal=ruleset.removal,
            team_loss=ruleset.team_loss,
        )
    )
    for kind, (phrase, seconds) in ruleset.speeches.items():
        lines.append(m("rules.describe.speech", kind=f"{kind:12}", phrase=phrase, seconds=seconds))
    lines.append(
        m(
            "rules.describe.end",
            win=ruleset.win,
            final_words=ruleset.final_words,
            draw_after=ruleset.draw_after,
            scores=ruleset.scores,
            best_move=ruleset.best_move,
            cards=", ".join(role.value for role in ruleset.end_cards) or "—",
        )
    )
    return lines


def _word(value: Any) -> Any:
    """A rule's value as the command line's language says it: yes and no in words."""
    from voicehost.cli.texts import message

    if value is True:
        return message("rules.describe.yes")
    if value is False or value is None:
        return message("rules.describe.no")
    return value
