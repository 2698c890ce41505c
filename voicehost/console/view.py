"""What the screen shows: the phase, who speaks, the timer, who is at the table, the fouls, the
nominations so far and the question of the moment, every word from the game's phrase book."""

from __future__ import annotations

from voicehost.host.loop import Host
from voicehost.host.table import PROMPT_KEYS, TableView, night_clock, prompt_text, table_view
from voicehost.phrases import PhraseBook

__all__ = ["PROMPT_KEYS", "prompt_text", "status_lines", "timer_text", "view_lines"]


def status_lines(host: Host, face: str = "") -> list[str]:
    """A few lines describing the table right now, drawn from what the table may see; the
    question in the words of ``face`` (``plain``: the line mode and scripts, which wait for no
    key at the end)."""
    question = "→ " + prompt_text(host, face)
    clock = night_clock(host, host.book)  # the night step's window: the host's screen only
    if clock:
        question += f" · ⏱ {clock}"
    return view_lines(table_view(host), host.book) + [question]


def timer_text(view: TableView, book: PhraseBook) -> str:
    """The timer as the header shows it: a marker at the warning and at the end that needs no
    colour (⚠ and ■), besides the colour the full-screen view gives the line."""
    timer = view.timer
    if timer is None:
        return ""
    minutes, seconds = divmod(timer.left, 60)
    text = f"⏱ {minutes}:{seconds:02d}"
    if timer.ended:
        return f"{text} ■ {book.screen('time_up')}"
    if timer.warning:
        return f"{text} ⚠"
    return text


def view_lines(view: TableView, book: PhraseBook) -> list[str]:
    """The status lines of a ``TableView``: the header, the table, nominations, candidates."""
    if not view.started:
        return [view.phase_name]
    if view.night:
        when = book.screen("night", {"night": view.night_number})
    else:
        when = book.screen("day", {"day": view.day})
    head = f"{when} · {view.phase_name}"
    names = {s.seat: s.name for s in view.seats if s.name}

    def label(seat: int) -> str:
        """«5 Анна» where the seat's player has a name, «5» where not."""
        return f"{seat} {names[seat]}" if seat in names else str(seat)

    if view.speaker is not None:
        words = "lost_speech" if view.lost_speech else "speaking"  # FIIM, MR 9.5.1
        head += " · " + book.screen(words, {"seat": view.speaker})
        if view.speaker in names:
            head += f" ({names[view.speaker]})"
    clock = timer_text(view, book)
    if clock:
        head += f" · {clock}"
    if view.paused:
        head += " · " + book.screen("paused")
    table = [
        f"{s.seat}{'✗' if s.left else ''}{'!' * s.fouls}" + (f" {s.name}" if s.name else "")
        for s in view.seats
    ]
    joint = " · " if names else " "
    lines = [
        head,
        f"{book.screen('table')}: " + joint.join(table) + f"   {book.screen('table_legend')}",
    ]
    if view.nominations:
        made = "; ".join(
            f"{label(by)} → {', '.join(label(seat) for seat in seats)}"
            for by, seats in view.nominations
        )
        lines.append(f"{book.screen('nominations')}: {made}")
    if view.candidates:
        named = ", ".join(
            label(seat) if count is None else f"{label(seat)} ({count})"
            for seat, count in view.candidates
        )
        title = book.screen("vote_result" if view.counted else "candidates")
        lines.append(f"{title}: {named}")
    if view.all_leave_votes is not None:
        votes = book.screen("all_leave_votes", {"votes": view.all_leave_votes})
        lines.append(f"{book.screen('vote_result')}: {votes}")
    if view.over and view.seats:
        cards = ", ".join(
            f"{s.seat} {book.screen('card_' + s.card)}"
            for s in view.seats
            if s.card is not None  # the rule set's end cards (``end.cards``) alone
        )
        if cards:
            lines.append(f"{book.screen('cards')}: {cards}")
    return lines
