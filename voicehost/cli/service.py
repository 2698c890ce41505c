"""`voicehost service install|uninstall|status`: start the host at boot with systemd.

The unit runs ``voicehost --config <config> play --resume-or-start``: after a power cut or a
crash the unfinished game resumes from its journal («Продолжаем игру»), otherwise a new game
starts. systemd restarts the host if it crashes (``Restart=on-failure``); a game that ends
normally ends the service, and the next boot (or ``sudo systemctl restart voicehost``) starts
the next game.
"""

from __future__ import annotations

import argparse
import getpass
import os
import pwd
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import voicehost
from voicehost import config
from voicehost.cli.texts import message, text
from voicehost.errors import VoicehostError

UNIT_NAME = "voicehost.service"
SYSTEM_UNIT_DIR = Path("/etc/systemd/system")
PROJECT_DIR = Path(voicehost.__file__).resolve().parent.parent
INTERRUPTED_EXIT = 130  # voicehost's exit status after SIGINT: a clean stop, not a failure


class ServiceError(VoicehostError):
    """The service cannot be installed or removed; the text says what to do."""


#: The service's own user when whoever installs it is root (``sudo`` from a login names that one).
SERVICE_USER = "voicehost"
#: systemd's StateDirectory=: /var/lib/voicehost, owned by the service's user, mode 0700.
STATE_DIRECTORY = "voicehost"
#: Where the hardened service may write, besides the voice cache: the journals and protocols.
#: What systemd's %S means for a system service.
STATE_ROOT = Path("/var/lib")
JOURNAL_DIR = f"%S/{STATE_DIRECTORY}/journals"
PROTOCOL_DIR = f"%S/{STATE_DIRECTORY}/protocols"
CLUB_DIR = f"%S/{STATE_DIRECTORY}/club"  # the evening, the outbox, the club's SQLite file


SERVICE_NICE = -10
"""The host's CPU priority as a service (``Nice=`` of the unit); the real-time benches
(bench/benchkit.py) run with it too, so their figures are the Pi's."""


@dataclass(frozen=True)
class UnitSpec:
    """What the unit file says: who runs what, where."""

    user: str
    command: tuple[str, ...]
    working_directory: Path
    config_path: Path
    cache_dir: Path | None = None  # the voice cache `voicehost phrases build` fills
    web: bool = False  # web.enabled: the board and the remote on the local network


def _under_home(*paths: Path) -> bool:
    return any(
        str(path).startswith(("/home/", "/root/", "/run/user/")) or str(path) in ("/home", "/root")
        for path in paths
    )


def systemd_quote(argument: str) -> str:
    """One ExecStart argument, quoted for systemd when it holds spaces or quotes."""
    if argument and not any(char in argument for char in " \t\"'\\;$%"):
        return argument
    escaped = argument.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")
    escaped = escaped.replace("$", "$$")
    return f'"{escaped}"'


def _specifier_safe(value: str) -> str:
    """A whole-line setting (a path, a URL): systemd reads ``%`` as a specifier, so double it."""
    return value.replace("%", "%%")


def voicehost_command(config_path: Path) -> tuple[str, ...]:
    """The command line that starts a game: the venv's ``voicehost`` script, or ``python -m``."""
    interpreter = Path(sys.executable).absolute()  # not resolved: the venv's link must stay
    script = interpreter.parent / "voicehost"
    head = (str(script),) if script.is_file() else (str(interpreter), "-m", "voicehost")
    return (*head, "--config", str(config_path), "play", "--resume-or-start")


def _network(web: bool) -> str:
    """No network at all; with the web face, the local network only (the phones at the table:
    private IPv4 ranges, IPv6 link-local and unique-local), inbound on the web port and its
    answers, nothing beyond it. The address families add AF_NETLINK, which listing the
    machine's addresses needs."""
    if not web:
        return "PrivateNetwork=yes\nIPAddressDeny=any\nRestrictAddressFamilies=AF_UNIX\n"
    return (
        "# The web face (web.enabled): the table's local network and nothing else.\n"
        "IPAddressDeny=any\n"
        "IPAddressAllow=localhost link-local multicast\n"
        "IPAddressAllow=10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7\n"
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK\n"
    )


def unit_text(spec: UnitSpec) -> str:
    """The systemd unit file: an unprivileged, hardened host whose data is under /var/lib.

    The sandbox keeps what the host needs and nothing else: the sound card and the keypad
    (the audio and input groups, and only those devices), its state directory and the voice
    cache for writing, no network (it is an offline host), no privileges to gain. A clone under
    /home stays readable (``ProtectHome=read-only``): the venv and config.yaml live there.
    """
    exec_start = " ".join(systemd_quote(part) for part in spec.command)
    cache = spec.cache_dir
    # The venv's python may link to an interpreter under a home (pyenv): that must stay too.
    needed = [spec.working_directory, spec.config_path, *([cache] if cache else [])]
    needed += [Path(spec.command[0]), Path(spec.command[0]).resolve()]
    home = "read-only" if _under_home(*needed) else "yes"
    writable = f"ReadWritePaths=-{_specifier_safe(str(cache))}\n" if cache else ""
    return f"""\
# Written by `voicehost service install`; remove with `voicehost service uninstall`.
[Unit]
Description=voicehost, the voice host for the party game Mafia
Documentation={_specifier_safe((spec.working_directory / "docs" / "RASPBERRY_PI.md").as_uri())}
After=sound.target
Wants=sound.target
# A host that crashes 5 times in 2 minutes is left stopped: see `journalctl -u voicehost`.
StartLimitIntervalSec=120
StartLimitBurst=5

[Service]
Type=simple
User={spec.user}
# audio: the sound card; input: the keypad under /dev/input.
SupplementaryGroups=audio input
WorkingDirectory={_specifier_safe(str(spec.working_directory))}
Environment=PYTHONUNBUFFERED=1
# Journals and protocols hold the roles: owner-only, under /var/lib/voicehost.
StateDirectory={STATE_DIRECTORY}
StateDirectoryMode=0700
Environment=VOICEHOST_JOURNAL_DIR={JOURNAL_DIR}
Environment=VOICEHOST_PROTOCOL_DIR={PROTOCOL_DIR}
Environment=VOICEHOST_CLUB_DIR={CLUB_DIR}
UMask=0077
ExecStart={exec_start}
# Timed cues and the keypad come before whatever else the Pi runs (the benches run so too).
Nice={SERVICE_NICE}
IOSchedulingClass=best-effort
IOSchedulingPriority=0
Restart=on-failure
RestartSec=3
# SIGINT lets the host close the keypad and the sound card; the journal is already on disk.
KillSignal=SIGINT
TimeoutStopSec=10
SuccessExitStatus={INTERRUPTED_EXIT}
# The screen shows what the table sees, refusals at night included; journald would keep it
# for anyone allowed to read the log, so only the log (stderr, which names no secret) goes.
StandardOutput=null
StandardError=journal

# The sandbox.
NoNewPrivileges=yes
CapabilityBoundingSet=
AmbientCapabilities=
ProtectSystem=strict
ProtectHome={home}
{writable}PrivateTmp=yes
{_network(spec.web)}DevicePolicy=closed
DeviceAllow=char-alsa rw
DeviceAllow=char-input rw
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
ProtectProc=invisible
ProcSubset=pid
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
RemoveIPC=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service
SystemCallFilter=~@privileged @resources
SystemCallErrorNumber=EPERM
PrivateMounts=yes
# Not set, as they would break sound or the keypad: PrivateDevices (the sound card and the
# keypad are devices), PrivateUsers (the audio and input groups), MemoryDenyWriteExecute (the
# sound library's callbacks are made at run time).

[Install]
WantedBy=multi-user.target
"""


def default_user() -> str:
    """The person who ran ``sudo``, else whoever runs this; root gets the service's own user."""
    user = os.environ.get("SUDO_USER") or getpass.getuser()
    return SERVICE_USER if user == "root" else user


ADD_USER = f"useradd --system --no-create-home --groups audio,input {SERVICE_USER}"


def check_user(user: str, *, create: bool = False) -> None:
    """The host never runs as root; the service's own user is made when it is missing."""
    if user == "root" or (user.isdigit() and int(user) == 0):
        raise ServiceError.written(message("service.not_root", user=SERVICE_USER))
    try:
        pwd.getpwnam(user)
        return
    except KeyError:
        pass
    if user == SERVICE_USER and create and os.geteuid() == 0 and shutil.which("useradd"):
        done = subprocess.run(ADD_USER.split(), capture_output=True, text=True, check=False)
        if done.returncode == 0:
            print(f"Made the user «{SERVICE_USER}» (groups audio, input) to run the host.")
            return
        raise ServiceError.written(
            message("service.cannot_add_user", user=SERVICE_USER, text=done.stderr.strip())
        )
    if user == SERVICE_USER:
        print(message("service.add_user_first", user=SERVICE_USER, command=f"sudo {ADD_USER}"))
        return
    raise ServiceError.written(message("service.no_such_user", user=user))


def config_path_of(args: argparse.Namespace) -> Path:
    path = Path(args.config) if args.config else config.DEFAULT_CONFIG
    path = path.expanduser().absolute()
    if not path.is_file():
        raise ServiceError.written(message("service.no_config", path=path))
    config.load(path)  # a broken file is reported now, not at every boot
    return path


def systemd_running() -> bool:
    """Whether systemd manages this machine now (not a container or a chroot)."""
    return Path("/run/systemd/system").is_dir() and shutil.which("systemctl") is not None


def systemctl(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["systemctl", *arguments], capture_output=True, text=True, check=False)


def install(args: argparse.Namespace) -> int:
    """Write the unit and enable it (now, when systemd runs here)."""
    user = args.user or default_user()
    unit_dir = Path(args.unit_dir)
    check_user(user, create=not args.print and unit_dir == SYSTEM_UNIT_DIR)
    config_path = config_path_of(args)
    settings = config.load(config_path)
    cache = settings.path(settings.voice.cache_dir).absolute()
    spec = UnitSpec(
        user, voicehost_command(config_path), PROJECT_DIR, config_path, cache, settings.web.enabled
    )
    text = unit_text(spec)
    if args.print:
        print(text, end="")
        return 0
    unit_path = unit_dir / UNIT_NAME
    try:
        unit_path.parent.mkdir(parents=True, exist_ok=True)
        unit_path.write_text(text, encoding="utf-8")
    except PermissionError as exc:
        raise ServiceError.written(
            message(
                "service.cannot_write",
                path=unit_path,
                command=f"sudo {sys.executable} -m voicehost service install --user {user}",
            )
        ) from exc
    print(
        message(
            "service.wrote",
            path=unit_path,
            user=user,
            config=config_path,
            folder=f"/var/lib/{STATE_DIRECTORY}",
        )
    )
    if args.no_enable:
        return 0
    return _enable(unit_path)


def _enable(unit_path: Path) -> int:
    if not systemd_running() or unit_path.parent != SYSTEM_UNIT_DIR:
        print(message("service.no_systemd_enable"))
        print("  sudo systemctl daemon-reload\n  sudo systemctl enable --now voicehost")
        return 0
    for arguments in (("daemon-reload",), ("enable", "--now", UNIT_NAME)):
        result = systemctl(*arguments)
        if result.returncode != 0:
            raise ServiceError.written(
                message(
                    "service.systemctl_failed",
                    command=f"systemctl {' '.join(arguments)}",
                    text=result.stderr.strip(),
                )
            )
    print(message("service.enabled"))
    return 0


def uninstall(args: argparse.Namespace) -> int:
    """Stop and disable the service, and remove its unit."""
    unit_path = Path(args.unit_dir) / UNIT_NAME
    managed = systemd_running() and unit_path.parent == SYSTEM_UNIT_DIR
    if managed:
        systemctl("disable", "--now", UNIT_NAME)
    if not unit_path.exists():
        print(message("service.not_there", path=unit_path))
        return 0
    try:
        unit_path.unlink()
    except PermissionError as exc:
        raise ServiceError.written(message("service.cannot_remove", path=unit_path)) from exc
    if managed:
        systemctl("daemon-reload")
    print(message("service.removed", path=unit_path))
    return 0


def status(args: argparse.Namespace) -> int:
    """Whether the unit is installed, enabled and running, and what a start would do."""
    unit_path = Path(args.unit_dir) / UNIT_NAME
    if not unit_path.exists():
        print(message("service.not_installed", path=unit_path))
        return 3  # systemctl's "not running"
    text = unit_path.read_text(encoding="utf-8")
    exec_start = next(
        (line.split("=", 1)[1] for line in text.splitlines() if line.startswith("ExecStart=")),
        "(none)",
    )
    print(message("service.installed", path=unit_path, command=exec_start))
    if systemd_running():
        enabled = systemctl("is-enabled", UNIT_NAME).stdout.strip() or "unknown"
        active = systemctl("is-active", UNIT_NAME).stdout.strip() or "unknown"
        print(message("service.state", enabled=enabled, active=active))
    else:
        print(message("service.no_systemd_status"))
    print(message("service.on_start", text=_next_start(text)))
    return 0


def _next_start(unit: str) -> str:
    from voicehost.host.journal import newest_unfinished

    config_arg = next(
        (line.split("--config", 1)[1].split()[0].strip('"') for line in unit.splitlines()
         if line.startswith("ExecStart=") and "--config" in line),
        None,
    )  # fmt: skip
    try:
        settings = config.load(config_arg)
        folder = settings.path(settings.storage.journal_dir)
        if f"Environment=VOICEHOST_JOURNAL_DIR={JOURNAL_DIR}" in unit:
            folder = Path(JOURNAL_DIR.replace("%S", str(STATE_ROOT)))
        journal = newest_unfinished(folder)
    except VoicehostError as exc:
        return message("service.cannot_tell", text=exc)
    if journal is None:
        return message("service.starts_new")
    return message("service.resumes", path=journal)


def register(subparsers: Any) -> None:
    """Add `voicehost service install|uninstall|status`."""
    parser = subparsers.add_parser(
        "service",
        help=text("service"),
        description=text("service.description"),
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add_install = actions.add_parser(
        "install", help=text("service.install"), description=text("service.install.description")
    )
    add_install.add_argument("--user", help=text("service.install.user"))
    add_install.add_argument(
        "--no-enable", action="store_true", help=text("service.install.no_enable")
    )
    add_install.add_argument("--print", action="store_true", help=text("service.install.print"))
    add_install.set_defaults(func=install)
    add_uninstall = actions.add_parser("uninstall", help=text("service.uninstall"))
    add_uninstall.set_defaults(func=uninstall)
    add_status = actions.add_parser("status", help=text("service.status"))
    add_status.set_defaults(func=status)
    for sub in (add_install, add_uninstall, add_status):
        sub.add_argument(
            "--unit-dir",
            default=str(SYSTEM_UNIT_DIR),
            help=text("service.unit_dir", folder=SYSTEM_UNIT_DIR),
        )
