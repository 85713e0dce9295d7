"""Private Redis and PostgreSQL servers that a test can stop, kill and start again.

The tests of workers, brokers and stores that go away need servers of their own: the setup's
(scripts/redis-up.sh, scripts/postgres-up.sh) are shared by every test and every checkout on
the machine. Each server here runs on a free port of the loopback, keeps its data in a folder
of its own and comes back on the same port with the same data. The fixtures are in
tests/conftest.py: ``redis_url``, ``private_redis``, ``private_postgres``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import redis
import redis.exceptions

from referee.sockets import process_alive

SHARED_REDIS_URL = "redis://127.0.0.1:6379/15"  # the tests' database of the setup's Redis
START_TIMEOUT = 30.0  # seconds; a loaded machine starts a server in well under one
OWNER = "owner"  # in each server's folder: the pid of the test process it belongs to


class ServiceError(RuntimeError):
    """A private server did not start or stop; the message has its log's last lines."""


def free_port() -> int:
    """A TCP port of the loopback that nothing listens on now (the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def redis_answers(url: str, timeout: float = 1.0) -> bool:
    """Whether the Redis at ``url`` answers PING (a Redis still loading its data does not)."""
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        return bool(client.ping())
    except redis.exceptions.RedisError:
        return False
    finally:
        client.close()


class RedisServer:
    """A ``redis-server`` of its own on a free port, with its data in ``directory``.

    Persistence is the deployment's (docs/deploy.md): the append-only file, written before each
    reply, so that even ``kill()`` (SIGKILL) keeps every acknowledged write, and RDB snapshots,
    which ``stop()`` (SHUTDOWN SAVE) writes. ``start()`` after either brings the same data back
    on the same port. Started by the constructor."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = self.directory / "redis.log"
        (self.directory / OWNER).write_text(str(os.getpid()))  # for sweep(), should this process be killed
        self._process: subprocess.Popen | None = None
        self.start()

    def start(self) -> None:
        """Starts the server (if it is not running) and waits until it answers."""
        if self.running():
            return
        self._process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.directory),
             "--daemonize", "no", "--save", "60 1", "--appendonly", "yes", "--appendfsync", "everysec",
             "--logfile", str(self.log)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while not redis_answers(self.url, timeout=0.2):
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise ServiceError(f"redis-server on port {self.port} did not start:\n{_tail(self.log)}")
            time.sleep(0.02)

    def stop(self) -> None:
        """Shuts the server down gracefully: it saves its data (SHUTDOWN SAVE), then exits."""
        if self._process is None or not self.running():
            return
        client = redis.Redis.from_url(self.url, socket_timeout=10)
        try:
            client.shutdown(save=True)
        except redis.exceptions.ConnectionError:
            pass  # the server has gone: what was asked
        finally:
            client.close()
        try:
            self._process.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            self.kill()
            raise ServiceError(f"redis-server on port {self.port} did not stop:\n{_tail(self.log)}") from exc

    def kill(self) -> None:
        """Kills the server with SIGKILL: no save, no goodbye to its clients."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()

    def running(self) -> bool:
        """Whether the server's process is alive (it may still be loading its data)."""
        return self._process is not None and self._process.poll() is None


def postgres_bin() -> Path:
    """The newest of Debian's PostgreSQL binary folders (``/usr/lib/postgresql/<version>/bin``)."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if not versions:
        raise ServiceError("no PostgreSQL server here: run scripts/postgres-up.sh as root")
    return versions[-1].parent


def _as_postgres(argv: list[str], input: str | None = None) -> subprocess.CompletedProcess:
    """Runs a server program as user postgres: PostgreSQL refuses to run as root."""
    if os.geteuid() == 0:
        argv = ["runuser", "-u", "postgres", "--", *argv]
    return subprocess.run(argv, input=input, stdin=subprocess.DEVNULL if input is None else None,
                          capture_output=True, text=True, check=False)


def _own_by_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def _scratch() -> str | None:
    """Where clusters are kept: in memory (/dev/shm) when it has room, where a cluster is copied
    in a quarter of a second while the same copy on a busy machine's disk takes two or three;
    else the system's temporary folder."""
    try:
        stat = os.statvfs("/dev/shm")
    except OSError:
        return None
    return "/dev/shm" if stat.f_bavail * stat.f_frsize > 512 * 2**20 and os.access("/dev/shm", os.W_OK) else None


def _cluster_dir(prefix: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=_scratch()))
    (root / OWNER).write_text(str(os.getpid()))
    _own_by_postgres(root)
    return root


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def sweep() -> int:
    """Removes what killed test sessions left behind (their servers outlive them: PostgreSQL
    detaches, and a redis-server is orphaned): clusters whose owner process is gone, their
    server stopped first (they are in memory, in /dev/shm), and redis-servers of a pytest
    ``tmp_path`` that lost their parent. Another live session's servers are left alone.
    Returns how many were removed."""
    removed = 0
    for root in Path(_scratch() or tempfile.gettempdir()).glob("arena-pg-*"):
        try:
            owner = int((root / OWNER).read_text())
        except (OSError, ValueError):
            continue  # not made here, or being made
        if process_alive(owner):
            continue
        try:
            pid = int((root / "data" / "postmaster.pid").read_text().split("\n", 1)[0])
        except (OSError, ValueError):
            pid = 0
        if pid and _comm(pid) == "postgres":
            os.kill(pid, signal.SIGQUIT)  # an immediate shutdown
            deadline = time.monotonic() + 10
            while process_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
        shutil.rmtree(root, ignore_errors=True)
        removed += 1
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if _comm(int(proc.name)) != "redis-server":
                continue
            # a redis-server works in its --dir, where RedisServer wrote its owner (a redis-server
            # rewrites its command line); pytest may have deleted that folder since
            cwd = os.readlink(proc / "cwd")
            if cwd.endswith(" (deleted)"):
                orphan = "/pytest-of-" in cwd and (proc / "stat").read_text().rsplit(")", 1)[1].split()[1] == "1"
            else:
                orphan = not process_alive(int((Path(cwd) / OWNER).read_text()))
            if orphan:
                os.kill(int(proc.name), signal.SIGKILL)
                removed += 1
        except (OSError, ValueError, IndexError):
            continue  # not ours, or gone
    return removed


def make_postgres_template() -> Path:
    """A stopped cluster to copy each private server from (initdb costs two seconds, a copy a
    quarter of one): the superuser ``arena`` with password ``arena`` (SCRAM over TCP, no Unix
    socket), a database ``arena``, on the loopback only, without fsync (tests lose nothing
    to a killed process, and never power)."""
    binaries = postgres_bin()
    root = _cluster_dir("arena-pg-template-")
    (root / "password").write_text("arena\n")
    _own_by_postgres(root / "password")
    data = root / "data"
    done = _as_postgres([str(binaries / "initdb"), "-D", str(data), "-U", "arena", f"--pwfile={root / 'password'}",
                         "--auth=scram-sha-256", "--no-sync", "--encoding=UTF8", "--locale=C.UTF-8",
                         "--wal-segsize=1"])
    if done.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise ServiceError(f"initdb failed:\n{done.stdout}{done.stderr}")
    with (data / "postgresql.conf").open("a") as conf:
        conf.write("\n# a private test server (tests/services.py)\nlisten_addresses = '127.0.0.1'\n"
                   "unix_socket_directories = ''\nfsync = off\nfull_page_writes = off\n")
    # the database, in single-user mode: no server, no port to wait for
    done = _as_postgres([str(binaries / "postgres"), "--single", "-D", str(data), "postgres"],
                        input="CREATE DATABASE arena;\n")
    if done.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise ServiceError(f"could not create the database arena:\n{done.stdout}{done.stderr}")
    return root


class PostgresServer:
    """A PostgreSQL server of its own on a free port, copied from a template cluster
    (:func:`make_postgres_template`) into a folder of its own in /dev/shm or the system's
    temporary folder (PostgreSQL runs as user postgres, who may not enter pytest's ``tmp_path``).
    ``url`` reaches its database ``arena`` as ``arena``/``arena``. Started by the constructor;
    ``remove()`` stops it and deletes its folder."""

    def __init__(self, template: Path, port: int | None = None) -> None:
        self.binaries = postgres_bin()
        self.port = port or free_port()
        self.url = f"postgresql+psycopg://arena:arena@127.0.0.1:{self.port}/arena"
        self.root = _cluster_dir("arena-pg-")
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        # cp -a keeps the owner (postgres) and the data folder's mode (0700), which the server checks
        subprocess.run(["cp", "-a", str(template / "data"), str(self.data)], check=True)
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {self.port}\n")
        self.start()

    def _pg_ctl(self, *args: str) -> subprocess.CompletedProcess:
        return _as_postgres([str(self.binaries / "pg_ctl"), "-D", str(self.data), *args])

    def start(self) -> None:
        """Starts the server (if it is not running) and waits until it accepts connections."""
        if self.running():
            return
        done = self._pg_ctl("start", "-w", "-t", str(int(START_TIMEOUT)), "-l", str(self.log))
        if done.returncode != 0:
            raise ServiceError(f"PostgreSQL on port {self.port} did not start:\n{done.stderr}{_tail(self.log)}")

    def stop(self, mode: str = "fast") -> None:
        """Stops the server: ``fast`` (the default) rolls back open transactions and closes every
        connection, then shuts down cleanly; ``immediate`` is a crash, recovered at the next start."""
        if not self.running():
            return
        done = self._pg_ctl("stop", "-w", "-m", mode, "-t", str(int(START_TIMEOUT)))
        if done.returncode != 0:
            raise ServiceError(f"PostgreSQL on port {self.port} did not stop:\n{done.stderr}{_tail(self.log)}")

    def running(self) -> bool:
        """Whether the server's postmaster is alive (a killed one leaves its pid file behind)."""
        try:
            pid = int((self.data / "postmaster.pid").read_text().split("\n", 1)[0])
            return Path(f"/proc/{pid}/comm").read_text().strip() == "postgres"
        except (OSError, ValueError):
            return False

    def remove(self) -> None:
        """Stops the server at once, and deletes its folder."""
        try:
            self.stop(mode="immediate")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
