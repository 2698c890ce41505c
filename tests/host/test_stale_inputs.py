"""A burst of inputs for a question that is over (a paired phone that sends its old taps again
and again) is answered «stale» each, cheaply: the loop draws once per burst, not once per input,
and the board and remote are not rendered again for an input that changed nothing."""

from __future__ import annotations

import json
import time

from voicehost.game.inputs import EnterSeats
from voicehost.game.model import Seat
from voicehost.host.commands import RemoteInput
from voicehost.testing.table import text_table
from voicehost.web.face import WebFace

BURST = 2000


class Phone:
    """The server's side of a paired phone: what was answered, what was published."""

    def __init__(self) -> None:
        self.answers: list[dict[str, object]] = []
        self.published = 0

    def publish(self, board: str, remote: str) -> None:
        self.published += 1

    def answer(self, connection: int, frame: str) -> None:
        self.answers.append(json.loads(frame))

    def private(self, frame: str) -> None:
        """Private frames: none here."""


def test_a_burst_of_stale_inputs_is_answered_without_redrawing_for_each() -> None:
    host = text_table("ru")
    host.start()
    phone = Phone()
    face = WebFace(host, lambda: "", phone)
    host.remote = face  # as `play --web` wires it
    host.events.on_idle.append(face.tick)
    rendered: list[int] = []
    frames = face.frames

    def counted() -> tuple[str, str]:
        rendered.append(1)
        return frames()

    face.frames = counted  # type: ignore[method-assign]  # counts each rendering
    drawn: list[int] = []
    old = face.token()
    host.submit(EnterSeats((Seat(2), Seat(5), Seat(9))))  # the host went on at the keyboard
    for number in range(BURST):
        message = {"id": f"old{number}", "token": old, "action": "seats", "seats": [3]}
        host.post(RemoteInput(1, message))
    started = time.perf_counter()
    host.run(on_idle=lambda: drawn.append(1), feed=lambda: None)
    took = time.perf_counter() - started
    assert len(phone.answers) == BURST
    assert {answer["message"] for answer in phone.answers} == {host.book.screen("web_stale")}
    assert [event.seats for event in host.inputs if isinstance(event, EnterSeats)] == [(2, 5, 9)]
    assert len(drawn) <= 10, f"the loop drew {len(drawn)} times for {BURST} stale inputs"
    assert len(rendered) <= 10, f"the frames were rendered {len(rendered)} times"
    assert took < 2.0, f"{BURST} stale inputs held the loop {took:.1f} s"
