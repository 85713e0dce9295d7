"""Quotas on uploads: how much of the server's disk and build queue one author, and every
author together, may hold (the numbers are :class:`~arena.web.app.WebSettings`', their
defaults in ``referee/limits.py``, "Quotas of a server"):

- an author's submissions not finished yet (queued, building, checking), the author's uploads
  being received or unpacked right now counted with them: at most ``queued_per_author``;
- an author's submissions in any 24 hours: at most ``submissions_per_day``;
- uploads being unpacked at once: ``unpacks_at_once`` (an upload waits up to
  ``unpack_wait_s`` for a slot);
- the bytes unpacked and not yet built, every author's together: ``uploads_in_flight_mb``,
  counted as they are written (so many small bombs stop there as one large one does).

Each is refused with a :class:`QuotaRefused` (an :class:`~arena.uploads.UploadRefused`:
429, or 413 for an upload that could never fit) that says what to do and when, before the
upload is queued; the caller leaves nothing of it on disk.

The counts of submissions are the store's; what is in flight is this process's (``arena serve``
is one process). An unpacked folder is counted until it is gone from disk: the worker removes
it once the bot is built, or refused.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from ..accounts import Account
from ..store import Store, Submission
from ..store.models import now
from ..submissions import FINISHED
from ..uploads import MiB, UploadRefused

if TYPE_CHECKING:
    from fastapi import FastAPI

    from .settings import WebSettings

DAY = timedelta(hours=24)
RETRY_QUEUE_S = 60  # Retry-After when the server's queue is full: a build takes minutes


class QuotaRefused(UploadRefused):
    """An upload over a quota; ``retry_after``: seconds until it may be taken (Retry-After)."""

    def __init__(self, message: str, status: int = 429, retry_after: int | None = None) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


class Quotas:
    """One server's quotas (see the module). Thread-safe: uploads are handled in the thread pool."""

    def __init__(self, settings: WebSettings) -> None:
        self.settings = settings
        self.cap = settings.uploads_in_flight_mb * MiB
        self.slots = threading.BoundedSemaphore(max(1, settings.unpacks_at_once))
        self.lock = threading.Lock()
        self.uploading: Counter[int] = Counter()  # account id -> its uploads being received or unpacked
        self.unpacking = 0  # bytes written so far by the unpacks in progress
        self.held: dict[Path, int] = _measure(settings.uploads_dir)  # folder -> bytes, until it is gone

    # -- an author's submissions ------------------------------------------------------------
    def enter(self, store: Store, account: Account) -> None:
        """Counts an upload of ``account``'s from its first byte (:meth:`leave` when it is queued
        or refused), or refuses it: too many submissions of theirs not finished yet, or today."""
        with self.lock, store() as session:
            mine = self.uploading[account.id]
            pending = mine + (session.scalar(select(func.count()).select_from(Submission).where(
                Submission.user_id == account.id, Submission.status.not_in(FINISHED))) or 0)
            if pending >= self.settings.queued_per_author:
                raise QuotaRefused(
                    f"you have {pending} submission{'s' if pending != 1 else ''} not finished yet (queued, building "
                    f"or checking{', or being uploaded' if mine else ''}), and this server takes at most "
                    f"{self.settings.queued_per_author} at once from one author: submit this one again once one "
                    "of them is finished (your submissions: /submissions)", retry_after=RETRY_QUEUE_S)
            since = now() - DAY
            recent = sorted(_utc(t) for t in session.scalars(select(Submission.created_at).where(
                Submission.user_id == account.id, Submission.created_at > since)))
            if len(recent) + mine >= self.settings.submissions_per_day:
                self._refuse_today(recent, mine)
            self.uploading[account.id] += 1

    def _refuse_today(self, recent: list[datetime], mine: int) -> None:
        cap = self.settings.submissions_per_day
        over = len(recent) - cap  # this many must age out first, and one more
        if over < 0 or not recent:  # only uploads in progress fill the day: one of them may yet fail
            raise QuotaRefused(f"you are uploading {mine} submission(s) now, and with them you reach the {cap} a "
                               "day this server takes from one author: wait until they are queued or refused",
                               retry_after=10)
        free = recent[over] + DAY
        wait = max(1, math.ceil((free - now()).total_seconds()))
        raise QuotaRefused(f"you have made {len(recent)} submissions in the last 24 hours, the most this server "
                           f"takes from one author in a day: the next one is taken from {free:%Y-%m-%d %H:%M} UTC "
                           f"(in {_duration(wait)})", retry_after=wait)

    def leave(self, account: Account) -> None:
        with self.lock:
            self.uploading[account.id] -= 1
            if self.uploading[account.id] <= 0:
                del self.uploading[account.id]

    # -- unpacking ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def unpack_slot(self) -> Iterator[None]:
        """One of the ``unpacks_at_once`` slots, waited for up to ``unpack_wait_s``."""
        if not self.slots.acquire(timeout=self.settings.unpack_wait_s):
            raise QuotaRefused(f"the server is unpacking {self.settings.unpacks_at_once} upload(s) already, and "
                               f"none was done within {self.settings.unpack_wait_s:g} s: send it again in a "
                               "minute", retry_after=30)
        try:
            yield
        finally:
            self.slots.release()

    def room(self) -> Room:
        """What one unpack writes, charged to the bytes in flight as it is written."""
        return Room(self)

    def in_flight(self) -> int:
        """Bytes unpacked and not yet built, and being unpacked (hold the lock)."""
        return sum(self.held.values()) + self.unpacking

    def prune(self) -> None:
        """Forgets the folders that are gone from disk (built, or refused) (hold the lock)."""
        for folder in [f for f in self.held if not f.exists()]:
            del self.held[folder]

    def too_much(self, needed: int) -> QuotaRefused:
        """The refusal of an unpack that needs ``needed`` bytes in all (hold the lock)."""
        cap_mb = self.settings.uploads_in_flight_mb
        if needed > self.cap:  # it could never fit
            return QuotaRefused(f"the archive unpacks to more than {cap_mb} MB, all that this server holds of "
                                f"uploads waiting to be built: an upload may unpack to at most {cap_mb} MB here",
                                status=413)
        return QuotaRefused(f"the server holds {self.in_flight() / MiB:,.0f} MB of uploads waiting to be built (every "
                            f"author's together; it takes at most {cap_mb:,} MB), and this one does not fit now: "
                            "send it again in a few minutes, once the build queue is shorter",
                            retry_after=RETRY_QUEUE_S)


class Room:
    """The bytes one unpack writes (``arena.uploads.unpack``'s ``room``). What the archive's
    headers say is reserved at once (:meth:`check`: two unpacks at once cannot both take the
    last room and both fail), and what is written beyond it is charged chunk by chunk, before
    it is written (headers may lie); :meth:`keep` once it is queued (the folder's bytes stay
    counted until it is gone from disk), :meth:`release` if it is not."""

    def __init__(self, quotas: Quotas) -> None:
        self.quotas = quotas
        self.charged = 0  # to the bytes in flight
        self.written = 0

    def check(self, declared: int) -> None:
        quotas = self.quotas
        with quotas.lock:
            quotas.prune()
            if quotas.in_flight() + declared - self.charged > quotas.cap:
                raise quotas.too_much(declared)
            quotas.unpacking += declared - self.charged
            self.charged = max(self.charged, declared)

    def take(self, size: int) -> None:
        self.written += size
        more = self.written - self.charged
        if more <= 0:
            return
        quotas = self.quotas
        with quotas.lock:
            if quotas.in_flight() + more > quotas.cap:
                quotas.prune()
                if quotas.in_flight() + more > quotas.cap:
                    raise quotas.too_much(self.written)
            quotas.unpacking += more
            self.charged += more

    def keep(self, folder: Path) -> None:
        with self.quotas.lock:
            self.quotas.unpacking -= self.charged
            self.quotas.held[folder] = self.quotas.held.get(folder, 0) + self.written
            self.charged = self.written = 0

    def release(self) -> None:
        with self.quotas.lock:
            self.quotas.unpacking -= self.charged
            self.charged = self.written = 0


_lock = threading.Lock()


def quotas_of(app: FastAPI) -> Quotas:
    """The app's quotas, made on first use (they measure what the uploads folder holds)."""
    with _lock:
        if getattr(app.state, "quotas", None) is None:
            app.state.quotas = Quotas(app.state.settings)
        return app.state.quotas


def _measure(uploads: Path) -> dict[Path, int]:
    """The bytes of each folder in the uploads folder: those a stopped server left queued."""
    held: dict[Path, int] = {}
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(uploads):
            if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                total = 0
                for folder, _dirs, files in os.walk(entry.path):
                    for name in files:
                        with contextlib.suppress(OSError):
                            total += os.lstat(os.path.join(folder, name)).st_size
                held[Path(entry.path)] = total
    return held


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)  # SQLite gives naive UTC


def _duration(seconds: int) -> str:
    hours, minutes = divmod(math.ceil(seconds / 60), 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"
