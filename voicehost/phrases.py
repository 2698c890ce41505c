"""The phrase book: ``phrases/<language>.yaml`` -> announcements (text plus cacheable pieces).

A book has five sections: ``stop_words`` (what ends a speech), ``phrases`` (what the host says
aloud), ``words`` (role names and the list conjunction), ``errors`` (what the screen shows when
an entry breaks a rule) and ``phases`` (the screen's names of the game's phases).

Texts hold placeholders (``phrases/README.md`` is the full reference):

``{seat}``
    a number in words, masculine: «пять» / "five"; in ``errors`` it is written in digits.
``{votes|голос|голоса|голосов}``
    a number and the noun form that agrees with it: «три голоса» / "three votes".
``{minutes:f|минута|минуты|минут}``
    the same with a feminine (``:f``) or neuter (``:n``) numeral: «одна минута».
``{seats:list}``
    a list of numbers: «пять, семь и девять».
``{role:word}``
    the ``words`` entry named by the value: «мирный житель».
``{phase:phase}``
    (``errors`` only) the ``phases`` entry named by the value.

Stress: a word may carry the stress mark U+0301 after its stressed vowel («го́лоса»). The screen
never shows the mark; the optional ``pronounce`` section gives each marked word's espeak-ng
phonemes, which the synthesiser is given instead of the word (``[[g'olVsa]]``). A word without
a mark may have an entry too when its phonemes carry no stress: a preposition said with the word
after it («за столом», not «за́ столом»), given as those phonemes wherever it stands. An ellipsis
«…» ends a piece of its own: the words of the count «Раз… два… три!» are separate pieces, and
the speech leaves ``voice.count_pause_seconds`` after each.

Spoken phrases are rendered into an :class:`~voicehost.ports.Utterance` whose segments are the
pieces a voice pack or an audio cache can hold: ``<phrase key>#<i>`` (the fixed text before
placeholder ``i``), ``num.<m|f|n>.<n>``, ``form.<noun form>``, ``word.<name>``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import yaml

from voicehost import yamltext
from voicehost.errors import WRITTEN, ConfigErrors, VoicehostError
from voicehost.ports import Pause, Segment, Utterance

DEFAULT_PHRASES_DIR = Path(__file__).resolve().parent.parent / "phrases"
"""Where the books live: ``<repo>/phrases``."""

LIST_CONJUNCTION = "and"
"""The ``words`` entry that joins the last two items of a list."""

SECTIONS = ("language", "stop_words", "phrases", "words", "errors", "phases", "screen")
"""The top-level keys of a phrase book, all required."""

OPTIONAL_SECTIONS = ("pronounce", "cli")
"""Top-level keys a book may have: ``pronounce`` (stressed word -> espeak-ng phonemes) and
``cli`` (the command line's ``--help`` texts and argparse's messages, read by
``voicehost.cli.texts`` without loading the whole book)."""

STRESS_MARK = "\u0301"
"""The combining acute accent that marks a stressed vowel in the book («голоса\u0301»)."""

STRESS_SIGN = "'"
"""espeak-ng's mark of the stressed syllable in its phonemes (``g'olVsa``)."""

COUNT_BREAK = "…"
"""Ends a piece of its own (a word of the count «Раз… два… три!»)."""

_WORD = re.compile(r"[^\W\d_][\w\u0301-]*")


def sentence_case(text: str) -> str:
    """``text`` with its first letter in upper case: an announcement is a sentence on the
    screen even when it opens with a placeholder («{role:word} — …» is «Мафия — …»)."""
    for index, char in enumerate(text):
        if char.isalpha():
            return text[:index] + char.upper() + text[index + 1 :]
        if not char.isspace() and char not in "«\"'(":
            return text
    return text


def shown(text: str) -> str:
    """``text`` as the screen shows it: without stress marks."""
    return text.replace(STRESS_MARK, "")


SPOKEN_NUMBERS = range(100)
"""The numbers a book can say in words."""


class PhraseBookError(VoicehostError):
    """A phrase book is missing or malformed, or a phrase was asked for wrongly."""


# --- grammar -------------------------------------------------------------------------------


class Grammar(Protocol):
    """How one language says numbers and picks the noun form that agrees with a number."""

    form_count: int
    """How many noun forms a ``{n|...}`` placeholder lists."""

    def numeral(self, number: int, gender: str) -> str:
        """``number`` (0..99) in words, in grammatical gender ``m``, ``f`` or ``n``."""
        ...

    def gender_key(self, gender: str) -> str:
        """The gender a numeral segment is keyed by (a language without genders keeps one)."""
        ...

    def form_index(self, number: int) -> int:
        """Which of the noun forms agrees with ``number``."""
        ...


# fmt: off
_RU_UNITS = (
    "ноль", "один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять", "десять",
    "одиннадцать", "двенадцать", "тринадцать", "четырнадцать", "пятнадцать", "шестнадцать",
    "семнадцать", "восемнадцать", "девятнадцать"
)
_RU_TENS = (
    "_", "_", "двадцать", "тридцать", "со\u0301рок", "пятьдесят", "шестьдесят", "семьдесят",
    "восемьдесят", "девяносто"
)
# fmt: on
_RU_GENDERED = {("один", "f"): "одна", ("два", "f"): "две", ("один", "n"): "одно"}


class RussianGrammar:
    """Russian: three noun forms (1 голос, 2 голоса, 5 голосов); «один/одна/одно», «два/две»."""

    form_count = 3

    def numeral(self, number: int, gender: str) -> str:
        """«двадцать одна» for (21, "f")."""
        if number < 20:
            words = [_RU_UNITS[number]]
        else:
            tens, units = divmod(number, 10)
            words = [_RU_TENS[tens]] + ([_RU_UNITS[units]] if units else [])
        words[-1] = _RU_GENDERED.get((words[-1], gender), words[-1])
        return " ".join(words)

    def gender_key(self, gender: str) -> str:
        """Russian numerals differ by gender, so each gender has its own segments."""
        return gender

    def form_index(self, number: int) -> int:
        """0 for 1, 21, 31..; 1 for 2-4, 22-24..; 2 for 0, 5-20, 25-30.."""
        if number % 10 == 1 and number % 100 != 11:
            return 0
        if 2 <= number % 10 <= 4 and not 12 <= number % 100 <= 14:
            return 1
        return 2


# fmt: off
_EN_UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen"
)
_EN_TENS = (
    "_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"
)
# fmt: on


class EnglishGrammar:
    """English: two noun forms (one vote, two votes, zero votes); numerals have no gender."""

    form_count = 2

    def numeral(self, number: int, gender: str) -> str:
        """ "twenty-one" for 21, whatever the gender."""
        if number < 20:
            return _EN_UNITS[number]
        tens, units = divmod(number, 10)
        return _EN_TENS[tens] + (f"-{_EN_UNITS[units]}" if units else "")

    def gender_key(self, gender: str) -> str:
        """English numerals do not change with gender: every numeral segment is ``num.m.N``."""
        return "m"

    def form_index(self, number: int) -> int:
        """0 (singular) for exactly one, 1 (plural) otherwise."""
        return 0 if number == 1 else 1


GRAMMARS: dict[str, Grammar] = {"ru": RussianGrammar(), "en": EnglishGrammar()}
"""The languages whose numbers voicehost can say."""


# --- templates -----------------------------------------------------------------------------


class Kind(StrEnum):
    """What a placeholder turns its value into."""

    NUMBER = "number"  # {seat}, {seat:f}: a numeral
    COUNT = "count"  # {votes|голос|голоса|голосов}: a numeral and the agreeing noun
    LIST = "list"  # {seats:list}: «пять, семь и девять»
    WORD = "word"  # {role:word}: an entry of `words`
    PHASE = "phase"  # {phase:phase}: an entry of `phases` (errors only)
    TEXT = "text"  # {topic:text}: a text as given (the acquaintance topic of config.yaml)


GENDERS = ("m", "f", "n")
"""Grammatical genders a numeral may take: ``:f`` and ``:n`` modifiers; masculine by default."""


@dataclass(frozen=True)
class Placeholder:
    """One ``{...}`` of a text: the parameter it reads and how it is said."""

    name: str
    kind: Kind
    gender: str = "m"
    forms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Template:
    """A parsed text: ``pieces[i]`` is the fixed text before ``placeholders[i]``.

    There is always one more piece than placeholders (the text after the last one); pieces may
    be empty.
    """

    key: str
    pieces: tuple[str, ...]
    placeholders: tuple[Placeholder, ...]


_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_NAME = re.compile(r"[a-z_][a-z0-9_]*\Z")


def parse_template(key: str, text: str, grammar: Grammar) -> Template:
    """Split ``text`` at its placeholders; raise PhraseBookError (without location) if bad."""
    pieces: list[str] = []
    placeholders: list[Placeholder] = []
    position = 0
    for match in _PLACEHOLDER.finditer(text):
        pieces.append(text[position : match.start()])
        placeholders.append(_parse_placeholder(match.group(1), grammar))
        position = match.end()
    pieces.append(text[position:])
    for piece in pieces:
        if "{" in piece or "}" in piece:
            raise PhraseBookError(f"unbalanced brace in {text!r}; write {{name}}")
    return Template(key, tuple(pieces), tuple(placeholders))


def _parse_placeholder(inner: str, grammar: Grammar) -> Placeholder:
    head, *forms = inner.split("|")
    name, _, modifier = head.partition(":")
    if not _NAME.match(name):
        raise PhraseBookError(
            f"placeholder {{{inner}}}: {name!r} is not a parameter name (a-z, 0-9, _)"
        )
    if any(not form.strip() for form in forms):
        raise PhraseBookError(f"placeholder {{{inner}}}: an empty noun form")
    if modifier in ("list", "word", "phase", "text"):
        if forms:
            raise PhraseBookError(f"placeholder {{{inner}}}: :{modifier} takes no noun forms")
        return Placeholder(name, Kind(modifier))
    if modifier not in ("", *GENDERS):
        raise PhraseBookError(
            f"placeholder {{{inner}}}: unknown modifier :{modifier}; "
            "use :f, :n, :list, :word, :phase or :text"
        )
    gender = modifier or "m"
    if not forms:
        return Placeholder(name, Kind.NUMBER, gender)
    if len(forms) != grammar.form_count:
        raise PhraseBookError(
            f"placeholder {{{inner}}}: this language needs {grammar.form_count} noun forms, "
            f"not {len(forms)}"
        )
    return Placeholder(name, Kind.COUNT, gender, tuple(form.strip() for form in forms))


# --- loading -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Located:
    """A text of the book and the line it is on, for error messages."""

    text: str
    line: int


def available_languages(phrases_dir: Path | None = None) -> list[str]:
    """The languages that have a book in ``phrases_dir`` and a grammar in voicehost."""
    folder = phrases_dir or DEFAULT_PHRASES_DIR
    return sorted(path.stem for path in folder.glob("*.yaml") if path.stem in GRAMMARS)


def _read_book(language: str, folder: Path) -> tuple[Path, yaml.Node]:
    path = folder / f"{language}.yaml"
    available = ", ".join(available_languages(folder)) or "none"
    if path.is_file() and language not in GRAMMARS:
        raise PhraseBookError(
            f"{path}: voicehost cannot say numbers in {language!r} yet (it can in: "
            f"{', '.join(sorted(GRAMMARS))}); add a Grammar for it to voicehost/phrases.py"
        )
    if not path.is_file():
        raise PhraseBookError(
            f"no phrase book for language {language!r} in {folder} "
            f"(available: {available}); set `language:` in config.yaml to one of them"
        )
    try:
        node = yamltext.compose(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f"line {mark.line + 1}" if mark is not None else "unknown line"
        raise PhraseBookError(f"{path}, {line}: not valid YAML: {exc.problem}") from exc
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise PhraseBookError(f"{path}: cannot read the phrase book: {exc}") from exc
    if not isinstance(node, yaml.MappingNode):
        raise PhraseBookError(f"{path}: a phrase book is a mapping with keys {', '.join(SECTIONS)}")
    return path, node


def _sections(path: Path, root: yaml.MappingNode) -> dict[str, yaml.Node]:
    found: dict[str, yaml.Node] = {}
    for key_node, value_node in root.value:
        if key_node.value not in SECTIONS + OPTIONAL_SECTIONS:
            raise PhraseBookError(
                f"{path}, line {_line(key_node)}: unknown section {key_node.value!r}; "
                f"allowed: {', '.join(SECTIONS + OPTIONAL_SECTIONS)}"
            )
        found[key_node.value] = value_node
    missing = [name for name in SECTIONS if name not in found]
    if missing:
        raise PhraseBookError(f"{path}: missing section(s): {', '.join(missing)}")
    return found


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _texts(path: Path, section: str, node: yaml.Node) -> dict[str, _Located]:
    if not isinstance(node, yaml.MappingNode):
        raise PhraseBookError(f"{path}, line {_line(node)}: `{section}` must be key: text pairs")
    texts: dict[str, _Located] = {}
    for key_node, value_node in node.value:
        if not isinstance(value_node, yaml.ScalarNode) or not value_node.value.strip():
            raise PhraseBookError(
                f"{path}, line {_line(value_node)}: {section}.{key_node.value} must be a text"
            )
        if key_node.value in texts:
            raise PhraseBookError(
                f"{path}, line {_line(key_node)}: {section}.{key_node.value} is given twice"
            )
        texts[str(key_node.value)] = _Located(value_node.value, _line(value_node))
    return texts


def _stop_words(path: Path, node: yaml.Node) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise PhraseBookError(
            f"{path}, line {_line(node)}: stop_words must be a list such as [спасибо, пас]"
        )
    words = []
    for item in node.value:
        if not isinstance(item, yaml.ScalarNode) or not item.value.strip():
            raise PhraseBookError(f"{path}, line {_line(item)}: a stop word must be a text")
        words.append(item.value.strip())
    return tuple(words)


def _parse_section(
    path: Path, section: str, texts: Mapping[str, _Located], grammar: Grammar
) -> dict[str, Template]:
    templates: dict[str, Template] = {}
    for key, located in texts.items():
        try:
            templates[key] = parse_template(key, located.text, grammar)
        except PhraseBookError as exc:
            raise PhraseBookError(f"{path}, line {located.line}: {section}.{key}: {exc}") from exc
    return templates


def _check_spoken(
    path: Path, phrases: Mapping[str, Template], lines: Mapping[str, _Located]
) -> None:
    for key, template in phrases.items():
        for placeholder in template.placeholders:
            if placeholder.kind is Kind.PHASE:
                raise PhraseBookError(
                    f"{path}, line {lines[key].line}: phrases.{key}: {{{placeholder.name}:phase}}"
                    " is for the screen only (errors); phrases are spoken"
                )


def _pronunciations(
    path: Path, node: yaml.Node | None, texts: Iterable[_Located]
) -> dict[str, str]:
    """The ``pronounce`` section, checked: each entry is a marked word with phonemes, and each
    marked word of the book has an entry."""
    found: dict[str, str] = {}
    if node is not None:
        for word, located in _texts(path, "pronounce", node).items():
            phonemes = located.text.strip()
            if not _WORD.fullmatch(word):
                raise PhraseBookError(
                    f"{path}, line {located.line}: pronounce.{word} must be one word, with the "
                    "stress mark U+0301 after its stressed vowel («го\u0301лоса»)"
                )
            if "[" in phonemes or "]" in phonemes or " " in phonemes:
                raise PhraseBookError(
                    f"{path}, line {located.line}: pronounce.{word}: give the espeak-ng "
                    "phonemes of one word without brackets (as `espeak-ng -x` prints them)"
                )
            if STRESS_MARK not in word and STRESS_SIGN in phonemes:
                raise PhraseBookError(
                    f"{path}, line {located.line}: pronounce.{word} has no stress mark, so it "
                    f"is an unstressed word (a preposition): its phonemes must have no "
                    f"{STRESS_SIGN!r}; or mark the stressed vowel («го\u0301лоса»)"
                )
            found[word.casefold()] = phonemes
    for located in texts:
        for word in _WORD.findall(located.text):
            if STRESS_MARK in word and word.casefold() not in found:
                where = f"line {located.line}" if located.line else "a numeral of its grammar"
                raise PhraseBookError(
                    f"{path}, {where}: «{shown(word)}» has a stress mark but no "
                    f"entry in `pronounce:`; add `{word.casefold()}: <phonemes>` (see "
                    f"`espeak-ng -v <voice> -x`)"
                )
    return found


# --- the book ------------------------------------------------------------------------------


class PhraseBook:
    """One language's phrases, words, error texts and phase names, ready to render."""

    language: str
    stop_words: tuple[str, ...]

    def __init__(
        self,
        language: str,
        stop_words: tuple[str, ...],
        phrases: Mapping[str, Template],
        words: Mapping[str, str],
        errors: Mapping[str, Template],
        phases: Mapping[str, str],
        screen: Mapping[str, Template] | None = None,
        pronounce: Mapping[str, str] | None = None,
    ) -> None:
        self.language = language
        self._pronounce = dict(pronounce or {})
        self.stop_words = stop_words
        self._grammar = GRAMMARS[language]
        self._phrases = dict(phrases)
        self._words = dict(words)
        self._errors = dict(errors)
        self._phases = dict(phases)
        self._screen = dict(screen or {})

    @classmethod
    def load(cls, language: str, phrases_dir: Path | None = None) -> PhraseBook:
        """Read ``<phrases_dir>/<language>.yaml`` (default dir: ``<repo>/phrases``).

        Raises PhraseBookError naming the available languages, or the file and line at fault.
        """
        folder = phrases_dir or DEFAULT_PHRASES_DIR
        path, root = _read_book(language, folder)
        assert isinstance(root, yaml.MappingNode)  # _read_book checked it
        sections = _sections(path, root)
        declared = sections["language"]
        if not isinstance(declared, yaml.ScalarNode) or declared.value != language:
            raise PhraseBookError(
                f"{path}, line {_line(declared)}: `language:` must be {language!r}, as the name "
                "of the file says"
            )
        grammar = GRAMMARS[language]
        phrase_texts = _texts(path, "phrases", sections["phrases"])
        phrases = _parse_section(path, "phrases", phrase_texts, grammar)
        _check_spoken(path, phrases, phrase_texts)
        words = {
            key: item.text.strip() for key, item in _texts(path, "words", sections["words"]).items()
        }
        if LIST_CONJUNCTION not in words:
            raise PhraseBookError(
                f"{path}: words.{LIST_CONJUNCTION} is missing (it joins lists: «пять и семь»)"
            )
        error_texts = _texts(path, "errors", sections["errors"])
        errors = _parse_section(path, "errors", error_texts, grammar)
        phases = {
            key: item.text for key, item in _texts(path, "phases", sections["phases"]).items()
        }
        stop_words = _stop_words(path, sections["stop_words"])
        word_texts = _texts(path, "words", sections["words"])
        numerals = [
            _Located(grammar.numeral(number, gender), 0)
            for number in SPOKEN_NUMBERS
            for gender in GENDERS
        ]
        pronounce = _pronunciations(
            path,
            sections.get("pronounce"),
            [*phrase_texts.values(), *word_texts.values(), *numerals],
        )
        if "cli" in sections:
            _texts(path, "cli", sections["cli"])  # key: text pairs, each given once
        screen_texts = _texts(path, "screen", sections["screen"])
        screen = _parse_section(path, "screen", screen_texts, grammar)
        return cls(language, stop_words, phrases, words, errors, phases, screen, pronounce)

    # --- lookups ---

    def keys(self) -> list[str]:
        """The phrase keys, in the book's order."""
        return list(self._phrases)

    def error_codes(self) -> list[str]:
        """The codes of the ``errors`` section, in the book's order."""
        return list(self._errors)

    def words(self) -> dict[str, str]:
        """The ``words`` section: name -> text (as written, stress marks removed)."""
        return {name: shown(text) for name, text in self._words.items()}

    def pronunciations(self) -> dict[str, str]:
        """The ``pronounce`` section: stressed word (lower case, with its mark) -> phonemes."""
        return dict(self._pronounce)

    def spoken(self, text: str) -> str:
        """``text`` as the synthesiser is given it: each marked word as its phonemes."""

        def say(match: re.Match[str]) -> str:
            word = match.group(0)
            phonemes = self._pronounce.get(word.casefold())
            return shown(word) if phonemes is None else f"[[{phonemes}]]"

        return _WORD.sub(say, text)

    def phases(self) -> dict[str, str]:
        """The ``phases`` section: phase -> screen name."""
        return dict(self._phases)

    def placeholders(self, key: str, section: str = "phrases") -> tuple[Placeholder, ...]:
        """The placeholders of a phrase (or, with ``section="errors"``, of an error text)."""
        return self._template(section, key).placeholders

    def word(self, name: str) -> str:
        """The ``words`` entry ``name`` (a role such as ``"mafia"``, or ``"and"``)."""
        try:
            return shown(self._words[str(name)])
        except KeyError:
            raise PhraseBookError(
                f"the {self.language} phrase book has no word {str(name)!r}; "
                f"known: {', '.join(self._words)}"
            ) from None

    def phase_name(self, phase: str, preset: str = "club") -> str:
        """The screen's name of ``phase`` (a ``Phase`` or its value); a preset may name a phase
        its own way (``fiim.third_vote``: «поднять всех»)."""
        own = self._phases.get(f"{preset}.{phase}")
        if own is not None:
            return own
        try:
            return self._phases[str(phase)]
        except KeyError:
            raise PhraseBookError(
                f"the {self.language} phrase book has no name for phase {str(phase)!r}; "
                f"add it to the `phases:` section"
            ) from None

    # --- rendering ---

    def render(self, key: str, params: Mapping[str, Any] | None = None) -> Utterance:
        """The spoken phrase ``key`` with ``params`` filled in: its text and its segments."""
        template = self._template("phrases", key)
        values = params or {}
        texts: list[str] = []
        segments: list[Segment] = []
        for index, piece in enumerate(template.pieces):
            texts.append(shown(piece))
            segments.extend(self._piece_segments(key, index, piece))
            if index < len(template.placeholders):
                placeholder = template.placeholders[index]
                text, spoken = self._speak(key, placeholder, _value(key, placeholder, values))
                texts.append(text)
                segments.extend(spoken)
        text = sentence_case("".join(texts))
        return Utterance(key, text, with_pauses(text, segments))

    def error(self, code: str, params: Mapping[str, Any] | None = None) -> str:
        """The screen text of error ``code`` (numbers in digits, nouns agreeing)."""
        return self._written("errors", code, params)

    def screen(self, key: str, params: Mapping[str, Any] | None = None) -> str:
        """A text of the host's screen (labels, prompts, help), in the game's language."""
        return self._written("screen", key, params)

    def explain(self, error: BaseException) -> str:
        """What went wrong, in the book's language: a VoicehostError that names its phrase is
        said from the book; any other text (a library's own message) is given as it is."""
        if isinstance(error, ConfigErrors):
            lines = [self.explain(problem) for problem in error.problems]
            file = error.params["file"]  # config.yaml unless ``in_file`` named another
            heading = self.screen("config_errors", {"count": len(lines), "file": file})
            return "\n  ".join([heading, *lines])
        if isinstance(error, VoicehostError) and error.phrase in self._screen:
            return self.screen(error.phrase, error.params)
        if isinstance(error, VoicehostError) and error.phrase == WRITTEN:
            return str(error)
        if isinstance(error, VoicehostError):  # English only: quoted after the book's sentence
            return self.screen("error_in_english", {"text": str(error)})
        return str(error)

    def screen_keys(self) -> list[str]:
        """The keys of the ``screen`` section, in the book's order."""
        return list(self._screen)

    def _written(self, section: str, code: str, params: Mapping[str, Any] | None) -> str:
        template = self._template(section, code)
        values = params or {}
        texts: list[str] = []
        for index, piece in enumerate(template.pieces):
            texts.append(shown(piece))
            if index < len(template.placeholders):
                placeholder = template.placeholders[index]
                texts.append(self._write(code, placeholder, _value(code, placeholder, values)))
        return "".join(texts)

    def all_segments(self, texts: Iterable[str] = ()) -> list[Segment]:
        """Every distinct piece any announcement can need, for pre-rendering audio.

        The fixed pieces of every phrase, every numeral 0..99 in each gender the phrases use,
        every noun form, every word (the list conjunction among them), and ``texts``: the values
        a ``{x:text}`` placeholder will be given (the acquaintance topic). Deduplicated by key.
        """
        found: dict[str, Segment] = {}
        for text in texts:
            if text.strip():
                segment = self._segment(f"text.{shown(text.strip())}", text.strip())
                found.setdefault(segment.key, segment)
        genders = {"m"}
        for key, template in self._phrases.items():
            for index, piece in enumerate(template.pieces):
                for segment in self._piece_segments(key, index, piece):
                    found.setdefault(segment.key, segment)
            for placeholder in template.placeholders:
                genders.add(placeholder.gender)
                for form in placeholder.forms:
                    found.setdefault(_form_key(form), self._segment(_form_key(form), form))
        for gender in sorted(genders, key=GENDERS.index):
            for number in SPOKEN_NUMBERS:
                segment = self._numeral(number, gender)
                found.setdefault(segment.key, segment)
        for name, text in self._words.items():
            found.setdefault(f"word.{name}", self._segment(f"word.{name}", text))
        return list(found.values())

    # --- helpers ---

    def _segment(self, key: str, text: str) -> Segment:
        """A piece: spoken with its stressed words as phonemes, shown without the marks."""
        spoken, display = self.spoken(text), shown(text)
        return Segment(key, spoken, "" if display == spoken else display)

    def _piece_segments(self, key: str, index: int, piece: str) -> list[Segment]:
        """The segments of fixed piece ``index``: one, or one per «…»-ended part
        (``<key>#<i>``, ``<key>#<i>.1``, ...); none for a piece of punctuation only."""
        segments: list[Segment] = []
        for part_index, part in enumerate(_count_parts(piece)):
            name = f"{key}#{index}" if part_index == 0 else f"{key}#{index}.{part_index}"
            text = _piece_text(part)
            if text is not None:
                segments.append(self._segment(name, text))
        return segments

    def _template(self, section: str, key: str) -> Template:
        table = {"phrases": self._phrases, "errors": self._errors, "screen": self._screen}.get(
            section
        )
        if table is None:
            raise PhraseBookError(f"no section {section!r}; use 'phrases', 'errors' or 'screen'")
        try:
            return table[key]
        except KeyError:
            raise PhraseBookError(
                f"the {self.language} phrase book has no {section} key {key!r}; "
                f"add it to phrases/{self.language}.yaml"
            ) from None

    def _numeral(self, number: int, gender: str) -> Segment:
        gender_key = self._grammar.gender_key(gender)
        return self._segment(f"num.{gender_key}.{number}", self._grammar.numeral(number, gender))

    def _speak(self, key: str, placeholder: Placeholder, value: Any) -> tuple[str, list[Segment]]:
        """The spoken text of one placeholder and its segments."""
        if placeholder.kind is Kind.WORD:
            name = str(value)
            text = self._word_for(key, placeholder, name)
            segment = self._segment(f"word.{name}", text)
            return segment.shown, [segment]
        if placeholder.kind is Kind.TEXT:
            if not isinstance(value, str) or not value.strip():
                raise PhraseBookError(f"{key}: {{{placeholder.name}:text}} needs a text")
            segment = self._segment(f"text.{shown(value.strip())}", value.strip())
            return segment.shown, [segment]
        if placeholder.kind is Kind.LIST:
            numbers = _number_list(key, placeholder, value)
            segments = [self._numeral(number, placeholder.gender) for number in numbers]
            text = self._join([segment.shown for segment in segments])
            if len(segments) > 1:
                segments.insert(-1, self._segment(_AND_KEY, self._words[LIST_CONJUNCTION]))
            return text, segments
        number = _spoken_number(key, placeholder, value)
        segments = [self._numeral(number, placeholder.gender)]
        if placeholder.kind is Kind.COUNT:
            form = placeholder.forms[self._grammar.form_index(number)]
            segments.append(self._segment(_form_key(form), form))
        return " ".join(segment.shown for segment in segments), segments

    def _write(self, code: str, placeholder: Placeholder, value: Any) -> str:
        if placeholder.kind is Kind.WORD:
            return self._word_for(code, placeholder, str(value))
        if placeholder.kind is Kind.PHASE:
            return self.phase_name(str(value))
        if placeholder.kind is Kind.TEXT:
            return shown(str(value))
        if placeholder.kind is Kind.LIST:
            return self._join([str(number) for number in _number_list(code, placeholder, value)])
        if placeholder.kind is Kind.COUNT:
            number = _whole_number(code, placeholder, value)
            return f"{number} {shown(placeholder.forms[self._grammar.form_index(number)])}"
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)

    def _word_for(self, key: str, placeholder: Placeholder, name: str) -> str:
        if name not in self._words:
            raise PhraseBookError(
                f"{key}: {{{placeholder.name}:word}} got {name!r}, which is not in `words` "
                f"({', '.join(self._words)})"
            )
        return self._words[name]

    def _join(self, items: list[str]) -> str:
        if len(items) == 1:
            return items[0]
        return f"{', '.join(items[:-1])} {shown(self._words[LIST_CONJUNCTION])} {items[-1]}"


_AND_KEY = f"word.{LIST_CONJUNCTION}"


def _count_parts(piece: str) -> list[str]:
    """``piece`` cut after each «…», and before the first word of the count when a sentence
    precedes it in the same piece: «покинул стол?» | «Раз…» | «два…» | «три!»."""
    parts = re.split(f"(?<={COUNT_BREAK})", piece)
    if len(parts) > 1:
        head = re.match(r"(.*[.!?])(\s+\S+…)\Z", parts[0], re.DOTALL)
        if head is not None:
            parts[0:1] = [head.group(1), head.group(2)]
    return parts


def _form_key(form: str) -> str:
    return f"form.{shown(form)}"


def _piece_text(piece: str) -> str | None:
    """A fixed piece's text: whitespace and leading punctuation stripped; None when the piece is
    only punctuation and space (it stays in the text, but there is nothing to say)."""
    if not any(character.isalnum() for character in piece):
        return None
    text = piece.strip()
    while text and not text[0].isalnum() and text[0] in ".,;:!?—–-…":
        text = text[1:].lstrip()
    return text


def _value(key: str, placeholder: Placeholder, params: Mapping[str, Any]) -> Any:
    try:
        return params[placeholder.name]
    except KeyError:
        given = ", ".join(params) or "none"
        raise PhraseBookError(
            f"{key} needs the parameter {placeholder.name!r} (given: {given})"
        ) from None


def _whole_number(key: str, placeholder: Placeholder, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PhraseBookError(f"{key}: {{{placeholder.name}}} needs a whole number, got {value!r}")
    if isinstance(value, float) and not value.is_integer():
        raise PhraseBookError(f"{key}: {{{placeholder.name}}} needs a whole number, got {value!r}")
    return int(value)


def _spoken_number(key: str, placeholder: Placeholder, value: Any) -> int:
    number = _whole_number(key, placeholder, value)
    if number not in SPOKEN_NUMBERS:
        raise PhraseBookError(
            f"{key}: {{{placeholder.name}}} is {number}; only numbers 0 to 99 can be said"
        )
    return number


def _number_list(key: str, placeholder: Placeholder, value: Any) -> list[int]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise PhraseBookError(
            f"{key}: {{{placeholder.name}:list}} needs a tuple of numbers, got {value!r}"
        )
    numbers = [_spoken_number(key, placeholder, item) for item in value]
    if not numbers:
        raise PhraseBookError(f"{key}: {{{placeholder.name}:list}} got an empty list")
    return numbers


_SENTENCE_END = re.compile(r"[.!?]")
_CLAUSE_END = re.compile(r"[,:;—–-]")


def with_pauses(text: str, segments: list[Segment]) -> tuple[Segment, ...]:
    """``segments`` with the pause ``text`` (their announcement) has after each: found once,
    here, where the text is built, by where each piece's words stand in it."""
    folded = text.casefold()
    cursor = 0
    spans: list[tuple[int, int] | None] = []
    for segment in segments:
        shown_text = segment.shown
        found = folded.find(shown_text.casefold(), cursor)
        if found < 0:
            spans.append(None)
            continue
        spans.append((found, found + len(shown_text)))
        cursor = found + len(shown_text)
    paused: list[Segment] = []
    for index, segment in enumerate(segments):
        if index == len(segments) - 1:
            pause = Pause.END
        else:
            here, after = spans[index], spans[index + 1]
            boundary = text[here[1] - 1 : after[0]] if here and after else ""
            pause = _pause_of(boundary)
        paused.append(dataclasses.replace(segment, pause_after=pause))
    return tuple(paused)


def _pause_of(boundary: str) -> Pause:
    if "…" in boundary:
        return Pause.COUNT
    if _SENTENCE_END.search(boundary):
        return Pause.SENTENCE
    if _CLAUSE_END.search(boundary):
        return Pause.CLAUSE
    return Pause.WORD
