"""`voicehost protocol [JOURNAL]`: the protocol of a game (finished or not) from its journal;
without JOURNAL, of the last game played. `--score` lets the referee of a finished FIIM game
enter extra points, one player a line; they are kept beside the protocol and printed in it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from voicehost.cli.texts import text

if TYPE_CHECKING:  # imported when the command runs: `voicehost protocol --help` stays cheap
    from voicehost.host.protocol import ExtraPoints
    from voicehost.host.replay import Replayed
    from voicehost.phrases import PhraseBook


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "protocol",
        help=text("protocol"),
    )
    parser.add_argument("journal", nargs="?", help=text("protocol.journal"))
    parser.add_argument("--json", action="store_true", help=text("protocol.json"))
    parser.add_argument(
        "--score",
        action="store_true",
        help=text("protocol.score"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from voicehost.cli.play import settings_for
    from voicehost.errors import VoicehostError
    from voicehost.host import protocol, scores
    from voicehost.host.journal import names_in, newest_game
    from voicehost.host.names import from_record
    from voicehost.host.replay import replay_journal
    from voicehost.host.votes import voters_in
    from voicehost.phrases import PhraseBook

    settings = settings_for(args, journal=True)
    folder = settings.path(settings.storage.journal_dir)
    path = Path(args.journal) if args.journal else newest_game(folder)
    if path is None:
        raise VoicehostError(f"no game has been played yet: {folder} holds no journal")
    replayed = replay_journal(settings, path)
    book = PhraseBook.load(replayed.settings.language)
    protocol_dir = settings.path(settings.storage.protocol_dir)
    extra_path = scores.path_for(protocol_dir, path.stem)
    game = replayed.settings.game
    players, limit = game.players, game.fiim.score_extra_limit
    extra = scores.load(extra_path, players, limit, book) if game.rules.preset == "fiim" else []
    if args.score:
        lines = _lines(book.screen("score_prompt"))
        extra = enter_points(replayed, extra, book, path.stem, lines, _tell)
        scores.save(extra_path, extra, book)
        _tell(book.screen("score_saved", {"path": extra_path}))
    players = replayed.settings.game.players
    data = protocol.build(
        replayed.state, extra, from_record(names_in(path), players), voters_in(path)
    )
    print(protocol.to_json(data) if args.json else protocol.to_table(data, book))
    try:
        json_path, text_path = protocol.write(data, protocol_dir, path.stem, book)
    except protocol.ProtocolError as exc:
        print(f"\nvoicehost: {exc}", file=sys.stderr)
        return 1
    print("\n" + book.screen("protocol_written", {"text": text_path, "json": json_path}))
    return 0


def enter_points(
    replayed: Replayed,
    extra: list[ExtraPoints],
    book: PhraseBook,
    game: str,
    lines: Iterator[str],
    tell: Callable[[str], None],
) -> list[ExtraPoints]:
    """Read ``SEAT POINTS COMMENT`` lines until an empty one (or the end of input); a wrong
    line is refused with its reason and the referee types it again. Returns the points kept."""
    from voicehost.errors import VoicehostError
    from voicehost.host import scores

    rules = replayed.settings.game
    if rules.rules.preset != "fiim":
        raise VoicehostError.written(book.screen("score_not_fiim"))
    if not replayed.state.over:
        raise VoicehostError.written(book.screen("score_not_over"))
    limit = rules.fiim.score_extra_limit
    tell(book.screen("score_intro", {"game": game, "limit": f"{limit:g}"}))
    if extra:
        # Run again: the referee sees what is kept before typing over it.
        tell(book.screen("score_earlier", {"count": len(extra)}))
        for entry in extra:
            tell("  " + _taken_line(entry, book))
        tell(book.screen("score_earlier_hint"))
    for line in lines:
        if not line.strip():
            break
        try:
            entry = scores.parse_extra(line, rules.players, limit, book)
        except scores.ScoreInputError as exc:
            tell(f"  ✗ {exc}")
            continue
        earlier = next((old for old in extra if old["seat"] == entry["seat"]), None)
        extra = scores.taken(extra, entry)
        if earlier is None:
            tell("  " + _taken_line(entry, book))
        else:
            was = _taken_line(earlier, book).split(": ", 1)[-1]
            now = _taken_line(entry, book).split(": ", 1)[-1]
            tell(
                "  "
                + book.screen("score_replaced", {"seat": entry["seat"], "was": was, "now": now})
            )
    return extra


def _taken_line(entry: ExtraPoints, book: PhraseBook) -> str:
    from voicehost.host import protocol

    shown = protocol.points(entry["points"], sign=True)
    comment = entry["comment"] or "—"
    return book.screen("score_taken", {**entry, "points": shown, "comment": comment})


def _lines(prompt: str) -> Iterator[str]:
    """What the referee types: prompted at a terminal, read as it comes from a pipe."""
    while True:
        try:
            yield input(prompt) if sys.stdin.isatty() else next(sys.stdin).rstrip("\n")
        except (EOFError, StopIteration):
            return
        except KeyboardInterrupt:
            print(file=sys.stderr)
            return


def _tell(text: str) -> None:
    print(text, file=sys.stderr)
