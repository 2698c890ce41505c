"""What a test of "one language" reads: the Latin words a Russian line still holds."""

from __future__ import annotations

import re

NAMES = re.compile(
    r"«[^»]*»|`[^`]*`|\S*[/_.]\S*|\bvoicehost\b|\bPortAudio\b|\bALSA\b|\bUSB\b|\bWAV\b|\bdBFS\b"
    r"|--[\w-]+|\bCtrl\+C\b|\bEnter\b|\bUTF-\d+\b|\bYAML\b"
    r"|\b(?:ru|en|numlock|capslock|scrolllock)\b"  # a language code, an LED as config names it
)
"""What a Russian line may keep in Latin letters: quoted library messages («…»), commands
(`…`), paths and config keys, the program's and the standards' names, keys to press."""


def latin_words(text: str) -> list[str]:
    """Words in Latin letters left in ``text`` once :data:`NAMES` are taken out."""
    return re.findall(r"[A-Za-z]{2,}", NAMES.sub(" ", text))
