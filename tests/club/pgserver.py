"""A throw-away PostgreSQL server for the tests: Debian's postgresql, a cluster made by initdb as
the ``postgres`` user in a temporary folder that user owns, on a free loopback port, stopped and
removed at the end. PostgreSQL refuses to run as root, hence the user."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(found[-1]).parent if found else None


def _version(path: str) -> int:
    try:
        return int(path.split("/")[4])
    except (IndexError, ValueError):
        return 0


def unavailable() -> str:
    """Why no server can be started here ("" when one can)."""
    if bin_dir() is None:
        return "PostgreSQL is not installed (make dev installs Debian's postgresql)"
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return "no postgres user (Debian's postgresql package makes it)"
    if os.getuid() != 0:
        return "starting a throw-away PostgreSQL as the postgres user needs root"
    return ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PgServer:
    def __init__(self) -> None:
        self.bin = bin_dir()
        self.folder = Path(tempfile.mkdtemp(prefix="voicehost-pg-"))
        user = pwd.getpwnam("postgres")
        os.chown(self.folder, user.pw_uid, user.pw_gid)
        self.data = self.folder / "data"
        self.port = free_port()
        self._names = itertools.count(1)

    def _run(self, *args: str) -> None:
        assert self.bin is not None
        command = ["runuser", "-u", "postgres", "--", str(self.bin / args[0]), *args[1:]]
        subprocess.run(command, check=True, capture_output=True, cwd=self.folder, timeout=120)

    def start(self) -> None:
        if not self.data.exists():
            self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "-E", "UTF8", "--locale=C")  # fmt: skip
        options = f"-k {self.folder} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.folder / "log"), "-w", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop("immediate")
        self.start()

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self, template: str = "") -> str:
        """A new database (a copy of ``template``'s, given by its address, when named)."""
        name = f"club{next(self._names)}"
        import pg8000.native

        connection = pg8000.native.Connection("postgres", host="127.0.0.1", port=self.port)
        copy = f" TEMPLATE {template.rsplit('/', 1)[1]}" if template else ""
        try:
            connection.run(f"CREATE DATABASE {name}{copy}")
        finally:
            connection.close()
        return self.url(name)

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
