"""Play every example script, golden script and journal fixture and write down everything a
person would see or a file would keep, so that two versions of the engine can be compared byte
for byte.

    python scripts/engine_equivalence.py dump OUT          # play every script; write OUT/*
    python scripts/engine_equivalence.py resume OLD OUT    # resume the journals OLD/*.journal
                                                           # (written by another version)

For each script ``NAME`` the dump holds ``NAME.out`` (what the terminal printed: announcements,
private lines, refusals, and the status screen after every line), ``NAME.protocol.json``,
``NAME.protocol.txt`` (the protocol table, Russian and English) and ``NAME.journal`` (the
journal without its wall-clock times). ``resume`` replays each old journal with this version:
``NAME.resumed`` is the protocol and the resume announcements it gives. Then ``diff -r``.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

from voicehost import config
from voicehost.console.script import run_script
from voicehost.console.text import describe_private
from voicehost.console.view import status_lines
from voicehost.game.effects import Private
from voicehost.host import protocol as protocol_module
from voicehost.host.loop import Host
from voicehost.host.replay import replay_journal
from voicehost.phrases import PhraseBook

REPO = Path(__file__).resolve().parent.parent

#: The golden scripts and the config.yaml each is played with (as tests/game/test_golden.py).
GOLDEN = {
    "game.script": "",
    "acquaintance.script": (
        "rules:\n  acquaintance: true\n  acquaintance_topic: любимая книга\n"
        "timers:\n  acquaintance_seconds: 20\n"
    ),
    "fiim.script": "rules:\n  preset: fiim\n",
}


def scripts() -> list[tuple[str, Path, str]]:
    found = [(f"example-{p.stem}", p, "") for p in sorted((REPO / "examples").glob("*.txt"))]
    golden = REPO / "tests" / "game" / "golden"
    found += [(f"golden-{Path(n).stem}", golden / n, text) for n, text in GOLDEN.items()]
    found.append(("resume", REPO / "tests" / "game" / "resume.script", ""))
    # the same games with the opposite language, and club settings that change the rules
    variants = {
        "en": "language: en\n",
        "rotate": "rules:\n  rotate_first_speaker: true\n  disqualified_last_words: true\n"
        "  killed_commissar_last_words: true\n  third_vote_tie: all_leave\n",
    }
    for suffix, text in variants.items():
        for stem in ("town-wins", "mafia-wins", "disqualification", "revote-and-third-vote"):
            found.append((f"example-{stem}-{suffix}", REPO / "examples" / f"{stem}.txt", text))
    for stem in ("fiim-town-wins", "fiim-lift-all", "fiim-team-loss"):
        found.append((f"example-{stem}-en", REPO / "examples" / f"{stem}.txt", variants["en"]))
    # the city's closed and half-closed cards and its shooting Commissar: policies of their own
    city = {
        "closed": "city:\n  cards: closed\n",
        "half-closed": "city:\n  cards: half_closed\n",
        "shooting-commissar": "city:\n  commissar_action: kill\n",
    }
    for suffix, text in city.items():
        for stem in ("city-town-wins", "city-mafia-wins", "city-maniac-wins"):
            found.append((f"example-{stem}-{suffix}", REPO / "examples" / f"{stem}.txt", text))
    return found


class _Private:
    """Private lines, printed where they happen."""

    def __init__(self, out: io.StringIO) -> None:
        self.out = out

    def show(self, message: Private) -> None:
        print(f"🔒 {describe_private(message)}", file=self.out)

    def clear(self) -> None:
        """A night step ended: the line printed stays in the transcript."""

    def close(self) -> None:
        """Nothing to release."""


def _journal_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'"at": [0-9.]+', '"at": 0', text)
    return re.sub(r'"started": "[^"]*"', '"started": ""', text)


def dump(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, path, settings_text in scripts():
            settings = config.loads(settings_text)
            lines = path.read_text(encoding="utf-8").splitlines()
            screen = io.StringIO()
            journal = Path(tmp) / f"{name}.journal"

            def after(host: Host, screen: io.StringIO = screen) -> None:
                print("\n".join(status_lines(host)), file=screen)
                p = host.prompt()
                fields = (p.seats_min, p.seats_max, p.subject, p.max_count, p.speech_running)
                print(f"prompt: {fields} night={p.night} late={p.late}", file=screen)

            result = run_script(
                lines,
                settings,
                journal_path=journal,
                out=screen,
                after_line=after,
                private=_Private(screen),
            )
            (out_dir / f"{name}.out").write_text(screen.getvalue(), encoding="utf-8")
            (out_dir / f"{name}.protocol.json").write_text(
                protocol_module.to_json(result.protocol), encoding="utf-8"
            )
            tables = [
                protocol_module.to_table(result.protocol, PhraseBook.load(language))
                for language in ("ru", "en")
            ]
            (out_dir / f"{name}.protocol.txt").write_text("\n".join(tables), encoding="utf-8")
            (out_dir / f"{name}.journal").write_text(_journal_text(journal), encoding="utf-8")
            shutil.copy(journal, out_dir / f"{name}.journal.raw")


def resume(old_dir: Path, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for raw in sorted(old_dir.glob("*.journal.raw")):
            name = raw.name.removesuffix(".journal.raw")
            journal = Path(tmp) / f"{name}.journal"
            shutil.copy(raw, journal)
            base = config.loads("")
            replayed = replay_journal(base, journal)
            protocol = protocol_module.build(replayed.state)
            screen = io.StringIO()
            result = run_script(
                [], replayed.settings, journal_path=journal, resume=True, out=screen
            )
            text = protocol_module.to_json(protocol) + "\n" + screen.getvalue()
            text += json.dumps([str(a) for a in result.host.accepted], ensure_ascii=False)
            (out_dir / f"{name}.resumed").write_text(text, encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "dump":
        dump(Path(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "resume":
        resume(Path(argv[1]), Path(argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
