"""Benchmark: is the pause after a vote count (``timers.vote_result_seconds``) long enough for the
person at the keyboard to see a miscount and press `u`?

    .venv/bin/python bench/bench_vote_pause.py [--lang ru]

No person is at hand, so the person is a model: the Keystroke-Level Model of Card, Moran and
Newell (1980) with its published figures. The counts are spoken at ``voice.rate`` (150 words a
minute), slower than anyone reads, so a host follows them on the screen as they are said; the
pause begins when the last count has been spoken. In it the host reads the last count again,
then (the first time, or when unsure of the keys) the prompt with its countdown, makes one
mental preparation (M = 1.35 s) and types `u` Enter (two keystrokes, K). Readers: 200 words a
minute for an average adult reading silently, 130 for a slow one; K = 0.28 s (an average
typist) and 0.5 s (one finger, eyes on the table). The screen is the one `voicehost play` draws,
from a real game played on Host.run up to the pause. Exit status 1 if the setting is shorter
than what a slow host who knows the keys, or an average host reading the prompt, needs.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from voicehost import config  # noqa: E402
from voicehost.console.script import run_script  # noqa: E402
from voicehost.console.terminal import LogScreen, screen_rows  # noqa: E402
from voicehost.game.effects import PromptKind  # noqa: E402

M = 1.35  # mental preparation (s)
PEOPLE = {"average": (200.0, 0.28), "slow": (130.0, 0.5)}  # words a minute, seconds a keystroke

NIGHT0 = ["2 5 9", "wait", "4", "wait", "7", "wait", "."]


# Day 1: seats 2 and 3 are nominated, both defences run out, 3 votes go against seat 2 (the
# remaining 7 against seat 3 are worked out): the pause after the last count begins.
DAY1 = ["2", ".", "3", ".", *["2", "."] * 8, "wait", "wait", "3"]


def screen_at_pause(language: str) -> tuple[list[str], str]:
    """The screen's announcements and its prompt line at the start of the pause."""
    settings = dataclasses.replace(config.load(None), language=language)
    result = run_script(NIGHT0 + DAY1, settings)
    host = result.host
    if host.prompt().kind is not PromptKind.CONFIRM_VOTE:
        raise SystemExit(f"the game did not reach the pause: {result.errors}")
    screen = LogScreen()
    for text in host.transcript:
        screen.announce(text)
    rows = [text for text, _ in screen_rows(host, screen, "", 40)]
    prompt = next(row for row in rows if row.startswith("→ "))
    return rows, prompt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidates", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--lang", default="ru", choices=["ru", "en"])
    args = parser.parse_args()
    setting = config.load(None).timers.vote_result_seconds
    rows, prompt = screen_at_pause(args.lang)
    last_count = [row for row in rows if row.startswith("🔊")][-1]
    count_words, prompt_words = len(last_count.split()) - 1, len(prompt.split()) - 1
    print(f"timers.vote_result_seconds = {setting:g} s (config.yaml)")
    print(f"last count: {last_count!r} ({count_words} words)")
    print(f"prompt:     {prompt!r} ({prompt_words} words)")
    needed = {}
    for name, (wpm, keystroke) in PEOPLE.items():
        keys = M + 2 * keystroke
        knows = count_words / wpm * 60 + keys
        reads = (count_words + prompt_words) / wpm * 60 + keys
        needed[name] = (knows, reads)
        print(f"{name} host: {knows:.1f} s knowing the keys, {reads:.1f} s reading the prompt")
    enough = needed["slow"][0] <= setting and needed["average"][1] <= setting
    print("the setting is " + ("enough" if enough else "too short"))
    return 0 if enough else 1


if __name__ == "__main__":
    raise SystemExit(main())
