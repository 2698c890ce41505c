"""Pairs of games that differ only in what the table may not know, and what the table noticed.

A ``Plan`` is the public course of a game: who leaves by the vote each day, whom the night takes,
whose night the «путана» spent, what the club's Commissar's find is said to be, how many entries
each night step gets and which of them are refused. A ``World`` is one way the secrets can lie
behind it: the deal, and (from its seed) whom each role checks or heals and why a refused entry
was refused (a typo, a seat that has left, the Doctor's last patient, a second check, a
self-check...). ``pairs(variant)`` draws a plan and two worlds that the rules say the table
cannot tell apart: every card the table is told when its player leaves is the same in both, and
so is the winner after every departure.

``play(variant, plan, world)`` plays the game on the real Host on a fake clock, every entry on the
keypad (the night's keys at the same moments in both worlds), and returns what the table
noticed: each announcement and cue with its moment (a speech takes time by its length), the
board's frame (the web face's) and the terminal's status lines and log (by night without the
question, which is the host's own: FIIM's names whose shot it is). The end of the game's cards,
shown when it is over, are left out: they are the end's to tell.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from voicehost import config
from voicehost.clock import FakeClock
from voicehost.config import Settings, with_preset
from voicehost.console.terminal import LogScreen
from voicehost.console.text import ScreenPrivateChannel
from voicehost.console.view import status_lines
from voicehost.game.effects import PromptKind
from voicehost.game.engine import Engine
from voicehost.game.model import Cue, Phase, Role, Seat, Team
from voicehost.game.state import GameState, Player
from voicehost.host.loop import Host
from voicehost.keypad.controller import KeypadController
from voicehost.phrases import PhraseBook
from voicehost.ports import Key, Utterance
from voicehost.rulesets import engine_for, preset_path
from voicehost.web.face import WebFace

#: Seconds between the keys of one entry (the digits come before the Enter).
KEY_GAP = 0.3
#: Seconds into a night step when its first entry's Enter is pressed, and between two entries.
NIGHT_FIRST, NIGHT_GAP = 2.0, 1.5
#: How long an announcement takes, by its length: words of different length take different time.
SECONDS_PER_CHARACTER = 0.05
#: Days played: night 0, day 1, night 1, day 2, night 2, day 3 (its vote), then the comparison.
DAYS = 3
#: The phrases that open the cards at the end (the end's to tell, not a night's secret).
END_CARDS = ("game.cards", "game.card", "game.card_many")


@dataclass(frozen=True)
class Variant:
    """A rule set played with one way of showing a card that leaves (open, closed, half_closed):
    the city's own setting, or a copy of the preset's file with another ``cards:`` line."""

    preset: str
    cards: str
    #: settings of config.yaml to play with, as (section, key, value): ("rules", "acquaintance",
    #: True) is `rules: acquaintance: true`; ("", "players", 6) is `players: 6`
    options: tuple[tuple[str, str, Any], ...] = ()

    def __str__(self) -> str:
        extra = "".join(f"-{key}={value}" for _, key, value in self.options)
        return f"{self.preset}-{self.cards}{extra}"

    def settings(self) -> Settings:
        settings = with_preset(config.load(None), self.preset)
        for section, key, value in self.options:
            if not section:
                settings = dataclasses.replace(settings, **{key: value})
                continue
            part = dataclasses.replace(getattr(settings, section), **{key: value})
            settings = dataclasses.replace(settings, **{section: part})
        if self.preset == "city":
            return dataclasses.replace(
                settings, city=dataclasses.replace(settings.city, cards=self.cards)
            )
        text = preset_path(self.preset).read_text(encoding="utf-8")
        if re.search(rf"^cards: {self.cards}\b", text, re.MULTILINE):
            return settings
        text = re.sub(r"^cards: \w+", f"cards: {self.cards}", text, count=1, flags=re.MULTILINE)
        return dataclasses.replace(settings, ruleset_text=text)


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Night:
    """What the table may know of a night: whom it takes (None: nobody), the «путана»'s client
    (named in the morning), the club Commissar's find as the town hears it, and each step's
    entries by role, in order: "ok" (taken), "no" (refused) or "undo" (the keypad's undo).
    ``saved``: the victim is shot and the Doctor's heal saves them (the morning says someone
    was saved). ``foul``: a seat the host gives a foul after the night's first step, which
    disqualifies them at night (told in the morning, as the rules have it)."""

    victim: int | None
    client: int | None
    found: bool
    entries: dict[Role, tuple[str, ...]]
    saved: bool = False
    foul: int | None = None


@dataclass(frozen=True)
class Day:
    """Whom the town votes out, and whether each speaker tries to put up a second candidate."""

    out: int
    second: bool


@dataclass(frozen=True)
class Plan:
    """The public course: day 1, night 1, day 2, night 2, day 3."""

    days: tuple[Day, ...]
    nights: tuple[Night, ...]


@dataclass(frozen=True)
class World:
    """One way the secrets lie: the deal, and the seed of every hidden choice."""

    deal: dict[int, Role]
    seed: int

    def seats(self, *roles: Role) -> list[int]:
        return [seat for seat, role in sorted(self.deal.items()) if role in roles]

    def holder(self, role: Role) -> int | None:
        seats = self.seats(role)
        return seats[0] if seats else None


def told(engine: Engine, role: Role) -> str | None:
    """What the table hears of a card whose player leaves."""
    if engine.cards == "open":
        return role.value
    if engine.cards == "half_closed":
        return engine.team_of(role).value
    return None


def killers(engine: Engine, world: World, alive: set[int], night: Night) -> list[Role]:
    """Who can shoot the night's victim in ``world`` (the black team, the Maniac): none when
    the plan does not fit this deal (the victim immortal, a shot the «путана» blocks, the
    Doctor who is to save the victim gone, blocked or the victim himself)."""
    victim = night.victim
    assert victim is not None
    spec = engine.ruleset.roles.get(world.deal[victim])
    if victim not in alive or (spec is not None and spec.immortal):
        return []
    if night.saved:
        doctor = world.holder(Role.DOCTOR)
        if doctor not in alive or doctor in (night.client, victim):
            return []
    black = [s for s in alive if engine.team_of(world.deal[s]) is Team.BLACK]
    client = world.deal.get(night.client or 0)
    blocked = client is not None and engine.team_of(client) is Team.BLACK  # even if fouled later
    found: list[Role] = []
    if black and not blocked:
        found.append(Role.MAFIA)
    maniac = world.holder(Role.MANIAC)
    if engine.enabled(Role.MANIAC) and maniac in alive and maniac not in (night.client, victim):
        found.append(Role.MANIAC)
    return found


def killer(engine: Engine, world: World, alive: set[int], night: Night) -> Role | None:
    """Who shoots the victim in ``world``: a hidden choice where two could (its seed's)."""
    found = killers(engine, world, alive, night)
    return found[world.seed % len(found)] if found else None


def night_fouls_disqualify(engine: Engine) -> bool:
    """A foul at night disqualifies at once (the club's and the city's rules)."""
    return bool(
        engine.ruleset.fouls == "night_foul_or_limit_disqualifies"
        and engine.rules.night_foul_disqualifies
    )


def announced_roles(engine: Engine) -> tuple[Role, ...]:
    """Cards whose presence the morning tells by the rules, whatever the cards show: the
    «путана»'s client is named every morning she is at the table; the club's Commissar's find
    is told every morning he is."""
    roles: list[Role] = []
    if engine.enabled(Role.PUTANA):
        roles.append(Role.PUTANA)
    if "checks" in engine.ruleset.morning and engine.enabled(Role.COMMISSAR):
        roles.append(Role.COMMISSAR)
    return tuple(roles)


def course(engine: Engine, plan: Plan, world: World) -> list[Any] | None:
    """What the rules let the table know of ``plan`` played over ``world`` (each departure's told
    card and the winner after it, who of ``announced_roles`` is at the table each night and
    morning), or None when the plan cannot be played so (nobody can take a victim, a client is
    the «путана» herself)."""
    alive = set(world.deal)
    trace: list[Any] = []

    def leave(seat: int) -> bool:
        alive.discard(seat)
        players = {
            Seat(s): Player(Seat(s), role, s in alive) for s, role in sorted(world.deal.items())
        }
        winner = engine.winner(GameState(players=players, phase=Phase.DISCUSSION))
        trace.append((seat, told(engine, world.deal[seat]), winner))
        return winner is not None

    def present(when: str) -> None:
        trace.append((when, [world.holder(role) in alive for role in announced_roles(engine)]))

    for index, day in enumerate(plan.days):
        if day.out not in alive:
            return None
        if leave(day.out) or index >= len(plan.nights):
            break
        night = plan.nights[index]
        present("night")
        putana = world.holder(Role.PUTANA)
        if night.client is not None and (night.client == putana or night.client not in alive):
            return None
        if night.foul is not None:
            if night.foul not in alive:
                return None
            if leave(night.foul):
                break
        if night.victim is not None:
            if killer(engine, world, alive, night) is None:
                return None
            won = not night.saved and leave(night.victim)
            present("morning")  # the Commissar's find is told before the winner
            if won:
                break
        else:
            present("morning")
    return trace


def over(trace: list[Any] | None) -> bool:
    """The course ends in a win."""
    return any(len(item) == 3 and item[2] is not None for item in trace or [])


@st.composite
def pairs(draw: st.DrawFn, variant: Variant) -> tuple[Plan, World, World]:
    """A plan and two worlds the table cannot tell apart by the rules."""
    engine = engine_for(variant.settings().game)
    deck = engine.deck()
    seats = list(range(1, len(deck) + 1))
    cards = draw(st.permutations(deck))
    first = World(dict(zip(seats, cards, strict=True)), draw(st.integers(0, 999)))
    plan = _draw_plan(engine, first, draw)
    second = World(dict(first.deal), draw(st.integers(0, 999)))
    wanted = course(engine, plan, first)
    order = draw(st.permutations(seats))
    for one, other in zip(order, order[1:], strict=False):  # a swap stays when the table
        deal = dict(second.deal)  # still cannot tell
        deal[one], deal[other] = deal[other], deal[one]
        candidate = World(deal, second.seed)
        if course(engine, plan, candidate) == wanted:
            second = candidate
    return plan, first, second


def _draw_plan(engine: Engine, world: World, draw: st.DrawFn) -> Plan:
    """A public course that ``world`` can play, drawn step by step."""
    alive = set(world.deal)
    days: list[Day] = []
    nights: list[Night] = []
    client: int | None = None
    for number in range(1, DAYS + 1):
        out = draw(st.sampled_from(sorted(alive)))
        days.append(Day(out, draw(st.booleans())))
        if over(course(engine, Plan(tuple(days), tuple(nights)), world)):
            break
        alive.discard(out)
        if number == DAYS:
            break
        putana = world.holder(Role.PUTANA)
        clients = [s for s in sorted(alive) if s != putana and s != client]
        client = draw(st.sampled_from(clients)) if putana in alive and clients else None
        entries = {
            step.role: draw(_entries(engine, step.role))
            for step in engine.ruleset.night_steps
            if engine.enabled(step.role)
        }
        found = draw(st.booleans())
        foul = None
        if night_fouls_disqualify(engine) and draw(st.integers(0, 3)) == 0:
            foul = draw(st.sampled_from(sorted(alive)))
            trial = Plan(tuple(days), (*nights, Night(None, client, found, entries, foul=foul)))
            if over(course(engine, trial, world)):
                foul = None
        if foul is not None:
            alive.discard(foul)
        possible: list[int | None] = [None]
        for seat in sorted(alive):
            night = Night(seat, client, found, entries, foul=foul)
            if killer(engine, world, alive, night) is not None:
                possible.append(seat)
        victim = draw(st.sampled_from(possible))
        saved = False
        again = bool(nights) and nights[-1].saved and nights[-1].victim == victim
        if victim is not None and not again and draw(st.integers(0, 3)) == 0:
            trial = Night(victim, client, found, entries, True, foul)
            saved = killer(engine, world, alive, trial) is not None
        nights.append(Night(victim, client, found, entries, saved, foul))
        if victim is not None and not saved:
            if over(course(engine, Plan(tuple(days), tuple(nights)), world)):
                break
            alive.discard(victim)
    return Plan(tuple(days), tuple(nights))


def _entries(engine: Engine, role: Role) -> st.SearchStrategy[tuple[str, ...]]:
    action = engine.action(engine.ruleset.roles[role])
    if action in ("check", "check_or_kill"):  # a check seen cannot be undone
        return st.sampled_from([("ok",), ("no", "ok"), ("ok", "no"), ("ok", "undo")])
    return st.sampled_from([("ok",), ("no", "ok"), ("ok", "undo", "ok")])


# --------------------------------------------------------------------------- the table


@dataclass
class Noticed:
    """What the table noticed, in order: (moment, what, detail)."""

    events: list[tuple[float, str, Any]] = field(default_factory=list)
    state: GameState | None = None

    def public(self) -> list[tuple[float, str, Any]]:
        """Everything up to the opening of the cards at the end."""
        out = []
        for event in self.events:
            if event[1] == "say" and event[2][0] in END_CARDS:
                break
            out.append(event)
        return out


class Table:
    """Speaker and CuePlayer on the fake clock: each announcement takes time by its length."""

    def __init__(self, clock: FakeClock, noticed: Noticed) -> None:
        self.clock = clock
        self.noticed = noticed
        self.until = 0.0

    def say(self, utterance: Utterance) -> None:
        start = max(self.clock.now(), self.until)
        self.until = start + SECONDS_PER_CHARACTER * len(utterance.text)
        self.noticed.events.append((round(start, 6), "say", (utterance.key, utterance.text)))

    def busy_until(self) -> float:
        return max(self.clock.now(), self.until)

    def play(self, cue: Cue, at: float | None = None) -> None:
        moment = self.clock.now() if at is None else at
        self.noticed.events.append((round(moment, 6), "cue", cue.value))

    def lead_seconds(self) -> float:
        return 0.0

    def close(self) -> None:
        """Nothing to release."""


DIGIT_KEYS = {str(n): Key(str(n)) for n in range(10)}


class Game:
    """One game of ``plan`` over ``world``, driven as a host at the keypad would."""

    def __init__(self, variant: Variant, plan: Plan, world: World) -> None:
        self.settings = variant.settings()
        self.plan = plan
        self.world = world
        self.random = random.Random(world.seed)
        self.clock = FakeClock()
        self.noticed = Noticed()
        self.table = Table(self.clock, self.noticed)
        self.screen = LogScreen()
        book = PhraseBook.load(self.settings.language)
        self.host = Host(
            self.settings, book, self.clock,
            speaker=self.table, cues=self.table, screen=self.screen,
            private=ScreenPrivateChannel(self.screen, book=book),
        )  # fmt: skip
        self.engine = self.host.engine
        self.keypad = KeypadController(self.host, self.table, self.clock)
        self.face = WebFace(self.host, write_protocol=lambda: "")
        self._board = ""
        self._screen: tuple[str, ...] = ()
        self._killers: dict[int, Role | None] = {}

    # ---- what the table sees

    def look(self) -> None:
        """The board's frame and the terminal's lines (by night but the question), noted when
        they change."""
        now = round(self.clock.now(), 6)
        board, _ = self.face.frames()
        if board != self._board:
            self._board = board
            self.noticed.events.append((now, "board", board))
        state = self.host.state
        if state is not None and not state.over:
            status = status_lines(self.host)
            if state.phase.is_night:
                status = status[:-1]
            lines = tuple(status) + tuple(self.screen.lines)
            if lines != self._screen:
                self._screen = lines
                self.noticed.events.append((now, "screen", lines))

    # ---- time and keys

    def advance_to(self, when: float) -> None:
        """Let time pass to ``when``, each timer event at its own moment."""
        host = self.host
        while (deadline := host.next_deadline()) is not None and deadline <= when:
            self.clock.set(max(deadline, self.clock.now()))
            host.process_due()
            self.look()
        self.clock.set(max(when, self.clock.now()))

    def next_event(self) -> bool:
        deadline = self.host.next_deadline()
        if deadline is None:
            return False
        self.clock.set(max(deadline, self.clock.now()))
        self.host.process_due()
        self.look()
        return True

    def press(self, key: Key) -> None:
        self.keypad.on_key(key)
        self.host.process_pending()
        self.look()

    def enter(self, at: float, seat: int | None, *, finish: bool = True) -> None:
        """A number whose Enter comes at ``at``, its digits just before; None: the miss key."""
        if seat is None:
            self.advance_to(at)
            self.press(Key.MISS)
            return
        digits = str(seat)
        for index, digit in enumerate(digits):
            self.advance_to(at - KEY_GAP * (len(digits) - index))
            self.press(DIGIT_KEYS[digit])
        self.advance_to(at)
        if finish:
            self.press(Key.ENTER)

    def end_speech(self, at: float) -> None:
        self.advance_to(at)
        self.press(Key.END_SPEECH)

    # ---- the game

    def play(self) -> Noticed:
        host = self.host
        host.start()
        self.look()
        done: set[Any] = set()
        for _ in range(2000):
            state = host.state
            assert state is not None
            if host.over or (state.phase.is_night and state.night > len(self.plan.nights)):
                break
            moment = self._moment()
            if moment not in done:
                done.add(moment)
                self._act()
                continue
            if not self.next_event():
                raise AssertionError(f"stuck at {state.phase} asking {host.prompt()}")
        else:
            raise AssertionError("the game did not reach its end")
        self.noticed.state = host.state
        return self.noticed

    def _moment(self) -> Any:
        state = self.host.state
        assert state is not None
        if state.timer is not None:  # a timed step is acted on once
            return (state.phase, state.timer.timer_id, state.current_speaker)
        return (state.phase, len(self.host.accepted), state.current_speaker, state.vote_index)

    def _start(self) -> float:
        timer = self.host.timer
        return timer.starts_at if timer is not None else self.clock.now()

    def _act(self) -> None:
        host = self.host
        state = host.state
        assert state is not None
        prompt = host.prompt()
        phase = state.phase
        start = self._start()
        step = self.engine.ruleset.step_of(phase.value)
        if phase is Phase.NIGHT0_DEAL:
            self.end_speech(self.clock.now() + 1.0)
        elif step is not None and phase.value.startswith("night0_"):
            for index, seat in enumerate(self.world.seats(*self.engine.registers(step.role.value))):
                self.enter(start + NIGHT_FIRST + NIGHT_GAP * index, seat)
        elif step is not None:
            self._night_step(step.role, start)
        elif state.vote_settling is not None:
            self.end_speech(start + 1.5)  # the count is right
        elif prompt.kind is PromptKind.VOTE_COUNT:
            day = self.plan.days[state.day - 1]
            count = (prompt.max_count or 0) if prompt.subject == day.out else 0
            self.enter(self.clock.now() + 1.0, count)
        elif prompt.kind is PromptKind.THIRD_VOTE_COUNT:
            self.enter(self.clock.now() + 1.0, 0)
        elif phase is Phase.NOMINATION and state.current_speaker is not None:
            self._nominate(state.current_speaker, start, prompt.speech_running)
        elif prompt.action == "best_move":
            others = [int(s) for s in state.living() if s != prompt.subject][:3]
            for index, seat in enumerate(others):
                self.enter(start + 1.0 + NIGHT_GAP * index, seat)
            self.end_speech(start + 6.0)
        elif prompt.speech_running:
            self.end_speech(start + 2.0)

    def _nominate(self, speaker: Seat, start: float, running: bool) -> None:
        state = self.host.state
        assert state is not None
        day = self.plan.days[state.day - 1]
        living = [int(s) for s in state.living()]
        other = next(s for s in living if s not in (day.out, speaker))
        first = other if speaker == day.out else day.out
        if self.engine.ruleset.nominations == "in_own_speech_one":
            named = {s for seats in state.nominations.values() for s in seats}
            if running and first not in named and len(named) < 2:
                self.enter(start + 1.0, first)
            self.end_speech(start + 2.5)
            return
        self.enter(start + 1.0, first)
        if day.second and speaker != other and first != other:
            self.enter(start + 1.6, other)
        if running:
            self.end_speech(start + 2.5)
        elif not state.nominations.get(speaker):
            self.enter(self.clock.now() + 1.0, first)

    # ---- the night: each role's keys, the same moments in every world

    def _night_step(self, role: Role, start: float) -> None:
        state = self.host.state
        assert state is not None
        night = self.plan.nights[state.night - 1]
        pattern = night.entries.get(role, ("ok",))
        prompt = self.host.prompt()
        turns = prompt.turns if prompt.turns else 1
        index = 0
        for _ in range(turns):
            for kind in pattern:
                at = start + NIGHT_FIRST + NIGHT_GAP * index
                index += 1
                if kind == "no":
                    self.enter(at, self._refused(role, state))
                elif kind == "undo":
                    self.advance_to(at)
                    self.press(Key.UNDO)
                else:
                    self._taken(role, night, at)
        first = next(s for s in self.engine.ruleset.night_steps if self.engine.enabled(s.role))
        if night.foul is not None and role is first.role:
            at = start + NIGHT_FIRST + NIGHT_GAP * index
            self.advance_to(at - 1.0)
            self.press(Key.FOUL)
            self.enter(at, night.foul)

    def _alive(self) -> list[int]:
        state = self.host.state
        assert state is not None
        return [int(s) for s in state.living()]

    def _taken(self, role: Role, night: Night, at: float) -> None:
        """An entry the rules take: the night's public outcome, and hidden choices freely."""
        state = self.host.state
        assert state is not None
        spec = self.engine.ruleset.roles[role]
        action = self.engine.action(spec)
        alive = self._alive()
        holder = self.world.holder(role)
        present = holder in alive if role is not Role.MAFIA else bool(self._black())
        if action == "kill":
            if night.victim is not None:
                if state.night not in self._killers:  # before the night's foul, without it
                    living = set(alive) - {night.foul}
                    self._killers[state.night] = killer(self.engine, self.world, living, night)
                who = self._killers[state.night]
                self.enter(at, night.victim if who is role else None)
            elif self.engine.ruleset.agreement == "unanimous" and role is Role.MAFIA:
                self.enter(at, self._disagreeing_shot(alive))
            else:
                self.enter(at, None)
            return
        if action == "block":
            self.enter(at, night.client if present and night.client else self._any(alive, holder))
            return
        if not present:
            self.enter(at, self.random.choice(alive))
            return
        if action in ("check", "check_or_kill"):
            self.enter(at, self._check(role, night, alive, holder))
            return
        if action == "heal":
            self.enter(at, self._heal(role, night, alive, holder))
            return
        self.enter(at, self.random.choice(alive))

    def _disagreeing_shot(self, alive: list[int]) -> int | None:
        """No agreed shot: the first living black player shoots someone and the others miss,
        or all miss (a hidden choice); a lone shooter misses."""
        first = self.host.prompt().turn == 1 and len(self._black()) > 1
        return self.random.choice([None, *alive]) if first else None

    def _black(self) -> list[int]:
        return [s for s in self._alive() if self.engine.team_of(self.world.deal[s]) is Team.BLACK]

    def _any(self, alive: list[int], but: int | None) -> int:
        return self.random.choice([s for s in alive if s != but])

    def _check(self, role: Role, night: Night, alive: list[int], holder: int | None) -> int:
        spec = self.engine.ruleset.roles[role]
        pool = sorted(self.world.deal) if spec.any_seat else alive
        if not self.engine.value(spec.self_target):
            pool = [s for s in pool if s != holder]
        if "checks" in self.engine.ruleset.morning and role is Role.COMMISSAR:
            black = set(self._black())
            pool = [s for s in pool if (s in black) == night.found and s in alive] or pool
        return self.random.choice(pool)

    def _heal(self, role: Role, night: Night, alive: list[int], holder: int | None) -> int:
        state = self.host.state
        assert state is not None
        spec = self.engine.ruleset.roles[role]
        if night.saved:
            return int(night.victim)  # type: ignore[arg-type]
        pool = [s for s in alive if s != night.victim and s not in self._saved_later()]
        if not self.engine.value(spec.same_twice):
            pool = [s for s in pool if s != state.previous.get(role)]
        if not self.engine.value(spec.self_target) or (spec.self_once and role in state.used_once):
            pool = [s for s in pool if s != holder]
        return self.random.choice(pool)

    def _saved_later(self) -> set[int]:
        """Tomorrow night's saved victim: not healed tonight (a patient is not healed twice
        running), nor the Doctor's own seat (his one self-heal is kept)."""
        state = self.host.state
        assert state is not None
        later = self.plan.nights[state.night :][:1]
        out = {n.victim for n in later if n.saved and n.victim is not None}
        return out | ({self.world.holder(Role.DOCTOR) or 0} if later and later[0].saved else set())

    def _refused(self, role: Role, state: GameState) -> int:
        """A seat the rules refuse at this step, for a reason this world allows: a typo, a seat
        that has left, or one that only the role's own secrets refuse."""
        spec = self.engine.ruleset.roles[role]
        action = self.engine.action(spec)
        alive = self._alive()
        holder = self.world.holder(role)
        present = holder in alive if role is not Role.MAFIA else bool(self._black())
        reasons: list[int] = [0, len(self.world.deal) + 1 + self.random.randrange(9)]
        departed = [s for s in sorted(self.world.deal) if s not in alive]
        if departed and not (action in ("check", "check_or_kill") and spec.any_seat):
            reasons.append(self.random.choice(departed))
        actions = state.night_actions
        if present and action in ("check", "check_or_kill") and role in actions.checks:
            reasons.append(self.random.choice(alive))  # a second check
        previous = state.previous.get(role)
        if present and previous in alive and not self.engine.value(spec.same_twice):
            reasons.append(int(previous))  # last night's patient, or client
        if present and holder is not None and action in ("check", "heal", "block"):
            self_refused = not self.engine.value(spec.self_target) or (
                spec.self_once and role in state.used_once
            )
            if self_refused or action == "block":
                reasons.append(holder)
        return self.random.choice(reasons)


def play(variant: Variant, plan: Plan, world: World) -> Noticed:
    return Game(variant, plan, world).play()


def first_difference(
    one: list[tuple[float, str, Any]], other: list[tuple[float, str, Any]]
) -> Iterator[str]:
    """The lines around the first place where two tables noticed different things."""
    index = next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )
    for i in range(max(0, index - 4), index + 2):
        for name, events in (("A", one), ("B", other)):
            if i < len(events):
                mark = ">>" if i == index else "  "
                yield f"{mark} {name} {events[i]}"
