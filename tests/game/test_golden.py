"""Golden transcripts: what the table hears (and the private screen shows) for a whole night
and a whole day, in Russian, with the default config.

The scripts are ``golden/game.script`` (the default config) and ``golden/acquaintance.script``
(the acquaintance round switched on, see ``SCRIPTS``); each ``#> name`` line starts a section
kept in ``golden/<name>.txt``. Each transcript line is a command (``>``), an announcement
(``🔊``), a cue (``♪``), a private line for the role awake (``🔒``) or a refused entry (``✗``);
a script line whose comment starts with ``refused`` must be refused.
Regenerate with ``VOICEHOST_REGOLD=1 pytest tests/game/test_golden.py``, then read the diff
against RULES.md before committing it.
"""

from __future__ import annotations

import os

import pytest
from gamekit import REPO

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.script import run_script
from voicehost.console.text import describe_private
from voicehost.game.effects import Private
from voicehost.game.model import Cue
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.ports import Screen, Utterance

GOLDEN = REPO / "tests" / "game" / "golden"
REGOLD = os.environ.get("VOICEHOST_REGOLD") == "1"


class Tape:
    """Everything the table hears and the Commissar sees, in order."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.lines: list[str] = []

    def say(self, utterance: Utterance) -> None:
        self.lines.append(f"🔊 {utterance.text}")

    def busy_until(self) -> float:
        return self.clock.now()

    def play(self, cue: Cue, at: float | None = None) -> None:
        self.lines.append(f"♪ {cue.value}")

    def lead_seconds(self) -> float:
        return 0.0

    def show(self, message: Private) -> None:
        self.lines.append(f"🔒 {describe_private(message).strip()}")

    def clear(self) -> None:
        """The end of every night step, whatever was entered: nothing to record (the tape keeps
        what was shown, not for how long)."""

    def close(self) -> None:
        """Nothing to release."""


class TapeScreen(Screen):
    def __init__(self, tape: Tape) -> None:
        self.tape = tape

    def message(self, text: str) -> None:
        if text.startswith("✗"):
            self.tape.lines.append(text)


SCRIPTS = {
    "game.script": "",
    "acquaintance.script": (
        "rules:\n  acquaintance: true\n  acquaintance_topic: любимая книга\n"
        "timers:\n  acquaintance_seconds: 20\n"
    ),
    "fiim.script": "rules:\n  preset: fiim\n",  # docs/RULES-FIIM.md
    "city.script": "rules:\n  preset: city\n",  # docs/RULES-CITY.md
}
"""Each golden script and the config.yaml it is played with."""


def play_sections() -> dict[str, list[str]]:
    """Play every golden script; the transcript of each section."""
    sections: dict[str, list[str]] = {}
    for script, settings_text in SCRIPTS.items():
        found = play_script(script, settings_text)
        assert not set(found) & set(sections), "section names are unique"
        sections.update(found)
    return sections


def play_script(script: str, settings_text: str) -> dict[str, list[str]]:
    """Play one golden script line by line; the transcript of each section."""
    settings = config.loads(settings_text)
    clock = FakeClock()
    tape = Tape(clock)
    host = Host(
        settings,
        PhraseBook.load("ru"),
        clock,
        speaker=tape,
        cues=tape,
        private=tape,
        screen=TapeScreen(tape),
    )
    host.start()  # the opening announcements belong to the first section
    sections: dict[str, list[str]] = {}
    current: list[str] = []
    for line in (GOLDEN / script).read_text(encoding="utf-8").splitlines():
        if line.startswith("#> "):
            current = sections.setdefault(line[3:].strip(), [])
            if len(sections) == 1:
                current.extend(tape.lines)
            tape.lines = current
            continue
        if not line.split("#", 1)[0].strip():
            continue
        tape.lines.append(f"> {line.rstrip()}")
        result = run_script([line], settings, clock=clock, host=host)
        refused = line.split("#", 1)[-1].strip().startswith("refused")  # `# refused: why`
        assert bool(result.errors) == refused, result.errors
    assert current
    return sections


NAMES = sorted(
    line[3:].strip()
    for script in SCRIPTS
    for line in (GOLDEN / script).read_text(encoding="utf-8").splitlines()
    if line.startswith("#> ")
)


@pytest.fixture(scope="module")
def sections() -> dict[str, list[str]]:
    return play_sections()


@pytest.mark.parametrize("name", NAMES)
def test_the_transcript_matches_the_golden_file(name: str, sections: dict[str, list[str]]) -> None:
    path = GOLDEN / f"{name}.txt"
    text = "\n".join(sections[name]) + "\n"
    if REGOLD:
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text


def test_no_golden_file_is_left_without_a_section(sections: dict[str, list[str]]) -> None:
    assert sorted(p.stem for p in GOLDEN.glob("*.txt")) == sorted(sections) == NAMES


def test_the_night_speaks_no_seat_number_and_the_check_stays_private(
    sections: dict[str, list[str]],
) -> None:
    for name in ("night-1", "night-2", "night-3"):
        night = sections[name]
        before_morning = night[: night.index("🔊 Город просыпается!")]
        spoken = [line for line in before_morning if line.startswith("🔊")]
        assert all("номер" not in line for line in spoken), name
    night = sections["night-1"]
    assert "🔒 КОМИССАР: МАФИЯ" in night[: night.index("🔊 Город просыпается!")]
