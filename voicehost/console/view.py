"""What the screen shows: the phase, who speaks, the timer, who is at the table, the fouls, the
nominations so far and the question of the moment, every word from the game's phrase book."""

from __future__ import annotations

from voicehost.game.effects import PromptKind
from voicehost.game.model import Phase
from voicehost.host.loop import Host
from voicehost.host.table import TableView, table_view
from voicehost.phrases import PhraseBook

#: The screen text of each question (a key of the book's ``screen`` section).
PROMPT_KEYS = {
    PromptKind.REGISTER_MAFIA: "prompt_register_mafia",
    PromptKind.REGISTER_COMMISSAR: "prompt_register_commissar",
    PromptKind.REGISTER_DOCTOR: "prompt_register_doctor",
    PromptKind.NOMINATE: "prompt_nominate",
    PromptKind.MAFIA_TARGET: "prompt_mafia_target",
    PromptKind.COMMISSAR_CHECK: "prompt_commissar_check",
    PromptKind.DOCTOR_HEAL: "prompt_doctor_heal",
    PromptKind.VOTE_COUNT: "prompt_vote_count",
    PromptKind.THIRD_VOTE_COUNT: "prompt_third_vote_count",
    PromptKind.CONFIRM_VOTE: "prompt_confirm_vote",
    PromptKind.REGISTER_DON: "prompt_register_don",
    PromptKind.REGISTER_SHERIFF: "prompt_register_sheriff",
    PromptKind.DON_CHECK: "prompt_don_check",
    PromptKind.SHERIFF_CHECK: "prompt_sheriff_check",
    PromptKind.BEST_MOVE: "prompt_best_move",
}


def status_lines(host: Host) -> list[str]:
    """A few lines describing the table right now, drawn from what the table may see."""
    return view_lines(table_view(host), host.book) + ["→ " + prompt_text(host)]


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
    if view.speaker is not None:
        words = "lost_speech" if view.lost_speech else "speaking"  # FIIM, MR 9.5.1
        head += " · " + book.screen(words, {"seat": view.speaker})
    clock = timer_text(view, book)
    if clock:
        head += f" · {clock}"
    if view.paused:
        head += " · " + book.screen("paused")
    table = [f"{s.seat}{'✗' if s.left else ''}{'!' * s.fouls}" for s in view.seats]
    lines = [
        head,
        f"{book.screen('table')}: " + " ".join(table) + f"   {book.screen('table_legend')}",
    ]
    if view.nominations:
        made = "; ".join(
            f"{by} → {', '.join(str(seat) for seat in seats)}" for by, seats in view.nominations
        )
        lines.append(f"{book.screen('nominations')}: {made}")
    if view.candidates:
        named = ", ".join(
            str(seat) if count is None else f"{seat} ({count})" for seat, count in view.candidates
        )
        title = book.screen("vote_result" if view.counted else "candidates")
        lines.append(f"{title}: {named}")
    if view.all_leave_votes is not None:
        lines.append(
            f"{book.screen('vote_result')}: {book.screen('all_leave_votes', {'votes': view.all_leave_votes})}"
        )
    if view.over and view.seats:
        cards = ", ".join(
            f"{s.seat} {book.screen('card_' + s.card)}"
            for s in view.seats
            if s.card is not None and s.card != "civilian"
        )
        if cards:
            lines.append(f"{book.screen('cards')}: {cards}")
    return lines


def prompt_text(host: Host) -> str:
    """The question of the moment, as the person at the keyboard reads it."""
    book = host.book
    prompt = host.prompt()
    key = PROMPT_KEYS.get(prompt.kind)
    if key == "prompt_register_mafia" and prompt.seats_max == 1:
        key = "prompt_register_one_mafia"
    if key == "prompt_confirm_vote":
        left = host.remaining()
        if left is not None:
            return book.screen("prompt_confirm_vote_left", {"seconds": int(left + 0.999)})
    own = f"{host.settings.game.rules.preset}_{key}"  # a preset's own wording of a question
    if key is not None and own in book.screen_keys():
        key = own
    if key is not None:
        text = book.screen(
            key, {"seats": prompt.seats_max, "seat": prompt.subject, "max": prompt.max_count}
        )
        return book.screen("prompt_still_waiting", {"question": text}) if prompt.late else text
    if prompt.speech_running:
        state = host.state
        if state is not None and state.phase is Phase.DISCUSSION:
            return book.screen("prompt_end_discussion")
        return book.screen("prompt_end_speech")
    return ""
