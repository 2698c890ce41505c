"""Owner-only folders and files for what holds the roles (journals, protocols, markers).

A journal or a protocol tells who was mafia: folders are 0700 and files 0600 whatever the
umask, and an existing file or folder of ours that is wider is narrowed.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: Path) -> None:
    """Make ``path`` (and any missing parent) owner-only; an existing folder of ours is narrowed.

    Raises OSError when it cannot be made (a read-only disk, no permission).
    """
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            os.mkdir(folder, FOLDER_MODE)
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode is cut by the umask only, never widened
    narrow(path, FOLDER_MODE)


def narrow(path: Path, mode: int) -> bool:
    """Set ``mode`` on a file or folder we own that allows more; True when it was changed."""
    try:
        info = path.stat()
    except OSError:
        return False
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & ~mode == 0:
        return False
    try:
        os.chmod(path, stat.S_IMODE(info.st_mode) & mode)
    except OSError:
        return False
    return True


def sync_folder(folder: Path) -> None:
    """fsync a folder, so a file just created or renamed in it survives a power cut."""
    try:
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass  # some file systems cannot sync a folder; the file itself is synced
    finally:
        os.close(descriptor)


def write_private(path: Path, data: bytes) -> None:
    """Write a whole owner-only file and fsync it and its folder. Raises OSError."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        os.fchmod(descriptor, FILE_MODE)  # an existing file keeps its mode through O_TRUNC
        view = memoryview(data)
        while view:
            written = os.write(descriptor, view)
            view = view[written:]
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    sync_folder(path.parent)


def reason(exc: OSError) -> str:
    """An OSError in words a club host can act on."""
    import errno

    hints = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is used up",
        errno.EROFS: "the disk is read-only",
        errno.EACCES: "no permission to write there",
        errno.EPERM: "no permission to write there",
        errno.ENOENT: "the folder does not exist",
        errno.ENOTDIR: "a file stands where the folder should be",
        errno.EIO: "the disk reports an input/output error",
    }
    return hints.get(exc.errno or 0, exc.strerror or str(exc))
