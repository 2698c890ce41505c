"""`voicehost protocol --score`: the referee's extra points after a FIIM game, and the protocol
in the FIIM form (docs/RULES-FIIM.md §11). Every wrong line is refused with a message that names
the problem and what to type; nothing a referee types ends in a traceback."""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.__main__ import main
from voicehost.host.scores import ScoreInputError, parse_extra
from voicehost.phrases import PhraseBook

REPO = Path(__file__).resolve().parents[2]
RU = PhraseBook.load("ru")


def _play(tmp_path: Path, example: str) -> Path:
    """Play an example into a journal in ``tmp_path``; returns the journal."""
    (tmp_path / "config.yaml").write_text((REPO / "config.yaml").read_text(encoding="utf-8"))
    journal = tmp_path / "game.jsonl"
    script = str(REPO / "examples" / example)
    code = main(["--config", str(tmp_path / "config.yaml"), "play", "--script", script,
                 "--journal", str(journal)])  # fmt: skip
    assert code == 0
    return journal


def _score(tmp_path: Path, journal: Path, typed: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    config = str(tmp_path / "config.yaml")
    return main(["--config", config, "protocol", "--score", "--json", str(journal)])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("x 0.3", "«x» — не номер места: введите место (1–10)"),
        ("11 0.3", "места 11 нет за этим столом: места от 1 до 10"),
        ("0 0.3", "места 0 нет за этим столом"),
        ("3", "игрок 3: не указаны баллы; введите, например, «3 +0.3"),
        ("3 много", "игрок 3: «много» — не число баллов"),
        ("3 nan", "игрок 3: «nan» — не число баллов"),
        ("3 inf", "игрок 3: «inf» — не число баллов"),
        ("3 1.5", "игрок 3: 1.5 — вне пределов; доп. баллы от −1 до +1"),
        ("3 -2", "игрок 3: -2 — вне пределов"),
    ],
)
def test_a_wrong_line_names_the_problem_and_what_to_type(line: str, message: str) -> None:
    with pytest.raises(ScoreInputError) as caught:
        parse_extra(line, 10, 1.0, RU)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("line", "seat", "points", "comment"),
    [
        ("3 +0.3 вёл город", 3, 0.3, "вёл город"),
        ("10 -0,2 поздно надел маску", 10, -0.2, "поздно надел маску"),
        ("  4   −0.5  ", 4, -0.5, ""),  # the typographic minus, spaces around
        ("1 1", 1, 1.0, ""),
    ],
)
def test_a_right_line_is_taken(line: str, seat: int, points: float, comment: str) -> None:
    assert parse_extra(line, 10, 1.0, RU) == {"seat": seat, "points": points, "comment": comment}


@settings(max_examples=300, deadline=None)
@given(line=st.text(max_size=40))
def test_any_line_is_taken_within_bounds_or_refused_with_a_reason(line: str) -> None:
    try:
        entry = parse_extra(line, 10, 1.0, RU)
    except ScoreInputError as refused:
        message = str(refused)  # a message whose fields are filled in
        assert message and not re.search(r"\{(text|seat|players|points|limit)\}", message)
        return
    assert 1 <= entry["seat"] <= 10 and -1.0 <= entry["points"] <= 1.0


def test_the_referee_adds_points_and_the_protocol_scores_the_best_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """§7, §11: seat 3's best move names two black seats (0.5) on top of the town's win; the
    referee's +0.3 and a typo retyped; the JSON and the printed table both carry it."""
    journal = _play(tmp_path, "fiim-best-move.txt")
    capsys.readouterr()
    code = _score(tmp_path, journal, "3 +0.3 вёл город\n4 x\n4 -0.2 маска\n\n", monkeypatch)
    assert code == 0
    out, err = capsys.readouterr()
    assert "✗ игрок 4: «x» — не число баллов" in err and "Traceback" not in err
    protocol = json.loads(out[: out.rindex("}") + 1])
    scores = {line["seat"]: line for line in protocol["scores"]}
    assert scores[3] == {"seat": 3, "win": 1, "best_move": 0.5, "penalty": 0.0, "extra": 0.3,
                         "comment": "вёл город", "total": 1.8}  # fmt: skip
    assert scores[4]["total"] == 0.8 and scores[2]["total"] == 0
    assert protocol["best_move"] == {"seat": 3, "seats": [2, 6, 9], "black": 2}
    table = (tmp_path / "protocols" / "game.txt").read_text(encoding="utf-8")
    assert "Лучший ход: игрок 3 назвал 2, 6, 9 (чёрных: 2)" in table
    assert "   3         1     0.5       0    +0.3     1.8  вёл город" in table
    # later protocols keep the points without asking again
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--config", str(tmp_path / "config.yaml"), "protocol", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "+0.3     1.8  вёл город" in out
    assert out.rstrip().splitlines()[-1].startswith("Протокол записан: ")  # the game's language


def test_score_run_again_lists_the_earlier_points_and_says_what_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second `protocol --score` does not silently replace the first: it lists what is kept,
    says that a line for the same seat replaces it, and names each change."""
    journal = _play(tmp_path, "fiim-best-move.txt")
    assert _score(tmp_path, journal, "3 +0.3 вёл город\n5 -0.1 шум\n\n", monkeypatch) == 0
    capsys.readouterr()
    assert _score(tmp_path, journal, "3 +0.2 вёл город\n\n", monkeypatch) == 0
    out, err = capsys.readouterr()
    earlier = err.index(RU.screen("score_earlier", {"count": 2}))
    assert err.index("игрок 3: +0.3 (вёл город)") > earlier
    assert err.index("игрок 5: -0.1 (шум)") > earlier
    assert RU.screen("score_earlier_hint") in err
    assert "игрок 3: было +0.3 (вёл город), стало +0.2 (вёл город)" in err
    protocol = json.loads(out[: out.rindex("}") + 1])
    scores = {line["seat"]: line for line in protocol["scores"]}
    assert scores[3]["extra"] == 0.2 and scores[5]["extra"] == -0.1  # seat 5 kept


def test_a_removal_costs_points_and_shows_in_the_protocol(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """§9, §11: the fourth foul removed seat 9 and cancelled day 1's vote."""
    journal = _play(tmp_path, "fiim-fourth-foul.txt")
    capsys.readouterr()
    assert main(["--config", str(tmp_path / "config.yaml"), "protocol", str(journal)]) == 0
    table = capsys.readouterr().out
    assert "   9  МАФИЯ               4  удалён" in table
    assert "голосование отменено: игрок удалён" in table
    assert "игрок 9: фол 4 (день 1), удаление" in table
    assert "   9         0       0    -0.5       0    -0.5" in table


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ("town-wins.txt", "доп. баллы ставятся в играх ФИИМ"),
    ],
)
def test_points_for_a_club_game_are_refused_with_the_reason(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    example: str,
    message: str,
) -> None:
    journal = _play(tmp_path, example)
    capsys.readouterr()
    assert _score(tmp_path, journal, "3 0.3\n", monkeypatch) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_points_before_the_game_is_over_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "half.txt"
    lines = (REPO / "examples" / "fiim-best-move.txt").read_text(encoding="utf-8").splitlines()
    script.write_text("\n".join(lines[:30]) + "\n", encoding="utf-8")
    (tmp_path / "config.yaml").write_text((REPO / "config.yaml").read_text(encoding="utf-8"))
    journal = tmp_path / "half.jsonl"
    config = str(tmp_path / "config.yaml")
    main(["--config", config, "play", "--script", str(script), "--journal", str(journal)])
    capsys.readouterr()
    assert _score(tmp_path, journal, "3 0.3\n", monkeypatch) == 1
    assert "игра ещё не окончена: баллы ставятся после неё" in capsys.readouterr().err


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _play(tmp_path_factory.mktemp("finished"), "fiim-best-move.txt")


@settings(max_examples=15, deadline=None)
@given(typed=st.lists(st.text(max_size=30).filter(lambda t: "\n" not in t), max_size=6))
def test_whatever_the_referee_types_no_traceback(finished: Path, typed: list[str]) -> None:
    """Random lines into the real command: it ends with 0 and every entry kept is in range."""
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        tmp = Path(folder)
        journal = finished
        (tmp / "config.yaml").write_text((REPO / "config.yaml").read_text(encoding="utf-8"))
        code = _score(tmp, journal, "\n".join(typed) + "\n", patch)
        assert code == 0
        kept = json.loads((tmp / "protocols" / "game.extra.json").read_text(encoding="utf-8"))
        assert all(1 <= e["seat"] <= 10 and abs(e["points"]) <= 1 for e in kept)
        assert len({e["seat"] for e in kept}) == len(kept)
