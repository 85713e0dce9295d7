"""Bot images kept in the store, for worker hosts whose Docker engine lacks them.

An image is kept as ``docker save`` wrote it, gzipped, in ``ImageChunk`` rows of a few MiB,
with one ``ImageArchive`` row naming its image ID. A worker that lacks a bot's image loads it
from there (:func:`ensure_image`) and checks that the engine now has exactly that image ID:
Docker derives an image's ID from its config, which lists the digest of every layer, and
``docker load`` refuses layers that do not match, so the ID vouches for every byte. No
registry is needed; where one exists, pushing and pulling bot images works as well (the ID
stays the same), see docs/leagues.md.

Writing: the chunks are written under a staging key of their own, each in a short transaction,
then one transaction adds the ``ImageArchive`` row and renames the chunks to the image ID. So a
half-written archive is never read, and of two runners archiving one image at once (on two
hosts; on one host a lock keeps the second waiting), one wins and the other discards its chunks.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import stat
import tempfile
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors
import requests.exceptions
from docker.utils import parse_repository_tag
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError

from referee.textlog import printable

from ..store import Bot, ImageArchive, ImageChunk, Store, rows_changed

CHUNK_BYTES = 4 << 20  # of the gzipped archive per row: small enough for any database's row and transaction
GZIP_LEVEL = 1  # a Python sample bot (150 MiB): level 1 gave 58.6 MiB in 2.4 s, level 6 53.2 MiB in 7.7 s
READ_BYTES = 1 << 20  # what is asked of docker save at a time
STALE_STAGING = 6 * 3600  # seconds after which chunks an archiver left behind (it died) are removed
LOAD_TIMEOUT = 600  # seconds a default client waits for the engine: saving or loading a large image

IMAGE_ID = re.compile(r"sha256:[0-9a-f]{64}\Z")


class ArchiveError(Exception):
    """A bot image cannot be archived or loaded; the message says which image, which store,
    and what to do."""


def archive_image(store: Store, image: str, image_id: str, client: docker.DockerClient | None = None, *,
                  chunk_bytes: int = CHUNK_BYTES) -> bool:
    """Keeps ``image`` (a tag on this host's engine, whose ID must be ``image_id``) in the store
    as a gzipped ``docker save``, in chunks of ``chunk_bytes``, so that workers elsewhere can
    load it. Returns False if it was archived already (nothing is written then).

    Raises :class:`ArchiveError` if this host's engine lacks ``image`` or its ID is another.
    """
    _check_id(image_id)
    if has_archive(store, image_id):
        return False
    with _engine(client) as engine, _image_lock(image_id):
        if has_archive(store, image_id):  # another thread or process of this host wrote it meanwhile
            return False
        local = _image_id_of(engine, image)
        if local is None:
            raise ArchiveError(f"cannot archive {_show(image)}: this host's Docker engine has no such image; "
                               f"archive it from the host that built it{_where(store)}")
        if local != image_id:
            raise ArchiveError(f"cannot archive {_show(image)}: on this host it is image {local}, but the store "
                               f"registered {image_id}; archive it from the host that built it{_where(store)}")
        _remove_stale_staging(store, image_id)
        staging = f"{image_id.removeprefix('sha256:')}.{int(time.time()):08x}.{secrets.token_hex(3)}"
        try:
            size, chunks = _write_chunks(store, staging, engine, image_id, chunk_bytes)
            with store() as session, session.begin():
                session.add(ImageArchive(image_id=image_id, image=image, size=size, chunks=chunks))
                session.flush()  # a second archiver of this image fails here, before the rename
                session.execute(update(ImageChunk).where(ImageChunk.image_id == staging)
                                .values(image_id=image_id))
        except IntegrityError:
            _drop_chunks(store, staging)
            if has_archive(store, image_id):
                return False  # another host's runner archived it first
            raise
        except BaseException:
            _drop_chunks(store, staging)
            raise
    return True


def has_archive(store: Store, image_id: str) -> bool:
    """Whether the store keeps a complete archive of image ``image_id``."""
    with store() as session:
        return session.scalar(select(ImageArchive.id).where(ImageArchive.image_id == image_id)) is not None


def ensure_image(store: Store, image: str, image_id: str, client: docker.DockerClient | None = None) -> str:
    """Makes sure this host's engine has ``image`` as image ``image_id``: "present" if it had
    that image ID (the tag ``image`` is put on it if it pointed elsewhere or nowhere), "loaded"
    after loading it from the store's archive.

    The archive is streamed, chunk by chunk, through gunzip into ``docker load``; then the
    engine must have exactly ``image_id``. Several threads and processes of one host asking
    for one image at once load it once. Raises :class:`ArchiveError` when the store has no
    archive of it, or when the archive is damaged or does not hold that image.
    """
    _check_id(image_id)
    repository, tag = _repository_tag(image)
    with _engine(client) as engine:
        if _present(engine, image, image_id, repository, tag):
            return "present"
        with _image_lock(image_id):
            if _present(engine, image, image_id, repository, tag):  # loaded meanwhile by another
                return "present"
            _load(store, engine, image, image_id)
            engine.api.tag(image_id, repository, tag, force=True)
    return "loaded"


def delete_archive(store: Store, image_id: str) -> bool:
    """Removes the store's archive of ``image_id`` (a damaged one, to archive it again);
    False if there was none."""
    with store() as session, session.begin():
        gone = rows_changed(session, delete(ImageArchive).where(ImageArchive.image_id == image_id))
        session.execute(delete(ImageChunk).where(ImageChunk.image_id == image_id))
    return bool(gone)


@dataclass(frozen=True)
class Archived:
    """What :func:`archive_bot` did."""

    written: bool  # False: the store had it already
    size: int  # bytes of the gzipped archive
    image_size: int  # bytes of the image on this host's engine (0 when it was archived already)
    seconds: float


def archive_bot(store: Store, bot: Bot, client: docker.DockerClient | None = None) -> Archived:
    """Archives ``bot``'s image (:func:`archive_image`) and says how large it is."""
    start = time.monotonic()
    with _engine(client) as engine:
        written = archive_image(store, bot.image, bot.image_digest, engine)
        image_size = int(engine.api.inspect_image(bot.image_digest).get("Size", 0)) if written else 0
    with store() as session:
        size = session.scalar(select(ImageArchive.size).where(ImageArchive.image_id == bot.image_digest)) or 0
    return Archived(written, size, image_size, time.monotonic() - start)


# -- writing ---------------------------------------------------------------------------------

def _write_chunks(store: Store, key: str, engine: docker.DockerClient, image_id: str,
                  chunk_bytes: int) -> tuple[int, int]:
    """Streams ``docker save`` of ``image_id`` through gzip into chunk rows under ``key``, one
    transaction per chunk; returns the archive's bytes and chunks."""
    packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # wbits 31: a gzip stream
    pending = bytearray()
    size = seq = 0

    def flush(final: bool) -> None:
        nonlocal size, seq
        while len(pending) >= chunk_bytes or (final and pending):
            piece = bytes(pending[:chunk_bytes])
            del pending[:chunk_bytes]
            with store() as session, session.begin():
                session.add(ImageChunk(image_id=key, seq=seq, data=piece))
            size += len(piece)
            seq += 1

    try:
        for raw in engine.api.get_image(image_id, chunk_size=READ_BYTES):
            pending += packer.compress(raw)
            flush(final=False)
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        raise ArchiveError(f"docker save of {image_id} failed: {printable(str(exc), 300)}") from None
    pending += packer.flush()
    flush(final=True)
    return size, seq


def _drop_chunks(store: Store, key: str) -> None:
    with store() as session, session.begin():
        session.execute(delete(ImageChunk).where(ImageChunk.image_id == key))


def _remove_stale_staging(store: Store, image_id: str) -> None:
    """Removes chunks that an archiver of this image left behind when it died (staging keys
    carry their start time); a live archiver's are younger than :data:`STALE_STAGING`."""
    prefix = image_id.removeprefix("sha256:") + "."
    with store() as session:
        keys = session.scalars(select(ImageChunk.image_id).distinct()
                               .where(ImageChunk.image_id.startswith(prefix, autoescape=True))).all()
    for key in keys:
        started = key[len(prefix):].partition(".")[0]
        if re.fullmatch(r"[0-9a-f]{8}", started) and time.time() - int(started, 16) > STALE_STAGING:
            _drop_chunks(store, key)


# -- loading ---------------------------------------------------------------------------------

def _load(store: Store, engine: docker.DockerClient, image: str, image_id: str) -> None:
    with store() as session:
        archive = session.scalar(select(ImageArchive).where(ImageArchive.image_id == image_id))
        found = session.execute(select(func.count(), func.coalesce(func.sum(func.length(ImageChunk.data)), 0))
                                .where(ImageChunk.image_id == image_id)).one()
    if archive is None:
        raise ArchiveError(f"this host's Docker engine lacks {_show(image)} (image {image_id}), and the store "
                           f"keeps no archive of it{_where(store)}: run `arena images archive` on the host that "
                           "built it, or build it here")
    damaged = f"the store's archive of {_show(image)} (image {image_id}) is damaged{_where(store)}"
    if tuple(found) != (archive.chunks, archive.size):
        raise ArchiveError(f"{damaged}: it should be {archive.chunks} chunk(s) of {archive.size} bytes in all, "
                           f"the store has {found[0]} of {found[1]}{_redo(image_id)}")
    before = set(engine.api.images(all=True, quiet=True))
    problem: list[str] = []  # what the stream found wrong, if it stopped
    try:
        messages = list(engine.api.load_image(_unpacked(store, archive, problem), quiet=True))
    except _Damaged:
        raise ArchiveError(f"{damaged}: {problem[0]}{_redo(image_id)}") from None
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        raise ArchiveError(f"docker load of {_show(image)} (image {image_id}) failed: "
                           f"{printable(str(exc), 300)}") from None
    errors = [str(m.get("error")) for m in messages if m.get("error")]
    loaded = [m for msg in messages for m in re.findall(r"sha256:[0-9a-f]{64}", str(msg.get("stream", "")))]
    if errors:  # a damaged archive, unless the message names a problem of this host's engine (its disk)
        raise ArchiveError(f"docker load of the store's archive of {_show(image)} (image {image_id}) failed"
                           f"{_where(store)}: {printable(errors[0], 300)}{_redo(image_id)}")
    if _image_id_of(engine, image_id) != image_id:
        for other in set(loaded) - before - {image_id}:  # what it loaded instead, new on this host
            with contextlib.suppress(docker.errors.APIError):
                engine.images.remove(other, force=True)
        what = ", ".join(printable(i, 80) for i in loaded) or "no image ID"
        raise ArchiveError(f"the store's archive of {_show(image)} does not hold image {image_id}: loading it "
                           f"gave {what} (a tampered archive){_where(store)}{_redo(image_id)}")


class _Damaged(Exception):
    """The archive's stream stopped: the reason is in the list given to :func:`_unpacked`."""


def _unpacked(store: Store, archive: ImageArchive, problem: list[str]) -> Iterator[bytes]:
    """The archive's tar, gunzipped as its chunks are read one by one in order. Raises
    :class:`_Damaged` (which aborts the upload to the engine) when a chunk is
    missing or the gzip stream is corrupt or truncated."""
    unpacker = zlib.decompressobj(31)
    for seq in range(archive.chunks):
        with store() as session:
            data = session.scalar(select(ImageChunk.data).where(ImageChunk.image_id == archive.image_id,
                                                                ImageChunk.seq == seq))
        if data is None:
            problem.append(f"chunk {seq} of {archive.chunks} is missing")
            raise _Damaged
        if unpacker.eof:
            problem.append(f"it has data after the end of its gzip stream (chunk {seq})")
            raise _Damaged
        while True:  # a little at a time: a chunk of zeros gunzips to a thousand times its size
            try:
                out = unpacker.decompress(data, READ_BYTES)
            except zlib.error as exc:
                problem.append(f"its gzip stream is corrupt in chunk {seq} ({exc})")
                raise _Damaged from None
            data = unpacker.unconsumed_tail
            if out:
                yield out
            if unpacker.eof or (not data and len(out) < READ_BYTES):
                break
    if not unpacker.eof:
        problem.append("its gzip stream is truncated")
        raise _Damaged
    if unpacker.unused_data:
        problem.append("it has data after the end of its gzip stream")
        raise _Damaged


# -- the engine ------------------------------------------------------------------------------

def _present(engine: docker.DockerClient, image: str, image_id: str, repository: str, tag: str) -> bool:
    """Whether the engine has image ``image_id``; if so, ``image`` is made to name it."""
    if _image_id_of(engine, image_id) != image_id:
        return False
    if _image_id_of(engine, image) != image_id:
        engine.api.tag(image_id, repository, tag, force=True)
    return True


def _image_id_of(engine: docker.DockerClient, ref: str) -> str | None:
    try:
        return engine.api.inspect_image(ref)["Id"]
    except docker.errors.ImageNotFound:
        return None
    except docker.errors.APIError as exc:
        if exc.status_code in (400, 404):  # a reference the engine cannot parse names no image
            return None
        raise


@contextlib.contextmanager
def _engine(client: docker.DockerClient | None) -> Iterator[docker.DockerClient]:
    if client is not None:
        yield client
        return
    from referee.sandbox import docker_client

    engine = docker_client(timeout=LOAD_TIMEOUT)
    try:
        yield engine
    finally:
        engine.close()


def _repository_tag(image: str) -> tuple[str, str]:
    repository, tag = parse_repository_tag(image)
    if "@" in image or not repository:
        raise ArchiveError(f"{_show(image)} is not an image tag (repository:tag)")
    return repository, tag or "latest"


# -- the lock of one image on one host -------------------------------------------------------

_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


@contextlib.contextmanager
def _image_lock(image_id: str) -> Iterator[None]:
    """Held by one thread of one process of this host at a time, per image: a thread lock for
    the threads of a process (Celery's threads pool), ``flock`` for the processes."""
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(image_id, threading.Lock())
    with lock:
        fd = os.open(_lock_dir() / f"{image_id.removeprefix('sha256:')}.lock",
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released when the descriptor is closed, also if we die
            yield
        finally:
            os.close(fd)


def _lock_dir() -> Path:
    """A folder of this user's own in the temporary folder (another user's, or a link planted
    there, is refused)."""
    folder = Path(tempfile.gettempdir()) / f"arena-image-locks-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        raise ArchiveError(f"{folder} is not a folder of this user's own that only it can write: "
                           "remove it")
    return folder


# -- messages --------------------------------------------------------------------------------

def _check_id(image_id: str) -> None:
    if not IMAGE_ID.fullmatch(image_id):
        raise ArchiveError(f"{printable(image_id, 80)!r} is not a Docker image ID (sha256: and 64 hex digits)")


def _show(image: str) -> str:
    return printable(image, 200)


def _redo(image_id: str) -> str:
    return (f"; delete its rows from image_archives and image_chunks (image_id = '{image_id}') and run "
            "`arena images archive` on a host that has the image")


def _where(store: Store) -> str:
    return f" (store {store.engine.url.render_as_string(hide_password=True)})"
