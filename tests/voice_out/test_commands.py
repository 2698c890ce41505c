"""The voice-out commands a person runs: rehearse, demo, play --audio-out, no sound card."""

from __future__ import annotations

import dataclasses
import io
import os
import subprocess
import sys
import textwrap

import pytest
from voice_out_kit import SYSTEM_ALSA_CONF, level_dbfs, write_config

from voicehost.__main__ import main
from voicehost.cli.rehearse import key_presses, sample_params, select_keys
from voicehost.clips import read_wav
from voicehost.errors import VoicehostError


@pytest.fixture
def config(tmp_path, warm_cache_dir):
    return str(write_config(tmp_path, warm_cache_dir))


def test_rehearse_list_prints_every_phrase_with_its_duration(config, capsys, ru_book):
    assert main(["--config", config, "rehearse", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(ru_book.keys()) + 1
    nomination = next(line for line in lines if line.startswith("day.speech_nomination "))
    assert "Слово игроку номер пять." in nomination
    seconds = float(nomination.split()[1])
    assert 0.8 < seconds < 3.0
    order = [line.split()[0] for line in lines[:-1]]
    assert order[0] == "game.start"  # in game order: the opening, the nights, the day, the end
    assert (
        order.index("night0.start")
        < order.index("morning.city_wakes")
        < order.index("day.vote_for")
    )
    assert order.index("foul.warning") < order.index("game.red_wins") < order.index("game.paused")


def test_rehearse_out_renders_one_phase_to_files(config, tmp_path, capsys):
    out = tmp_path / "night"
    assert main(["--config", config, "rehearse", "--phase", "night", "--out", str(out)]) == 0
    files = sorted(path.name for path in out.iterdir())
    assert files and all(name.startswith("night.") for name in files)
    wakes = read_wav(out / "night.mafia_wakes.wav")
    assert 0.5 < wakes.duration < 3 and level_dbfs(wakes, 0, wakes.duration) > -30


def test_rehearse_moves_with_next_repeat_previous_and_quit(config, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nr\np\n\nq\n"))
    assert main(["--config", config, "rehearse", "--phase", "night"]) == 0
    shown = [line.split("]")[0] + "]" for line in capsys.readouterr().out.splitlines()[1:]]
    assert shown == ["[1/8]", "[2/8]", "[2/8]", "[1/8]", "[2/8]"]


def test_rehearse_has_the_sample_topic_ready(config, capsys, caplog):
    assert main(["--config", config, "rehearse", "--key", "acquaintance.topic", "--list"]) == 0
    assert "любимая книга" in capsys.readouterr().out
    assert not [r.message for r in caplog.records if "synthesised during" in r.getMessage()]


def test_rehearse_names_the_choices_for_a_wrong_phase_or_key(ru_book):
    with pytest.raises(VoicehostError, match="the parts are: game, acquaintance, night0, night"):
        select_keys(ru_book.keys(), phase="nite", key=None)
    with pytest.raises(VoicehostError, match="did you mean day.defence"):
        select_keys(ru_book.keys(), phase=None, key="day.defense")
    with pytest.raises(VoicehostError, match="части игры: game, acquaintance, night0, night"):
        select_keys(ru_book.keys(), phase="nite", key=None, book=ru_book)
    with pytest.raises(VoicehostError, match="может быть, day.defence"):
        select_keys(ru_book.keys(), phase=None, key="day.defense", book=ru_book)


@pytest.mark.parametrize("name", ["vote", "Vote", "voting", "голосование", "голоса"])
def test_rehearse_takes_the_names_people_use_for_the_vote(ru_book, name):
    chosen = select_keys(ru_book.keys(), phase=name, key=None, book=ru_book)
    assert "day.vote_for" in chosen and "fiim.vote_start" in chosen and "day.revote" in chosen
    assert "night.mafia_wakes" not in chosen and "day.discussion" not in chosen


@pytest.mark.parametrize(("name", "key"), [("ночь", "night.mafia_wakes"), ("утро", "morning.miss")])
def test_rehearse_takes_russian_names_of_the_parts(ru_book, name, key):
    assert key in select_keys(ru_book.keys(), phase=name, key=None, book=ru_book)


def test_rehearse_fills_placeholders_with_sample_values(ru_book):
    params = sample_params(ru_book, "day.leaves")
    assert ru_book.render("day.leaves", params).text == (
        "Игрок номер пять покидает стол. Роль игрока: мафия."
    )


def test_rehearse_samples_are_values_a_game_can_have(ru_book):
    assert sample_params(ru_book, "game.start") == {"players": 10}  # a table has 8 to 13
    assert ru_book.render("game.start", sample_params(ru_book, "game.start")).text.endswith(
        "За столом десять игроков."
    )
    assert sample_params(ru_book, "day.discussion") == {"minutes": 3}
    assert sample_params(ru_book, "acquaintance.topic", "кино") == {"topic": "кино"}
    assert sample_params(ru_book, "acquaintance.topic")["topic"] == "любимая книга"


def test_demo_writes_a_whole_game_and_prints_its_transcript(config, tmp_path, capsys):
    out = tmp_path / "demo.wav"
    assert main(["--config", config, "demo", "--out", str(out), "--no-play"]) == 0
    printed = capsys.readouterr().out
    assert "0:00.0  Добрый вечер!" in printed
    lines = printed.splitlines()
    opened = next(i for i, line in enumerate(lines) if line.endswith("Открываем карты."))
    assert "Победили красные" in lines[opened - 1]  # the winner, then the cards
    audio = read_wav(out)
    assert 90 < audio.duration < 240  # long silences shortened: minutes, not the game's half hour


def test_play_script_audio_out_records_the_game(config, tmp_path, capsys):
    script = tmp_path / "night0.txt"
    script.write_text("2 5 9\nwait\n4\nwait\n7\nwait\n", encoding="utf-8")
    out = tmp_path / "night0.wav"
    code = main(["--config", config, "play", "--script", str(script), "--audio-out", str(out)])
    assert code == 0
    assert "🔊 Город просыпается!" in capsys.readouterr().out
    audio = read_wav(out)
    assert audio.duration > 3 * 15  # three 15 s registration windows, and the announcements
    assert level_dbfs(audio, 0, 3) > -30


def test_without_a_sound_card_the_game_says_so_once_and_goes_on_in_text(tmp_path, config):
    no_card = tmp_path / "no-card.conf"  # the default sound card is one that is not there
    no_card.write_text(
        f"<{SYSTEM_ALSA_CONF}>\npcm.!default {{ type hw; card 99 }}\n", encoding="utf-8"
    )
    program = textwrap.dedent(
        f"""
        from voicehost import config
        from voicehost.cli import wiring
        from voicehost.clock import MonotonicClock
        from voicehost.phrases import PhraseBook
        settings = config.load({config!r})
        speaker, cues = wiring.make_audio(settings, MonotonicClock(), PhraseBook.load("ru"))
        print(type(speaker).__name__, type(cues).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        env={**os.environ, "ALSA_CONFIG_PATH": str(no_card)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["TextSpeaker", "SilentCues"]
    said = [line for line in done.stderr.splitlines() if "no sound output" in line]
    assert len(said) == 1 and "shown as text" in said[0]  # one line, logged (and on the screen)


@pytest.mark.parametrize(("enter", "meaning"), [("n", "rehearse: next"), ("", "record: keep")])
def test_enter_and_space_at_a_terminal_and_in_a_script(enter: str, meaning: str) -> None:
    import termios
    import threading
    import time

    master, slave = os.openpty()

    def type_once_in_key_mode() -> None:  # setting key mode drops what was typed before it
        deadline = time.monotonic() + 5
        while termios.tcgetattr(slave)[3] & termios.ICANON and time.monotonic() < deadline:
            time.sleep(0.01)
        os.write(master, b"\rK \rq")  # Enter, K, space, Enter, q

    typist = threading.Thread(target=type_once_in_key_mode, daemon=True)
    try:
        with open(slave, encoding="utf-8", closefd=False) as terminal:
            presses = key_presses(terminal, enter)
            typist.start()
            assert [next(presses) for _ in range(5)] == [enter, "k", enter, enter, "q"], meaning
            presses.close()
            assert termios.tcgetattr(slave)[3] & termios.ICANON  # the terminal is given back
    finally:
        typist.join(5)
        os.close(master)
        os.close(slave)
    assert list(key_presses(io.StringIO("\nk\n  \nQuit\n"), enter)) == [enter, "k", enter, "q"]


def test_without_a_sound_card_a_russian_game_says_why_in_russian(settings, ru_book) -> None:
    """The no-sound notice's reason is the book's sentence saying what to do; PortAudio's own
    words are quoted inside it."""
    import logging

    from voicehost.cli import wiring
    from voicehost.cli.session import ScreenNotices
    from voicehost.clock import FakeClock
    from voicehost.console.terminal import LogScreen

    screen = LogScreen()
    handler = ScreenNotices(screen, ru_book)
    package_log = logging.getLogger("voicehost")
    package_log.addHandler(handler)
    try:
        russian = dataclasses.replace(settings, language="ru")
        russian = dataclasses.replace(
            russian, audio=dataclasses.replace(russian.audio, output_device="no such card")
        )
        wiring.make_audio(russian, FakeClock(), ru_book)
    finally:
        package_log.removeHandler(handler)
    shown = [line for line in screen.lines if "Звука нет" in line]
    assert len(shown) == 1, screen.lines
    assert "подключите колонку или укажите audio.output_device" in shown[0]
    assert "plug in a speaker" not in shown[0]


@pytest.mark.parametrize(
    ("seconds", "shown"), [(59.97, "1:00.0"), (59.94, "0:59.9"), (0, "0:00.0"), (125.0, "2:05.0")]
)
def test_the_demo_transcript_never_prints_sixty_seconds(seconds: float, shown: str) -> None:
    from voicehost.cli.demo import _clock

    assert _clock(seconds) == shown


def test_phrases_build_says_two_sentences_in_the_games_language(tmp_path, ru_book) -> None:
    from voicehost.voice_out.cache import BuildReport
    from voicehost.voice_out.speech import PrepareReport

    report = PrepareReport(
        457, 0, BuildReport(rendered=1, cached=269, seconds=0.4, folder=tmp_path)
    )
    said = report.said(ru_book)
    assert said.startswith("Фрагментов готово: 457 (из голосового пакета — 0). Звуковой кэш ")
    assert said.endswith("уже были готовы — 269 (за 0.4 с).")


@pytest.mark.parametrize(
    ("said", "holds"),
    [
        ("vote", "day.vote_for"),
        ("голосование", "day.vote_for"),
        ("голосования", "day.third_vote_start"),
        ("выдвижения", "day.speech_nomination"),
        ("nomination", "day.speech_nomination"),
        ("ночь знакомства", "night0.start"),
        ("последнее слово", "day.last_words"),
        ("ночь", "night.mafia_wakes"),
    ],
)
def test_rehearse_takes_the_names_people_give_a_part_of_the_game(ru_book, said, holds) -> None:
    chosen = select_keys(ru_book.keys(), phase=said, key=None, book=ru_book)
    assert holds in chosen
    assert not any(key.startswith("game.") for key in chosen)
