"""A Listener whose speech model loads in the background, so the game starts at once.

Loading a Vosk model takes seconds on a PC and a minute or more on a Raspberry Pi, but the first
speech that needs it comes minutes into the game (after the night of acquaintance). So the host
announces «Добрый вечер» straight away while the model loads on a thread of its own. Until it is
ready, and for good when it cannot be used (a wrong model, no microphone), speeches end from the
keyboard or keypad, and one line says why.

``on_ready`` is told once, on the loading thread: ``ListenerStatus.READY`` or ``FAILED`` with the
reason, so a screen can show "listening ready". The host's calls made while loading
(``listen``, ``deafen_until``...) are remembered and handed on when the model is ready.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from voicehost.errors import VoicehostError
from voicehost.notices import LOG_ONLY
from voicehost.ports import Listener, StopWordHeard

log = logging.getLogger(__name__)

KEYS_MEANWHILE = "speeches end from the keyboard or keypad"


class ListenerStatus(StrEnum):
    """Where the background Listener is."""

    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class ListenerReady:
    """What ``on_ready`` is told once loading is over."""

    status: ListenerStatus
    """READY or FAILED."""
    reason: str = ""
    """Why it failed (a person's sentence), empty when ready."""
    seconds: float = 0.0
    """How long loading took."""
    error: VoicehostError | None = None
    """The error that stopped it, when a person caused it (a screen says it from its book)."""


class LoadingListener:
    """Implements ``ports.Listener`` around a Listener that ``load`` builds on a thread."""

    def __init__(
        self,
        load: Callable[[], Listener],
        on_ready: Callable[[ListenerReady], None] | None = None,
        *,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        import time

        self._load = load
        self._on_ready = on_ready
        self._monotonic = monotonic or time.monotonic
        self._lock = threading.Lock()
        self._inner: Listener | None = None
        self._token: int | None = None
        self._deaf_until: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None
        self.status = ListenerStatus.LOADING
        self.result: ListenerReady | None = None
        self.done = threading.Event()
        """Set when loading is over, either way."""

    # ports.Listener -------------------------------------------------------------------------

    def start(self, on_stop_word: StopWordHeard, on_spoke_on: StopWordHeard | None = None) -> None:
        """Start loading the model; the microphone opens when it is ready."""
        self._thread = threading.Thread(
            target=self._run,
            args=(on_stop_word, on_spoke_on),
            name="voicehost-model-loader",
            daemon=True,
        )
        self._thread.start()

    def listen(self, token: int) -> None:
        """Hear stop words from now on (from when the model is ready, if it is still loading)."""
        with self._lock:
            self._token = token
            inner = self._inner
        if inner is not None:
            inner.listen(token)

    def stop_listening(self) -> None:
        """Be deaf."""
        with self._lock:
            self._token = None
            inner = self._inner
        if inner is not None:
            inner.stop_listening()

    def deafen_until(self, until: float) -> None:
        """Echo guard (remembered while loading)."""
        with self._lock:
            self._deaf_until = until if self._deaf_until is None else max(self._deaf_until, until)
            inner = self._inner
        if inner is not None:
            inner.deafen_until(until)

    def close(self) -> None:
        """Close the Listener; a model still loading is dropped when it is done."""
        with self._lock:
            self._closed = True
            inner = self._inner
        if inner is not None:
            inner.close()

    # the loading thread ---------------------------------------------------------------------

    def _run(self, on_stop_word: StopWordHeard, on_spoke_on: StopWordHeard | None) -> None:
        began = self._monotonic()
        try:
            inner = self._load()
            inner.start(on_stop_word, on_spoke_on)
        except VoicehostError as exc:  # a wrong model, no vosk, no microphone: keys go on
            log.warning("%s: %s", exc, KEYS_MEANWHILE, extra=LOG_ONLY)  # the host tells the table
            failed = ListenerReady(ListenerStatus.FAILED, str(exc), self._since(began), exc)
            self._finish(failed)
            return
        except Exception as exc:  # noqa: BLE001 - whatever Vosk raises, the game goes on
            log.exception(
                "the speech model could not be loaded: %s", KEYS_MEANWHILE, extra=LOG_ONLY
            )
            self._finish(ListenerReady(ListenerStatus.FAILED, repr(exc), self._since(began)))
            return
        with self._lock:
            closed = self._closed
            if not closed:
                self._inner = inner
                token, deaf_until = self._token, self._deaf_until
        if closed:
            inner.close()
            return
        if deaf_until is not None:
            inner.deafen_until(deaf_until)
        if token is not None:
            inner.listen(token)
        seconds = self._since(began)
        log.info("listening ready (the speech model loaded in %.1f s)", seconds, extra=LOG_ONLY)
        self._finish(ListenerReady(ListenerStatus.READY, "", seconds))

    def _since(self, began: float) -> float:
        return self._monotonic() - began

    def _finish(self, result: ListenerReady) -> None:
        self.status = result.status
        self.result = result
        self.done.set()
        if self._on_ready is not None:
            try:
                self._on_ready(result)
            except Exception:  # noqa: BLE001 - a screen's hook must not stop the listener
                log.exception("the listening-ready hook failed", extra=LOG_ONLY)
