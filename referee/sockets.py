"""A match's socket folder: ``/tmp/arena-*/``, one sub-folder per seat, gone when its referee is.

Each seat's Unix socket lives in a folder of its own (``seat<i>``, mounted read-only into that
seat's container: ``referee/sandbox.py``). The root names its referee in an ``owner`` file and is
removed however the referee ends: by :class:`SocketRoot` on an end or a signal, by a watchdog
shell when the referee is killed, by :func:`sweep` (the next referee, ``arena doctor``) when the
watchdog went too. The path stays short: a Unix socket's address is at most 107 bytes. Each way
out in detail: docs/sandbox.md ("A match's socket folder").
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

SOCKET_ROOT_PREFIX = "arena-"  # per-match socket directories: /tmp/arena-*/
OWNER_FILE = "owner"  # in each socket root: the "host:pid" of its referee
SOCKET_PARENT = Path("/tmp")  # not $TMPDIR: a socket's path must stay short
# reads its standard input (the referee's pipe, never written) to its end, then removes the folder
WATCHDOG = 'while read -r _; do :; done; [ -d "$0" ] && rm -rf -- "$0"'


def owner_id() -> str:
    """This process, as the owner of what it starts: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str) -> bool:
    """Whether the owner ``host:pid`` may still be running: another host's is not ours to judge."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    return process_alive(int(pid))


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` of this host (or container) may still run: another user's counts."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SocketRoot:
    """The socket folder of one match (``path``), with its owner file and its watchdog, until
    :meth:`remove` (or the end of a ``with`` block)."""

    def __init__(self, parent: Path = SOCKET_PARENT) -> None:
        _reap()
        self.path = Path(tempfile.mkdtemp(prefix=SOCKET_ROOT_PREFIX, dir=parent))
        (self.path / OWNER_FILE).write_text(owner_id())
        self.watchdog: subprocess.Popen[bytes] | None = None
        # in a session of its own: no signal meant for the referee's process group reaches it. No
        # shell here (OSError): the sweep is the only net.
        with contextlib.suppress(OSError):
            self.watchdog = subprocess.Popen(["sh", "-c", WATCHDOG, str(self.path)], stdin=subprocess.PIPE,
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             start_new_session=True)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        watchdog, self.watchdog = self.watchdog, None
        if watchdog is not None:
            assert watchdog.stdin is not None
            watchdog.stdin.close()  # the end of its pipe: it finds the folder gone, and exits
            _ENDING.append(watchdog)  # reaped later: waiting for it would cost the match a few ms

    def __enter__(self) -> SocketRoot:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.remove()


_ENDING: list[subprocess.Popen[bytes]] = []  # watchdogs told to end, not reaped yet


def _reap() -> None:
    _ENDING[:] = [watchdog for watchdog in _ENDING if watchdog.poll() is None]


@atexit.register
def _reap_at_exit() -> None:
    for watchdog in _ENDING:
        with contextlib.suppress(subprocess.TimeoutExpired):
            watchdog.wait(timeout=1)
    _ENDING.clear()


def sweep(everything: bool = False, parent: Path = SOCKET_PARENT) -> int:
    """Removes the socket folders of referees that are no longer running (with ``everything``,
    all of Arena's); how many. A folder without an owner file is not Arena's to judge."""
    removed = 0
    for root in parent.glob(f"{SOCKET_ROOT_PREFIX}*"):
        owner = root / OWNER_FILE
        try:
            alive = owner.is_file() and owner_alive(owner.read_text().strip())
        except OSError:
            continue
        if (everything or not alive) and root.is_dir() and owner.is_file():
            shutil.rmtree(root, ignore_errors=True)
            removed += 1
    return removed
