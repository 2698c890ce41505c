"""Subcommands of the CLI, one module each; see voicehost.__main__."""
