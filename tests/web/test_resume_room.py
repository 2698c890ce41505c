"""The room survives a restart (issue 43): a game played with the board and the remote is
resumed with them, because its journal says so (a resume used to come back without a board
unless `--web` was typed again), and the line that says how to resume needs no `--web`."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import aiohttp
import pytest

from voicehost.host.journal import read

ROOT = Path(__file__).resolve().parents[2]

#: `voicehost` with the web face on 127.0.0.1 only (a test never serves the network).
LOOPBACK = (
    "import functools, sys, voicehost.web as web\n"
    "web.start_web = functools.partial(web.start_web, bind='127.0.0.1')\n"
    "from voicehost.__main__ import main\n"
    "sys.argv[0] = 'voicehost'\n"
    "sys.exit(main())\n"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def voicehost(config: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", LOOPBACK, "--config", str(config), *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=config.parent, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def wait_for_game(game: subprocess.Popen[str]) -> str:
    """The output up to the night's first question (the game is on)."""
    assert game.stdout is not None
    seen = ""
    for line in game.stdout:
        seen += line
        if "→" in line:
            return seen
    raise AssertionError(seen)


async def board_frame(base: str) -> dict[str, object]:
    async with aiohttp.ClientSession() as session, session.ws_connect(base + "/ws/board") as ws:
        message = await ws.receive(timeout=10)
        return json.loads(message.data)


@pytest.mark.parametrize("how", ["resume", "play --resume-or-start"])
def test_a_game_with_the_board_is_resumed_with_the_board(tmp_path: Path, how: str) -> None:
    port = free_port()
    config = tmp_path / "config.yaml"
    config.write_text(
        "storage:\n  journal_dir: journals\n  protocol_dir: protocols\nvoice:\n  engine: text\n"
        f"listener:\n  enabled: false\nkeypad:\n  enabled: off\nweb:\n  port: {port}\n",
        encoding="utf-8",
    )
    game = voicehost(config, "play", "--plain", "--text", "--web")
    wait_for_game(game)
    out, err = game.communicate("2 5 9\nq\nq\n", timeout=60)
    journals = sorted((tmp_path / "journals").glob("game-*.jsonl"))
    assert len(journals) == 1, out + err
    journal = journals[0]
    assert read(journal)[0]["web"] is True  # the journal knows the game had the room's faces
    # no --web needed; --text as the game was played
    assert f"voicehost --config {config} resume {journal} --text\n" in out

    again = ["resume", str(journal)] if how == "resume" else how.split()  # the service's way
    resumed = voicehost(config, *again, "--plain", "--text")  # no --web typed
    try:
        wait_for_game(resumed)
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=5) as page:
                    assert page.status == 200
                break
            except OSError:
                assert time.monotonic() < deadline, "the resumed game serves no board"
                time.sleep(0.1)
        frame = asyncio.run(board_frame(base))
        assert frame["type"] == "table" and frame["table"]["night"] is True  # type: ignore[index]
    finally:
        out, err = resumed.communicate("q\nq\n", timeout=60)
    assert "Traceback" not in err


def test_a_resume_with_web_of_a_journal_that_does_not_say_so_names_it() -> None:
    """A game started without the web face and resumed with `--web`: its header cannot say so,
    so the line that says how to go on again keeps `--web`."""
    from voicehost import config
    from voicehost.cli.session import resume_command

    journal = Path("/tmp/game.jsonl")
    assert resume_command(config.load(None), journal, web=True).endswith(" --web")
    assert not resume_command(config.load(None), journal).endswith(" --web")
