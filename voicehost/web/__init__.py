"""The web face: a board for the room, the host's remote and dealing by the device.

One more adapter of the one loop (docs/ARCHITECTURE.md): ``face.WebFace`` runs on the loop's
thread (it reads ``host.table.table_view`` and posts commands), ``server.WebServer`` serves the
pages from a thread of its own. ``start_web`` wires them to a host; aiohttp is imported only
when the web face is turned on.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import ipaddress
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voicehost.host.commands import RemoteInput
from voicehost.host.loop import Host
from voicehost.web.face import WebFace, WebPrivate
from voicehost.web.pairing import Pairing
from voicehost.web.server import WebServer, club_code

__all__ = ["Pairing", "WebFace", "WebPrivate", "WebRunning", "addresses", "qr_lines", "start_web"]


@dataclass
class WebRunning:
    """A started web face: its server, its loop-side face and how to reach it."""

    server: WebServer
    face: WebFace
    pairing: Pairing
    urls: list[str]

    def stop(self) -> None:
        self.server.stop()


def start_web(
    host: Host,
    write_protocol: Callable[[], str],
    *,
    private: WebPrivate | None = None,
    bind: str | None = None,
    port: int | None = None,
    evening: Callable[[str], tuple[bool, str]] | None = None,
    store: Path | None = None,
    scope: str = "",
) -> WebRunning:
    """Serve the web face for ``host`` (raises VoicehostError if the port cannot be had);
    ``evening`` starts, shows or ends the club's evening for the remote (the CLI's code);
    the remotes of ``scope`` (this game, or the evening) are kept in ``store`` (owner-only)."""
    settings = host.settings
    wrong = host.book.screen("web_bad_code", {"code": settings.web.pairing_code})
    code = club_code(settings.web.pairing_code, wrong)
    pairing = Pairing(club_code=code, store=store, scope=scope)
    face = WebFace(host, write_protocol, evening=evening, pairing=pairing)

    def submit(connection: int, message: dict[str, object]) -> None:  # the server's thread
        host.post(RemoteInput(connection, message))

    host.remote = face

    server = WebServer(
        port=settings.web.port if port is None else port,
        pairing=pairing,
        labels=face.labels,
        language=settings.language,
        submit=submit,
        host=bind or settings.web.listen or None,
        on_request=face.phone_asks,
    )
    server.start()
    face.attach(server)
    if private is not None:
        private.face = face
    host.events.on_idle.append(face.tick)
    face.tick()
    listening = bind or settings.web.listen
    found = [listening] if listening and listening not in ("0.0.0.0", "::") else addresses()
    urls = [f"http://{_bracketed(address)}:{server.port}/" for address in found]
    return WebRunning(server, face, pairing, urls)


def _bracketed(address: str) -> str:
    return f"[{address}]" if ":" in address else address


def addresses() -> list[str]:
    """Every non-loopback address of this machine (IPv4 first), for the phones to open."""
    found: list[str] = []
    for _, name in socket.if_nameindex():
        with (
            contextlib.suppress(OSError),
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe,
        ):
            packed = struct.pack("256s", name.encode()[:15])
            reply = fcntl.ioctl(probe.fileno(), 0x8915, packed)  # SIOCGIFADDR
            address = socket.inet_ntoa(reply[20:24])
            if not ipaddress.ip_address(address).is_loopback and address not in found:
                found.append(address)
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/if_inet6").read_text().splitlines():
            raw = line.split()[0]
            address = str(ipaddress.ip_address(bytes.fromhex(raw)))
            parsed = ipaddress.ip_address(address)
            if not parsed.is_loopback and not parsed.is_link_local and address not in found:
                found.append(address)
    return found


def qr_lines(text: str) -> list[str]:
    """``text`` as a QR code drawn with block characters, for the terminal."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True, border=2)
    return [line for line in out.getvalue().splitlines() if line.strip("\x1b[0m ")]
