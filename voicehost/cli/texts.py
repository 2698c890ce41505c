"""The command line's own words, in the language config.yaml names: every ``--help`` text and
argparse's messages, from the ``cli`` section of the phrase book.

A subcommand module registers its arguments with ``help=text("play.players")``: the text is
looked up when the parser is built, after ``choose(argv)`` has read the language from the
settings file the command line names (``--config``) or the default one. Only that file's
``language:`` line and the book's ``cli`` section are read, so ``voicehost --help`` stays cheap.
argparse's own messages («invalid choice», «usage:») are translated by ``argparse_words``,
which the entry point installs for a Russian book.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_CONFIG = _ROOT / "config.yaml"
"""config.py's ``DEFAULT_CONFIG`` (a test keeps the two equal); not imported, to stay cheap."""

PHRASES_DIR = _ROOT / "phrases"
DEFAULT_LANGUAGE = "ru"
_LANGUAGE_LINE = re.compile(r"^language:\s*[\"']?([A-Za-z]+)", re.MULTILINE)

#: argparse's messages (its gettext ids) -> the key of the book's ``cli`` section.
ARGPARSE_KEYS = {
    "usage: ": "argparse.usage",
    "positional arguments": "argparse.positionals",
    "options": "argparse.options",
    "show this help message and exit": "argparse.help",
    "%(prog)s: error: %(message)s\n": "argparse.error",
    "the following arguments are required: %s": "argparse.required",
    "one of the arguments %s is required": "argparse.one_required",
    "unrecognized arguments: %s": "argparse.unrecognized",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "invalid %(type)s value: %(value)r": "argparse.invalid_value",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.invalid_choice",
    "expected one argument": "argparse.expected_one",
    "expected at most one argument": "argparse.expected_at_most_one",
    "expected at least one argument": "argparse.expected_at_least_one",
    "not allowed with argument %s": "argparse.not_allowed_with",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
    "ignored explicit argument %r": "argparse.ignored_explicit",
}

_state: dict[str, Any] = {"language": DEFAULT_LANGUAGE, "texts": None}


def language_of(argv: Sequence[str]) -> str:
    """The language of the settings file ``argv`` names with ``--config`` (or of the default
    one); the default language when the file cannot be read or names none."""
    path: Path = DEFAULT_CONFIG
    for index, word in enumerate(argv):
        if word == "--config" and index + 1 < len(argv):
            path = Path(argv[index + 1])
        elif word.startswith("--config="):
            path = Path(word.split("=", 1)[1])
    try:
        found = _LANGUAGE_LINE.search(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return DEFAULT_LANGUAGE
    language = found.group(1) if found else DEFAULT_LANGUAGE
    return language if (PHRASES_DIR / f"{language}.yaml").is_file() else DEFAULT_LANGUAGE


def choose(language: str) -> None:
    """Speak ``language`` from now on (the entry point calls it before building the parser)."""
    if language != _state["language"]:
        _state["language"], _state["texts"] = language, None


def language() -> str:
    """The language chosen."""
    return str(_state["language"])


def _texts() -> dict[str, str]:
    texts = _state["texts"]
    if texts is None:
        texts = load_section(_state["language"])
        _state["texts"] = texts
    return texts


def load_section(language: str) -> dict[str, str]:
    """The ``cli`` section of ``phrases/<language>.yaml``. Parsing the whole book costs more than
    the rest of ``--help``, so the section is kept as JSON in the user's cache, keyed by the
    book's own bytes: a changed book is read again, a cache that cannot be written is skipped."""
    import hashlib
    import json
    import os

    try:
        raw = (PHRASES_DIR / f"{language}.yaml").read_bytes()
    except OSError:
        return {}  # the book's own loader reports a missing book when the command runs
    digest = hashlib.sha256(raw).hexdigest()
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    cache = Path(home) / "voicehost" / f"cli-{language}.json"
    try:
        kept = json.loads(cache.read_text("utf-8"))
        if kept.get("book") == digest and isinstance(kept.get("texts"), dict):
            return {str(k): str(v) for k, v in kept["texts"].items()}
    except (OSError, ValueError, AttributeError):
        pass  # no cache yet, or a broken one: read the book
    texts = _parse_section(raw)
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps({"book": digest, "texts": texts}, ensure_ascii=False))
        os.replace(partial, cache)
    except OSError:
        pass  # a read-only home: the book is parsed each time, nothing else changes
    return texts


def _parse_section(raw: bytes) -> dict[str, str]:
    """The book's ``cli`` section (the C loader when there is one)."""
    import yaml

    try:
        from yaml import CSafeLoader as Loader  # libyaml: a tenth of the time
    except ImportError:  # PyYAML built without libyaml
        from yaml import SafeLoader as Loader  # type: ignore[assignment]  # the same interface
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=Loader)
    except (UnicodeDecodeError, yaml.YAMLError):
        return {}  # the book's own loader reports a broken book when the command runs
    section = data.get("cli") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in section.items()} if isinstance(section, dict) else {}


def text(key: str, /, **params: Any) -> str:
    """The ``cli`` text ``key`` with ``{name}`` filled in, ready for argparse (``%`` escaped);
    the key itself when the book lacks it (a test keeps both books complete)."""
    found = _texts().get(key, key)
    for name, value in params.items():
        found = found.replace(f"{{{name}}}", str(value))
    return found.replace("%", "%%")


def message(key: str, /, **params: Any) -> str:
    """A ``cli`` text for printing (not for argparse): ``{name}`` filled in, nothing escaped."""
    found = _texts().get(key, key)
    for name, value in params.items():
        found = found.replace(f"{{{name}}}", str(value))
    return found


_by_language: dict[str, dict[str, str]] = {}


def message_in(language: str, key: str, /, **params: Any) -> str:
    """A ``cli`` text in ``language`` (a command that speaks the language of the settings it
    was given, whatever the command line chose): ``{name}`` filled in."""
    found = _by_language.setdefault(language, load_section(language)).get(key, key)
    for name, value in params.items():
        found = found.replace(f"{{{name}}}", str(value))
    return found


def argparse_words(msgid: str) -> str:
    """argparse's message ``msgid`` in the chosen language (as is when the book has none)."""
    key = ARGPARSE_KEYS.get(msgid)
    return _texts().get(key, msgid) if key is not None else msgid


def name_placeholders(parser: Any) -> None:
    """Each argument's placeholder in ``--help`` and in argparse's errors (``--out OUT``,
    ``journal``, ``COMMAND``) in the chosen language, from the book's ``metavar.<NAME>``, for
    ``parser`` and every subcommand parser built in full under it."""
    import argparse

    texts = _texts()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            said_help = {choice.dest: choice.help for choice in action._choices_actions}
            for word, sub in action.choices.items():
                if sub.description is None and said_help.get(word):
                    # `--help` of a subcommand says what it does, as its line in the list does
                    sub.description = said_help[word]
            for sub in dict.fromkeys(action.choices.values()):
                name_placeholders(sub)
        if action.option_strings and action.nargs == 0:
            continue  # a flag: it takes no value
        name = action.metavar if isinstance(action.metavar, str) else None
        if name is None and action.choices is None:
            name = action.dest.upper() if action.option_strings else action.dest
        said = texts.get(f"metavar.{name}") if name else None
        if said:
            action.metavar = said


class ConsoleNotices(logging.Handler):
    """A command's notices (no sound card, a broken voice pack...) on stderr in the language of
    the command line, for the commands that have no game screen (rehearse, demo, listen...).
    Lines for the log alone are left out: such a command has no log but the terminal."""

    def __init__(self, language: str, stream: Any = None) -> None:
        super().__init__(logging.WARNING)
        self.language = language
        self.stream = stream
        self._book: Any = None

    def emit(self, record: logging.LogRecord) -> None:
        from voicehost.notices import ATTRIBUTE, LOG_ONLY, notice_of, said

        try:
            if self._book is None:
                from voicehost.phrases import PhraseBook

                self._book = PhraseBook.load(self.language)
            text = said(record, self._book)
        except Exception:  # noqa: BLE001 - a broken book must not hide the notice itself
            text = record.getMessage() if notice_of(record) != LOG_ONLY[ATTRIBUTE] else None
        if text is not None:
            print(text, file=self.stream or sys.stderr, flush=True)
