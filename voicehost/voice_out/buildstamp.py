"""The stamp of a full audio cache, so that a second `voicehost phrases build` reads no book.

`make run` builds the cache before every start. When nothing changed, that build only finds
every piece's file where it was; but finding them needs the settings, the phrase book and the
engine's version, which cost three times `voicehost --help`. So a build that found everything
already there (nothing synthesised, no voice pack) leaves a stamp in the user's cache: what it
read (config.yaml's bytes, the VOICEHOST_* variables, the phrase book, voicehost's own modules,
espeak-ng's library and pyttsx3's version folder, each by size and modification time), every
cache file it checked, by size and modification time, and what it said. The next build that
finds all of them as they were says the same and is done; any difference (a file touched,
deleted or damaged, a setting, an upgrade) and the build runs in full.

A stale stamp could only say "ready" over a cache that lacks a piece; the game's start fills
whatever is missing anyway (``SpeechLibrary.prepare``). This module imports only the standard
library: its check is the whole of a warm build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

STAMP_FORMAT = 1
"""Bump when what the stamp holds changes."""


def config_file(given: str | None) -> Path | None:
    """The config file a command reads: ``--config``, else the checkout's config.yaml when it
    exists (as ``voicehost.config.load`` chooses), else None (the defaults)."""
    if given is not None:
        return Path(given)
    default = Path(__file__).resolve().parents[2] / "config.yaml"
    return default if default.exists() else None


def _stamp_path(config: Path | None) -> Path:
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    name = str(config.resolve()) if config is not None else "(no config file)"
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(home) / "voicehost" / f"build-{digest}.json"


def _identity(config: Path | None) -> dict[str, Any]:
    """What the stamp is for: the config's bytes, the environment and the interpreter."""
    text = None
    if config is not None:
        try:
            text = hashlib.sha256(config.read_bytes()).hexdigest()
        except OSError:
            text = None
    return {
        "format": STAMP_FORMAT,
        "config": [str(config.resolve()) if config is not None else "", text],
        "environment": sorted(
            [name, value] for name, value in os.environ.items() if name.startswith("VOICEHOST_")
        ),
        "python": [sys.prefix, sys.version],
    }


def _seen(path: Path) -> list[Any]:
    """A file's (or folder's) path, size and modification time; an absent one as absent."""
    try:
        status = path.stat()
    except OSError:
        return [str(path), None, None]
    return [str(path), status.st_size, status.st_mtime_ns]


def still_built(config: Path | None) -> str | None:
    """What the last full build said, when everything it read and found is as it was."""
    try:
        kept = json.loads(_stamp_path(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("identity") != _identity(config):
        return None
    files = kept.get("files")
    said = kept.get("said")
    if not isinstance(files, list) or not isinstance(said, str):
        return None
    for entry in files:
        if not isinstance(entry, list) or len(entry) != 3 or _seen(Path(entry[0])) != entry:
            return None
    return said


def keep(config: Path | None, read: Iterable[Path], found: Iterable[Path], said: str) -> None:
    """Stamp a build that synthesised nothing: ``read`` are the files it read besides the
    config and voicehost's modules, ``found`` the cache files it checked. Never fails: without
    a stamp (a read-only home) the next build runs in full."""
    modules = [
        Path(file)
        for name, module in list(sys.modules.items())
        if name.split(".")[0] == "voicehost" and (file := module.__file__)
    ]
    files = [_seen(path) for path in [*read, *_engine_files(), *modules, *found]]
    if any(entry[1] is None for entry in files):
        return  # something it needs is not there: nothing to stamp
    stamp = {"identity": _identity(config), "files": files, "said": said}
    path = _stamp_path(config)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(stamp, ensure_ascii=False), encoding="utf-8")
        os.replace(partial, path)
    except OSError:
        pass


def forget(config: Path | None) -> None:
    """Remove the stamp (a build that did something)."""
    with contextlib.suppress(OSError):
        _stamp_path(config).unlink()


def _engine_files() -> list[Path]:
    """espeak-ng's library as this process loaded it and pyttsx3's version folder: an upgrade
    of either changes every cache file's name."""
    found: list[Path] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            libraries = {
                line.split(None, 5)[5].strip()
                for line in maps
                if "libespeak-ng" in line and len(line.split(None, 5)) == 6
            }
    except OSError:
        libraries = set()
    found.extend(Path(library) for library in sorted(libraries))
    if not found:
        return [Path("/nonexistent/libespeak-ng")]  # not loaded: nothing is stamped
    try:
        import importlib.util

        spec = importlib.util.find_spec("pyttsx3")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin is not None:
        found.extend(sorted(Path(spec.origin).parent.parent.glob("pyttsx3-*.dist-info")))
    return found
