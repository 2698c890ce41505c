"""`voicehost models fetch|install|list`: the Vosk speech models in ``models/``."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from voicehost import cli, config
from voicehost.voice_in.models import (
    MODELS,
    fetch,
    find_model,
    install_hint,
    install_zip,
    installed_models,
    spec_for,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "models",
        help=cli.SUBCOMMANDS["models"],
        description="Speech models that hear «спасибо» / «пас», kept in listener.models_dir.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    fetch_parser = actions.add_parser(
        "fetch",
        help="download a model from alphacephei.com (sha256-checked, resumable)",
    )
    fetch_parser.add_argument("language", help=f"language of the model: {', '.join(MODELS)}")
    fetch_parser.add_argument("--url", help=argparse.SUPPRESS)  # a mirror; tests use a local one
    fetch_parser.set_defaults(func=run_fetch)
    install_parser = actions.add_parser(
        "install", help="unpack a model zip, e.g. from a USB stick on a Pi without internet"
    )
    install_parser.add_argument("zip", help="the model's .zip file")
    install_parser.set_defaults(func=run_install)
    list_parser = actions.add_parser("list", help="show the installed models")
    list_parser.set_defaults(func=run_list)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _models_dir(args: argparse.Namespace) -> Path:
    settings = config.load(args.config)
    return settings.path(settings.listener.models_dir)


def run_fetch(args: argparse.Namespace) -> int:
    spec = spec_for(args.language)
    models_dir = _models_dir(args)
    print(f"Downloading {spec.name} ({spec.size / 1e6:.0f} MB) from {args.url or spec.url}")
    bar = ProgressBar(sys.stderr)
    folder = fetch(spec, models_dir, progress=bar.update, url=args.url)
    bar.finish()
    print(f"Installed {folder}")
    return 0


def run_install(args: argparse.Namespace) -> int:
    folder = install_zip(Path(args.zip).expanduser(), _models_dir(args))
    print(f"Installed {folder}")
    return 0


def run_list(args: argparse.Namespace) -> int:
    settings = config.load(args.config)
    models_dir = settings.path(settings.listener.models_dir)
    models = installed_models(models_dir)
    if not models:
        print(
            f"No speech models in {models_dir}. Install one with {install_hint(settings.language)}"
        )
        return 0
    chosen = find_model(settings)
    for model in models:
        mark = "*" if chosen is not None and model.path == chosen else " "
        print(f"{mark} {model.name:<40} {model.size / 1e6:7.1f} MB")
    if chosen is None:
        print(
            f"None of these is a {settings.language} model; install one with "
            f"{install_hint(settings.language)}"
        )
    else:
        print(f"* used for language {settings.language}")
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
