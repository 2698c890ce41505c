"""The grammar's look-alikes and fillers, worked out once per model and kept beside it.

Choosing competitors reads every word of the model (503,352 for the Korean proxy, about as many
for a large Russian model) in pure Python: seconds of CPU at every start, on a Pi a minute. What
they are depends only on the model's vocabulary, the stop words and the counts, so the answer
is written once to ``voicehost-grammar.json`` in the model's folder and read back at the next
load in milliseconds.

The file is checksummed twice over: it names the vocabulary file it was made from (size,
modification time and sha256), and it carries the sha256 of its own entries. A changed model,
a damaged or hand-edited file, or one from another version of the choice is ignored and made
again. A model folder that cannot be written (a read-only card, a package's install folder)
gets its file in the user's cache folder instead (``$XDG_CACHE_HOME/voicehost/grammar``),
named after the model's path.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

from voicehost.notices import LOG_ONLY
from voicehost.voice_in.models import sha256_of, vocabulary_source

log = logging.getLogger(__name__)

FILE_NAME = "voicehost-grammar.json"
VERSION = 1
"""Bump when the choice of competitors or fillers changes: older files are then made again."""


def cache_paths(folder: Path) -> list[Path]:
    """Where the file may be: beside the model, else in the user's cache folder."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    tag = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]
    return [folder / FILE_NAME, base / "voicehost" / "grammar" / f"{folder.name}-{tag}.json"]


def cached_words(
    folder: Path, key: dict[str, object], compute: Callable[[], tuple[str, ...]]
) -> tuple[str, ...]:
    """``compute()``'s words for ``key`` on the model in ``folder``, from the file when it is
    valid, else computed and written (beside the model, or in the cache folder)."""
    source = vocabulary_source(folder)
    name = json.dumps(key, ensure_ascii=False, sort_keys=True)
    for path in cache_paths(folder):
        entries = _read(path, source)
        if entries is not None and name in entries:
            return tuple(entries[name])
    words = compute()
    for path in cache_paths(folder):
        entries = _read(path, source) or {}
        entries[name] = list(words)
        if _write(path, source, entries):
            break
    return words


def _fingerprint(source: Path, known: dict[str, object] | None = None) -> dict[str, object]:
    stat = source.stat()
    stamp: dict[str, object] = {
        "file": source.name,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
    }
    if known and all(known.get(field) == stamp[field] for field in stamp):
        stamp["sha256"] = known.get("sha256")  # the same file, untouched: no need to read it
    else:
        stamp["sha256"] = sha256_of(source)
    return stamp


def _checksum(source: dict[str, object], entries: dict[str, list[str]]) -> str:
    body = json.dumps([VERSION, source.get("sha256"), entries], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def _read(path: Path, source: Path) -> dict[str, list[str]] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        recorded = data["source"]
        entries = data["entries"]
        if data.get("version") != VERSION or data.get("checksum") != _checksum(recorded, entries):
            log.info("%s is damaged or outdated: made again", path, extra=LOG_ONLY)
            return None
        now = _fingerprint(source, recorded)
        if now["sha256"] != recorded.get("sha256") or now["size"] != recorded.get("size"):
            log.info("%s was made for another model: made again", path, extra=LOG_ONLY)
            return None
        return {str(name): [str(word) for word in words] for name, words in entries.items()}
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.info("%s cannot be used (%s): made again", path, exc, extra=LOG_ONLY)
        return None


def _write(path: Path, source: Path, entries: dict[str, list[str]]) -> bool:
    stamp = _fingerprint(source)
    data = {
        "version": VERSION,
        "source": stamp,
        "entries": entries,
        "checksum": _checksum(stamp, entries),
    }
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", "utf-8")
        partial.replace(path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        log.info("cannot keep the grammar in %s (%s)", path, exc, extra=LOG_ONLY)
        return False
    return True
