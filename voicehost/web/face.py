"""The web face on the loop's thread: what the board and the remote are told, and what a remote
asks for, turned into the host's commands through the one action table.

Nothing here touches the game's state: the board's frame is ``host.table.table_view`` (what the
table may see) and nothing else; a remote's input becomes a ``Command`` made by
``host.actions.command_for`` (or ``Submit(EnterSeats)``, as the keypad makes it) and is handled
by the host like a keypad entry. Every input carries an id, and an id already handled gets its
first answer again instead of being applied twice (a phone that lost Wi-Fi sends it again).

At night the remote behaves as the keypad does: every entry gets the same answer whatever it was
(accepted, or the one neutral refusal), and the role's private answer goes to paired remotes only,
for ``private.screen_seconds``.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from voicehost.config import Settings
from voicehost.game.effects import Private, PrivateKind, PromptKind, Say
from voicehost.game.errors import RuleViolation
from voicehost.game.inputs import EndSpeech, EnterSeats, Input
from voicehost.game.model import Phase, Role, Seat, Team
from voicehost.host.actions import Action, command_for
from voicehost.host.commands import Command, Name, Notice, Source, Submit
from voicehost.host.loop import Host
from voicehost.host.table import night_clock, private_text, prompt_text, table_view
from voicehost.notices import LOG_ONLY
from voicehost.ports import PrivateChannel
from voicehost.rulesets import engine_for
from voicehost.web.pairing import Pairing

log = logging.getLogger(__name__)

SOURCE = Source.REMOTE

#: How many input ids are remembered for replays (a game has a few hundred inputs).
REMEMBERED_INPUTS = 4096

#: How the grid offers the seats of a question, by what they are for (``Prompt.action``).
SEAT_PROMPTS = {
    "register": "all",
    "kill": "living",
    "check": "living",
    "heal": "living",
    "block": "living",
    "protect": "living",
    "nominate": "nominable",
    "best_move": "others",
}
COUNT_PROMPTS = (PromptKind.VOTE_COUNT, PromptKind.THIRD_VOTE_COUNT)

#: A phone asking to pair is said on the host's screen at most this often (seconds).
ASKS_SHOWN_EVERY = 20.0


def offered(host: Host) -> dict[str, str]:
    """The remote's action buttons that work now, each with the screen key of its label: what
    the loop would accept this moment (a trial step of the rules on the current state), so a
    button offered is never answered «not now» and a hint can name the button it means."""
    state = host.state
    if state is None or state.over:
        return {}  # an ended game's loop takes no more inputs: a tap would wait for ever
    night = state.phase.is_night
    buttons = {"pause": "web_resume" if host.paused_at is not None else "web_pause"}
    # At night the phone looks the same whatever was entered: undo is always there.
    if night or host.can_undo():
        buttons["undo"] = "web_undo"
    if host.prompt().may_miss:
        buttons["miss"] = "web_miss"
    if state.phase is Phase.NIGHT0_DEAL:  # FIIM: «the cards are dealt» (the same every game)
        buttons["end"] = "web_confirm"
    if night:
        return buttons  # «the speech is over», «the count is right»: day words only
    if host.held is not None or _accepted(host, EndSpeech()):
        if state.vote_settling is not None:
            buttons["end"] = "web_confirm"
        elif state.discussing:
            buttons["end"] = "web_end_discussion"
        else:
            buttons["end"] = "web_end_speech"
    return buttons


def _accepted(host: Host, event: Input) -> bool:
    """Whether the rules would take ``event`` now (tried on a copy: nothing changes)."""
    assert host.state is not None
    try:
        host.engine.step(host.state, event)
    except RuleViolation:
        return False
    return True


def vote_result(host: Host) -> str:
    """The counted vote's outcome while it can still be corrected: what the table will hear
    when the count is confirmed (its first announcement), for the host's remote."""
    state = host.state
    if state is None or state.vote_settling is None or state.phase.is_night:
        return ""
    try:
        _, effects = host.engine.step(state, EndSpeech())
    except RuleViolation:
        return ""
    said = [effect for effect in effects if isinstance(effect, Say)]
    return host.book.render(said[0].key, dict(said[0].params)).text if said else ""


class Outlet(Protocol):
    """What the face needs of the server (any thread may call it)."""

    def publish(self, board: str, remote: str) -> None: ...

    def answer(self, connection: int, frame: str) -> None: ...

    def private(self, frame: str) -> None: ...

    def drop_remotes(self) -> None: ...


def cards_for(settings: Settings) -> list[Role]:
    """The cards of this table, as the rule set deals them: the black team (with its head where
    the rules have one), one of each other card in play, civilians for the rest."""
    return engine_for(settings.game).deck()


@dataclass
class Deal:
    """Cards dealt by the device: which seat holds which, and who has looked at theirs."""

    cards: dict[int, Role]
    seen: set[int] = field(default_factory=set)
    entered: set[str] = field(default_factory=set)  # the night-0 questions answered (roles)

    @classmethod
    def random(cls, settings: Settings) -> Deal:
        cards = cards_for(settings)
        secrets.SystemRandom().shuffle(cards)
        return cls({seat: card for seat, card in enumerate(cards, start=1)})

    def next_seat(self) -> int | None:
        for seat in sorted(self.cards):
            if seat not in self.seen:
                return seat
        return None

    def seats_of(self, roles: tuple[Role, ...]) -> tuple[Seat, ...]:
        return tuple(Seat(seat) for seat, card in sorted(self.cards.items()) if card in roles)


class WebFace:
    """The web adapter's side on the loop's thread."""

    def __init__(
        self,
        host: Host,
        write_protocol: Callable[[], str],
        outlet: Outlet | None = None,
        evening: Callable[[str], tuple[bool, str]] | None = None,
        pairing: Pairing | None = None,
    ) -> None:
        self.host = host
        self.pairing = pairing or Pairing()
        self._asked_at = -ASKS_SHOWN_EVERY  # when the screen last said a phone asks to pair
        self.book = host.book
        self.write_protocol = write_protocol
        self.evening = evening  # `voicehost evening start|status|end`, as the CLI does it
        self.outlet = outlet
        self.labels = web_labels(host)
        self._board = ""
        self._remote = ""
        self._done: OrderedDict[str, str] = OrderedDict()
        self.deal: Deal | None = None
        self.deal_by_device = host.settings.web.deal == "device"
        self.failures = 0
        self.version = 0  # counts the remote's frames: a page can tell it has the latest
        self.entering = False  # a remote's input is being handled: its answer goes to the phone
        self._token: tuple[object, int, str] = (None, -1, "")  # (state, inputs, token) last seen

    # ---------------------------------------------------------------- publishing

    def attach(self, outlet: Outlet) -> None:
        self.outlet = outlet
        self._board = self._remote = ""  # a new server: everything is sent again

    def tick(self) -> None:
        """After every command and tick: tell the pages what changed. Never raises: a fault of
        the web face must not stop the game."""
        try:
            self._feed_deal()
            board, remote = self.frames()
            if self.outlet is not None and (board != self._board or remote != self._remote):
                self._board, self._remote = board, remote
                self.version += 1
                self.outlet.publish(board, remote[:-1] + f', "seq": {self.version}}}')
        except Exception:  # noqa: BLE001 - the terminal and the keypad go on
            self.failures += 1
            log.exception("the web face failed to update", extra=LOG_ONLY)

    def frames(self) -> tuple[str, str]:
        """The board's frame (public) and the remote's (public view, the question, the grid)."""
        view = table_view(self.host)
        public = view.to_public()
        board = json.dumps({"type": "table", "table": public}, ensure_ascii=False)
        remote = json.dumps(
            {"type": "remote", "table": public, "ask": self.question()}, ensure_ascii=False
        )
        return board, remote

    def question(self) -> dict[str, Any]:
        """What the remote offers now: the prompt in words, the seats that make sense, counts."""
        host = self.host
        state = host.state
        if state is None:
            return {"token": "", "kind": "none", "text": "", "night": False}
        prompt = host.prompt()
        living = [int(seat) for seat in state.living()]
        everyone = [int(seat) for seat in sorted(state.players)]
        seats: list[int] = []
        how = SEAT_PROMPTS.get(prompt.action or "") if prompt.kind is PromptKind.SEATS else None
        if how == "all":
            seats = everyone
        elif how == "living":
            seats = living
        elif how == "nominable":  # not the speaker, not whom they have nominated already
            named = set(state.nominations.get(Seat(prompt.subject or 0), []))
            seats = [s for s in living if s != prompt.subject and Seat(s) not in named]
        elif how == "others":
            seats = [seat for seat in everyone if seat != prompt.subject]
        counts: list[int] = []
        if prompt.kind in COUNT_PROMPTS and prompt.max_count is not None:
            counts = list(range(prompt.max_count + 1))
        over = state.over
        buttons = offered(host)
        text = prompt_text(host, "web")
        clock = night_clock(host, self.book)  # the night step's window: the host's remote only
        return {
            "token": self.token(),
            "kind": "seats" if how else "count" if counts else prompt.kind.value,
            "text": f"{text} · {clock}" if clock else text,
            "night": state.phase.is_night,
            "seats": seats,
            "seats_min": prompt.seats_min,
            "seats_max": prompt.seats_max,
            "counts": counts,
            "buttons": {button: self.book.screen(key) for button, key in buttons.items()},
            "result": vote_result(host),
            "living": living,
            "everyone": everyone,
            "remove": host.engine.ruleset.removal,
            "over": over,
            "deal": self._deal_state(),
            "names": not state.phase.is_night and not over,
            "evening": self.evening is not None and not state.phase.is_night and not over,
        }

    # ---------------------------------------------------------------- inputs

    def token(self) -> str:
        """The question a page is showing: an input made against another one (a phone that
        comes back after minutes with an input it could not send) is not applied."""
        host = self.host
        state = host.state
        if state is None:
            return ""
        seen_state, seen_inputs, seen = self._token
        if seen_state is state and seen_inputs == len(host.accepted):
            return seen  # the same question: a burst of stale inputs costs nothing each
        prompt = host.prompt()
        typed = sum(1 for item in host.accepted if item.source is not Source.TIMER)
        token = f"{state.phase.value}.{state.day}.{state.night}.{prompt.kind.value}.{typed}"
        self._token = (state, len(host.accepted), token)
        return token

    def remote_input(self, connection: int, message: dict[str, Any]) -> None:
        """A remote's input (on the loop's thread): carried out once, answered every time."""
        ident = str(message.get("id", ""))
        if ident in self._done:
            self._answer(connection, self._done[ident])
            return
        if self._stale(message):  # an input for a question that is over: nothing changes
            reply = {"ok": False, "message": self.book.screen("web_stale")}
            frame = json.dumps({"type": "ack", "id": ident, **reply}, ensure_ascii=False)
            self._answer(connection, frame)
            return
        try:
            reply = self._carry_out(message)
        except Exception:  # noqa: BLE001 - a bad request never stops the game
            log.exception("a remote's input failed", extra=LOG_ONLY)
            reply = {"ok": False, "message": self.book.screen("web_bad_request")}
        frame = json.dumps({"type": "ack", "id": ident, **reply}, ensure_ascii=False)
        self.tick()  # the new state goes out before the answer: an answered page is up to date
        if ident:
            # A card is shown once: a replay of the same id gets the answer without it.
            kept = {key: value for key, value in reply.items() if key != "card"}
            self._done[ident] = json.dumps({"type": "ack", "id": ident, **kept}, ensure_ascii=False)
            while len(self._done) > REMEMBERED_INPUTS:
                self._done.popitem(last=False)
        self._answer(connection, frame)

    def _stale(self, message: dict[str, Any]) -> bool:
        """An input made against a question that is over (the token of a step gone by)."""
        if message.get("action") in ("protocol", "deal", "deal_seen", "name", "evening"):
            return False
        return message.get("token") != self.token()

    def _answer(self, connection: int, frame: str) -> None:
        if self.outlet is not None:
            self.outlet.answer(connection, frame)

    def _carry_out(self, message: dict[str, Any]) -> dict[str, Any]:
        host = self.host
        book = self.book
        night = host.state is not None and host.state.phase.is_night
        action = message.get("action")
        if action == "protocol":
            if night or host.state is None:
                return {"ok": False, "message": book.screen("night_refused")}
            return {"ok": True, "message": self.write_protocol()}
        if action in ("deal", "deal_seen"):
            return self._deal_step(str(action), message)
        if action in ("name", "evening") and (night or host.state is None):
            # Dark, as the keypad: the one neutral refusal, and nothing changes.
            return {"ok": False, "message": book.screen("night_refused")}
        if action == "evening":
            return self._evening(message.get("what"))
        if action == "name":
            return self._name(message)
        if message.get("token") != self.token():
            return {"ok": False, "message": book.screen("web_stale")}
        role = host.prompt().role  # the night step an entry goes to
        command = self._command(message)
        if command is None:
            return {"ok": False, "message": book.screen("web_bad_request")}
        ok, text = self._handled(command)
        if ok:
            return {"ok": True, "message": self._taken(role) if night else ""}
        return {"ok": False, "message": text}

    def _taken(self, role: str | None) -> str:
        """The phone's answer to a night entry taken: the step that took it, never the seat."""
        confirmed = Private(PrivateKind.ENTRY_CONFIRMED, role=role or "")
        return private_text(confirmed, self.book)

    def _handled(self, command: Command) -> tuple[bool, str]:
        """Hand ``command`` to the host as a keypad entry: whether it was taken, and the
        refusal the host gave (in words) when it was not."""
        host = self.host
        refused: list[str] = []
        hook = self._refusal_hook(refused)
        host.events.on_reject.append(hook)
        self.entering = True
        try:
            if isinstance(command, Submit) and host.refuses_out_of_step(
                command.input, host.step, host.clock.now(), SOURCE
            ):
                return False, self.book.screen("night_refused")
            ok = host.handle(command)
        finally:
            self.entering = False
            host.events.on_reject.remove(hook)
        return ok, refused[0] if refused else self.book.screen("night_refused")

    def _name(self, message: dict[str, Any]) -> dict[str, Any]:
        """A seat's name typed on the phone: the keyboard's `имя 5 Анна`, the same checks and
        the same refusals (the host's ``Name`` command)."""
        seat, text = message.get("number"), message.get("text", "")
        if not isinstance(seat, int) or isinstance(seat, bool) or not isinstance(text, str):
            return {"ok": False, "message": self.book.screen("web_bad_request")}
        ok, refusal = self._handled(Name(seat, text, SOURCE))
        if not ok:
            return {"ok": False, "message": refusal}
        name = self.host.names.as_dict().get(Seat(seat), "")
        key = "name_given" if name else "name_cleared"
        return {"ok": True, "message": self.book.screen(key, {"seat": seat, "name": name})}

    def _evening(self, what: object) -> dict[str, Any]:
        """`voicehost evening start|status|end` from the phone, by the CLI's own code."""
        if self.evening is None or what not in ("start", "status", "end"):
            return {"ok": False, "message": self.book.screen("web_bad_request")}
        ok, text = self.evening(str(what))
        return {"ok": ok, "message": text, "evening": True}

    def _refusal_hook(self, refused: list[str]) -> Callable[[str, Source], None]:
        host = self.host

        def hook(message: str, source: Source) -> None:
            state = host.state
            if state is not None and state.phase.is_night:
                # The same words whatever was refused, as on the shared screen.
                refused.append(host.book.screen("night_refused"))
            else:
                refused.append(message)

        return hook

    def _command(self, message: dict[str, Any]) -> Command | None:
        action = message.get("action")
        number = message.get("number")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            return None
        if action == "seats":
            seats = message.get("seats")
            if (
                not isinstance(seats, list)
                or not 1 <= len(seats) <= 13
                or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
                or not all(0 <= s <= 999 for s in seats)
            ):
                return None
            return Submit(EnterSeats(tuple(Seat(s) for s in seats)), SOURCE)
        names = {
            "end_speech": Action.END_SPEECH,
            "miss": Action.MISS,
            "foul": Action.FOUL,
            "remove": Action.REMOVE,
            "team_loss": Action.TEAM_LOSS,
            "count": Action.VOTE,
            "undo": Action.UNDO,
            "pause": Action.PAUSE,
        }
        chosen = names.get(str(action))
        if chosen is None:
            return None
        needs_number = chosen in (Action.FOUL, Action.REMOVE, Action.TEAM_LOSS, Action.VOTE)
        if needs_number and (number is None or not 0 <= number <= 999):
            return None
        return command_for(
            chosen,
            SOURCE,
            number if needs_number else None,
            confirmed=message.get("confirmed") is True,
        )

    # ---------------------------------------------------------------- pairing

    def phone_asks(self) -> None:
        """A phone asks to pair (the server's thread): the host's screen says how to approve
        it, never its number (the host reads that on the phone in their hand)."""
        now = time.monotonic()
        if now - self._asked_at < ASKS_SHOWN_EVERY:
            return
        self._asked_at = now
        self.host.post(Notice(f"ℹ {self.book.screen('web_phone_asks')}"))

    def remotes(self, number: int | None) -> tuple[bool, str]:
        """The host's word on the remotes (the loop's thread): approve the phone showing
        ``number``, drop them all (0), or say how many there are (None)."""
        pairing = self.pairing
        if number is None:
            return True, self.book.screen("web_remotes_count", {"count": pairing.count()})
        if number == 0:
            dropped = pairing.drop()
            if self.outlet is not None:
                self.outlet.drop_remotes()
            return True, self.book.screen("web_remotes_dropped", {"count": dropped})
        if not pairing.approve(number):
            return False, self.book.screen("web_pair_no_phone", {"number": number})
        return True, self.book.screen("web_remote_paired", {"count": pairing.count()})

    # ---------------------------------------------------------------- the private channel

    def private(self, message: Private) -> None:
        """The role's answer, for paired remotes only; they clear it after a few seconds."""
        if message.kind is PrivateKind.ENTRY_CONFIRMED or self.outlet is None:
            return
        seconds = self.host.settings.private.screen_seconds
        text = private_text(message, self.book)
        frame = json.dumps({"type": "private", "text": text, "seconds": seconds})
        self.outlet.private(frame)

    def clear_private(self) -> None:
        """The night step has ended: the paired remotes clear the answer now. Sent at the end of
        every night step, whatever was entered, so the frame itself tells nothing."""
        if self.outlet is not None:
            self.outlet.private(json.dumps({"type": "private_clear"}))

    # ---------------------------------------------------------------- dealing

    def _deal_state(self) -> dict[str, Any]:
        if not self.deal_by_device:
            return {"on": False}
        if self.deal is None:
            return {"on": True, "dealt": False, "open": self._deal_open()}
        return {"on": True, "dealt": True, "next": self.deal.next_seat()}

    def _deal_open(self) -> bool:
        """Cards may be dealt until the first role is registered."""
        state = self.host.state
        return state is not None and all(p.role is None for p in state.players.values())

    def _deal_step(self, action: str, message: dict[str, Any]) -> dict[str, Any]:
        book = self.book
        if not self.deal_by_device:
            return {"ok": False, "message": book.screen("web_deal_off")}
        if action == "deal":
            if self.deal is not None or not self._deal_open():
                return {"ok": False, "message": book.screen("web_deal_late")}
            self.deal = Deal.random(self.host.settings)
            return {"ok": True, "message": ""}
        deal = self.deal
        seat = message.get("seat")
        if deal is None or not isinstance(seat, int) or seat != deal.next_seat():
            return {"ok": False, "message": book.screen("web_deal_late")}
        deal.seen.add(seat)
        card = deal.cards[seat]
        # The card goes to this answer only, once: the page shows it until it is hidden, and
        # nothing can ask for it again.
        return {"ok": True, "message": "", "card": book.screen(f"card_{card.value}")}

    def _feed_deal(self) -> None:
        """Night 0 with dealt cards: each registration step is answered as it opens, like a
        keypad entry, so the step still runs its whole fixed window with nothing to type."""
        deal = self.deal
        host = self.host
        if deal is None or deal.next_seat() is not None or host.state is None:
            return
        if host.state.phase is Phase.NIGHT0_DEAL:  # the phone has dealt: «the cards are dealt»
            host.handle(Submit(EndSpeech(), SOURCE))
        prompt = host.prompt()
        role = prompt.role
        if prompt.action != "register" or role is None or role in deal.entered:
            return
        deal.entered.add(role)
        host.handle(Submit(EnterSeats(deal.seats_of(host.engine.registers(role))), SOURCE))


class WebPrivate:
    """The private channel with the web face beside it: an answer to an entry made on the phone
    goes to the phone alone (the role holds it); one made at the keypad or the keyboard goes to
    the LED (or the screen line) as before, and to the paired remotes."""

    def __init__(self, inner: PrivateChannel, face: WebFace | None = None) -> None:
        self.inner = inner
        self.face = face

    def show(self, message: Private) -> None:
        if self.face is None or not self.face.entering:
            self.inner.show(message)
        if self.face is None:
            return
        try:
            self.face.private(message)
        except Exception:  # noqa: BLE001 - the LED has shown it; the web face may be down
            log.exception("the remote could not be told the answer", extra=LOG_ONLY)

    def clear(self) -> None:
        self.inner.clear()
        if self.face is None:
            return
        try:
            self.face.clear_private()
        except Exception:  # noqa: BLE001 - the LED is dark; the web face may be down
            log.exception("the remote could not be told to clear the answer", extra=LOG_ONLY)

    def close(self) -> None:
        self.inner.close()


#: The screen keys the pages read (their words come from the game's phrase book). The cards, the
#: teams that win and the draw are the rule set's (``card_labels``).
WEB_LABELS = (
    "day",
    "night",
    "speaking",
    "lost_speech",
    "paused",
    "table",
    "candidates",
    "nominations",
    "vote_result",
    "time_up",
    "cards",
    "all_leave_votes",
    "private_ack",
    "night_refused",
    "protocol_winner_draw",
)


def web_labels(host: Host) -> dict[str, str]:
    """Every text the pages show, from the book: ``web_*`` keys, those of ``WEB_LABELS`` and the
    rule set's cards and winners (``card_labels``)."""
    book = host.book
    keys = [key for key in book.screen_keys() if key.startswith("web_")] + list(WEB_LABELS)
    labels = {}
    for key in keys:
        names = {p.name: f"{{{p.name}}}" for p in book.placeholders(key, "screen")}
        labels[key] = book.screen(key, names)  # the pages fill in {seat}, {day}...
    labels.update(card_labels(host))
    return labels


def card_labels(host: Host) -> dict[str, str]:
    """The rule set's cards as the board names them at the end (``card_<role>``, the book's
    word), each card's team (``team_<role>``: its colour on the board) and each team's win
    (``protocol_winner_<team>``)."""
    book = host.book
    ruleset = host.engine.ruleset
    cards = dict.fromkeys([*ruleset.roles, *ruleset.end_cards, Role.CIVILIAN, *host.engine.deck()])
    labels: dict[str, str] = {}
    for role in cards:
        labels[f"card_{role.value}"] = book.screen(f"card_{role.value}")
        labels[f"team_{role.value}"] = ruleset.team(role).value
    teams = {ruleset.team(role) for role in cards}
    for team in (team for team in Team if team in teams):  # in the game's order: same bytes
        labels[f"protocol_winner_{team.value}"] = book.screen(f"protocol_winner_{team.value}")
    return labels
