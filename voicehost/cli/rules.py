"""`voicehost rules show PRESET|FILE`: a rule set as a referee reads it (roles, the night's wakes,
the morning, the day, the end). `voicehost rules check FILE`: every mistake of a club's own rule
set file, each with its line; exit status 1 when there is one."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from voicehost.game.model import Role


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
    game = config.load(args.config).game
    print("\n".join(describe(ruleset, book, game)))
    target = Path(args.diagram or f"rules-{Path(name).stem}.png")
    draw(ruleset, target, book, game)
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
    words = Words(book, game)  # the policies in the referee's words, as `rules show` prints them
    graph = graphviz.Digraph(ruleset.name, format=fmt)
    graph.attr(rankdir="TB", fontname="DejaVu Sans", label=f"{ruleset.name}", labelloc="t")
    graph.attr("node", fontname="DejaVu Sans", shape="box", style="rounded")

    def seconds(setting: str) -> str:
        section, key = setting.split(".", 1)
        value = f"{getattr(getattr(game, section), key):g}"
        return message("rules.diagram.seconds", seconds=value)

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
                label += f"\n{words.policy('nominations', ruleset.nominations)}"
            if phase == "vote":
                label += f"\n{words.policy('vote', ruleset.vote)}"
            if phase == "third_vote":
                label += f"\n{words.policy('ties', ruleset.ties)}"
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
    morning = " → ".join(words.policy("morning", step) for step in ruleset.morning)
    wakes = book.render(ruleset.morning_phrase, {}).text
    graph.node("morning", f"{wakes}\n{morning}", shape="ellipse")
    graph.edge(previous, "morning")
    graph.edge("morning", "discussion" if ruleset.day_opening == "discussion" else "nomination")
    end = f"{words.policy('win', ruleset.win)}\n{words.policy('cards', ruleset.cards)}"
    graph.node("end", end, shape="doubleoctagon")
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


class Words:
    """A rule set's values in a referee's words, in the language of the command line: a policy
    by its ``rules.value`` phrase, a card by the phrase book's word, a setting (``section.key``)
    by this table's value (marked, with a note that the club chooses it), seconds with their
    unit, yes and no."""

    def __init__(self, book: Any, game: Any) -> None:
        self.book = book
        self.game = game
        self.used_setting = False

    def setting(self, value: Any) -> tuple[Any, bool]:
        """``value``, or this table's value of the setting it names; and whether it was one."""
        from voicehost.rulesets import _setting_known

        if not isinstance(value, str) or not _setting_known(value):
            return value, False
        found: Any = self.game
        for part in value.split("."):
            found = found[part] if isinstance(found, dict) else getattr(found, part)
        return found, True

    def mark(self, text: str, from_setting: bool) -> str:
        from voicehost.cli.texts import message

        if not from_setting:
            return text
        self.used_setting = True
        return message("rules.describe.from_settings", value=text)

    def yes_no(self, value: Any) -> str:
        from voicehost.cli.texts import message

        found, from_setting = self.setting(value)
        words = message("rules.describe.yes" if found else "rules.describe.no")
        return self.mark(words, from_setting)

    def policy(self, what: str, value: Any) -> str:
        from voicehost.cli.texts import message

        found, from_setting = self.setting(value)
        return self.mark(message(f"rules.value.{what}.{found}"), from_setting)

    def seconds(self, value: Any) -> str:
        from voicehost.cli.texts import message

        found, from_setting = self.setting(value)
        text = message("rules.describe.seconds", seconds=f"{float(found):g}")
        return self.mark(text, from_setting)

    def number(self, value: Any) -> str:
        """A count (the quiet nights before a draw); none: «no»."""
        from voicehost.cli.texts import message

        found, from_setting = self.setting(value)
        if found is None or found is False or found == 0:
            return self.mark(message("rules.describe.no"), from_setting)
        return self.mark(f"{found:g}" if isinstance(found, float) else str(found), from_setting)

    def role(self, role: Role) -> str:
        """A card by its name in the phrase book («комиссар»)."""
        return str(self.book.word(role.value))

    def black(self, value: Any) -> str:
        found, from_setting = self.setting(value)
        if isinstance(found, dict):
            text = ", ".join(f"{players} — {black}" for players, black in sorted(found.items()))
        else:
            text = str(found)
        return self.mark(text, from_setting)

    def phrase(self, key: str) -> str:
        return str(self.book.render(key, {}).text)


def describe(ruleset: Any, book: Any, game: Any) -> list[str]:
    """The rule set as a referee reads it, section by section, in the language of the command
    line: every policy in words (``rules.value``), each card by its name in the phrase book,
    the windows in seconds and each setting by this table's value (``game``)."""
    from voicehost.cli.texts import message as m
    from voicehost.game.engine import Engine

    w = Words(book, game)
    lines = [m("rules.describe.header", name=ruleset.name, source=ruleset.source), ""]
    low, high = ruleset.players
    lines.append(
        m(
            "rules.describe.players",
            low=low,
            high=high,
            black=w.black(ruleset.black),
            cards=w.policy("cards", ruleset.cards),
        )
    )
    lines.append(m("rules.describe.roles"))
    names = {role: w.role(role) for role in ruleset.roles}
    column = max(len(name) for name in names.values()) + 1
    teams = {spec.team: m(f"rules.value.team.{spec.team.value}") for spec in ruleset.roles.values()}
    team_column = max(len(team) for team in teams.values()) + 1
    for role, spec in ruleset.roles.items():
        extra = []
        if spec.action != "none":
            extra.append(m("rules.describe.night_action", action=w.policy("action", spec.action)))
        if spec.learns != "none":
            if spec.learns == "role":
                found = ", ".join(w.role(card) for card in spec.finds)
                learns = m("rules.describe.learns_role", roles=found)
            else:
                learns = m("rules.describe.learns_black")
            if spec.private:
                learns = m("rules.describe.private", learns=learns)
            extra.append(m("rules.describe.learns", learns=learns))
        if spec.self_once and spec.self_target:
            extra.append(m("rules.describe.self_once"))
        elif spec.self_target:
            extra.append(m("rules.describe.self", value=w.yes_no(spec.self_target)))
        if spec.same_twice is not True:
            extra.append(m("rules.describe.same_twice", value=w.yes_no(spec.same_twice)))
        if spec.immortal:
            extra.append(m("rules.describe.immortal"))
        if spec.enabled is not True:
            extra.append(m("rules.describe.in_play", value=w.yes_no(spec.enabled)))
        lines.append(
            f"  {names[role]:{column}} {teams[spec.team]:{team_column}} " + "; ".join(extra)
        )

    def step_line(step: Any) -> str:
        return m(
            "rules.describe.step",
            role=f"{w.role(step.role):{column}}",
            window=w.seconds(step.window),
            wake=w.phrase(step.wake),
            sleep=w.phrase(step.sleep),
        )

    lines.append(m("rules.describe.night0"))
    lines.extend(step_line(step) for step in ruleset.night0_steps)
    if ruleset.seating:
        lines.append(m("rules.describe.seating", window=w.seconds(ruleset.seating)))
    lines.append(
        m(
            "rules.describe.night",
            agreement=w.policy("agreement", ruleset.agreement),
            called=w.yes_no(Engine(game, ruleset).calls_departed),  # closed cards: always
        )
    )
    lines.extend(step_line(step) for step in ruleset.night_steps)
    chain = " → ".join(w.policy("morning", step) for step in ruleset.morning)
    record = w.policy("record", ruleset.night_record)
    lines.append(m("rules.describe.morning", chain=chain, record=record))
    lines.append(m("rules.describe.kills", kills=w.policy("kills", ruleset.kills)))
    lines.append(m("rules.describe.day"))
    for key, value in (
        ("opening", w.policy("opening", ruleset.day_opening)),
        ("rotate", w.yes_no(ruleset.rotate_first_speaker)),
        ("nominations", w.policy("nominations", ruleset.nominations)),
        ("vote", w.policy("vote", ruleset.vote)),
        ("ties", w.policy("ties", ruleset.ties)),
        ("fouls", w.policy("fouls", ruleset.fouls)),
        ("removal", w.yes_no(ruleset.removal)),
        ("team_loss", w.yes_no(ruleset.team_loss)),
    ):
        lines.append(m(f"rules.describe.day.{key}", value=value))
    kinds = {kind: m(f"rules.value.speech.{kind}") for kind in ruleset.speeches}
    kind_column = max((len(kind) for kind in kinds.values()), default=0) + 1
    if kinds:
        lines.append(m("rules.describe.speeches"))
    for kind, (_, seconds) in ruleset.speeches.items():
        kind_words = f"{kinds[kind]:{kind_column}}"
        lines.append(m("rules.describe.speech", kind=kind_words, seconds=w.seconds(seconds)))
    lines.append(m("rules.describe.end"))
    cards = ", ".join(w.role(role) for role in ruleset.end_cards) or "—"
    for key, value in (
        ("win", w.policy("win", ruleset.win)),
        ("final_words", w.yes_no(ruleset.final_words)),
        ("draw_after", w.number(ruleset.draw_after)),
        ("scores", w.policy("scores", ruleset.scores)),
        ("best_move", w.yes_no(ruleset.best_move)),
        ("cards", cards),
    ):
        lines.append(m(f"rules.describe.end.{key}", value=value))
    if w.used_setting:
        lines.extend(["", m("rules.describe.settings_note")])
    return [line.rstrip() for line in lines]
