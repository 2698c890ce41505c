"""Every word in the game's language (issue 43): a model of another language is refused in the
game's words; a message already in Russian is never labelled «сказано по-английски»; a command
never prints a raw log line; a night refusal's private reason is a sentence, not capitals."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from voicehost.errors import VoicehostError
from voicehost.phrases import PhraseBook
from voicehost.voice_in.vosk_listener import VocabularyError
from voicehost.web.server import club_code, port_error

ROOT = Path(__file__).resolve().parents[2]
RU = PhraseBook.load("ru")
IN_ENGLISH = "по-английски"


def test_a_model_of_another_language_is_refused_in_the_game_s_language() -> None:
    error = VocabularyError(Path("/opt/models/model"), ("спасибо", "пас"))
    said = RU.explain(error)
    assert IN_ENGLISH not in said and "the speech model" not in said
    assert said.startswith("Модель речи /opt/models/model не знает стоп-слов «спасибо», «пас»")


def test_the_web_face_s_own_russian_messages_are_not_called_english() -> None:
    labels = {key: RU.screen(key, {"port": "{port}", "reason": "{reason}"}) for key in
              ("web_port_in_use", "web_port_denied", "web_port_failed")}  # fmt: skip
    in_use = port_error(OSError(errno.EADDRINUSE, "in use"), 8080, labels)
    assert RU.explain(in_use) == labels["web_port_in_use"].replace("{port}", "8080")
    with pytest.raises(VoicehostError) as wrong:
        club_code("ab", RU.screen("web_bad_code", {"code": "ab"}))
    assert IN_ENGLISH not in RU.explain(wrong.value)
    assert RU.explain(wrong.value).startswith("web.pairing_code «ab»: код")


def test_no_private_refusal_shouts() -> None:
    """The one awake reads a sentence («Такого места нет: введите ещё раз»), not capitals."""
    for language in ("ru", "en"):
        book = PhraseBook.load(language)
        for key in book.screen_keys():
            if key.startswith("private_refused"):
                words = book.screen(key)
                assert words[0].isupper() and not words[1:].isupper(), (language, key, words)


def test_a_command_prints_no_raw_log_line_when_a_library_set_up_logging(tmp_path: Path) -> None:
    """pyttsx3 logs through the root logger (logging.basicConfig): `rehearse` then printed
    «WARNING:voicehost.cli.wiring:no sound output…» beside the notice in Russian."""
    program = (
        "import logging, sys\n"
        "logging.debug('a library logs')  # configures the root logger, as pyttsx3 does\n"
        "from voicehost.__main__ import main\n"
        "sys.exit(main())\n"
    )
    config = tmp_path / "config.yaml"
    config.write_text("audio:\n  output_device: 'no such device'\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", program, "--config", str(config), "rehearse", "--key",
         "day.defence"],
        input="q\n", capture_output=True, text=True, timeout=120, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert not re.search(r"^(DEBUG|INFO|WARNING|ERROR):voicehost", done.stderr, re.MULTILINE), (
        done.stderr
    )
    assert "Звука нет" in done.stderr  # the notice itself, in the game's language
