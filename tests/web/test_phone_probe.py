"""A player's phone against a real `voicehost play --web` on 127.0.0.1 (the real CLI in a
subprocess, its stdout a pipe as under the boot service): no code is said or printed, and no
phone becomes the remote without the host, whatever it tries: no code, guessed paths, forged
and replayed cookies, many phones at once, wrong codes from many addresses. The host still
pairs after all of it, and the run leaves no traceback."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.web.phone import Phone, cut

ROOT = Path(__file__).resolve().parents[2]


class Played:
    """`voicehost play --web --text --plain` running, its stdout read as it comes."""

    def __init__(self, process: subprocess.Popen[str], base: str) -> None:
        self.process = process
        self.base = base
        self.out: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.out.append(line.rstrip("\n"))

    def type(self, line: str) -> None:
        """The host types ``line`` at the terminal."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def wait_for(self, text: str, after: int = 0, seconds: float = 15) -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for line in self.out[after:]:
                if text in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never came; the screen: {self.out[-20:]}")

    @property
    def stdout(self) -> str:
        return "\n".join(self.out)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def played(tmp_path: Path, pairing_code: str = "") -> Iterator[Played]:
    """The real CLI hosting a club game with the web face on 127.0.0.1; when it has ended, its
    stderr (the log under the service) holds no traceback."""
    port = free_port()
    config = tmp_path / "config.yaml"
    config.write_text(
        f"language: ru\nweb:\n  port: {port}\n  listen: 127.0.0.1\n"
        f"  pairing_code: '{pairing_code}'\n"
        f"storage:\n  journal_dir: {tmp_path}/journals\n  protocol_dir: {tmp_path}/protocols\n"
        f"club:\n  data_dir: {tmp_path}/club\n",
        encoding="utf-8",
    )
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "voicehost", "--config", str(config), "play", "--web", "--text",
         "--plain"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=environment, cwd=tmp_path,
    )  # fmt: skip
    run = Played(process, f"http://127.0.0.1:{port}")
    try:
        run.wait_for(f"Пульт ведущего: {run.base}/host", seconds=60)
        yield run
    finally:
        if process.poll() is None:
            run.type("q")
            run.type("да")
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        assert process.stderr is not None
        errors = process.stderr.read()
        run.reader.join(timeout=5)
        assert "Traceback" not in errors, errors


def test_no_phone_becomes_the_remote_without_the_host(tmp_path: Path) -> None:
    with played(tmp_path) as run:

        async def probe() -> None:
            async with Phone(run.base, "127.0.0.5") as player:
                # No code: the remote's page is the pairing page, its socket is refused.
                status, page = await player.page("/host")
                assert status == 200 and 'id="pairing"' in page and "host.js" not in page
                assert await player.remote() == 403
                assert await player.code("") == 403
                # Guessed paths: nothing answers with the game, nothing pairs.
                guessed = ("/admin", "/host/", "/deal/", "/ws/private", "/journals",
                           "/static/../config.yaml", "/static/host.html", "/api/state",
                           "/host?code=1")  # fmt: skip
                for path in guessed:
                    status, text = await player.page(path)
                    assert status in (200, 403, 404, 405) and "КОМИССАР" not in text, path
                    assert "host.js" not in text, path
                assert not player.cookie("vh_remote")
                # Forged cookies: made up, the pairing ticket passed off as a session.
                await player.ask_number()
                ticket = player.cookie("vh_ticket")
                for forged in ("A" * 43, ticket, "", "x" * 5000):
                    player.forge("vh_remote", forged)
                    assert await player.remote() == 403, forged[:10]
                    assert await player.check() in ("waiting", "expired")
            # Many phones at once: each its own number; none paired until the host types one.
            phones = [Phone(run.base, f"127.0.0.{10 + n}") for n in range(25)]
            try:
                numbers = [await phone.ask_number() for phone in phones]
                assert len(set(numbers)) == 25
                mine = phones[7]
                seen = len(run.out)
                run.type(f"пульт {numbers[7]}")
                run.wait_for("Пультов подключено: 1.", seen)
                assert await mine.check() == "paired" and await mine.remote() == 101
                waiting = [await phone.check() for phone in phones if phone is not mine]
                assert set(waiting) == {"waiting"}
                assert [await phone.remote() for phone in phones[:3]] == [403] * 3
                stolen = mine.cookie("vh_remote")
                # The host drops the remotes: the cookie replayed from anywhere is refused.
                seen = len(run.out)
                run.type("отключить")
                run.wait_for("Пульты отключены: 1.", seen)
                assert await mine.remote() == 403
                async with Phone(run.base, "127.0.0.99") as thief:
                    thief.forge("vh_remote", stolen)
                    assert await thief.remote() == 403
                    _, page = await thief.page("/host")
                    assert "больше не пульт" in page
                # The host still pairs a phone after all of it.
                again = await mine.ask_number()
                seen = len(run.out)
                run.type(f"пульт {again}")
                run.wait_for("Пультов подключено: 1.", seen)
                assert await mine.check() == "paired" and await mine.remote() == 101
            finally:
                for phone in phones:
                    await phone.session.close()

        asyncio.run(probe())
    # Nothing a player could read or hear held a code: no digits said, no code printed.
    said_or_printed = run.stdout
    assert "Код пульта" not in said_or_printed and "код подключения" not in said_or_printed
    assert not re.search(r"(?<![\d:.])\d{6}(?![\d])", said_or_printed), said_or_printed[-2000:]
    assert "«пульт НОМЕР»" in said_or_printed  # what the host does, with no secret in it


def test_wrong_codes_from_many_addresses_never_lock_out_the_host(tmp_path: Path) -> None:
    club = "Klub2026"
    with played(tmp_path, pairing_code=club) as run:

        async def probe() -> None:
            for n in range(6):  # six addresses, five wrong codes each, as fast as they can
                async with Phone(run.base, f"127.0.0.{20 + n}") as player:
                    statuses = [await player.code(f"{guess:06d}") for guess in range(5)]
                    assert statuses[0] == 403 and set(statuses[1:]) == {429}
            async with Phone(run.base, "127.0.0.20") as player:
                # A forged X-Forwarded-For is not another address: still slowed, right or not.
                assert await player.code("nope", **{"X-Forwarded-For": "10.1.2.3"}) == 429
                assert await player.code(club, **{"X-Forwarded-For": "10.9.9.9"}) == 429
                # The host's approval is never locked, even from a slowed address.
                number = await player.ask_number()
                seen = len(run.out)
                run.type(f"пульт {number}")
                run.wait_for("Пультов подключено: 1.", seen)
                assert await player.check() == "paired" and await player.remote() == 101
            async with Phone(run.base, "127.0.0.30") as host_phone:
                assert await host_phone.code(club) == 303  # the club's code, from a 7th address
                assert await host_phone.remote() == 101

        asyncio.run(probe())
    assert club not in run.stdout  # the club's code is never printed


def test_a_remote_that_closes_its_socket_leaves_no_traceback(tmp_path: Path) -> None:
    with played(tmp_path) as run:

        async def probe() -> None:
            async with Phone(run.base) as phone:
                number = await phone.ask_number()
                seen = len(run.out)
                run.type(f"пульт {number}")
                run.wait_for("Пультов подключено: 1.", seen)
                assert await phone.check() == "paired"
                cookie = phone.cookie("vh_remote")
                for _ in range(8):  # phones locked, Wi-Fi gone: sockets cut without a close
                    await asyncio.to_thread(cut, run.base, "/ws/host", cookie, "[" * 1500)
                    await asyncio.to_thread(cut, run.base, "/ws/board", "", "")
                await asyncio.sleep(1)
                status, _ = await phone.page("/")
                assert status == 200  # the face serves on

        asyncio.run(probe())
