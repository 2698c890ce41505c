"""A phone on 127.0.0.0/8 as a player or the host holds it: pages, pairing, the remote's socket.

Each ``Phone`` keeps its own cookies and may come from its own address (``127.0.0.2``...), so
the tests see what one phone among many would see.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

import aiohttp


class Phone:
    """One phone's browser: its cookies, its address."""

    def __init__(self, base: str, source: str = "127.0.0.1") -> None:
        self.base = base
        self.jar = aiohttp.CookieJar(unsafe=True)  # the server is reached by its address
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(local_addr=(source, 0)), cookie_jar=self.jar
        )

    async def __aenter__(self) -> Phone:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.session.close()

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.jar if c.key == name), "")

    def forge(self, name: str, value: str) -> None:
        self.jar.update_cookies({name: value}, aiohttp.client.URL(self.base))

    async def page(self, path: str) -> tuple[int, str]:
        async with self.session.get(self.base + path, allow_redirects=False) as response:
            return response.status, await response.text()

    async def post(self, path: str, data: Any = None, **headers: str) -> tuple[int, str]:
        async with self.session.post(
            self.base + path, data=data, headers=headers, allow_redirects=False
        ) as response:
            return response.status, await response.text()

    async def ask_number(self) -> str:
        """Open the pairing: the number this phone shows the host."""
        status, text = await self.post("/pair/request")
        assert status == 200, (status, text)
        return str(json.loads(text)["number"])

    async def check(self) -> str:
        status, text = await self.post("/pair/check")
        assert status == 200, (status, text)
        return str(json.loads(text)["state"])

    async def code(self, code: str, **headers: str) -> int:
        """The club's code typed on the pairing page: the server's status."""
        status, _ = await self.post("/pair", {"code": code, "next": "/host"}, **headers)
        return status

    async def remote(self) -> int:
        """Open the remote's socket: 101 when this phone is a remote, else the refusal."""
        try:
            socket = await self.session.ws_connect(self.base + "/ws/host")
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status
        await socket.close()
        return 101


def cut(base: str, path: str, cookie: str, half_frame: str) -> None:
    """Open a WebSocket by hand, send part of a frame, and cut the connection (a reset, as a
    phone that loses its Wi-Fi)."""
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        raw.sendall(
            (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
             "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             f"Sec-WebSocket-Version: 13\r\nCookie: vh_remote={cookie}\r\n\r\n").encode()
        )  # fmt: skip
        answer = raw.recv(4096)
        assert answer.startswith(b"HTTP/1.1 101"), answer[:80]
        if half_frame:  # a masked text frame's header announcing more than is sent
            raw.sendall(bytes([0x81, 0xFE]) + (2000).to_bytes(2, "big") + b"\0\0\0\0"
                        + half_frame.encode())  # fmt: skip
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
