"""`voicehost rehearse`: hear every announcement, one by one, before a club night.

    voicehost rehearse                 every phrase; Enter/n next, r repeat, p previous, q quit
    voicehost rehearse --phase day     the phrases of one part of the game (the key's first word:
                                       game, acquaintance, night0, night, morning, day,
                                       foul, keypad, fiim; or a name people use: vote,
                                       nominations, discussion, last-words, голосование,
                                       ночь, утро, день, ...)
    voicehost rehearse --key day.defence
    voicehost rehearse --list          the catalogue, with each phrase's duration
    voicehost rehearse --out DIR       every phrase rendered to DIR/<key>.wav
    voicehost rehearse --pack DIR      with a recorded voice pack, in game order
    voicehost rehearse --pack DIR --compare
                                       each phrase synthetic, then recorded, one after the other

Phrases with placeholders are said with sample values a game can have: seat 5, a count of 3,
the seats 2, 5 and 7, the role «мафия», a table of 10 players, a 3-minute (or 30-second)
discussion, 2 fouls, the acquaintance topic of config.yaml (or a sample one). A phrase
longer than its voice-pack slot is marked in the list.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from voicehost import config
from voicehost.cli.texts import text
from voicehost.errors import VoicehostError

if TYPE_CHECKING:
    from voicehost.voice_out.recording import Player

SAMPLE_NUMBER = 5
SAMPLE_COUNT = 3
SAMPLE_SEATS = (2, 5, 7)
SAMPLE_ROLE = "mafia"
SAMPLE_BY_NAME = {"players": 10, "minutes": 3, "seconds": 30, "fouls": 2}
"""Placeholders whose sample must be a value a game can have (a table has 8 to 13 players)."""
SAMPLE_TOPIC = {"ru": "любимая книга", "en": "a favourite book"}

#: The names people give a part of the game (``--phase vote``), in either language: each is a
#: test on the phrase key. The key's own first word (``night``, ``day``) works too.
PHASE_ALIASES: dict[str, tuple[str, ...]] = {
    "vote": ("vote", "revote", "tie", "third_vote", "lift", "all_leave", "all_stay", "four_"),
    "nominations": ("nominat", "candidates", "single_candidate"),
    "discussion": ("discussion",),
    "last-words": ("last_words", "leaves", "killed_commissar_silent"),
    "fouls": ("foul.",),
}
for _english, _russian in (
    ("vote", "голосование"),
    ("nominations", "выдвижение"),
    ("discussion", "обсуждение"),
    ("last-words", "последнее-слово"),
    ("fouls", "фолы"),
):
    PHASE_ALIASES[_russian] = PHASE_ALIASES[_english]
PHASE_WORDS = {
    "votes": "vote",
    "voting": "vote",
    "ночь": "night",
    "день": "day",
    "утро": "morning",
    "знакомство": "acquaintance",
    "игра": "game",
    "фол": "foul",
    "кейпад": "keypad",
    "фиим": "fiim",
    "last_words": "last-words",
    "nomination": "nominations",
    "голоса": "голосование",
    "голосования": "голосование",
    "выдвижения": "выдвижение",
    "выдвижение-кандидатур": "выдвижение",
    "обсуждения": "обсуждение",
    "последнее": "последнее-слово",
    "фолов": "фолы",
    "ночь-знакомства": "night0",
    "нулевая-ночь": "night0",
    "договорка": "night0",
    "first-night": "night0",
}
"""Other spellings of a phase or an alias."""


def register(subparsers: Any) -> None:
    """Add ``voicehost rehearse``."""
    parser = subparsers.add_parser(
        "rehearse",
        help=text("rehearse"),
        description=text("rehearse.description"),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--phase", help=text("rehearse.phase"))
    which.add_argument("--key", help=text("rehearse.key"))
    parser.add_argument("--list", action="store_true", help=text("rehearse.list"))
    parser.add_argument("--out", type=Path, help=text("rehearse.out"))
    parser.add_argument("--pack", type=Path, help=text("rehearse.pack"))
    parser.add_argument(
        "--compare",
        action="store_true",
        help=text("rehearse.compare"),
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """List, render or speak the chosen phrases."""
    from voicehost.cli.demo import with_pack
    from voicehost.phrases import PhraseBook

    settings = with_pack(config.load(args.config), args.pack)
    book = PhraseBook.load(settings.language)
    keys = select_keys(in_game_order(book.keys()), phase=args.phase, key=args.key, book=book)
    settings = with_sample_topic(settings, book.language)
    topic = settings.rules.acquaintance_topic
    utterances = [(key, book.render(key, sample_params(book, key, topic))) for key in keys]
    if args.compare:
        if not settings.voice.pack:
            raise VoicehostError.written(book.screen("rehearse_compare_needs_pack"))
        return compare(settings, book, utterances, key_presses(sys.stdin), sys.stdout)
    if args.list or args.out:
        library = _library(settings, book)
        if args.list:
            print_catalogue(utterances, library, sys.stdout, book)
        if args.out:
            written = render_to_files(utterances, library, args.out, book)
            print(book.screen("files_written", {"count": written, "path": args.out}))
        return 0
    return rehearse(settings, book, utterances, key_presses(sys.stdin), sys.stdout)


def with_sample_topic(settings: config.Settings, language: str) -> config.Settings:
    """``settings`` with a sample acquaintance topic when config.yaml sets none.

    The topic is the one text a game is given from outside the book; the voice is prepared
    for the configured one, so with a sample topic nothing is synthesised while rehearsing.
    """
    import dataclasses

    if settings.rules.acquaintance_topic.strip():
        return settings
    topic = SAMPLE_TOPIC.get(language, SAMPLE_TOPIC["en"])
    rules = dataclasses.replace(settings.rules, acquaintance_topic=topic)
    return dataclasses.replace(settings, rules=rules)


#: Where a phrase falls in a game: the opening, the acquaintance round, night 0, each night, its
#: morning, the day, fouls, the end; then what the host says only when something happens.
GAME_ORDER = ("game.start", "acquaintance", "night0", "night", "morning", "day", "foul")
GAME_END = ("game.red_wins", "game.black_wins")


def in_game_order(keys: list[str]) -> list[str]:
    """The phrase keys in the order a game says them (the book's order within a phase)."""

    def place(key: str) -> int:
        if key in GAME_END:
            return len(GAME_ORDER)
        for index, start in enumerate(GAME_ORDER):
            if key == start or key.split(".", 1)[0] == start:
                return index
        return len(GAME_ORDER) + 1  # pauses, the journal, the keypad: when they happen

    return sorted(keys, key=place)


def select_keys(
    keys: list[str], *, phase: str | None, key: str | None, book: Any = None
) -> list[str]:
    """The phrase keys to rehearse; VoicehostError naming the choices when nothing matches
    (in ``book``'s language; English without one)."""
    from voicehost.phrases import PhraseBook

    book = book or PhraseBook.load("en")
    if key is not None:
        if key in keys:
            return [key]
        close = difflib.get_close_matches(key, keys, n=3)
        hint = book.screen("did_you_mean", {"text": ", ".join(close)}) if close else ""
        raise VoicehostError.written(book.screen("rehearse_no_phrase", {"text": key, "hint": hint}))
    if phase is None:
        return list(keys)
    name = phase.strip().casefold().replace(" ", "-")
    name = PHASE_WORDS.get(name, name)
    parts = PHASE_ALIASES.get(name)
    if parts is not None:
        chosen = [k for k in keys if any(part in k for part in parts)]
    else:
        chosen = [k for k in keys if k.split(".", 1)[0] == name]
    if not chosen:
        phases = ", ".join(
            [*dict.fromkeys(k.split(".", 1)[0] for k in keys), *(a for a in PHASE_ALIASES)]
        )
        raise VoicehostError.written(
            book.screen("rehearse_no_phase", {"text": phase, "phases": phases})
        )
    return chosen


def sample_params(book: Any, key: str, topic: str = "") -> dict[str, Any]:
    """Sample values for a phrase's placeholders, so it can be heard without a game."""
    from voicehost.phrases import Kind

    words = [name for name in book.words() if name != "and"]
    role = SAMPLE_ROLE if SAMPLE_ROLE in words else words[0]
    samples: dict[Kind, Any] = {
        Kind.NUMBER: SAMPLE_NUMBER,
        Kind.COUNT: SAMPLE_COUNT,
        Kind.LIST: SAMPLE_SEATS,
        Kind.WORD: role,
        Kind.TEXT: topic.strip() or SAMPLE_TOPIC.get(book.language, SAMPLE_TOPIC["en"]),
    }
    return {
        p.name: SAMPLE_BY_NAME.get(p.name, samples.get(p.kind, SAMPLE_NUMBER))
        for p in book.placeholders(key)
    }


def print_catalogue(
    utterances: list[tuple[str, Any]], library: Any, out: TextIO, book: Any
) -> None:
    """One line a phrase: key, duration, text; a phrase over its pack slot is marked."""
    from voicehost.voice_out.voicepack import slot_limit

    width = max((len(key) for key, _ in utterances), default=0)
    total = 0.0
    for key, utterance in utterances:
        seconds = library.utterance_clip(utterance).duration
        total += seconds
        limit = slot_limit(key)
        over = book.screen("rehearse_over_slot", {"seconds": f"{limit.seconds:.1f}"})
        mark = f"  [{over}]" if seconds > limit.seconds else ""
        unit = book.screen("seconds_unit")
        print(f"{key:<{width}}  {seconds:4.1f} {unit}  {utterance.text}{mark}", file=out)
    print(
        book.screen("rehearse_total", {"count": len(utterances), "seconds": round(total)}), file=out
    )


def render_to_files(
    utterances: list[tuple[str, Any]], library: Any, folder: Path, book: Any
) -> int:
    """Write each phrase to ``folder/<key>.wav``; returns how many."""
    from voicehost.clips import write_wav

    try:
        folder.mkdir(parents=True, exist_ok=True)
        for key, utterance in utterances:
            write_wav(library.utterance_clip(utterance), folder / f"{key}.wav")
    except OSError as exc:
        raise VoicehostError.written(
            book.screen("cannot_write_folder", {"path": folder, "reason": exc.strerror})
        ) from exc
    return len(utterances)


def rehearse(
    settings: config.Settings,
    book: Any,
    utterances: list[tuple[str, Any]],
    keys: Iterator[str],
    out: TextIO,
) -> int:
    """Speak the phrases one by one, moving as the keys say."""
    from voicehost.cli import wiring
    from voicehost.clock import MonotonicClock

    clock = MonotonicClock()
    speaker, cues = wiring.make_audio(settings, clock, book)
    print(book.screen("rehearse_keys"), file=out)
    index = 0
    try:
        while 0 <= index < len(utterances):
            key, utterance = utterances[index]
            print(f"[{index + 1}/{len(utterances)}] {key}: {utterance.text}", file=out, flush=True)
            speaker.say(utterance)
            _wait_until(clock, speaker.busy_until())
            moved = _move(index, next(keys, "q"))
            if moved is None:
                break
            index = moved
    finally:
        speaker.close()
        cues.close()
    return 0


def _move(index: int, action: str) -> int | None:
    """The phrase a key moves to: Enter/n the next, r the same, p the previous; q: None.
    The keys work on the Russian layout too (т, к, з, й)."""
    from voicehost.host.actions import RUSSIAN_LAYOUT

    action = action.translate({v: k for k, v in RUSSIAN_LAYOUT.items()})
    if action == "q":
        return None
    if action == "p":
        return max(0, index - 1)
    return index if action == "r" else index + 1


def compare(
    settings: config.Settings,
    book: Any,
    utterances: list[tuple[str, Any]],
    keys: Iterator[str],
    out: TextIO,
    player: Player | None = None,
) -> int:
    """Each phrase synthetic, then recorded; the keys move as in ``rehearse``."""
    import dataclasses

    from voicehost.clips import silence
    from voicehost.voice_out.recording import DevicePlayer

    synthetic = _library(
        dataclasses.replace(settings, voice=dataclasses.replace(settings.voice, pack="")), book
    )
    recorded = _library(settings, book)
    player = player or DevicePlayer(settings.audio.sample_rate, settings.audio.output_device)
    print(book.screen("rehearse_keys"), file=out)
    index = 0
    try:
        while 0 <= index < len(utterances):
            key, utterance = utterances[index]
            print(f"[{index + 1}/{len(utterances)}] {key}: {utterance.text}", file=out, flush=True)
            print("    " + book.screen("rehearse_compare_order"), file=out, flush=True)
            player.play(synthetic.utterance_clip(utterance))
            player.play(silence(0.6, settings.audio.sample_rate))
            player.play(recorded.utterance_clip(utterance))
            moved = _move(index, next(keys, "q"))
            if moved is None:
                break
            index = moved
    finally:
        player.close()
    return 0


def _wait_until(clock: Any, moment: float) -> None:
    while (left := moment - clock.now()) > 0:
        time.sleep(min(left, 0.05))


def _library(settings: config.Settings, book: Any) -> Any:
    from voicehost.voice_out.speech import speech_library

    if settings.voice.engine == "text":
        raise VoicehostError.written(book.screen("rehearse_no_voice"))
    library = speech_library(settings)
    library.prepare(book.all_segments(texts=(settings.rules.acquaintance_topic,)))
    return library


def key_presses(stream: TextIO, enter: str = "n") -> Iterator[str]:
    """Keys: single key presses on a terminal, else the first letter of each line.

    Enter (and the space bar, and an empty line) is given as ``enter``: "next" when rehearsing,
    "" (keep the take) when recording.
    """
    if stream.isatty():
        yield from _terminal_keys(stream, enter)
        return
    for line in stream:
        yield line.strip()[:1].lower() or enter


def _terminal_keys(stream: TextIO, enter: str) -> Iterator[str]:
    import termios
    import tty

    descriptor = stream.fileno()
    saved = termios.tcgetattr(descriptor)
    try:
        tty.setcbreak(descriptor)
        while True:
            character = stream.read(1)
            if not character:
                return
            yield enter if character in "\r\n " else character.lower()
    finally:
        termios.tcsetattr(descriptor, termios.TCSADRAIN, saved)
