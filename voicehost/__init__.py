"""voicehost: an offline, voice-driven host for the party game Mafia."""

__version__ = "0.1.0"
