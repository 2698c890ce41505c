"""The second look at a stretch of voice: which hearings to make, which referees to ask, and
what the look's evidence is. Pure: the audio and Vosk stay behind :class:`Ears`, so a look
recorded in a game (:mod:`voicehost.voice_in.evidence`) replays here without a model.

A hearing is the stretch decoded by the grammar as captured, then cleaned of the room's steady
noise, then (in a noisy room) cleaned harder and cleaned smoothly, until one hearing would end
the speech; a referee (a wider grammar) is asked only when every other test passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol

from voicehost.voice_in.rule import (
    AloneRule,
    Decision,
    HeardWord,
    Hypothesis,
    Refereed,
    Utterance,
)

if TYPE_CHECKING:
    from voicehost.voice_in.vosk_listener import ListenerTuning

CAPTURED, CLEANED, CLEANED_HARDER = "captured", "cleaned", "cleaned harder"
CLEANED_SMOOTHLY = "cleaned smoothly"
"""The second look's hearings of a stretch: as captured, cleaned of the room's steady noise,
cleaned harder and cleaned by a gain that follows the voice (both in a noisy room)."""


class Evidence(NamedTuple):
    """What a second look heard (in :meth:`AloneRule.stands`' order)."""

    words: tuple[HeardWord, ...]
    panel: tuple[tuple[HeardWord, ...], ...]
    """Each referee's words (none when not asked)."""
    cleaned: tuple[float, float] | None
    """For a hearing cleaned of the room's noise, the times the cleaned audio runs from and
    to."""
    unanimous: bool
    """Every referee must agree (the last hearing, made only because the others ended
    nothing)."""
    hearings: tuple[int, int] = (1, 1)
    """How many of the look's hearings heard the stop word on its own, of how many made
    (``AloneTuning.agreeing_hearings``; (1, 1) for one hearing's own evidence)."""
    second_to: tuple[HeardWord, ...] = ()
    """The words are the grammar's second choice, after these (:func:`second_choice`)."""


Look = tuple[Evidence, tuple[tuple[str, tuple[HeardWord, ...], tuple[HeardWord, ...]], ...]]
"""A second look: its evidence, and the words of each hearing made with those taken for
clicks (for the listening tool)."""


class Room(NamedTuple):
    """What the room said when a stretch was looked at (dBFS)."""

    speaker_db: float
    """The speaker's level (``AloneRule.speaker_level``)."""
    room_db: float | None
    """The room's steady noise; None: no audio kept to tell it."""

    def noisy(self, tuning: ListenerTuning) -> bool:
        """Whether the room's noise is within ``denoise_below_db`` of the speaker's voice."""
        if self.room_db is None:
            return False
        return self.speaker_db - self.room_db < tuning.denoise_below_db


class Ears(Protocol):
    """What a look may ask about one stretch of audio; each answer is the same however often
    it is asked (a fresh recogniser and seed each time)."""

    room: Room
    referees: int
    """How many referees there are to ask."""

    @property
    def can_doubt(self) -> bool:
        """Whether the grammar can give a second choice (not in free mode)."""
        ...

    def words(self, hearing: str) -> tuple[HeardWord, ...]:
        """The grammar's best hearing of the stretch in ``hearing`` (audio seconds)."""
        ...

    def cleaned(self, hearing: str) -> tuple[float, float] | None:
        """For a cleaned hearing, the times its audio runs from and to; None as captured."""
        ...

    def referee(self, hearing: str, index: int) -> Hypothesis:
        """Referee ``index``'s best hearings of the stretch in ``hearing``."""
        ...

    def second(self, hearing: str) -> Hypothesis:
        """The grammar's best hearings of the stretch in ``hearing``, best first."""
        ...


def hearings(tuning: ListenerTuning, noisy: bool) -> tuple[str, ...]:
    """The hearings a look may make, in order: as captured, cleaned ``denoise`` times, and in a
    ``noisy`` room cleaned harder and smoothly (each 0: not made)."""
    if tuning.denoise <= 0:
        return (CAPTURED,)
    made = [CAPTURED, CLEANED]
    if tuning.denoise_stronger > 0 and noisy:
        made.append(CLEANED_HARDER)
    if tuning.denoise_smooth > 0 and noisy:
        made.append(CLEANED_SMOOTHLY)
    return tuple(made)


def hear_out(rule: AloneRule, tuning: ListenerTuning, utterance: Utterance, ears: Ears) -> Look:
    """The look at ``utterance``: the first hearing the whole rule accepts (its words and its
    panel's); else, in a noisy room, a stop word most hearings heard on its own
    (``agreeing_hearings``); in a quiet one, the grammar's second choice of each hearing
    (:func:`second_choice`); else the first hearing the referees were asked of, or the first
    that heard a stop word, or the first (with each hearing's words, for the listening tool)."""
    found: Evidence | None = None
    told = -1  # how telling ``found`` is (``telling``)
    heard_out: list[tuple[str, tuple[HeardWord, ...], tuple[HeardWord, ...]]] = []
    alone: list[Evidence] = []  # the hearings that heard a stop word on its own
    doubted: list[tuple[str, tuple[HeardWord, ...]]] = []
    noisy = ears.room.noisy(tuning)
    made = 0
    for hearing in hearings(tuning, noisy):
        made += 1
        heard = ears.words(hearing)
        # In a quiet room a click is no word (AloneRule.without_clicks).
        words = heard if noisy else rule.without_clicks(utterance, heard)
        if heard:
            heard_out.append((hearing, heard, tuple(w for w in heard if w not in words)))
        cleaned = ears.cleaned(hearing)
        # The smooth cleaning is the last resort, after three hearings that ended nothing:
        # only a panel that agrees whole lets it end a speech (two of three let a sentence's
        # middle heard as 감사합니다 in hiss cut a player short, seed 31's held-out half).
        unanimous = hearing == CLEANED_SMOOTHLY
        panel = ask_panel(rule, tuning, utterance, words, hearing, ears, cleaned, noisy, unanimous)
        evidence = Evidence(words, panel, cleaned, unanimous)
        told_now = telling(rule, utterance, evidence)
        if told_now > told:
            found, told = evidence, told_now
        if rule.stands(utterance, *evidence):
            return evidence, tuple(heard_out)
        if panel:  # asked: every test but the referees' passed
            alone.append(evidence)
        elif not noisy:
            doubted.append((hearing, words))
    if rule.backed_by(len(alone)):
        # Most hearings heard the stop word on its own: one referee is enough (rule.py,
        # agreeing_hearings); the panel that heard it most speaks for them.
        best = max(alone, key=lambda evidence: rule.choosing(utterance, evidence.panel))
        evidence = best._replace(hearings=(len(alone), made))
        if rule.stands(utterance, *evidence):
            return evidence, tuple(heard_out)
    for hearing, words in doubted:
        second = second_choice(rule, tuning, utterance, words, hearing, ears)
        if second is not None and rule.stands(utterance, *second):
            return second, tuple(heard_out)
    assert found is not None  # at least one hearing is always made
    return found, tuple(heard_out)


def judge(rule: AloneRule, utterance: Utterance, evidence: Evidence, now: float) -> Decision | None:
    """The rule's decision on a look's evidence at audio time ``now`` (an end ends the rule's
    speech: :meth:`AloneRule.judge`)."""
    return rule.judge(
        utterance, evidence.words, now, panel=evidence.panel, cleaned=evidence.cleaned,
        unanimous=evidence.unanimous, hearings=evidence.hearings, second_to=evidence.second_to,
    )  # fmt: skip


def second_choice(
    rule: AloneRule,
    tuning: ListenerTuning,
    utterance: Utterance,
    words: tuple[HeardWord, ...],
    hearing: str,
    ears: Ears,
) -> Evidence | None:
    """In a quiet room, the grammar's next hearing of a stretch it heard as other words,
    when that is a stop word on its own scored within ``referee_doubt`` of its best (the
    doubt a referee is allowed): the grammar could not tell them apart, so the panel
    decides, its majority agreeing and one referee choosing it outright. On the proxy a
    감사합니다 said clearly was heard as «패스 합니다» and «합니다 압니다», a 패스 as the
    look-alike 페슈트 that the grammar holds to catch words like it, each with the stop word
    scored a little lower; the referees then chose it. None: no such hearing (its words are
    only heard out, never told: what the grammar heard first is the look's verdict)."""
    doubt = tuning.referee_doubt
    heard = rule.within(utterance, words)
    if doubt <= 0 or not ears.referees or not heard:
        return None
    if all(rule.is_stop_word(word.word) for word in heard):
        return None  # the stop word was the first choice: the panel has said
    if not rule.could_hold_stop_word(utterance):
        return None
    if not ears.can_doubt:
        return None  # free mode: no grammar to doubt
    choices = ears.second(hearing).alternatives
    best = max((score for score, _ in choices), default=0.0)
    cleaned = ears.cleaned(hearing)
    for score, choice in choices:
        inside = rule.within(utterance, choice)
        if not inside or not all(rule.is_stop_word(word.word) for word in inside):
            continue
        if score < best - doubt:
            return None
        second_to = tuple(heard)  # the panel is asked only if every other test passes
        panel = ask_panel(
            rule, tuning, utterance, choice, hearing, ears, cleaned, False, second_to=second_to
        )
        return Evidence(choice, panel, cleaned, False, second_to=second_to)
    return None


def telling(rule: AloneRule, utterance: Utterance, evidence: Evidence) -> int:
    """Which hearing's verdict the listening tool is told when none ends the speech: the
    first the referees were asked of, else the first that heard a stop word, else the
    first."""
    if evidence.panel:
        return 2
    heard = rule.within(utterance, evidence.words)
    return int(any(rule.is_stop_word(word.word) for word in heard))


def ask_panel(
    rule: AloneRule,
    tuning: ListenerTuning,
    utterance: Utterance,
    words: Sequence[HeardWord],
    hearing: str,
    ears: Ears,
    cleaned: tuple[float, float] | None,
    noisy: bool,
    unanimous: bool = False,
    second_to: tuple[HeardWord, ...] = (),
) -> tuple[tuple[HeardWord, ...], ...]:
    """The referees' hearings, asked one by one until a majority (or, when ``unanimous``,
    every one of them) is reached either way; none when the words need no referee or end
    nothing whatever it says. In a quiet room, each referee's other hearings scored within
    ``referee_doubt`` of its best are kept with it (:class:`Refereed`), and clicks heard as
    words are no words (:meth:`AloneRule.without_clicks`); in a ``noisy`` one, neither."""
    if not ears.referees or not rule.needs_panel(utterance, words, cleaned, second_to):
        return ()
    need = rule.needed(ears.referees, unanimous)
    panel: list[tuple[HeardWord, ...]] = []
    agreeing = chosen = 0
    for index in range(ears.referees):
        heard = refereed(rule, tuning, utterance, ears.referee(hearing, index), noisy)
        panel.append(heard)
        agreeing += rule.agreed(utterance, heard)
        chosen += rule.agreed(utterance, heard, doubting=False)
        decided = agreeing >= need and chosen > 0
        if decided or len(panel) - agreeing > ears.referees - need:
            break
    return tuple(panel)


def refereed(
    rule: AloneRule, tuning: ListenerTuning, utterance: Utterance, heard: Hypothesis, noisy: bool
) -> Refereed:
    """What a referee heard: in a quiet room with its other hearings scored within
    ``referee_doubt`` of its best, and without the clicks it heard as words."""
    if noisy:
        return Refereed(heard.words)
    doubt = tuning.referee_doubt
    best = max((score for score, _ in heard.alternatives), default=0.0)
    close = [
        words for score, words in heard.alternatives[1:] if doubt > 0 and score >= best - doubt
    ]
    tidy = rule.without_clicks
    return Refereed(tidy(utterance, heard.words), [tidy(utterance, c) for c in close])
