"""`voicehost service`: the systemd unit that starts the host at boot and resumes a game."""

from __future__ import annotations

import getpass
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from voicehost.__main__ import build_parser, main
from voicehost.cli.service import UnitSpec, systemd_quote, unit_text, voicehost_command

USER = getpass.getuser() if getpass.getuser() != "root" else "voicehost"  # the host is never root


def write_config(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "config.yaml"
    config.write_text("storage:\n  journal_dir: journals\n", encoding="utf-8")
    return config


def install(tmp_path: Path, config: Path, *extra: str) -> Path:
    units = tmp_path / "units"
    code = main(["--config", str(config), "service", "install", "--unit-dir", str(units), *extra])
    assert code == 0
    return units / "voicehost.service"


def unit_values(text: str, key: str) -> list[str]:
    return [line.split("=", 1)[1] for line in text.splitlines() if line.startswith(f"{key}=")]


def test_the_unit_starts_the_host_at_boot_resuming_an_unfinished_game(tmp_path: Path) -> None:
    config = write_config(tmp_path / "club")
    text = install(tmp_path, config, "--user", USER).read_text()
    (exec_start,) = unit_values(text, "ExecStart")
    command = shlex.split(exec_start)
    assert Path(command[0]).is_absolute()
    assert command[-4:] == ["--config", str(config), "play", "--resume-or-start"]
    assert unit_values(text, "Restart") == ["on-failure"]
    assert unit_values(text, "After") == ["sound.target"]
    assert unit_values(text, "User") == [USER]
    assert unit_values(text, "UMask") == ["0077"]
    assert unit_values(text, "StateDirectory") == ["voicehost"]
    assert unit_values(text, "ProtectSystem") == ["strict"]
    assert unit_values(text, "NoNewPrivileges") == ["yes"]
    assert unit_values(text, "PrivateTmp") == ["yes"]
    assert unit_values(text, "ProtectHome")[0] in ("yes", "read-only")
    assert unit_values(text, "WantedBy") == ["multi-user.target"]
    assert "input" in unit_values(text, "SupplementaryGroups")[0].split()  # reads the keypad


def test_the_units_command_line_is_one_voicehost_understands(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    command = voicehost_command(config)
    start = command.index("--config")
    argv = list(command[start:])
    args = build_parser(argv).parse_args(argv)
    assert args.command == "play" and args.resume_or_start
    assert Path(args.config) == config


@pytest.mark.parametrize(
    ("argument", "quoted"),
    [
        ("/home/pi/voicehost/config.yaml", "/home/pi/voicehost/config.yaml"),
        ("/home/pi/Mafia club/config.yaml", '"/home/pi/Mafia club/config.yaml"'),
        ('/srv/"odd"/100%', '"/srv/\\"odd\\"/100%%"'),
    ],
)
def test_paths_are_quoted_for_systemd(argument: str, quoted: str) -> None:
    assert systemd_quote(argument) == quoted


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is missing")
def test_systemd_accepts_the_unit_even_with_spaces_in_paths(tmp_path: Path) -> None:
    config = write_config(tmp_path / "Mafia club")
    text = unit_text(UnitSpec(USER, voicehost_command(config), tmp_path / "Mafia club", config))
    unit = tmp_path / "voicehost.service"
    unit.write_text(text)
    result = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    if "Failed to" in result.stderr and "voicehost.service" not in result.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    assert "voicehost.service" not in result.stderr, result.stderr  # no warning about our unit


def test_without_systemd_install_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if Path("/run/systemd/system").is_dir():
        pytest.skip("systemd runs here")
    install(tmp_path, write_config(tmp_path))
    out = capsys.readouterr().out
    assert "sudo systemctl enable --now voicehost" in out


def test_print_shows_the_unit_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unit = install(tmp_path, write_config(tmp_path), "--print")
    assert "ExecStart=" in capsys.readouterr().out
    assert not unit.exists()


def test_status_tells_whether_a_start_resumes_or_begins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from voicehost.cli import service

    monkeypatch.setattr(service, "STATE_ROOT", tmp_path / "var-lib")  # the unit's data folder
    config = write_config(tmp_path)
    units = ["--unit-dir", str(tmp_path / "units")]
    assert main(["--config", str(config), "service", "status", *units]) == 3
    assert "Служба не установлена" in capsys.readouterr().out  # config.yaml: language: ru
    install(tmp_path, config)
    capsys.readouterr()
    assert main(["--config", str(config), "service", "status", *units]) == 0
    assert "при запуске: начнётся новая игра" in capsys.readouterr().out
    journal = tmp_path / "var-lib" / "voicehost" / "journals" / "game-2024-05-01_20-00-00.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_text("{}\n")
    main(["--config", str(config), "service", "status", *units])
    assert f"при запуске: продолжится {journal}" in capsys.readouterr().out
    english = config.with_name("english.yaml")
    english.write_text(config.read_text() + "language: en\n")
    main(["--config", str(english), "service", "status", *units])
    assert f"on start: resumes {journal}" in capsys.readouterr().out


def test_uninstall_removes_the_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    unit = install(tmp_path, write_config(tmp_path))
    assert main(["service", "uninstall", "--unit-dir", str(unit.parent)]) == 0
    assert not unit.exists()
    assert main(["service", "uninstall", "--unit-dir", str(unit.parent)]) == 0
    assert "служба не установлена" in capsys.readouterr().out  # the default config: ru


def test_the_host_never_runs_as_root(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path)
    code = main(["--config", str(config), "service", "install", "--unit-dir", str(tmp_path),
                 "--user", "root"])  # fmt: skip
    assert code == 1 and "не должен работать от root" in capsys.readouterr().err  # language: ru
    if getpass.getuser() == "root":
        text = install(tmp_path, config).read_text()  # root installing: the service's own user
        assert unit_values(text, "User") == ["voicehost"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is missing")
def test_the_sandbox_scores_safe(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    unit = tmp_path / "voicehost.service"
    unit.write_text(unit_text(UnitSpec(USER, voicehost_command(config), tmp_path, config)))
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(unit)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    if "Overall exposure level" not in result.stdout:
        pytest.skip(f"systemd-analyze security cannot run here: {result.stderr.strip()[:200]}")
    exposure = float(
        result.stdout.split("Overall exposure level for voicehost.service:")[1].split()[0]
    )
    assert exposure <= 1.5, result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--user", "no-such-user-here"], "нет пользователя «no-such-user-here»"),
        (["--config", "/nonexistent/config.yaml"], "нет файла настроек /nonexistent"),
    ],
)
def test_mistakes_are_explained_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    config = ["--config", str(write_config(tmp_path))] if "--config" not in arguments else []
    global_args = arguments if "--config" in arguments else []
    local_args = [] if "--config" in arguments else arguments
    code = main(
        [*config, *global_args, "service", "install", "--unit-dir", str(tmp_path), *local_args]
    )
    assert code == 1
    assert message in capsys.readouterr().err


def test_with_the_web_face_the_unit_allows_the_local_network_only(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    offline = unit_text(UnitSpec(USER, voicehost_command(config), tmp_path, config))
    web = unit_text(UnitSpec(USER, voicehost_command(config), tmp_path, config, web=True))
    assert "PrivateNetwork=yes" in offline and "PrivateNetwork" not in web
    assert "IPAddressDeny=any" in web
    assert "192.168.0.0/16" in web and "0.0.0.0/0" not in web and "IPAddressAllow=any" not in web
    kept = [
        line for line in offline.splitlines() if "Network" not in line and "Address" not in line
    ]
    assert all(line in web.splitlines() for line in kept)  # every other hardening stays
    assert f"User={USER}" in web and "User=root" not in web
    unit = tmp_path / "voicehost.service"
    unit.write_text(web)
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", str(unit)],
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    if "Overall exposure level" in result.stdout:
        exposure = float(
            result.stdout.split("Overall exposure level for voicehost.service:")[1].split()[0]
        )
        assert exposure <= 2.5, result.stdout
