"""The one root exception of voicehost, and the subclasses that carry their context."""

from __future__ import annotations

from typing import Any, Self

WRITTEN = "*"
"""``phrase`` of an error whose message is already in the game's language (from the book)."""


class VoicehostError(Exception):
    """Root of every error voicehost raises on purpose. Its text is meant for a person.

    ``phrase`` names the ``screen`` text of the phrase books that says the same in the game's
    language (``PhraseBook.explain`` renders it with ``params``); the message itself is English,
    for the log and whoever repairs the box. An error without a phrase is said in a Russian game
    as its English text quoted after a Russian sentence; one whose message was written from the
    book says so with :meth:`written`.
    """

    def __init__(self, message: str = "", *, phrase: str = "", **params: Any) -> None:
        super().__init__(message)
        self.phrase = phrase
        self.params = params

    @classmethod
    def written(cls, text: str) -> Self:
        """An error whose ``text`` is already in the game's language (``book.screen(...)``)."""
        return cls(text, phrase=WRITTEN)


class ConfigError(VoicehostError):
    """config.yaml is wrong: names the key, the line and what is allowed."""

    def __init__(
        self, key: str, line: int | None, problem: str, *, phrase: str = "", **params: Any
    ) -> None:
        where = f"line {line}" if line is not None else "(no line)"
        params.setdefault("file", "config.yaml")  # ``in_file`` names the file read
        super().__init__(
            f"config: {key} ({where}): {problem}",
            phrase=phrase,
            key=key,
            line=line if line is not None else "?",
            **params,
        )
        self.key = key
        self.line = line
        self.problem = problem

    def in_file(self, path: str) -> ConfigError:
        """The same error, said of the settings file at ``path`` (``--config``), not of
        config.yaml."""
        self.params["file"] = path
        return self


class ConfigErrors(ConfigError):
    """Several values of config.yaml are wrong: each is named, so one edit fixes them all."""

    def __init__(self, problems: list[ConfigError]) -> None:
        first = problems[0]
        super().__init__(first.key, first.line, first.problem)
        self.problems = problems
        self.args = (
            f"config.yaml has {len(problems)} wrong values:\n"
            + "\n".join(f"  {problem}" for problem in problems),
        )

    def in_file(self, path: str) -> ConfigError:
        for problem in self.problems:
            problem.in_file(path)
        return super().in_file(path)


class DeviceError(VoicehostError):
    """A device (sound, microphone, keypad) is missing or failed; the text says what to do."""


class MissingDependency(VoicehostError):
    """An optional library is not installed; the text gives the install hint."""
