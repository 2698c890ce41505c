"""What every bench shares: the service's priority, percentiles, and an honest verdict.

Every bench prints its figures, then one line per target (``met`` / ``NOT met``) and exits 1
when any target is not met, so `make bench` fails. A real-time bench first takes the priority
the host has as a service (``Nice=`` of voicehost's systemd unit, voicehost/cli/service.py) and
says whether it could (lowering nice needs root or CAP_SYS_NICE).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from voicehost.cli.service import SERVICE_NICE


def service_priority() -> str:
    """Run this process (and its threads and children) at the service's nice; returns a line
    saying so.

    With the kernel's autogroups (``/proc/sys/kernel/sched_autogroup_enabled``), a nice value
    only orders the processes of one session: every other session, a shell running tests, say,
    gets an equal share whatever its nice. So the bench first starts a session of its own
    (re-run under ``setsid`` when it leads a process group already) and gives that session's
    group the service's nice too, as the host is the first thing a Pi's CPU serves.
    """
    if os.getsid(0) != os.getpid() and not os.environ.get("VOICEHOST_BENCH_SESSION"):
        try:
            os.setsid()
        except OSError:  # a process group's leader: run again in a session of its own
            os.environ["VOICEHOST_BENCH_SESSION"] = "1"
            sys.stdout.flush()
            os.execvp("setsid", ["setsid", "--wait", sys.executable, *sys.argv])
    try:
        os.setpriority(os.PRIO_PROCESS, 0, SERVICE_NICE)
    except OSError as exc:
        now = os.getpriority(os.PRIO_PROCESS, 0)
        return f"priority: nice {now}, not the service's {SERVICE_NICE} ({exc.strerror})"
    group = "its session's autogroup not set"
    try:
        with open("/proc/self/autogroup", "w", encoding="ascii") as autogroup:
            autogroup.write(str(SERVICE_NICE))
        group = f"its own session's autogroup at nice {SERVICE_NICE} too"
    except OSError as exc:
        group += f" ({exc.strerror})"
    return f"priority: nice {SERVICE_NICE}, as the systemd service runs the host; {group}"


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


class Targets:
    """Collects the verdicts of one run; ``exit_code()`` is 1 when any target was missed."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def check(self, name: str, figure: str, met: bool) -> bool:
        print(f"target {name}: {figure}: {'met' if met else 'NOT met'}")
        if not met:
            self.missed.append(name)
        return met

    def exit_code(self) -> int:
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        print(f"({stamp}, commit {commit()}; {len(self.missed)} target(s) not met)")
        return 1 if self.missed else 0


def commit() -> str:
    """The checkout's commit, with ``+`` when it has uncommitted changes."""
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        head = subprocess.run(
            ["git", "-C", here, "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")
