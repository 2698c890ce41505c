"""The voicehost command line: wiring only.

Each subcommand lives in ``voicehost/cli/<name>.py`` (listed in ``voicehost.cli.SUBCOMMANDS``)
and exposes ``register(subparsers) -> None``; the parser it adds sets ``func(args) -> int``.
Only the subcommand being run is imported and registered in full; the others are their name
and their line of help (``text(name)``, the book's ``cli`` section), so ``voicehost --help``
imports no implementation (numpy, curses, the rules, the config loader) at all.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from voicehost import __version__, cli
from voicehost.cli import closed, texts
from voicehost.cli.texts import text
from voicehost.errors import VoicehostError


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser for ``argv``: the chosen subcommand in full, the others by name and help."""
    parser = argparse.ArgumentParser(
        prog="voicehost",
        description=text("main.description"),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"voicehost {__version__}",
        help=text("argparse.version"),
    )
    parser.add_argument(
        "--config",
        default=None,
        help=text("main.config"),
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = chosen_subcommand(sys.argv[1:] if argv is None else argv)
    for name in cli.SUBCOMMANDS:
        if name == chosen:
            importlib.import_module(f"{cli.__name__}.{name}").register(subparsers)
        else:
            subparsers.add_parser(name, help=text(name))
    return parser


def chosen_subcommand(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs (the first word that is not an option), or None."""
    words = iter(argv)
    for word in words:
        if len(word) > 2 and "--config".startswith(word):  # argparse takes `--conf` too
            next(words, None)  # its value, which may be any word
        elif word == "--":
            word = next(words, "")
            return word if word in cli.SUBCOMMANDS else None
        elif not word.startswith("-"):
            return word if word in cli.SUBCOMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    texts.choose(texts.language_of(words))
    # argparse says «usage:», «invalid choice» and the like through its module's gettext
    # function: in a Russian game they are said from the book.
    argparse._ = texts.argparse_words  # type: ignore[attr-defined]  # argparse's gettext hook
    parser = build_parser(words)
    texts.name_placeholders(parser)
    args = parser.parse_args(words)
    _say_notices(texts.language())
    if argv is None:
        # The program's own run: its lines reach the terminal as notices in the game's language
        # (ConsoleNotices, a game's screen), never raw through the root logger, which a library
        # sets up on its first log call (pyttsx3's `logging.debug` runs logging.basicConfig and
        # printed «WARNING:voicehost.cli.wiring:no sound output…»). Tests keep the root.
        import logging

        logging.getLogger("voicehost").propagate = False
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except VoicehostError as exc:
        print(texts.message("main.error", text=_explained(exc)), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\n" + texts.message("main.interrupted"))
        return 130
    except BrokenPipeError:
        # `voicehost protocol | head`: the reader has all it wanted. Nothing more can be said on
        # stdout, not even by the interpreter flushing it at exit.
        closed.silence((sys.stdout,))
        return 0


def _say_notices(language: str) -> None:
    """A command's notices (no sound card, a missing voice pack piece...) reach the terminal in
    its language; a game shows them on its own screen instead (``session.play``)."""
    import logging

    from voicehost.cli.texts import ConsoleNotices

    package_log = logging.getLogger("voicehost")
    for handler in package_log.handlers:
        if isinstance(handler, ConsoleNotices):
            package_log.removeHandler(handler)  # an earlier command of this process (tests)
    package_log.addHandler(ConsoleNotices(language))


def _explained(error: VoicehostError) -> str:
    """The error in the language of the command line: from the book when it names a phrase,
    else its English text quoted after the book's sentence (``PhraseBook.explain``)."""
    from voicehost.phrases import PhraseBook

    try:
        return PhraseBook.load(texts.language()).explain(error)
    except VoicehostError:
        return str(error)


if __name__ == "__main__":
    sys.exit(main())
