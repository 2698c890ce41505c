"""Output that can no longer be written: a closed pipe, a terminal that hung up."""

from __future__ import annotations

import os
import stat
import sys
from typing import TextIO


def silence(streams: tuple[TextIO, ...] = (sys.stdout,), *, terminals_only: bool = False) -> None:
    """Point ``streams`` at /dev/null, so that nothing written later (not even the interpreter
    flushing at exit) fails on a closed pipe (EPIPE) or a hung-up terminal (EIO).
    ``terminals_only``: only streams that are a terminal; one sent to a file keeps what is
    written (a hung-up terminal may no longer say it is one: a character device is enough)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in streams:
            try:
                if not terminals_only or stat.S_ISCHR(os.fstat(stream.fileno()).st_mode):
                    os.dup2(devnull, stream.fileno())
            except (OSError, ValueError):
                pass  # not a real file: nothing will be written where it cannot go
    finally:
        os.close(devnull)
