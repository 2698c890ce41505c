"""Fetching and side-loading models, against a local HTTP server (never the real URL)."""

from __future__ import annotations

import hashlib
import http.server
import io
import logging
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from voicehost.__main__ import main
from voicehost.cli.wiring import make_listener
from voicehost.config import loads
from voicehost.voice_in import models
from voicehost.voice_in.models import ModelError, ModelSpec, fetch, install_zip, installed_models


def model_zip(name: str = "vosk-model-small-xx-0.1", top: bool = True) -> bytes:
    """A small zip shaped like a Vosk model (am/, conf/, graph/, ivector/)."""
    buffer = io.BytesIO()
    prefix = f"{name}/" if top else ""
    with zipfile.ZipFile(buffer, "w") as bundle:
        bundle.writestr(f"{prefix}am/final.mdl", b"acoustic model " * 4000)
        bundle.writestr(f"{prefix}conf/model.conf", "--min-active=200\n")
        bundle.writestr(f"{prefix}graph/words.txt", "<eps> 0\nпривет 1\n")
        bundle.writestr(f"{prefix}ivector/final.ie", b"ivector " * 2000)
        bundle.writestr(f"{prefix}README", "test model\n")
    return buffer.getvalue()


class ModelServer:
    """Serves one file with HTTP Range support; can cut the connection after some bytes."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.cut_after: int | None = None
        self.ranges: list[str | None] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                header = self.headers.get("Range")
                server.ranges.append(header)
                start = int(header.split("=")[1].split("-")[0]) if header else 0
                body = server.payload[start:]
                self.send_response(206 if header else 200)
                if header:
                    end = len(server.payload) - 1
                    self.send_header("Content-Range", f"bytes {start}-{end}/{len(server.payload)}")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if server.cut_after is not None:
                    self.wfile.write(body[: server.cut_after])
                    server.cut_after = None
                    self.wfile.flush()
                    self.connection.shutdown(2)  # the line drops mid-download
                    return
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/model.zip"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ModelServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def payload() -> bytes:
    return model_zip()


@pytest.fixture
def server(payload: bytes) -> Iterator[ModelServer]:
    with ModelServer(payload) as running:
        yield running


def spec_of(payload: bytes, name: str = "vosk-model-small-xx-0.1") -> ModelSpec:
    return ModelSpec("xx", name, len(payload), hashlib.sha256(payload).hexdigest())


def test_fetch_downloads_checks_and_unpacks(server, payload, tmp_path):
    seen: list[tuple[int, int]] = []

    folder = fetch(
        spec_of(payload), tmp_path, progress=lambda d, t: seen.append((d, t)), url=server.url
    )

    assert folder == tmp_path / "vosk-model-small-xx-0.1"
    assert (folder / "am" / "final.mdl").is_file()
    assert seen[-1] == (len(payload), len(payload))
    assert not list(tmp_path.glob("*.zip*"))  # nothing left behind


def test_an_interrupted_download_resumes_where_it_stopped(server, payload, tmp_path):
    server.cut_after = 10_000
    with pytest.raises(ModelError, match="run the same command again to resume"):
        fetch(spec_of(payload), tmp_path, url=server.url)
    part = tmp_path / "vosk-model-small-xx-0.1.zip.part"
    assert part.stat().st_size == 10_000

    folder = fetch(spec_of(payload), tmp_path, url=server.url)

    assert server.ranges == [None, "bytes=10000-"]
    assert (folder / "conf" / "model.conf").is_file()


def test_a_download_with_the_wrong_checksum_is_deleted_and_named(server, payload, tmp_path):
    wrong = ModelSpec("xx", "vosk-model-small-xx-0.1", len(payload), "0" * 64)

    with pytest.raises(ModelError, match="not the expected file") as error:
        fetch(wrong, tmp_path, url=server.url)

    assert hashlib.sha256(payload).hexdigest()[:16] in str(error.value)
    assert not list(tmp_path.iterdir())


def test_a_zip_cut_short_is_refused_with_a_clear_message(payload, tmp_path):
    broken = tmp_path / "model.zip"
    broken.write_bytes(payload[: len(payload) // 2])

    with pytest.raises(ModelError, match="not a readable zip.*copy or download it again"):
        install_zip(broken, tmp_path / "models")


def test_a_zip_with_a_damaged_file_is_refused(payload, tmp_path):
    data = bytearray(payload)
    at = data.index(b"acoustic model ")
    data[at : at + 8] = b"XXXXXXXX"  # the stored bytes no longer match their CRC
    broken = tmp_path / "model.zip"
    broken.write_bytes(bytes(data))

    with pytest.raises(ModelError, match="damaged"):
        install_zip(broken, tmp_path / "models")
    assert not (tmp_path / "models" / "vosk-model-small-xx-0.1").exists()


def test_a_zip_that_is_not_a_model_is_refused(tmp_path):
    archive = tmp_path / "photos.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("holiday/beach.jpg", b"jpeg")

    with pytest.raises(
        ModelError, match="not a Vosk model: it has no folder with am/, conf/, graph/"
    ):
        install_zip(archive, tmp_path / "models")


def test_a_zip_without_a_top_folder_is_named_after_the_file(tmp_path):
    archive = tmp_path / "vosk-model-small-ru-0.22.zip"
    archive.write_bytes(model_zip(top=False))

    folder = install_zip(archive, tmp_path / "models")

    assert folder.name == "vosk-model-small-ru-0.22"
    assert [m.name for m in installed_models(tmp_path / "models")] == [folder.name]


def test_installing_again_replaces_the_model(payload, tmp_path):
    archive = tmp_path / "model.zip"
    archive.write_bytes(payload)
    folder = install_zip(archive, tmp_path / "models")
    (folder / "stale.txt").write_text("old")

    install_zip(archive, tmp_path / "models")

    assert not (folder / "stale.txt").exists()


def config_in(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(f"listener:\n  models_dir: models\n{extra}", encoding="utf-8")
    return path


def test_models_commands_fetch_install_and_list(server, payload, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(models.MODELS, "xx", spec_of(payload))
    config = config_in(tmp_path)

    assert main(["--config", str(config), "models", "list"]) == 0
    assert "voicehost models fetch ru" in capsys.readouterr().out

    assert main(["--config", str(config), "models", "fetch", "xx", "--url", server.url]) == 0
    out = capsys.readouterr()
    assert "Установлена модель" in out.out and "100%" in out.err  # language: ru (default)

    archive = tmp_path / "vosk-model-small-ru-0.22.zip"
    archive.write_bytes(model_zip("vosk-model-small-ru-0.22"))
    assert main(["--config", str(config), "models", "install", str(archive)]) == 0

    assert main(["--config", str(config), "models", "list"]) == 0
    listed = capsys.readouterr().out
    assert "vosk-model-small-xx-0.1" in listed
    assert "* vosk-model-small-ru-0.22" in listed  # the one the game (language ru) uses


def test_fetching_an_unknown_language_names_the_known_ones(tmp_path, capsys):
    assert main(["--config", str(config_in(tmp_path)), "models", "fetch", "zz"]) == 1
    assert "(известны: en, ru)" in capsys.readouterr().err  # language: ru (default)


def test_without_a_model_the_game_goes_on_and_one_line_says_how_to_install(tmp_path, caplog):
    settings = loads("listener:\n  models_dir: models\n", base_dir=tmp_path)

    with caplog.at_level(logging.WARNING):
        assert make_listener(settings, clock=None) is None  # type: ignore[arg-type]

    [line] = [r.getMessage() for r in caplog.records]
    assert "voicehost models fetch ru" in line
    assert "keyboard or keypad" in line


def test_a_disabled_listener_never_touches_the_model(tmp_path):
    archive = tmp_path / "vosk-model-small-ru-0.22.zip"
    archive.write_bytes(model_zip("vosk-model-small-ru-0.22"))
    install_zip(archive, tmp_path / "models")  # a fake model: loading it would fail
    settings = loads("listener:\n  enabled: false\n", base_dir=tmp_path)

    assert make_listener(settings, clock=None) is None  # type: ignore[arg-type]
