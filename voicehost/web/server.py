"""The web server (aiohttp) on its own thread: pages, WebSockets, pairing.

The server never touches the game: a remote's input is posted to the host's inbox (``submit``),
and what the pages show comes from ``publish`` (the loop's thread calls it with ready frames).

Security on a club's Wi-Fi, where every phone is on the same network:

- the board (``/``, ``/ws/board``) is read-only: it gets the public frame and nothing else, and
  a message sent on its socket closes it; it can never become a remote;
- the remote (``/host``) and dealing (``/deal``) need pairing (``pairing.Pairing``): the phone
  shows a short number and the host types it where only the host can (keyboard or keypad), or the
  phone posts the club's own code from config.yaml; no secret is ever printed, shown or said. A
  wrong code slows down its own address only. A paired phone gets a random session cookie
  (HttpOnly, SameSite=Strict, bound to this game or evening, expiring, gone when the host drops
  the remotes); nothing changes state on a GET; a request from another origin is refused; every
  page carries a Content-Security-Policy (nothing but this server);
- a paired phone's socket is read within bounds: a frame nested too deep is refused politely, and
  inputs beyond a few a second (or waiting for the loop) are answered at once and not queued.

If the server dies, it is started again (``_supervise``); the game never waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import html
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from voicehost.errors import VoicehostError
from voicehost.notices import LOG_ONLY
from voicehost.web.pairing import Pairing

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
PAGES = {"board": "board.html", "host": "host.html", "deal": "deal.html", "pair": "pair.html"}
ASSETS = {
    "app.css": "text/css",
    "common.js": "text/javascript",
    "board.js": "text/javascript",
    "host.js": "text/javascript",
    "deal.js": "text/javascript",
    "pair.js": "text/javascript",
}
COOKIE = "vh_remote"

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}

#: A remote's message longer than this is not read (an input is a few dozen bytes).
MAX_MESSAGE = 2048

#: A remote's message nested deeper than this is refused unread (an input is two deep).
MAX_NESTING = 8

#: Inputs one remote may have waiting for the loop, and send per second (a burst of
#: ``INPUT_BURST``): more are answered at once, «too fast», and never reach the game.
MAX_IN_FLIGHT = 8
INPUTS_PER_SECOND = 10.0
INPUT_BURST = 20.0

#: Frames waiting for one slow browser before the older state frames are dropped.
MAX_BACKLOG = 64

#: The cookie a phone waiting for the host's approval holds (its request), and how long.
TICKET = "vh_ticket"


def club_code(configured: str, wrong: str) -> str:
    """config.yaml's ``web.pairing_code`` (the club's own code, "" for none); ``wrong`` says (in
    the game's language) what a code must be."""
    if configured and (
        not 4 <= len(configured) <= 32 or not configured.isascii() or not configured.isalnum()
    ):
        raise VoicehostError.written(wrong)  # from the book already
    return configured


def nesting(data: str) -> int:
    """How deep the brackets of a JSON text go at most (strings skipped), without parsing it."""
    depth = deepest = 0
    quoted = escaped = False
    for char in data:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


class Connection:
    """One open WebSocket: frames go out in order; a slow reader loses old state frames only."""

    def __init__(self, ident: int, socket: Any, remote: bool, token: str = "") -> None:
        self.ident = ident
        self.socket = socket
        self.remote = remote
        self.token = token  # the remote's session (its cookie)
        self.queue: deque[tuple[str, bool]] = deque()  # (frame, is a state frame)
        self.ready = asyncio.Event()
        self.in_flight = 0  # inputs posted to the loop, not answered yet
        self.allowance = INPUT_BURST
        self.checked = time.monotonic()

    def may_send(self) -> bool:
        """Whether one more input may go to the loop now (a token bucket, and the backlog)."""
        now = time.monotonic()
        self.allowance = min(INPUT_BURST, self.allowance + (now - self.checked) * INPUTS_PER_SECOND)
        self.checked = now
        if self.in_flight >= MAX_IN_FLIGHT or self.allowance < 1:
            return False
        self.allowance -= 1
        return True

    def push(self, frame: str, state: bool = False) -> None:
        if len(self.queue) >= MAX_BACKLOG:
            kept = [item for item in self.queue if not item[1]]
            self.queue = deque(kept)
        self.queue.append((frame, state))
        self.ready.set()

    async def write(self) -> None:
        """Send the queued frames until the socket closes; a socket closing under a frame (a
        phone locked, Wi-Fi gone) ends the writer quietly."""
        try:
            while not self.socket.closed:
                await self.ready.wait()
                self.ready.clear()
                while self.queue and not self.socket.closed:
                    frame, _ = self.queue.popleft()
                    await asyncio.wait_for(self.socket.send_str(frame), timeout=10)
        except (ConnectionError, TimeoutError, RuntimeError):
            with contextlib.suppress(Exception):
                await self.socket.close()


class WebServer:
    """The aiohttp application on a thread of its own, restarted if it dies."""

    def __init__(
        self,
        *,
        port: int,
        pairing: Pairing,
        labels: dict[str, str],
        language: str,
        submit: Callable[[int, dict[str, Any]], None],
        host: str | None = None,
        on_request: Callable[[], None] | None = None,
    ) -> None:
        self.port = port
        self.bind = host
        self.pairing = pairing
        self.labels = labels
        self.language = language
        self.submit = submit
        self.on_request = on_request  # a phone asks to pair: the host's screen says what to do
        self.board_frame = ""
        self.remote_frame = ""
        self.connections: dict[int, Connection] = {}
        self.restarts = 0
        self._next_id = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Future[None] | None = None
        self._stopping = threading.Event()
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # ---------------------------------------------------------------- lifecycle (any thread)

    def start(self, timeout: float = 10.0) -> None:
        """Start serving; raises VoicehostError when the port cannot be had."""
        self._thread = threading.Thread(target=self._supervise, daemon=True, name="web")
        self._thread.start()
        if not self._started.wait(timeout):
            raise VoicehostError(f"the web face did not start within {timeout:.0f} s")
        if self._error is not None:
            self._stopping.set()
            raise self._error

    def stop(self) -> None:
        self._stopping.set()
        self._end_loop()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serving(self) -> bool:
        """Whether the server's loop runs now (it may be starting again)."""
        loop, stop = self._loop, self._stop
        return loop is not None and loop.is_running() and stop is not None and not stop.done()

    def kill(self) -> None:
        """Make the server fail as a crash would (tests): it is started again."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:

            def fail() -> None:
                if not stop.done():
                    stop.set_exception(RuntimeError("killed"))

            loop.call_soon_threadsafe(fail)

    def _end_loop(self) -> None:
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None:

            def end() -> None:
                if not stop.done():
                    stop.set_result(None)

            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(end)

    def _supervise(self) -> None:
        while not self._stopping.is_set():
            try:
                asyncio.run(self._serve())
            except OSError as exc:
                if not self._started.is_set():
                    self._error = port_error(exc, self.port, self.labels)
                    self._started.set()
                    return
                log.warning("the web face stopped (%s); starting it again", exc, extra=LOG_ONLY)
            except Exception as exc:  # noqa: BLE001 - the game goes on; the face restarts
                if not self._started.is_set():
                    self._error = VoicehostError(f"the web face cannot start: {exc}")
                    self._started.set()
                    return
                log.warning("the web face stopped (%s); starting it again", exc, extra=LOG_ONLY)
            if self._stopping.is_set():
                return
            self.restarts += 1
            time.sleep(0.2)

    async def _serve(self) -> None:
        from aiohttp import web

        app = web.Application(middlewares=[self._headers], client_max_size=4096)
        app.router.add_get("/", self._board_page)
        app.router.add_get("/overlay", self._overlay_page)
        app.router.add_get("/host", self._remote_page)
        app.router.add_get("/deal", self._deal_page)
        app.router.add_post("/pair", self._pair)
        app.router.add_post("/pair/request", self._pair_request)
        app.router.add_post("/pair/check", self._pair_check)
        app.router.add_get("/static/{name}", self._asset)
        app.router.add_get("/ws/board", self._board_socket)
        app.router.add_get("/ws/host", self._remote_socket)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self.bind, self.port, reuse_address=True)
            await site.start()
            if self.port == 0 and runner.addresses:  # a test's free port
                self.port = int(runner.addresses[0][1])
            loop = asyncio.get_running_loop()
            self._stop = loop.create_future()
            self._loop = loop
            self._started.set()
            await self._stop
        finally:
            for connection in list(self.connections.values()):
                with contextlib.suppress(Exception):
                    await connection.socket.close()
            self.connections.clear()
            await runner.cleanup()

    # ---------------------------------------------------------------- from the loop's thread

    def publish(self, board: str, remote: str) -> None:
        """New frames for the boards and the remotes (called on the loop's thread)."""
        # Kept at once: a server that is starting again sends them to whoever connects.
        send_board = board if board != self.board_frame else None
        send_remote = remote if remote != self.remote_frame else None
        self.board_frame, self.remote_frame = board, remote
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the server's loop just died: it restarts
            loop.call_soon_threadsafe(self._send_state, send_board, send_remote)

    def answer(self, connection: int, frame: str) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._send_to, connection, frame)

    def private(self, frame: str) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._send_private, frame)

    def _send_state(self, board: str | None, remote: str | None) -> None:
        # The remotes now, the boards on the loop's next turn: the answer to the host's tap
        # (queued right after this) goes out before thirty boards are written to.
        for connection in list(self.connections.values()):
            if connection.remote and remote is not None and self.pairing.valid(connection.token):
                connection.push(remote, state=True)
        if board is not None and self._loop is not None:
            self._loop.call_soon(self._send_boards, board)

    def _send_boards(self, board: str) -> None:
        for connection in list(self.connections.values()):
            if not connection.remote:
                connection.push(board, state=True)

    def _send_to(self, ident: int, frame: str) -> None:
        connection = self.connections.get(ident)
        if connection is not None and connection.remote:
            connection.in_flight = max(0, connection.in_flight - 1)
            connection.push(frame)

    def _send_private(self, frame: str) -> None:
        for connection in self.connections.values():
            if connection.remote and self.pairing.valid(connection.token):
                connection.push(frame)  # paired remotes only: never a board, never a dropped one

    def drop_remotes(self) -> None:
        """The host dropped the remotes: their open sockets close now (any thread)."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._close_dropped)

    def _close_dropped(self) -> None:
        for connection in list(self.connections.values()):
            if connection.remote and not self.pairing.valid(connection.token):
                asyncio.ensure_future(connection.socket.close())

    # ---------------------------------------------------------------- HTTP

    @staticmethod
    def _same_origin(request: Any) -> bool:
        origin = request.headers.get("Origin")
        return origin is None or origin in (f"http://{request.host}", f"https://{request.host}")

    def paired(self, request: Any) -> bool:
        return self.pairing.valid(request.cookies.get(COOKIE, ""))

    async def _headers_impl(self, request: Any, handler: Any) -> Any:
        from aiohttp import web

        try:
            response = await handler(request)
        except web.HTTPException as exc:
            response = web.Response(status=exc.status, text=exc.reason or "")
        except (ConnectionError, asyncio.CancelledError):
            raise  # the phone went away: nothing to answer
        except Exception:  # noqa: BLE001 - an error page says nothing of the game
            log.exception("the web face failed a request", extra=LOG_ONLY)
            response = web.Response(status=500, text="error")
        if not response.prepared:
            for name, value in SECURITY_HEADERS.items():
                response.headers[name] = value
        return response

    @property
    def _headers(self) -> Any:
        from aiohttp import web

        @web.middleware
        async def middleware(request: Any, handler: Any) -> Any:
            return await self._headers_impl(request, handler)

        return middleware

    def _page(self, name: str, **extra: str) -> Any:
        from aiohttp import web

        text = (STATIC / PAGES[name]).read_text(encoding="utf-8")
        labels = json.dumps(self.labels, ensure_ascii=False).replace("</", "<\\/")
        text = text.replace("{{labels}}", html.escape(labels, quote=False))
        text = text.replace("{{lang}}", html.escape(self.language))
        for key, value in extra.items():
            text = text.replace("{{" + key + "}}", html.escape(value))
        for key, value in self.labels.items():
            text = text.replace("{{" + key + "}}", html.escape(value))
        return web.Response(text=text, content_type="text/html", charset="utf-8")

    def _pair_page(self, request: Any, target: str, message: str = "") -> Any:
        """The page a phone pairs on: its number for the host, the club's code if it has one;
        a phone whose pairing has ended is told so plainly."""
        if not message and request.cookies.get(COOKIE):
            message = self.labels["web_pair_again"]
        hidden = "" if self.pairing.club_code else "hidden"
        return self._page("pair", next=target, message=message, codeform=hidden)

    async def _board_page(self, request: Any) -> Any:
        return self._page("board", face="board")

    async def _overlay_page(self, request: Any) -> Any:
        """The stream overlay for OBS's browser source: the board on a transparent page, on the
        board's socket (the same public frames, read-only)."""
        return self._page("board", face="overlay")

    async def _remote_page(self, request: Any) -> Any:
        if not self.paired(request):
            return self._pair_page(request, "/host")
        return self._page("host")

    async def _deal_page(self, request: Any) -> Any:
        if not self.paired(request):
            return self._pair_page(request, "/deal")
        return self._page("deal")

    async def _asset(self, request: Any) -> Any:
        from aiohttp import web

        name = request.match_info["name"]
        if name not in ASSETS:
            raise web.HTTPNotFound()
        return web.Response(
            body=(STATIC / name).read_bytes(), content_type=ASSETS[name], charset="utf-8"
        )

    @staticmethod
    def _address(request: Any) -> str:
        """The phone's own address: the socket's peer, never a header it could write itself."""
        transport = request.transport
        peer = transport.get_extra_info("peername") if transport is not None else None
        return str(peer[0]) if peer else "?"

    def _with_cookie(self, response: Any, token: str) -> Any:
        from voicehost.web.pairing import SESSION_SECONDS

        response.set_cookie(
            COOKIE, token, httponly=True, samesite="Strict", path="/", max_age=int(SESSION_SECONDS)
        )
        response.del_cookie(TICKET, path="/")
        return response

    async def _pair(self, request: Any) -> Any:
        """The club's code, typed on the phone (the form)."""
        from aiohttp import web

        if not self._same_origin(request):
            raise web.HTTPForbidden()
        form = await request.post()
        target = "/deal" if form.get("next") == "/deal" else "/host"
        address = self._address(request)
        wait = self.pairing.wait_for(address)
        if wait > 0:
            text = self.labels["web_pair_wait"].replace("{seconds}", str(int(wait) + 1))
            page = self._pair_page(request, target, text)
            page.set_status(429)
            return page
        if self.pairing.codes_closed():  # guessed from many addresses: the number still pairs
            page = self._pair_page(request, target, self.labels["web_pair_codes_closed"])
            page.set_status(429)
            return page
        token = self.pairing.try_code(address, str(form.get("code", "")).strip()[:64])
        if token is None:
            page = self._pair_page(request, target, self.labels["web_pair_wrong"])
            page.set_status(403)
            return page
        response = web.Response(status=303, headers={"Location": target})
        self._with_cookie(response, token)
        for name, value in SECURITY_HEADERS.items():
            response.headers[name] = value
        return response

    async def _pair_request(self, request: Any) -> Any:
        """A phone asks to pair: the number it shows the host (kept while it waits)."""
        from aiohttp import web

        if not self._same_origin(request):
            raise web.HTTPForbidden()
        address = self._address(request)
        ticket, number = self.pairing.request(address, request.cookies.get(TICKET, ""))
        if not number:  # every place is held by a phone waiting alone: this one asks later
            return web.json_response({"number": "", "busy": True}, status=429)
        if self.on_request is not None:
            self.on_request()
        response = web.json_response({"number": number})
        response.set_cookie(TICKET, ticket, httponly=True, samesite="Strict", path="/", max_age=600)
        return response

    async def _pair_check(self, request: Any) -> Any:
        """A waiting phone asks whether the host has typed its number."""
        from aiohttp import web

        if not self._same_origin(request):
            raise web.HTTPForbidden()
        token = self.pairing.check(request.cookies.get(TICKET, ""))
        if token is None:
            return web.json_response({"state": "expired"})
        if not token:
            return web.json_response({"state": "waiting"})
        return self._with_cookie(web.json_response({"state": "paired"}), token)

    # ---------------------------------------------------------------- WebSockets

    async def _board_socket(self, request: Any) -> Any:
        return await self._socket(request, remote=False)

    async def _remote_socket(self, request: Any) -> Any:
        from aiohttp import web

        if not self.paired(request) or not self._same_origin(request):
            raise web.HTTPForbidden()
        return await self._socket(request, remote=True)

    async def _socket(self, request: Any, *, remote: bool) -> Any:
        from aiohttp import WSMsgType, web

        # Frames of a kilobyte go uncompressed: thirty boards cost a Pi no deflate each change.
        socket = web.WebSocketResponse(heartbeat=20, max_msg_size=MAX_MESSAGE, compress=False)
        await socket.prepare(request)
        self._next_id += 1
        token = request.cookies.get(COOKIE, "") if remote else ""
        connection = Connection(self._next_id, socket, remote, token)
        self.connections[connection.ident] = connection
        frame = self.remote_frame if remote else self.board_frame
        if frame:
            connection.push(frame, state=True)
        writer = asyncio.create_task(connection.write())
        try:
            async for message in socket:
                if not remote:
                    break  # a board only listens: anything it says ends the connection
                if message.type != WSMsgType.TEXT or not self.pairing.valid(token):
                    break  # a dropped or expired remote is heard no more
                self._received(connection, message.data)
        except (ConnectionError, TimeoutError):
            pass  # the phone went away mid-frame: its connection ends below
        finally:
            self.connections.pop(connection.ident, None)
            writer.cancel()
            with contextlib.suppress(Exception):
                await socket.close()
        return socket

    def _received(self, connection: Connection, data: str) -> None:
        if nesting(data) > MAX_NESTING:
            self._refuse(connection, "", "web_bad_request")
            return
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):
            self._refuse(connection, "", "web_bad_request")
            return
        if not isinstance(message, dict) or message.get("type") != "input":
            return
        ident = message.get("id", "")
        if not isinstance(ident, str) or len(ident) > 64:
            self._refuse(connection, "", "web_bad_request")
            return
        if not connection.may_send():
            self._refuse(connection, ident, "web_too_fast")
            return
        connection.in_flight += 1
        self.submit(connection.ident, message)

    def _refuse(self, connection: Connection, ident: str, key: str) -> None:
        """An input answered by the server itself, never seen by the game."""
        frame = {"type": "ack", "id": ident, "ok": False, "message": self.labels[key]}
        connection.push(json.dumps(frame, ensure_ascii=False))


def port_error(exc: OSError, port: int, labels: dict[str, str]) -> VoicehostError:
    """A clear message for a port that cannot be had, in the game's language."""
    if exc.errno == errno.EADDRINUSE:
        text = labels["web_port_in_use"]
    elif exc.errno == errno.EACCES:
        text = labels["web_port_denied"]
    else:
        text = labels["web_port_failed"].replace("{reason}", exc.strerror or str(exc))
    return VoicehostError.written(text.replace("{port}", str(port)))  # from the book already
