"""`voicehost models fetch|install|list`: the Vosk speech models in ``models/``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from voicehost import config
from voicehost.cli.texts import message, text
from voicehost.voice_in.models import (
    MODELS,
    fetch,
    find_model,
    install_zip,
    installed_models,
    spec_for,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        help=text("models"),
        description=text("models.description"),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    fetch_parser = actions.add_parser(
        "fetch",
        help=text("models.fetch"),
    )
    fetch_parser.add_argument(
        "language", help=text("models.fetch.language", languages=", ".join(MODELS))
    )
    fetch_parser.add_argument("--url", help=argparse.SUPPRESS)  # a mirror; tests use a local one
    fetch_parser.set_defaults(func=run_fetch)
    install_parser = actions.add_parser("install", help=text("models.install"))
    install_parser.add_argument("zip", help=text("models.install.zip"))
    install_parser.set_defaults(func=run_install)
    list_parser = actions.add_parser("list", help=text("models.list"))
    list_parser.set_defaults(func=run_list)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _models_dir(args: argparse.Namespace) -> Path:
    settings = config.load(args.config)
    return settings.path(settings.listener.models_dir)


def run_fetch(args: argparse.Namespace) -> int:
    spec = spec_for(args.language)
    models_dir = _models_dir(args)
    size = f"{spec.size / 1e6:.0f}"
    print(message("models.downloading", name=spec.name, size=size, url=args.url or spec.url))
    bar = ProgressBar(sys.stderr)
    folder = fetch(spec, models_dir, progress=bar.update, url=args.url)
    bar.finish()
    print(message("models.installed", path=folder))
    return 0


def run_install(args: argparse.Namespace) -> int:
    folder = install_zip(Path(args.zip).expanduser(), _models_dir(args))
    print(message("models.installed", path=folder))
    return 0


def run_list(args: argparse.Namespace) -> int:
    settings = config.load(args.config)
    models_dir = settings.path(settings.listener.models_dir)
    models = installed_models(models_dir)
    if not models:
        print(message("models.none", folder=models_dir, language=settings.language))
        return 0
    chosen = find_model(settings)
    for model in models:
        mark = "*" if chosen is not None and model.path == chosen else " "
        megabytes = message("models.megabytes")
        print(f"{mark} {model.name:<40} {model.size / 1e6:7.1f} {megabytes}")
    if chosen is None:
        print(message("models.none_for_language", language=settings.language))
    else:
        print(message("models.used", language=settings.language))
    return 0


class ProgressBar:
    """A one-line download bar: percent, megabytes and speed, redrawn at most 10 times a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.started = time.monotonic()
        self._drawn = 0.0

    def update(self, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._drawn < 0.1 and done < total:
            return
        self._drawn = now
        fraction = min(1.0, done / total) if total else 0.0
        filled = int(fraction * self.WIDTH)
        speed = done / max(now - self.started, 1e-3) / 1e6
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.WIDTH - filled)}] {fraction:4.0%} "
            f"{done / 1e6:6.1f}/{total / 1e6:.1f} MB {speed:5.1f} MB/s"
        )
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()
