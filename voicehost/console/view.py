"""What the screen shows: the phase, who speaks, the timer, who is at the table, the fouls, the
nominations so far and the question of the moment, every word from the game's phrase book."""

from __future__ import annotations

from voicehost.host.loop import Host


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
    if state.current_speaker is not None and state.speech_running:
        lost = state.nominating and state.lost_speech == state.current_speaker
        words = "lost_speech" if lost else "speaking"  # FIIM, MR 9.5.1: nobody speaks
        head += " · " + book.screen(words, {"seat": state.current_speaker})
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
        table.append(f"{seat}{mark}{fouls}")
    lines = [
        head,
        f"{book.screen('table')}: " + " ".join(table) + f"   {book.screen('table_legend')}",
    ]
    if not state.phase.is_night:
        if state.nominating and state.nominations:
            made = "; ".join(
                f"{nominator} → {', '.join(str(seat) for seat in nominees)}"
                for nominator, nominees in state.nominations.items()
                if nominees
            )
            if made:
                lines.append(f"{book.screen('nominations')}: {made}")
        if state.candidates:
            lines.append(
                f"{book.screen('candidates')}: " + ", ".join(str(s) for s in state.candidates)
            )
    lines.append("→ " + prompt_text(host))
    return lines


def prompt_text(host: Host) -> str:
    """The question of the moment, as the person at the keyboard reads it."""
    book = host.book
    prompt = host.prompt()
    key = prompt.question or None  # the rule set's words for its question
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
        if state is not None and state.discussing:
            return book.screen("prompt_end_discussion")
        return book.screen("prompt_end_speech")
    return ""
