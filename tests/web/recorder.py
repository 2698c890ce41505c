"""Records every byte a client of the web face receives: pages, assets, WebSocket frames."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import aiohttp


class BoardRecorder:
    """A board (or any unpaired client) on a thread of its own, keeping every frame it gets."""

    def __init__(self, base: str, path: str = "/ws/board", cookies: dict[str, str] | None = None):
        self.base = base
        self.path = path
        self.cookies = cookies or {}
        self.frames: list[str] = []
        self.received: list[bytes] = []
        self.connected = threading.Event()
        self.closed = threading.Event()
        self.status: int | None = None
        self._loop = asyncio.new_event_loop()
        self._socket: Any = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> BoardRecorder:
        self._thread.start()
        assert self.connected.wait(10)
        return self

    def _run(self) -> None:
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        async with aiohttp.ClientSession(cookies=self.cookies) as session:
            try:
                async with session.ws_connect(self.base + self.path) as socket:
                    self._socket = socket
                    self.status = 101
                    self.connected.set()
                    async for message in socket:
                        if message.type == aiohttp.WSMsgType.TEXT:
                            self.frames.append(message.data)
            except aiohttp.WSServerHandshakeError as exc:
                self.status = exc.status
                self.connected.set()
        self.closed.set()

    def send(self, text: str) -> None:
        asyncio.run_coroutine_threadsafe(self._socket.send_str(text), self._loop).result(5)

    def wait_for(self, frame: str, timeout: float = 10) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.frames and self.frames[-1] == frame:
                return
            time.sleep(0.002)
        raise AssertionError(f"the board never got {frame[:200]}")

    def stop(self) -> None:
        if self._socket is not None and not self.closed.is_set():
            asyncio.run_coroutine_threadsafe(self._socket.close(), self._loop).result(5)
        self._thread.join(5)


def fetch_everything(base: str) -> list[tuple[str, int, bytes]]:
    """What an unpaired client gets by asking for every page and asset."""

    async def main() -> list[tuple[str, int, bytes]]:
        got = []
        async with aiohttp.ClientSession() as session:
            for path in (
                "/", "/overlay", "/host", "/deal", "/static/app.css", "/static/common.js",
                "/static/board.js", "/static/host.js", "/static/deal.js", "/static/pair.js",
                "/nothing", "/static/../face.py",
            ):  # fmt: skip
                async with session.get(base + path) as response:
                    got.append((path, response.status, await response.read()))
        return got

    return asyncio.run(main())
