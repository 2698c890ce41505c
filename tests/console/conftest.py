"""Makes the screen test kit (``screenkit.py`` beside this file) importable from the console
tests."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
