"""Files of the club's data written whole: a temporary file fsync'ed, renamed into place, and
its folder fsync'ed once (two syncs, not three: a game's end pays for each)."""

from __future__ import annotations

import os
from pathlib import Path

from voicehost.host import storage


def write_whole(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (owner-only): after a crash it holds the old data or the
    new, never a part. Raises OSError."""
    storage.private_folder(path.parent)
    temporary = path.with_name(f".{path.name}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, storage.FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, path)
    storage.sync_folder(path.parent)


def write_unsynced(path: Path, data: bytes) -> None:
    """A marker whose loss costs nothing but a second, harmless try (owner-only)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, storage.FILE_MODE)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)
