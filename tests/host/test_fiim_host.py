"""The FIIM preset at the host: the checks' private answers, undo, the journal and the script
directive (docs/RULES-FIIM.md §6, §13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicehost import config
from voicehost.config import PrivateSettings
from voicehost.console.script import run_script
from voicehost.console.text import describe_private
from voicehost.errors import VoicehostError
from voicehost.game.effects import Private, PrivateKind
from voicehost.game.model import Phase
from voicehost.host.journal import read
from voicehost.host.replay import replay_journal
from voicehost.keypad.led import led_pattern
from voicehost.phrases import PhraseBook

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = (REPO / "examples" / "fiim-town-wins.txt").read_text(encoding="utf-8").splitlines()
TO_NIGHT_1 = ["preset fiim", "2 5 9", "wait", "5", "wait", "4", "wait", "wait"] + ["."] * 10


def test_a_script_names_its_preset_and_the_journal_keeps_it(tmp_path: Path) -> None:
    journal = tmp_path / "game.jsonl"
    result = run_script(EXAMPLE, config.loads(""), journal_path=journal)
    assert result.errors == [] and result.protocol["winner"] == "red"
    header, _ = read(journal)
    assert header["game"]["rules"]["preset"] == "fiim" and "fiim" in header["game"]
    replayed = replay_journal(config.loads(""), journal)  # config.yaml says club: the header wins
    assert replayed.settings.rules.preset == "fiim"
    assert replayed.state.phase is Phase.GAME_OVER


@pytest.mark.parametrize("line", ["preset sport", "preset", "preset fiim club"])
def test_a_wrong_preset_line_says_what_to_write(line: str) -> None:
    with pytest.raises(VoicehostError, match="preset ИМЯ.*club, fiim"):
        run_script([line], config.loads(""))


def test_a_preset_line_after_the_first_command_is_reported() -> None:
    result = run_script(["2 5 9", "preset fiim"], config.loads(""))
    assert [error.split(":")[0] for error in result.errors] == ["строка 2"]


@pytest.mark.parametrize(("phase", "waits"), [(Phase.NIGHT_DON, 1), (Phase.NIGHT_SHERIFF, 2)])
def test_a_check_once_answered_cannot_be_undone(phase: Phase, waits: int) -> None:
    result = run_script([*TO_NIGHT_1, *["wait"] * waits, "3"], config.loads(""))
    host = result.host
    assert result.errors == [] and host.state is not None and host.state.phase is phase
    assert not host.undo()  # the Don or the Sheriff has seen the answer


def test_a_shot_can_be_undone_before_the_window_ends() -> None:
    result = run_script([*TO_NIGHT_1, "3"], config.loads(""))
    assert result.host.undo()
    assert result.host.state is not None and result.host.state.night_actions.shots == []


@pytest.mark.parametrize("language", ["ru", "en"])
@pytest.mark.parametrize("kind", [PrivateKind.DON_ANSWER, PrivateKind.SHERIFF_ANSWER])
def test_the_private_answers_look_alike_and_only_the_led_differs(
    language: str, kind: PrivateKind
) -> None:
    book = PhraseBook.load(language)
    yes, no = (describe_private(Private(kind, found=found), book) for found in (True, False))
    assert yes != no and len(yes) == len(no)
    led = PrivateSettings()
    lit = [led_pattern(Private(kind, found=found), led) for found in (True, False)]
    assert [len(p) for p in lit] == [len(lit[0])] * 2  # the same length of time
    assert [p[-2].lit for p in lit] == [True, False]
    assert sum(s.seconds for s in lit[0]) == sum(s.seconds for s in lit[1])


def test_play_preset_fiim_sets_ten_players_and_refuses_another_count() -> None:
    from argparse import Namespace

    from voicehost.cli.play import settings_for

    args = Namespace(config=None, players=None, lang=None, preset="fiim")
    settings = settings_for(args)
    assert (settings.rules.preset, settings.players) == ("fiim", 10)
    with pytest.raises(VoicehostError, match="leave --players out"):
        settings_for(Namespace(**{**vars(args), "players": 12}))


@pytest.mark.parametrize("name", sorted(p.name for p in (REPO / "examples").glob("fiim-*.txt")))
def test_every_fiim_example_replays_from_its_journal_to_the_same_protocol(
    name: str, tmp_path: Path
) -> None:
    """Fouls, removals (`remove` is journaled too), the best move and the final minute are all
    rebuilt from the journal after a crash, to the same protocol and points."""
    from voicehost.host import protocol

    lines = (REPO / "examples" / name).read_text(encoding="utf-8").splitlines()
    journal = tmp_path / "game.jsonl"
    result = run_script(lines, config.loads(""), journal_path=journal)
    assert result.errors == []
    replayed = replay_journal(config.loads(""), journal)
    assert protocol.build(replayed.state) == result.protocol
    assert "scores" in result.protocol and len(result.protocol["scores"]) == 10


FIIM_DAY_1 = ["preset fiim", "2 5 9", "wait", "5", "wait", "4", "wait", "wait"]


@pytest.mark.parametrize(
    ("lines", "removed", "error"),
    [
        ([*FIIM_DAY_1, "remove 6"], [6], None),
        ([*FIIM_DAY_1, "удалить 6"], [6], None),
        (["2 5 9", "wait", "4", "wait", "7", "wait", "remove 6"], [], "введите f 6"),
    ],
)
def test_remove_at_the_keyboard(lines: list[str], removed: list[int], error: str | None) -> None:
    """MR 10.11 to 10.20: `remove N` removes at once at a FIIM table; the club rules refuse it
    and say what to type instead."""
    result = run_script(lines, config.loads(""))
    gone = [d["seat"] for d in result.protocol["departures"] if d["how"] == "removed"]
    assert gone == removed
    if error is None:
        assert result.errors == []
        assert "Игрок номер шесть удалён и покидает стол без последнего слова." in result.transcript
    else:
        assert len(result.errors) == 1 and error in result.errors[0]


@pytest.mark.parametrize("confirm", ["teamloss 9 да", "поражение 9 да", "teamloss 9 yes"])
def test_a_team_loss_at_the_keyboard_asks_to_be_confirmed(confirm: str) -> None:
    """MR 10.21 to 10.24: `teamloss 9` alone ends nothing and says how to confirm; confirmed,
    the town wins at once, the protocol says why, and it cannot be taken back."""
    from voicehost.host import protocol

    asked = run_script([*FIIM_DAY_1, "teamloss 9"], config.loads(""))
    assert len(asked.errors) == 1 and "введите: teamloss 9 да" in asked.errors[0]
    assert not asked.host.over and asked.protocol["winner"] is None
    result = run_script([*FIIM_DAY_1, confirm], config.loads(""))
    assert result.errors == [] and result.host.over and result.protocol["winner"] == "red"
    assert "По решению судьи команда игрока номер девять получает поражение." in result.transcript
    assert not result.host.undo()  # the table has heard the winner
    table = protocol.to_table(result.protocol, PhraseBook.load("ru"))
    assert "Поражение команды по решению судьи: игрок номер 9, день 1" in table


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("teamloss 9 нет", "вводится так: teamloss НОМЕР да"),
        ("teamloss", "вводится так: teamloss НОМЕР да"),
        ("teamloss 11 да", "Места номер 11 нет"),
    ],
)
def test_a_wrong_team_loss_line_says_what_is_wrong(line: str, error: str) -> None:
    result = run_script([*FIIM_DAY_1, line, "."], config.loads(""))
    assert len(result.errors) == 1 and error in result.errors[0], result.errors
    assert not result.host.over


def test_a_hand_edited_team_loss_in_the_journal_is_named() -> None:
    from voicehost.game.errors import BadRecord
    from voicehost.game.inputs import TeamLoss, from_json, to_json

    assert from_json(to_json(TeamLoss(9, True))) == TeamLoss(9, True)
    with pytest.raises(BadRecord, match="team_loss.confirmed is 'yes'; it must be true or false"):
        from_json({"kind": "team_loss", "seat": 9, "confirmed": "yes"})
