"""A container's stdout and stderr: a FIFO of the seat's own, read by the referee, capped.

arena-init (``referee/init.c``) points a bot's stdout and stderr at the FIFO ``output`` in the
seat's folder, so nothing a bot writes goes through the Docker engine, whose log driver worked on
the host for every byte. The referee keeps the first :data:`~referee.limits.LOG_CAP` bytes of a
match, then reads at most :data:`~referee.limits.LOG_RATE` bytes a second and keeps only the last
:data:`~referee.transport.TAIL_BYTES`: a bot that writes faster fills the pipe
(:data:`PIPE_BYTES`) and waits in its writes, on its own clock. What the engine's log cost, and
more: docs/sandbox.md ("A bot's output").
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

from .limits import LOG_CAP, LOG_RATE
from .transport import TAIL_BYTES

FIFO_NAME = "output"  # in the seat's folder, so /run/arena/output in its container
CHUNK = 64 * 1024
PIPE_BYTES = 1024 * 1024  # the FIFO's buffer: a burst past the cap is taken without blocking the bot
TRUNCATED = b"\n[arena: output truncated here]\n"


class OutputPipe:
    """The output of every launch of one seat's bot: :meth:`open` before each container starts,
    :meth:`close` after it is gone. The log file and the cap are the seat's, for the match."""

    def __init__(self, log_path: Path, cap: int = LOG_CAP, rate: float = LOG_RATE) -> None:
        self.log_path = log_path
        self.cap, self.rate = cap, rate
        self.kept = 0  # bytes written to the log, over the match
        self.tail = bytearray()  # the last TAIL_BYTES read
        self.throttled = False  # past the cap, reading slowly: the bot may be waiting in a write
        self._log: BinaryIO | None = None
        self._fd: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None

    def path(self, folder: Path) -> Path:
        return folder / FIFO_NAME

    def open(self, folder: Path) -> None:
        """A new FIFO in ``folder`` (the seat's, which only the referee writes), and its reading
        end open (so arena-init's opening for writing does not wait)."""
        self.close()
        path = self.path(folder)
        path.unlink(missing_ok=True)
        os.mkfifo(path, 0o600)
        os.chmod(path, 0o622)  # any user may write (each container is a user of its own); only the referee reads
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):  # cannot be, in the referee's own folder: but never read a bot's
            os.close(fd)
            raise OSError(f"{path} is not the FIFO the referee made")
        with contextlib.suppress(OSError):  # a host whose pipe-max-size is smaller keeps its default
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        if self._log is None:
            self._log = open(self.log_path, "ab", buffering=0)  # noqa: SIM115 - closed in finish()
        self._fd, self.throttled = fd, False
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(fd, self._readable)

    def _readable(self) -> None:
        fd = self._fd
        if fd is None:
            return
        if self.kept < self.cap:
            while self._fd is not None and self.kept < self.cap:  # up to the cap, all there is
                if not self._read(CHUNK):
                    return
            return
        # past the cap: one chunk, then a pause as long as reading it at the rate takes
        assert self._loop is not None
        self._loop.remove_reader(fd)
        got = self._read(CHUNK)
        if self._fd is not None:
            self.throttled = True
            self._timer = self._loop.call_later(max(got, 1) / self.rate, self._resume)

    def _resume(self) -> None:
        self._timer = None
        if self._fd is not None and self._loop is not None:
            self._loop.add_reader(self._fd, self._readable)

    def _read(self, size: int) -> int:
        """Reads once; returns the bytes read (0: nothing there now, or the end: then closed)."""
        assert self._fd is not None
        try:
            data = os.read(self._fd, size)
        except BlockingIOError:
            return 0
        except OSError:
            data = b""
        if not data:  # every writer has gone: the container ended
            self._stop_reading()
            return 0
        self.tail += data
        del self.tail[:-TAIL_BYTES]
        if self.kept < self.cap and self._log is not None:
            part = data[: self.cap - self.kept]
            with contextlib.suppress(OSError):
                self._log.write(part)
                if self.kept + len(part) >= self.cap:
                    self._log.write(TRUNCATED)
            self.kept += len(part)
        return len(data)

    def drain(self, limit: int = PIPE_BYTES + CHUNK) -> None:
        """Reads what is in the pipe now (the last words of a bot that has ended), up to ``limit``
        bytes, at once: what a crash's detail shows."""
        read = 0
        while self._fd is not None and read < limit:
            got = self._read(CHUNK)
            if not got:
                break
            read += got

    def _stop_reading(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._fd is not None:
            if self._loop is not None:
                with contextlib.suppress(Exception):  # the loop may be closing
                    self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None

    def close(self) -> None:
        """Stops reading the current launch's FIFO (after :meth:`drain`, for its last words)."""
        self._stop_reading()

    def append(self, data: bytes) -> None:
        """Adds ``data`` (arena-init's own errors, from the engine's log) to the log, within the cap."""
        if self._log is None:  # the seat's log exists once a container of it has been, even a silent one
            self._log = open(self.log_path, "ab", buffering=0)  # noqa: SIM115 - closed in finish()
        if data and self.kept < self.cap:
            part = data[: self.cap - self.kept]
            with contextlib.suppress(OSError):
                self._log.write(part)
            self.kept += len(part)

    def finish(self) -> None:
        """The seat is done: its log file is closed."""
        self.close()
        if self._log is not None:
            self._log.close()
            self._log = None
