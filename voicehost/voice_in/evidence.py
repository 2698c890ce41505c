"""The evidence of a look, recorded: what each hearing, referee and the room said about one
stretch, and the decision made on it, as JSON lines that replay without a model.

The Listener asks lazily (a referee only when a rule needs it), so a record holds exactly what
was asked; a replay that asks for more than was recorded is a difference (:class:`Unrecorded`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from voicehost.voice_in.look import Look, Room, hear_out, judge
from voicehost.voice_in.rule import (
    AloneRule,
    Decision,
    HeardWord,
    Hypothesis,
    Utterance,
    Verdict,
)


@dataclass(frozen=True)
class HearingRecord:
    """One hearing of a look's stretch and what was asked of it."""

    hearing: str
    """Which hearing (``look.CAPTURED``, ``CLEANED``, ...)."""
    words: tuple[HeardWord, ...]
    """The grammar's best hearing (audio seconds)."""
    cleaned: tuple[float, float] | None = None
    """For a cleaned hearing, the times its audio runs from and to."""
    referees: tuple[Hypothesis | None, ...] = ()
    """Each referee's best hearings, None where that referee was not asked."""
    second: Hypothesis | None = None
    """The grammar's best hearings, when its second choice was asked for."""


@dataclass(frozen=True)
class LookRecord:
    """A look as it happened: the stretch, the room, every hearing asked, the decision."""

    take: str
    """The recording it came from (for a person reading a difference)."""
    utterance: Utterance
    now: float
    """Audio time at which the decision was made."""
    room: Room
    """What the room said: the speaker's level and the room's."""
    referees: int
    can_doubt: bool
    hearings: tuple[HearingRecord, ...]
    decision: Decision | None


class Unrecorded(LookupError):
    """A replay asked for evidence the record does not hold: the decision code asks otherwise."""


@dataclass
class Recorder:
    """The answers of one look gathered as they are given (the Listener fills it in)."""

    referees: int
    can_doubt: bool
    room: Room = Room(-120.0, None)
    order: list[str] = field(default_factory=list)
    words: dict[str, tuple[HeardWord, ...]] = field(default_factory=dict)
    cleaned: dict[str, tuple[float, float] | None] = field(default_factory=dict)
    refereed: dict[tuple[str, int], Hypothesis] = field(default_factory=dict)
    second: dict[str, Hypothesis] = field(default_factory=dict)

    def heard(self, hearing: str, words: tuple[HeardWord, ...], cleaned: Any) -> None:
        self.order.append(hearing)
        self.words[hearing] = words
        self.cleaned[hearing] = cleaned

    def record(
        self, take: str, utterance: Utterance, now: float, decision: Decision | None
    ) -> LookRecord:
        hearings = tuple(
            HearingRecord(
                name,
                self.words[name],
                self.cleaned[name],
                tuple(self.refereed.get((name, i)) for i in range(self.referees))
                if any(key[0] == name for key in self.refereed)
                else (),
                self.second.get(name),
            )
            for name in self.order
        )
        return LookRecord(
            take, utterance, now, self.room, self.referees, self.can_doubt, hearings, decision
        )


class RecordedEars:
    """:class:`~voicehost.voice_in.look.Ears` that answer from a record; ``asked`` holds what
    the replay asked."""

    def __init__(self, look: LookRecord) -> None:
        self.room = look.room
        self.referees = look.referees
        self.can_doubt = look.can_doubt
        self._hearings = {hearing.hearing: hearing for hearing in look.hearings}
        self.asked: set[tuple[str, str, int]] = set()

    def _hearing(self, hearing: str, what: str, index: int = 0) -> HearingRecord:
        found = self._hearings.get(hearing)
        if found is None:
            raise Unrecorded(f"the {hearing} hearing was never made")
        self.asked.add((hearing, what, index))
        return found

    def words(self, hearing: str) -> tuple[HeardWord, ...]:
        return self._hearing(hearing, "words").words

    def cleaned(self, hearing: str) -> tuple[float, float] | None:
        return self._hearing(hearing, "words").cleaned

    def referee(self, hearing: str, index: int) -> Hypothesis:
        found = self._hearing(hearing, "referee", index)
        heard = found.referees[index] if index < len(found.referees) else None
        if heard is None:
            raise Unrecorded(f"referee {index} was never asked of the {hearing} hearing")
        return heard

    def second(self, hearing: str) -> Hypothesis:
        heard = self._hearing(hearing, "second").second
        if heard is None:
            raise Unrecorded(f"the second choice was never asked of the {hearing} hearing")
        return heard


def recorded_questions(look: LookRecord) -> set[tuple[str, str, int]]:
    """What the look asked when it was recorded (as :attr:`RecordedEars.asked` counts it)."""
    asked: set[tuple[str, str, int]] = set()
    for hearing in look.hearings:
        asked.add((hearing.hearing, "words", 0))
        asked.update((hearing.hearing, "referee", i) for i, h in enumerate(hearing.referees) if h)
        if hearing.second is not None:
            asked.add((hearing.hearing, "second", 0))
    return asked


def decide(rule: AloneRule, tuning: Any, look: LookRecord) -> tuple[Look, Decision | None]:
    """The look and the decision the code makes now on a recorded look's evidence (Unrecorded
    when it asks for evidence the record lacks)."""
    ears = RecordedEars(look)
    seen = hear_out(rule, tuning, look.utterance, ears)
    evidence = seen[0]
    rule.reset()
    decision = judge(rule, look.utterance, evidence, look.now)
    if ears.asked != recorded_questions(look):
        raise Unrecorded(f"asked {sorted(ears.asked)}, recorded {sorted(recorded_questions(look))}")
    return seen, decision


def differences(lines: Iterable[str], tuning: Any) -> list[str]:
    """Every look of a recorded set (JSON lines) whose decision, or whose questions, differ
    when decided again with ``tuning`` (a ``HearingTuning``); empty: none."""
    header, looks = read_set(lines)
    rule_tuning = replace(tuning, tail_seconds=header["tail_seconds"])
    rule = AloneRule(header["stop_words"], rule_tuning)
    found: list[str] = []
    for number, look in enumerate(looks, 1):
        span = f"{look.utterance.start:.2f}-{look.utterance.end:.2f} s"
        where = f"look {number} ({look.take}, {span})"
        try:
            _seen, decision = decide(rule, tuning, look)
        except Unrecorded as exc:
            found.append(f"{where}: {exc}")
            continue
        if decision != look.decision:
            found.append(f"{where}:\n  recorded {look.decision}\n  today    {decision}")
    return found


# -- JSON lines ---------------------------------------------------------------------------------


def _words(words: Iterable[HeardWord]) -> list[list[Any]]:
    return [[w.word, w.start, w.end, w.confidence] for w in words]


def _heard_words(raw: list[list[Any]]) -> tuple[HeardWord, ...]:
    return tuple(HeardWord(str(w), float(s), float(e), float(c)) for w, s, e, c in raw)


def _hypothesis(heard: Hypothesis | None) -> dict[str, Any] | None:
    if heard is None:
        return None
    return {
        "words": _words(heard.words),
        "final": heard.final,
        "alternatives": [[score, _words(words)] for score, words in heard.alternatives],
    }


def _from_hypothesis(raw: dict[str, Any] | None) -> Hypothesis | None:
    if raw is None:
        return None
    alternatives = tuple((float(s), _heard_words(w)) for s, w in raw["alternatives"])
    return Hypothesis(_heard_words(raw["words"]), bool(raw["final"]), alternatives)


def _decision(decision: Decision | None) -> dict[str, Any] | None:
    if decision is None:
        return None
    return {
        "verdict": str(decision.verdict),
        "word": _words([decision.word])[0],
        "at": decision.at,
        "reason": decision.reason,
        "phrase": decision.phrase,
        "params": [list(pair) for pair in decision.params],
    }


def _from_decision(raw: dict[str, Any] | None) -> Decision | None:
    if raw is None:
        return None
    return Decision(
        Verdict(raw["verdict"]), _heard_words([raw["word"]])[0], float(raw["at"]),
        str(raw["reason"]), str(raw["phrase"]), tuple((k, v) for k, v in raw["params"]),
    )  # fmt: skip


def to_json(look: LookRecord) -> str:
    """One line of JSON for a recorded look (floats exact: they replay bit for bit)."""
    u = look.utterance
    data = {
        "take": look.take,
        "utterance": [u.start, u.end, None if u.quiet_before == float("inf") else u.quiet_before],
        "now": look.now,
        "room": list(look.room),
        "referees": look.referees,
        "can_doubt": look.can_doubt,
        "hearings": [
            {
                "hearing": h.hearing,
                "words": _words(h.words),
                "cleaned": None if h.cleaned is None else list(h.cleaned),
                "referees": [_hypothesis(r) for r in h.referees],
                "second": _hypothesis(h.second),
            }
            for h in look.hearings
        ],
        "decision": _decision(look.decision),
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def from_json(line: str) -> LookRecord:
    data = json.loads(line)
    start, end, before = data["utterance"]
    hearings = tuple(
        HearingRecord(
            str(h["hearing"]),
            _heard_words(h["words"]),
            None if h["cleaned"] is None else (float(h["cleaned"][0]), float(h["cleaned"][1])),
            tuple(_from_hypothesis(r) for r in h["referees"]),
            _from_hypothesis(h["second"]),
        )
        for h in data["hearings"]
    )
    return LookRecord(
        str(data["take"]),
        Utterance(float(start), float(end), float("inf") if before is None else float(before)),
        float(data["now"]),
        Room(float(data["room"][0]), None if data["room"][1] is None else float(data["room"][1])),
        int(data["referees"]),
        bool(data["can_doubt"]),
        hearings,
        _from_decision(data["decision"]),
    )


def header_line(stop_words: Iterable[str], tail_seconds: float, **more: Any) -> str:
    """The first line of a set: what every look of it shares (the rule's stop words and the
    VAD's tail)."""
    data = {"stop_words": list(stop_words), "tail_seconds": tail_seconds, **more}
    return "# " + json.dumps(data, ensure_ascii=False)


def read_set(lines: Iterable[str]) -> tuple[dict[str, Any], list[LookRecord]]:
    """A set's header (:func:`header_line`) and its looks."""
    header: dict[str, Any] = {}
    looks: list[LookRecord] = []
    for line in lines:
        if line.startswith("# ") and not header and not looks:
            header = json.loads(line[2:])
        elif line.strip() and not line.startswith("#"):
            looks.append(from_json(line))
    return header, looks
