"""Who may be the host's remote: pairing that only the host can complete.

A new phone asks to pair and is shown a short number (``Pairing.request``); it becomes a remote
only when the host types that number where only the host can (the keyboard's ``пульт 1234``, the
keypad's ``[*] [*] 1 2 3 4 [Enter]``: ``Pairing.approve``). The number is no secret: a phone sees
its own number only, and approving it pairs that phone alone. A club may also put a code of its
own in config.yaml (``web.pairing_code``); it is never printed, shown or said, and a wrong one
slows down the address that sent it; many wrong codes from many addresses close the codes for a
while (never the host's approval).

A paired phone holds a random session token in a cookie; the server keeps only its hash, with
the scope it belongs to (this game, or the club's evening) and when it expires, in an owner-only
file, so a resumed game knows its remotes and a file that leaks pairs nobody. ``drop`` forgets
every remote at once. Every method may be called from any thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from voicehost.host.storage import private_folder, write_private
from voicehost.notices import LOG_ONLY

log = logging.getLogger(__name__)

#: Digits of the number a phone waiting for approval shows (the host types it).
NUMBER_DIGITS = 4

#: How long a phone's request waits for the host (seconds); then the phone asks again.
REQUEST_SECONDS = 600.0

#: Requests waiting at once: per address (a phone reloading), and in all (then the oldest of the
#: address holding the most goes; a phone waiting alone is never pushed out).
REQUESTS_PER_ADDRESS = 3
REQUESTS_IN_ALL = 64

#: How long a remote stays paired at most (seconds), whatever its scope.
SESSION_SECONDS = 12 * 3600.0

#: A wrong code makes its address wait 1, 2, 4... seconds before the next, up to this.
LONGEST_WAIT_SECONDS = 60.0

#: An address that sent no wrong code for this long starts again from no wait (seconds).
FORGIVEN_AFTER_SECONDS = 600.0

#: Addresses remembered for their wrong codes at most (the oldest are forgotten first).
ADDRESSES_REMEMBERED = 4096

#: Wrong codes from all addresses together within FORGIVEN_AFTER_SECONDS after which no phone's
#: code is taken until that time has passed: phones guessing from many addresses at once (one
#: try each) find no code. The host's approval by number pairs all the same.
WRONG_CODES_IN_ALL = 20


def digest(token: str) -> str:
    """What the server keeps of a token: its hash, so a leaked file pairs nobody."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class Request:
    """A phone waiting for the host to type its number."""

    number: str
    address: str
    created: float
    token: str = ""  # the session it gets, once the host has approved it


@dataclass
class Backoff:
    """Wrong codes from one address: how many, and when it may try again."""

    failures: int = 0
    next_try: float = 0.0
    last: float = 0.0


class Pairing:
    """The remotes of this game (or evening), the phones waiting, the wrong codes."""

    def __init__(
        self,
        *,
        club_code: str = "",
        store: Path | None = None,
        scope: str = "",
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.club_code = club_code
        self.store = store
        self.scope = scope
        self.clock = clock
        self.wall = wall
        self._lock = threading.Lock()
        self._sessions: dict[str, float] = {}  # token's hash -> expires (wall clock)
        self._requests: OrderedDict[str, Request] = OrderedDict()  # ticket's hash -> request
        self._backoff: OrderedDict[str, Backoff] = OrderedDict()
        self._wrong: deque[float] = deque()  # when the latest wrong codes came, from anywhere
        self._load()

    # ---------------------------------------------------------------- remotes

    def valid(self, token: str) -> bool:
        """Whether ``token`` (a cookie) is a remote's of this scope, not dropped, not expired."""
        if not token or len(token) > 128:
            return False
        with self._lock:
            expires = self._sessions.get(digest(token))
            return expires is not None and expires > self.wall()

    def count(self) -> int:
        """How many remotes are paired now."""
        with self._lock:
            now = self.wall()
            return sum(1 for expires in self._sessions.values() if expires > now)

    def drop(self) -> int:
        """Forget every remote and every waiting phone; returns how many remotes there were."""
        with self._lock:
            dropped = sum(1 for expires in self._sessions.values() if expires > self.wall())
            self._sessions.clear()
            self._requests.clear()
            self._save()
        return dropped

    def forget(self) -> None:
        """The scope has ended (the game is over): its remotes and its file go."""
        with self._lock:
            self._sessions.clear()
            self._requests.clear()
            if self.store is not None:
                with contextlib.suppress(OSError):
                    self.store.unlink()

    def _new_session(self) -> str:
        token = secrets.token_urlsafe(32)
        self._sessions[digest(token)] = self.wall() + SESSION_SECONDS
        self._save()
        return token

    # ---------------------------------------------------------------- approval by the host

    def request(self, address: str, ticket: str) -> tuple[str, str]:
        """A phone asks to pair: (its ticket, the number it shows). A phone that asks again
        with its ticket keeps its number while the request lasts. ("", "") when every place
        is held by a phone waiting alone: the phone asks again later."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            known = self._requests.get(digest(ticket)) if ticket else None
            if known is not None and not known.token:
                return ticket, known.number
            mine = [key for key, one in self._requests.items() if one.address == address]
            for key in mine[: max(0, len(mine) - REQUESTS_PER_ADDRESS + 1)]:
                del self._requests[key]
            if len(self._requests) >= REQUESTS_IN_ALL and not self._make_room():
                return "", ""  # every place is held by a phone of its own: this one waits
            taken = {one.number for one in self._requests.values()}
            number = _number(taken)
            ticket = secrets.token_urlsafe(24)
            self._requests[digest(ticket)] = Request(number, address, now)
            return ticket, number

    def _make_room(self) -> bool:
        """Push out the oldest request of the address that holds the most, if it holds more
        than one: a phone waiting alone is never pushed out by others, so the number it shows
        is never given to another phone while the host may be typing it."""
        held: dict[str, list[str]] = {}
        for key, one in self._requests.items():  # oldest first
            held.setdefault(one.address, []).append(key)
        most = max(held.values(), key=len)
        if len(most) < 2:
            return False
        del self._requests[most[0]]
        return True

    def check(self, ticket: str) -> str | None:
        """A waiting phone asks whether the host has approved it: its session token once it
        has (given once), "" while it waits, None when its request is gone (ask again)."""
        if not ticket or len(ticket) > 128:
            return None
        with self._lock:
            self._expire(self.clock())
            key = digest(ticket)
            known = self._requests.get(key)
            if known is None:
                return None
            if known.token:
                del self._requests[key]
            return known.token

    def approve(self, number: int) -> bool:
        """The host typed ``number``: the phone showing it becomes a remote."""
        text = f"{number:0{NUMBER_DIGITS}d}"
        with self._lock:
            self._expire(self.clock())
            for request in self._requests.values():
                if hmac.compare_digest(request.number, text) and not request.token:
                    request.token = self._new_session()
                    return True
        return False

    def _expire(self, now: float) -> None:
        for key, request in list(self._requests.items()):
            if request.created < now - REQUEST_SECONDS:
                del self._requests[key]

    # ---------------------------------------------------------------- the club's code

    def wait_for(self, address: str) -> float:
        """Seconds ``address`` must still wait before it may try a code (0: now)."""
        with self._lock:
            known = self._backoff.get(address)
            return 0.0 if known is None else max(0.0, known.next_try - self.clock())

    def codes_closed(self) -> bool:
        """Whether too many wrong codes came lately, from all addresses together: then no code
        is taken (the host's approval by number still pairs)."""
        with self._lock:
            return self._codes_closed(self.clock())

    def _codes_closed(self, now: float) -> bool:
        while self._wrong and self._wrong[0] < now - FORGIVEN_AFTER_SECONDS:
            self._wrong.popleft()
        return len(self._wrong) >= WRONG_CODES_IN_ALL

    def try_code(self, address: str, typed: str) -> str | None:
        """A code typed on a phone: a session token when it is the club's, else None (and the
        address waits longer before its next try). Call ``wait_for`` first."""
        now = self.clock()
        right = bool(self.club_code) and hmac.compare_digest(
            typed.encode(), self.club_code.encode()
        )
        with self._lock:
            if right and not self._codes_closed(now):
                self._backoff.pop(address, None)
                return self._new_session()
            self._wrong.append(now)
            while len(self._wrong) > WRONG_CODES_IN_ALL:
                self._wrong.popleft()
            known = self._backoff.pop(address, None) or Backoff()
            if known.last < now - FORGIVEN_AFTER_SECONDS:
                known.failures = 0
            known.failures += 1
            known.last = now
            known.next_try = now + min(LONGEST_WAIT_SECONDS, 2.0 ** (known.failures - 1))
            self._backoff[address] = known  # the newest last: the oldest are forgotten first
            while len(self._backoff) > ADDRESSES_REMEMBERED:
                self._backoff.popitem(last=False)
        return None

    # ---------------------------------------------------------------- the file

    def _load(self) -> None:
        if self.store is None:
            return
        try:
            data = json.loads(self.store.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.warning("the remotes' file %s cannot be read: %s", self.store, exc, extra=LOG_ONLY)
            return
        if not isinstance(data, dict) or data.get("scope") != self.scope:
            return  # another game's (or evening's) remotes: they pair again
        sessions = data.get("sessions")
        now = self.wall()
        if isinstance(sessions, dict):
            for key, expires in sessions.items():
                if isinstance(key, str) and isinstance(expires, int | float) and expires > now:
                    self._sessions[key] = float(expires)

    def _save(self) -> None:
        if self.store is None:
            return
        data = {"scope": self.scope, "sessions": self._sessions}
        try:
            private_folder(self.store.parent)
            write_private(self.store, json.dumps(data).encode())
        except OSError as exc:  # the remotes work on; a resume asks them to pair again
            log.warning(
                "the remotes' file %s cannot be written: %s", self.store, exc, extra=LOG_ONLY
            )


def _number(taken: set[str]) -> str:
    """A number no other waiting phone shows, never starting with 0 (typed as it is seen)."""
    low = 10 ** (NUMBER_DIGITS - 1)
    while True:
        number = str(low + secrets.randbelow(9 * low))
        if number not in taken:
            return number
