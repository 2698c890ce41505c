"""What the screen shows: the phase, who speaks, the timer, who is at the table, the fouls."""

from __future__ import annotations

from voicehost.game.effects import PromptKind
from voicehost.host.loop import Host

PROMPT_TEXT = {
    PromptKind.REGISTER_MAFIA: "mafia: enter your {n} seats",
    PromptKind.REGISTER_COMMISSAR: "Commissar: enter your seat",
    PromptKind.REGISTER_DOCTOR: "Doctor: enter your seat",
    PromptKind.NOMINATE: "nominations of seat {subject}: enter 1 or 2 seats",
    PromptKind.MAFIA_TARGET: "mafia: enter the target's seat, or `miss`",
    PromptKind.COMMISSAR_CHECK: "Commissar: enter the seat to check",
    PromptKind.DOCTOR_HEAL: "Doctor: enter the seat to heal",
    PromptKind.VOTE_COUNT: "votes against seat {subject}: enter the count (0..{max})",
    PromptKind.THIRD_VOTE_COUNT: "third vote: how many for 'all leave'? (0..{max})",
    PromptKind.CONFIRM_VOTE: "votes counted: `.` goes on now, `u` corrects the last count",
}


def status_lines(host: Host) -> list[str]:
    """A few lines describing the table right now."""
    state = host.state
    if state is None:
        return ["(no game)"]
    phase = host.book.phase_name(state.phase.value)
    when = f"day {state.day}" if not state.phase.is_night else f"night {state.night}"
    head = f"{when} · {phase}"
    if state.current_speaker is not None and state.speech_running:
        head += f" · speaking: seat {state.current_speaker}"
    remaining = host.remaining()
    if remaining is not None:
        minutes, seconds = divmod(int(remaining + 0.999), 60)
        head += f" · ⏱ {minutes}:{seconds:02d}"
    if host.paused_at is not None:
        head += " · PAUSED"
    table = []
    for seat, player in sorted(state.players.items()):
        mark = "" if player.alive else "✗"
        fouls = "!" * player.fouls
        table.append(f"{seat}{mark}{fouls}")
    lines = [head, "table: " + " ".join(table) + "   (✗ left, ! foul)"]
    if state.candidates and not state.phase.is_night:
        lines.append("candidates: " + ", ".join(str(s) for s in state.candidates))
    prompt = host.prompt()
    template = PROMPT_TEXT.get(prompt.kind)
    if template is not None:
        lines.append(
            "→ " + template.format(n=prompt.seats_max, subject=prompt.subject, max=prompt.max_count)
        )
    elif prompt.speech_running:
        lines.append("→ `.` ends the speech")
    return lines
