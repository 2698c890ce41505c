"""Every setting config.yaml documents is read by the program: a club that sets one gets what
the comment beside it says (``rules.disqualified_last_words`` was once read nowhere)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
#: Where settings are declared, not used.
DECLARING = {REPO / "voicehost" / "config.py", REPO / "voicehost" / "game" / "rules.py"}


def documented_keys() -> list[str]:
    """``section.key`` for every key of config.yaml (a top-level key stands alone)."""
    data = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    keys: list[str] = []
    for section, value in data.items():
        if isinstance(value, dict) and section != "keymap":
            keys.extend(f"{section}.{key}" for key in value)
        else:
            keys.append(section)
    return keys


def source_text() -> str:
    """The code, and the rule sets that name settings as data (``doctor: {self: rules.x}``)."""
    code = [path for path in sorted((REPO / "voicehost").rglob("*.py")) if path not in DECLARING]
    presets = sorted((REPO / "voicehost" / "game" / "presets").glob("*.yaml"))
    return "\n".join(path.read_text(encoding="utf-8") for path in (*code, *presets))


SOURCE = source_text()


@pytest.mark.parametrize("dotted", documented_keys())
def test_the_setting_is_read_somewhere(dotted: str) -> None:
    name = dotted.split(".")[-1]
    assert re.search(rf"\.{re.escape(name)}\b", SOURCE), f"{dotted} is read nowhere in voicehost/"
