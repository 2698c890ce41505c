"""The game's protocol: roles, each day and night, fouls and the winner, as JSON and a table."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from voicehost.errors import VoicehostError
from voicehost.game.model import Seat
from voicehost.game.record import (
    BestMove,
    DayRecord,
    Departure,
    FoulRecord,
    NightRecord,
    TeamLossRecord,
    seat_of_key,
)
from voicehost.game.ruleset import RuleSet
from voicehost.game.state import GameState
from voicehost.host import storage
from voicehost.host.names import padded, width
from voicehost.host.votes import VoterList
from voicehost.phrases import PhraseBook
from voicehost.rulesets import recorded_ruleset


class SeatLine(TypedDict):
    """One seat's line of the protocol."""

    seat: Seat
    role: str | None
    fouls: int
    at_table: bool
    left: str | None  # how the player left: "vote", "kill", "disqualified", "removed"
    name: NotRequired[str]  # the player's name, when the host gave one


class ExtraPoints(TypedDict):
    """Points the referee adds (or takes, when negative) after a FIIM game, with a reason."""

    seat: Seat
    points: float
    comment: str


class Score(TypedDict):
    """A FIIM seat's points by line and their sum (docs/RULES-FIIM.md section 11)."""

    seat: Seat
    win: float
    best_move: float
    penalty: float
    extra: float
    comment: str
    total: float


class VoterLine(TypedDict):
    """The seats that raised their mask against ``candidate`` in a round of a day's vote."""

    day: int
    round: int
    candidate: int
    seats: list[int]


class ProtocolRecord(TypedDict):
    """The protocol of a game: the JSON a club keeps, and what the table is printed from."""

    players: int
    mafia_count: int
    seats: list[SeatLine]
    days: list[DayRecord]
    nights: list[NightRecord]
    fouls: list[FoulRecord]
    departures: list[Departure]
    winner: str | None
    # the rule set, when not the club's (so that a club protocol stays as it was): a preset's
    # name, and a club's own file's text (``ruleset``), by which each card's team is known
    preset: NotRequired[str]
    ruleset: NotRequired[str]
    # FIIM only
    best_move: NotRequired[BestMove | None]
    team_loss: NotRequired[TeamLossRecord]
    scores: NotRequired[list[Score]]
    # who voted against whom, where the host entered it (`3: 1 4 6 9`)
    voters: NotRequired[list[VoterLine]]


def is_fiim(protocol: ProtocolRecord) -> bool:
    """Whether the game was played by the FIIM rules (and so has best move and scores)."""
    return protocol.get("preset") == "fiim"


def build(
    state: GameState,
    extra: list[ExtraPoints] | None = None,
    names: Mapping[Seat, str] | None = None,
    voters: Sequence[VoterList] = (),
) -> ProtocolRecord:
    """The protocol as typed data (stable keys, JSON-ready); a FIIM game's has the best move
    and the scores, with the referee's ``extra`` points added; a seat the host named has its
    player's ``name``."""
    record = state.record
    seats = []
    for seat, player in sorted(state.players.items()):
        line = SeatLine(
            seat=seat,
            role=player.role.value if player.role else None,
            fouls=player.fouls,
            at_table=player.alive,
            left=player.left_how,
        )
        if names and names.get(seat):
            line["name"] = names[seat]
        seats.append(line)
    protocol = ProtocolRecord(
        players=record["players"],
        mafia_count=record["mafia_count"],
        seats=seats,
        days=record["days"],
        nights=record["nights"],
        fouls=record["fouls"],
        departures=record["departures"],
        winner=record["winner"],
    )
    if "preset" in record:
        protocol["preset"] = record["preset"]
    if record.get("preset") == "fiim":
        protocol["best_move"] = record.get("best_move")
        if "team_loss" in record:
            protocol["team_loss"] = record["team_loss"]
        protocol["scores"] = _scores(record.get("scores", []), extra or [])
    if record.get("ruleset"):
        protocol["ruleset"] = record["ruleset"]
    if voters:
        protocol["voters"] = [
            VoterLine(day=v.day, round=v.round, candidate=v.candidate, seats=list(v.voters))
            for v in voters
        ]
    return protocol


def _scores(lines: list[Any], extra: list[ExtraPoints]) -> list[Score]:
    by_seat = {entry["seat"]: entry for entry in extra}
    scores: list[Score] = []
    for line in lines:
        added = by_seat.get(line["seat"])
        points = added["points"] if added else 0.0
        total = line["win"] + line["best_move"] + line["penalty"] + points
        scores.append(
            Score(
                seat=line["seat"], win=line["win"], best_move=line["best_move"],
                penalty=line["penalty"], extra=points, comment=added["comment"] if added else "",
                total=round(total, 4),
            )
        )  # fmt: skip
    return scores


def points(value: float, *, sign: bool = False) -> str:
    """Points as a referee writes them: 1, 0.5, -0.25 (``sign``: +0.3)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    text = "0" if text in ("-0", "") else text
    return f"+{text}" if sign and value > 0 else text


def to_json(protocol: ProtocolRecord) -> str:
    return json.dumps(protocol, ensure_ascii=False, indent=2)


def _seats(values: Any) -> str:
    return ", ".join(str(v) for v in values) if values else "—"


def to_table(protocol: ProtocolRecord, book: PhraseBook) -> str:
    """A readable protocol for a club's records, in the game's language."""

    def say(key: str, **params: Any) -> str:
        return book.screen(f"protocol_{key}", params)

    ruleset = recorded_ruleset(protocol)
    black = {role.value for role in ruleset.black_roles()}
    lines = [say("title", players=protocol["players"], mafia=protocol["mafia_count"]), ""]
    named = [seat.get("name", "") for seat in protocol["seats"]]
    name_cells = max((width(name) for name in named), default=0)
    if name_cells:
        name_cells = max(name_cells, width(say("name_column")))
        columns = say("columns")
        head, _, tail = columns.partition(" ")
        lines.append(f"{head} {padded(say('name_column'), name_cells)}  {tail.lstrip()}")
    else:
        lines.append(say("columns"))
    for seat in protocol["seats"]:
        role = book.word(seat["role"]) if seat["role"] else "?"
        if seat["role"] in black:
            role = role.upper()  # the black cards stand out on paper
        how = seat["left"]
        result = say("at_table") if seat["at_table"] else say(f"left_{how}")
        name = f"  {padded(seat.get('name', ''), name_cells)}" if name_cells else ""
        lines.append(f"{seat['seat']:>4}{name}  {role:<14}  {seat['fouls']:>5}  {result}")
    holders: dict[str, set[int]] = {}  # each card's seats, for the nights' lines
    for seat in protocol["seats"]:
        if seat["role"]:
            holders.setdefault(seat["role"], set()).add(seat["seat"])
    holders["black"] = {s for role in black for s in holders.get(role, set())}
    nights = {night["night"]: night for night in protocol["nights"]}
    days = {day["day"]: day for day in protocol["days"]}
    for number in range(0, max([*nights, *days, 0]) + 1):
        if number in days:
            lines.extend(_day_lines(days[number], say, is_fiim(protocol)))
        if number in nights:  # night N follows day N (night 0 comes first)
            lines.extend(_night_lines(nights[number], say, is_fiim(protocol), ruleset, holders))
    if protocol["fouls"]:
        lines.extend(["", say("fouls")])
        for foul in protocol["fouls"]:
            when = _when(foul, say)
            mark = "removed_mark" if is_fiim(protocol) else "disqualified_mark"
            extra = say(mark) if foul["disqualified"] else ""
            lines.append(
                "  " + say("foul", seat=foul["seat"], count=foul["count"], when=when) + extra
            )
    if is_fiim(protocol):
        lines.extend(_fiim_lines(protocol, say))
    if protocol.get("voters"):
        lines.extend(["", say("voters")])
        for line in protocol.get("voters", []):
            label = say("vote") if line["round"] == 1 else say("revote")
            lines.append(
                "  " + say("voters_line", day=line["day"], vote=label,
                           candidate=line["candidate"], seats=_seats(line["seats"]))
            )  # fmt: skip
    lines.append("")
    winner = protocol["winner"]
    lines.append(say(f"winner_{winner}" if winner else "winner_none"))  # red, black, maniac, draw
    return "\n".join(lines)


def _fiim_lines(protocol: ProtocolRecord, say: Say) -> list[str]:
    """The best move and the points by line (docs/RULES-FIIM.md section 11)."""
    lines = [""]
    best = protocol.get("best_move")
    if best:
        lines.append(
            say("best_move", seat=best["seat"], seats=_seats(best["seats"]), black=best["black"])
        )
    else:
        lines.append(say("best_move_none"))
    loss = protocol.get("team_loss")
    if loss:
        lines.append(say("team_loss", seat=loss["seat"], when=_when(loss, say)))
    scores = protocol.get("scores") or []
    if not scores:
        return lines
    lines.extend(["", say("scores"), say("score_columns")])
    for score in scores:
        cells = [points(score["win"]), points(score["best_move"]), points(score["penalty"])]
        cells.append(points(score["extra"], sign=True))
        total = points(score["total"])
        row = f"{score['seat']:>4}  " + "".join(f"{cell:>8}" for cell in cells) + f"{total:>8}"
        lines.append(row + (f"  {score['comment']}" if score["comment"] else ""))
    return lines


Say = Callable[..., str]


def _when(event: FoulRecord | TeamLossRecord, say: Say) -> str:
    """«ночь 2» or «день 3»: when a foul or a team loss happened, as the protocol says it."""
    if event["phase"].startswith("night"):
        return say("when_night", night=event["night"])
    return say("when_day", day=event["day"])


def _night_lines(
    night: NightRecord,
    say: Say,
    fiim: bool,
    ruleset: RuleSet,
    holders: dict[str, set[int]],
) -> list[str]:
    """A night's lines; ``holders``: each card's seats («black»: the black team's)."""
    lines = ["", say("night", night=night["night"])]
    clients = set(night.get("blocks", {}).values())  # the «путана»'s: they did nothing

    def undone(*roles: str) -> str:
        """« (без последствий: …)» after an entry whose role's holder spent the night with
        her."""
        hit = any(holders.get(role, set()) & clients for role in roles)
        return say("blocked_entry") if hit else ""

    if night["night"] == 0:
        lines.append("  " + say("roles_registered"))
    elif "shots" in night:
        lines.extend(_fiim_night_lines(night, say, ruleset))
    else:
        shot = night.get("shot")
        said = say("shot", seat=shot if shot is not None else say("miss"))
        lines.append("  " + said + (undone("black") if shot is not None else ""))
        check = night.get("check")
        if check is not None:
            verdict = say("mafia" if night.get("check_found_mafia") else "not_mafia")
            lines.append("  " + say("check", seat=check, verdict=verdict) + undone("commissar"))
        else:
            lines.append("  " + say("check_none"))
        heal = night.get("heal")
        lines.append(
            "  " + say("heal", seat=heal if heal is not None else "—")
            + (undone("doctor") if heal is not None else "")
        )  # fmt: skip
        if night.get("saved"):
            lines.append("  " + say("saved"))
        if night.get("killed") is not None:
            lines.append("  " + say("killed", seat=night["killed"]))
        lines.extend(_more_roles_lines(night, say, undone, told_check=check is not None))
        if night.get("ended_by_win"):
            lines.append("  " + say("ended_by_win"))
    if night.get("disqualified"):
        key = "removed" if fiim else "disqualified"
        lines.append("  " + say(key, seats=_seats(night["disqualified"])))
    return lines


def _more_roles_lines(
    night: NightRecord, say: Say, undone: Callable[..., str], told_check: bool
) -> list[str]:
    """A night with more roles (city Mafia): each role's visit, check and shot (marked when its
    holder spent the night with the «путана»), and every death. The Commissar's check is the
    night's «проверка» line already when ``told_check``."""
    checks = {
        role: seat
        for role, seat in night.get("checks", {}).items()
        if not (told_check and role == "commissar")
    }
    entries: list[tuple[str, str, Seat | None]] = [
        *(("role_block", role, seat) for role, seat in night.get("blocks", {}).items()),
        *(("role_check", role, seat) for role, seat in checks.items()),
        *(("role_kill", role, seat) for role, seat in night.get("kills", {}).items()),
    ]
    lines = [
        "  "
        + say(key, role=role, seat=seat if seat is not None else say("no_shot"))
        + (undone(role) if seat is not None and key != "role_block" else "")
        for key, role, seat in entries
    ]
    killed = night.get("killed_all", [])
    if len(killed) > 1:
        lines.append("  " + say("killed_all", seats=_seats(killed)))
    return lines


def _fiim_night_lines(night: NightRecord, say: Say, ruleset: RuleSet) -> list[str]:
    """A FIIM night: each black player's shot, the result, and the two checks."""
    shots = night.get("shots", {})
    entered = ", ".join(
        f"{shooter} → {target if target is not None else say('no_shot')}"
        for shooter, target in shots.items()
    )
    killed = night.get("killed")
    lines = ["  " + say("shots", shots=entered or "—")]
    if night.get("ended_by_win"):
        lines.append("  " + say("ended_by_win"))
    else:
        lines.append("  " + (say("killed", seat=killed) if killed is not None else say("miss")))
    for who, check_key, found_key, yes, no in ruleset.recorded_checks():
        check = night.get(check_key)
        found = night.get(found_key)
        if check is None:
            lines.append("  " + say(f"{who}_check", seat="—", verdict="—"))
        else:
            lines.append("  " + say(f"{who}_check", seat=check, verdict=say(yes if found else no)))
    return lines


def _day_lines(day: DayRecord, say: Say, fiim: bool = False) -> list[str]:
    lines = ["", say("day", day=day["day"])]
    for nominator, nominees in sorted(day["nominations"].items(), key=lambda i: seat_of_key(i[0])):
        lines.append("  " + say("nominates", seat=nominator, seats=_seats(nominees)))
    lines.append("  " + say("candidates", seats=_seats(day["candidates"])))
    for vote in day["votes"]:
        counts = ", ".join(f"{seat}: {count}" for seat, count in vote["counts"].items())
        label = say("vote") if vote["round"] == 1 else say("revote")
        if "interrupted_by" in vote:
            label = say("vote_interrupted", vote=label, seat=vote["interrupted_by"])
        lines.append(f"  {label}: {counts}")
    third = day.get("third_vote")
    if third:
        outcome = say("all_leave" if third["outcome"] == "all_leave" else "all_stay")
        if third.get("four_players"):
            lines.append("  " + say("third_vote_skipped"))
        elif third["votes_for"] is None:  # FIIM: the rules bar «поднять всех» at this table
            lines.append("  " + say("lift_barred", outcome=outcome))
        else:
            key = "lift_vote" if fiim else "third_vote"  # FIIM's words, as the game said them
            votes, voters = third["votes_for"], third["voters"]
            lines.append("  " + say(key, votes=votes, voters=voters, outcome=outcome))
    if day.get("vote_cancelled"):
        lines.append("  " + say("vote_cancelled"))
    lines.append("  " + say("left_by_vote", seats=_seats(day["left"])))
    return lines


class ProtocolError(VoicehostError):
    """The protocol cannot be written; the text says where and why."""


def write(
    protocol: ProtocolRecord, directory: Path, stem: str, book: PhraseBook
) -> tuple[Path, Path]:
    """Write ``stem.json`` and ``stem.txt`` (owner-only, in an owner-only folder: they hold the
    roles). A folder that is read-only, missing or full raises ProtocolError saying so."""
    json_path = directory / f"{stem}.json"
    text_path = directory / f"{stem}.txt"
    try:
        storage.private_folder(directory)
        for path, text in ((json_path, to_json(protocol)), (text_path, to_table(protocol, book))):
            storage.write_private(path, (text + "\n").encode("utf-8"))
    except OSError as exc:
        raise ProtocolError(
            f"cannot write the protocol to {directory}: {storage.reason(exc)}; free some space "
            "or fix the folder and write it again (`protocol`, or `voicehost protocol JOURNAL`)"
        ) from exc
    return json_path, text_path
