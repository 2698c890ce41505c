"""Every game runs on ``Host.run``: live play, scripts and the paced demo share one loop, so what
is measured on it (cue lead, key latency) is what the table gets."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.console.script import run_script
from voicehost.host.loop import Host
from voicehost.phrases import PhraseBook
from voicehost.testing.fakes import TimedSpeaker

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = config.load(ROOT / "config.yaml")
SCRIPT = (ROOT / "examples" / "town-wins.txt").read_text(encoding="utf-8").splitlines()


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    calls: list[bool] = []
    real = Host.run

    def counted(self: Host, *args: object, **kwargs: object) -> None:
        calls.append(True)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Host, "run", counted)
    return calls


def test_a_script_is_played_by_the_host_loop(runs: list[bool]) -> None:
    result = run_script(SCRIPT, SETTINGS)
    assert result.host.over and not result.errors
    assert runs == [True]


def test_the_paced_demo_is_played_by_the_host_loop(runs: list[bool]) -> None:
    from voicehost.cli.demo import run_paced

    clock = FakeClock()
    speaker = TimedSpeaker(clock, seconds=1.5)
    speaker.play = lambda cue, at=None: None  # type: ignore[attr-defined]
    speaker.lead_seconds = lambda: 0.0  # type: ignore[attr-defined]
    seen: list[float] = []
    result = run_paced(
        SCRIPT, SETTINGS, speaker, clock, PhraseBook.load("ru"), after_line=lambda h: seen.append(1)
    )
    assert result.host.over and not result.errors
    assert runs == [True]
    assert len(seen) > 10  # called after each line, on the loop


def test_lines_after_the_end_of_the_game_are_reported(runs: list[bool]) -> None:
    result = run_script([*SCRIPT, "# done", "5"], SETTINGS)
    assert result.host.over
    assert len(result.errors) == 1 and result.errors[0].startswith(f"строка {len(SCRIPT) + 2}:")


def test_no_other_module_loops_over_host_commands() -> None:
    """Only host/loop.py calls ``handle`` in a loop; every other caller hands one command."""
    offenders = []
    for path in sorted((ROOT / "voicehost").rglob("*.py")):
        if path.name == "loop.py" and path.parent.name == "host":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.For | ast.While):
                for inner in ast.walk(node):
                    if (
                        isinstance(inner, ast.Call)
                        and isinstance(inner.func, ast.Attribute)
                        and inner.func.attr in ("handle", "process_pending")
                    ):
                        offenders.append(f"{path.relative_to(ROOT)}:{inner.lineno}")
    assert offenders == []
