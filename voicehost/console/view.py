"""What the screen shows: the phase, who speaks, the timer, who is at the table, the fouls, the
nominations so far and the question of the moment, every word from the game's phrase book."""

from __future__ import annotations

from voicehost.game.effects import PromptKind
from voicehost.game.model import Phase
from voicehost.host.loop import Host

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
    """A few lines describing the table right now."""
    book = host.book
    state = host.state
    if state is None:
        return [book.screen("no_game")]
    phase = book.phase_name(state.phase.value, host.settings.game.rules.preset)
    if state.phase.is_night:
        when = book.screen("night", {"night": state.night})
    else:
        when = book.screen("day", {"day": state.day})
    head = f"{when} · {phase}"
    names = host.names
    if state.current_speaker is not None and state.speech_running:
        lost = state.phase is Phase.NOMINATION and state.lost_speech == state.current_speaker
        words = "lost_speech" if lost else "speaking"  # FIIM, MR 9.5.1: nobody speaks
        head += " · " + book.screen(words, {"seat": state.current_speaker})
        speaker_name = names.get(state.current_speaker)
        if speaker_name:
            head += f" ({speaker_name})"
    remaining = host.remaining()
    if remaining is not None:
        minutes, seconds = divmod(int(remaining + 0.999), 60)
        head += f" · ⏱ {minutes}:{seconds:02d}"
    if host.paused_at is not None:
        head += " · " + book.screen("paused")
    table = []
    for seat, player in sorted(state.players.items()):
        mark = "" if player.alive else "✗"
        fouls = "!" * player.fouls
        name = names.get(seat)
        table.append(f"{seat}{mark}{fouls}" + (f" {name}" if name else ""))
    joint = " · " if names else " "
    lines = [
        head,
        f"{book.screen('table')}: " + joint.join(table) + f"   {book.screen('table_legend')}",
    ]
    if not state.phase.is_night:
        if state.phase is Phase.NOMINATION and state.nominations:
            made = "; ".join(
                f"{names.label(nominator)} → {', '.join(names.label(seat) for seat in nominees)}"
                for nominator, nominees in state.nominations.items()
                if nominees
            )
            if made:
                lines.append(f"{book.screen('nominations')}: {made}")
        if state.candidates:
            lines.append(
                f"{book.screen('candidates')}: "
                + ", ".join(names.label(seat) for seat in state.candidates)
            )
    lines.append("→ " + prompt_text(host))
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
