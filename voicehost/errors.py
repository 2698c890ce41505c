"""The one root exception of voicehost, and the subclasses that carry their context."""

from __future__ import annotations


class VoicehostError(Exception):
    """Root of every error voicehost raises on purpose. Its text is meant for a person."""


class ConfigError(VoicehostError):
    """config.yaml is wrong: names the key, the line and what is allowed."""

    def __init__(self, key: str, line: int | None, problem: str) -> None:
        where = f"line {line}" if line is not None else "(no line)"
        super().__init__(f"config: {key} ({where}): {problem}")
        self.key = key
        self.line = line
        self.problem = problem


class DeviceError(VoicehostError):
    """A device (sound, microphone, keypad) is missing or failed; the text says what to do."""


class MissingDependency(VoicehostError):
    """An optional library is not installed; the text gives the install hint."""
