"""Vosk speech models in ``models/``: which one to use, fetching, side-loading, vocabulary.

A model is a folder (``models/vosk-model-small-ru-0.22/``) holding ``am/``, ``conf/`` and
``graph/``. ``voicehost models fetch ru`` downloads the official zip with a sha256 check and
resumes an interrupted download; ``voicehost models install ZIP`` unpacks a zip brought on a
USB stick. Nothing here imports Vosk.
"""

from __future__ import annotations

import hashlib
import shutil
import struct
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO

from voicehost.errors import VoicehostError

if TYPE_CHECKING:
    from voicehost.config import Settings

OFFICIAL_SOURCE = "https://alphacephei.com/vosk/models/"


@dataclass(frozen=True)
class ModelSpec:
    """A downloadable model: its folder name, where it lives, and its pinned size and sha256."""

    language: str
    name: str
    size: int
    sha256: str

    @property
    def url(self) -> str:
        return f"{OFFICIAL_SOURCE}{self.name}.zip"


# Size and sha256 of the official zips. alphacephei.com publishes no checksums; these are the
# digests that several independent projects recorded for the same files. To pin a new model:
# download it once, run `sha256sum` and `stat -c %s` on the zip, and add a line here.
MODELS: dict[str, ModelSpec] = {
    "ru": ModelSpec(
        "ru",
        "vosk-model-small-ru-0.22",
        46_236_750,
        "961d5ff98a17f4aa6de69864d0aa71fa5bac682301d2b5d17a3f24c5c99a46d4",
    ),
    "en": ModelSpec(
        "en",
        "vosk-model-small-en-us-0.15",
        41_205_931,
        "30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498",
    ),
}

REQUIRED_PARTS = ("am", "conf", "graph")
"""Folders every Vosk model has; ``ivector/`` and ``rescore/`` are optional."""

CHUNK_BYTES = 256 * 1024

Progress = Callable[[int, int], None]
"""Called with (bytes so far, total bytes) while downloading."""


class ModelError(VoicehostError):
    """Something is wrong with a model, a model zip or a download; the text says what to do."""


@dataclass(frozen=True)
class InstalledModel:
    """A model folder in ``models/``."""

    name: str
    path: Path
    size: int


def spec_for(language: str) -> ModelSpec:
    """The model ``voicehost models fetch LANG`` downloads, or ModelError naming the choices."""
    try:
        return MODELS[language]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise ModelError(
            f"no known model for language {language!r}; known: {known}. For another language, "
            "download a model zip from https://alphacephei.com/vosk/models and run "
            "`voicehost models install ZIP`",
            phrase="models_unknown_language",
            language=language,
            known=known,
        ) from None


def is_model(folder: Path) -> bool:
    """Whether ``folder`` looks like a Vosk model (am/, conf/, graph/)."""
    return folder.is_dir() and all((folder / part).is_dir() for part in REQUIRED_PARTS)


def installed_models(models_dir: Path) -> list[InstalledModel]:
    """The models in ``models_dir``, by name."""
    if not models_dir.is_dir():
        return []
    return [
        InstalledModel(folder.name, folder, _folder_size(folder))
        for folder in sorted(models_dir.iterdir())
        if is_model(folder)
    ]


def find_model(settings: Settings) -> Path | None:
    """The model to use: ``listener.model`` by name or path, or else (``auto``) the newest
    model whose folder name carries the game's language (``vosk-model-small-ru-0.22``)."""
    models_dir = settings.path(settings.listener.models_dir)
    chosen = settings.listener.model
    if chosen and chosen != "auto":
        named = Path(chosen).expanduser()
        folder = named if named.is_absolute() else models_dir / named
        return folder if is_model(folder) else None
    tag = f"-{settings.language}-"
    matching = [model.path for model in installed_models(models_dir) if tag in f"{model.name}-"]
    return matching[-1] if matching else None


def install_hint(language: str) -> str:
    """One line naming the command that installs a model for ``language``."""
    if language in MODELS:
        return (
            f"`voicehost models fetch {language}` (or, offline, "
            "`voicehost models install ZIP` from a USB stick)"
        )
    return "`voicehost models install ZIP` with a model from https://alphacephei.com/vosk/models"


# -- fetching --------------------------------------------------------------------------------


def fetch(
    spec: ModelSpec,
    models_dir: Path,
    progress: Progress | None = None,
    url: str | None = None,
    timeout: float = 30.0,
) -> Path:
    """Download ``spec`` into ``models_dir`` and unpack it; returns the model folder.

    An interrupted download leaves ``<name>.zip.part``; the next call resumes it with an HTTP
    Range request. The finished file must have the pinned size and sha256.
    """
    models_dir.mkdir(parents=True, exist_ok=True)
    part = models_dir / f"{spec.name}.zip.part"
    source = url or spec.url
    if not part.exists() or part.stat().st_size < spec.size:
        _download(source, part, spec.size, progress, timeout)
    _verify(part, spec)
    archive = part.with_suffix("")
    part.replace(archive)
    try:
        folder = install_zip(archive, models_dir)
    finally:
        archive.unlink(missing_ok=True)
    return folder


def _download(url: str, part: Path, size: int, progress: Progress | None, timeout: float) -> None:
    import urllib.error  # only here: a game's start needs no HTTP client (about 60 ms)
    import urllib.request

    have = part.stat().st_size if part.exists() else 0
    request = urllib.request.Request(url, headers={"User-Agent": "voicehost"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            resumed = have > 0 and response.status == 206
            mode = "ab" if resumed else "wb"
            done = have if resumed else 0
            with part.open(mode) as out:
                for chunk in _chunks(response):
                    out.write(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, size)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have >= size:
            return  # the part file is already whole
        raise ModelError(
            f"the model server answered {exc.code} {exc.reason} for {url}; try again later, "
            "or download the zip elsewhere and run `voicehost models install ZIP`",
            phrase="models_server_refused",
            url=url,
            library=f"{exc.code} {exc.reason}",
        ) from exc
    except (urllib.error.URLError, OSError) as exc:
        got = part.stat().st_size if part.exists() else 0
        reason = getattr(exc, "reason", exc)
        raise ModelError(
            f"the download stopped at {got / 1e6:.1f} of {size / 1e6:.1f} MB ({reason}); run the "
            "same command again to resume it",
            phrase="models_download_stopped",
            got=f"{got / 1e6:.1f}",
            size=f"{size / 1e6:.1f}",
            library=reason,
        ) from exc
    got = part.stat().st_size
    if got < size:
        raise ModelError(
            f"the download stopped at {got / 1e6:.1f} of {size / 1e6:.1f} MB; run the same "
            "command again to resume it"
        )


def _chunks(response: BinaryIO) -> Iterator[bytes]:
    while chunk := response.read(CHUNK_BYTES):
        yield chunk


def _verify(part: Path, spec: ModelSpec) -> None:
    size = part.stat().st_size
    digest = sha256_of(part)
    if size == spec.size and digest == spec.sha256:
        return
    part.unlink()
    raise ModelError(
        f"the downloaded {spec.name}.zip is not the expected file (size {size} bytes, sha256 "
        f"{digest[:16]}…; expected {spec.size} bytes, {spec.sha256[:16]}…). It was deleted; run "
        "the command again. If it fails again, the server's file changed: check "
        f"{OFFICIAL_SOURCE}"
    )


def sha256_of(path: Path) -> str:
    """The sha256 of a file, in hex."""
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


# -- installing a zip ------------------------------------------------------------------------


def install_zip(archive: Path, models_dir: Path) -> Path:
    """Unpack a model zip into ``models_dir``; returns the model folder.

    The zip must hold one Vosk model (am/, conf/, graph/), at its top or in one folder. A model
    of the same name is replaced only once the new one is fully unpacked.
    """
    if not archive.is_file():
        raise ModelError(f"{archive}: no such file", phrase="no_such_file", path=archive)
    try:
        with zipfile.ZipFile(archive) as bundle:
            root = _model_root(bundle, archive)
            damaged = bundle.testzip()
            if damaged is not None:
                raise ModelError(
                    f"{archive.name} is damaged ({damaged} fails its check); copy it again or "
                    "download it again"
                )
            name = root.name if root.parts else archive.stem
            return _unpack(bundle, root, models_dir, name)
    except zipfile.BadZipFile as exc:
        raise ModelError(
            f"{archive.name} is not a readable zip ({exc}); it may be cut short: copy or "
            "download it again",
            phrase="models_bad_zip",
            name=archive.name,
            library=exc,
        ) from exc


def _model_root(bundle: zipfile.ZipFile, archive: Path) -> PurePosixPath:
    names = [PurePosixPath(name) for name in bundle.namelist()]
    for name in names:
        if name.is_absolute() or ".." in name.parts:
            raise ModelError(f"{archive.name} holds an unsafe path {name}; it is not a model zip")
    folders = {parent for name in names for parent in name.parents}
    roots = [
        folder
        for folder in sorted(folders, key=lambda path: len(path.parts))
        if all(folder / part in folders for part in REQUIRED_PARTS)
    ]
    if not roots:
        raise ModelError(
            f"{archive.name} is not a Vosk model: it has no folder with "
            f"{', '.join(part + '/' for part in REQUIRED_PARTS)}. Models are at "
            "https://alphacephei.com/vosk/models",
            phrase="models_not_a_model",
            name=archive.name,
            parts=", ".join(part + "/" for part in REQUIRED_PARTS),
        )
    return roots[0]


def _unpack(bundle: zipfile.ZipFile, root: PurePosixPath, models_dir: Path, name: str) -> Path:
    models_dir.mkdir(parents=True, exist_ok=True)
    target = models_dir / name
    staging = models_dir / f".installing-{name}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        for info in bundle.infolist():
            path = PurePosixPath(info.filename)
            if root.parts and root not in path.parents:
                continue
            relative = path.relative_to(root) if root.parts else path
            destination = staging.joinpath(*relative.parts)
            if info.is_dir():
                destination.mkdir(parents=True, exist_ok=True)
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with bundle.open(info) as data, destination.open("wb") as out:
                shutil.copyfileobj(data, out)
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    except OSError as exc:
        raise ModelError(f"cannot unpack into {models_dir}: {exc.strerror or exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


# -- vocabulary ------------------------------------------------------------------------------

FST_MAGIC = 2125659606
SYMBOL_TABLE_MAGIC = 2125658996
HAS_INPUT_SYMBOLS = 1
HAS_OUTPUT_SYMBOLS = 2


def vocabulary_source(folder: Path) -> Path:
    """The file a model's vocabulary is read from (words.txt, else its graph)."""
    for name in ("words.txt", "Gr.fst", "HCLG.fst"):
        path = folder / "graph" / name
        if path.is_file():
            return path
    raise ModelError(
        f"cannot read the vocabulary of {folder.name}: no graph/words.txt and no graph; set "
        "listener.fillers: false and listener.competitors: 0 in config.yaml"
    )


def model_vocabulary(folder: Path) -> list[str]:
    """Every word a model knows: ``graph/words.txt``, or the word table inside its graph.

    Small models (the Korean one) have no words.txt; their ``Gr.fst`` (or ``HCLG.fst``) carries
    the word list as the FST's symbol table.
    """
    listed = folder / "graph" / "words.txt"
    if listed.is_file():
        with listed.open(encoding="utf-8") as lines:
            return [line.split(maxsplit=1)[0] for line in lines if line.strip()]
    for name in ("Gr.fst", "HCLG.fst"):
        graph = folder / "graph" / name
        if graph.is_file():
            words = fst_output_symbols(graph)
            if words:
                return words
    raise ModelError(
        f"cannot read the vocabulary of {folder.name}: no graph/words.txt and no word table in "
        "its graph; set listener.fillers: false in config.yaml"
    )


def fst_output_symbols(path: Path) -> list[str]:
    """The output symbol table of an OpenFst binary file, or [] when it has none."""
    with path.open("rb") as data:
        magic = _read_int32(data)
        if magic != FST_MAGIC:
            return []
        _read_string(data)  # FST type
        _read_string(data)  # arc type
        _version, flags = struct.unpack("<ii", data.read(8))
        data.read(8 + 8 + 8 + 8)  # properties, start, number of states, number of arcs
        if flags & HAS_INPUT_SYMBOLS:
            _read_symbols(data)
        if not flags & HAS_OUTPUT_SYMBOLS:
            return []
        return _read_symbols(data)


def _read_symbols(data: BinaryIO) -> list[str]:
    if _read_int32(data) != SYMBOL_TABLE_MAGIC:
        raise ModelError(f"{getattr(data, 'name', 'graph')}: damaged word table")
    _read_string(data)  # table name
    _available_key, size = struct.unpack("<qq", data.read(16))
    words = []
    for _ in range(size):
        words.append(_read_string(data).decode("utf-8", errors="replace"))
        data.read(8)  # the word's id
    return words


def _read_int32(data: BinaryIO) -> int:
    raw = data.read(4)
    if len(raw) < 4:
        return -1
    return int(struct.unpack("<i", raw)[0])


def _read_string(data: BinaryIO) -> bytes:
    length = _read_int32(data)
    if length < 0:
        raise ModelError(f"{getattr(data, 'name', 'graph')}: damaged graph file")
    return data.read(length)
