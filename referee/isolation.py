"""What one process of a bot leaves for the next: nothing, not even in the host's caches.

The containers of an image share the host's page, dentry and inode caches of its files, where a
bot could leave marks for its next process and so remember a hand until its deal is replayed
(between two plain ``docker run`` calls, a 256-bit token came back 239-256 bits right). Together
these close it: arena-init's seccomp filter (``referee/init.c``) lets nothing be evicted; each seat's
containers run in a :class:`SeatCgroup` that is reclaimed after each of them; :func:`warm` loads
an image's files before a seat's first container, so nothing is left to add; and each container
is a user of its own (:func:`own_user`; world-writable files refused: :func:`file_problems`), so
``mincore()`` answers nothing. A container started ahead of its turn is held by its output FIFO
(``referee/output.py``) until its seat's previous one is reclaimed. How, and what is left
(chance level, tests/sandbox/test_memory.py): docs/sandbox.md ("Memory across processes").
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import errno
import hashlib
import json
import os
import platform
import re
import secrets
import shutil
import stat
import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from .fairness import CGROUP_ROOT
from .sockets import process_alive

BUILD_UID = 10001  # the user of Arena's base images, which bots' builds run as; never a container's
# Each container's user and group id, drawn in [FIRST_UID, FIRST_UID + UIDS): above the ranges that
# hosts give their users and subordinate ids, below 2^31 (signed 32-bit everywhere)
FIRST_UID, UIDS = 1 << 24, (1 << 31) - (1 << 24) - 1

INIT_SOURCE = Path(__file__).with_name("init.c")
INIT_MOUNT = "/run/arena-init"  # where arena-init is in each container
# A host folder for the built arena-init that the engine can bind-mount: /tmp, as for the seats'
# socket folders (a referee in a container shares the host's /tmp: docs/deploy.md)
INIT_DIR = Path("/tmp")
CACHE = Path(os.environ.get("ARENA_CACHE", Path.home() / ".cache" / "arena"))  # built things (arena/images.py too)
SEAT_CGROUP_PREFIX = "arena-seat-"  # arena-seat-<referee pid>-<random>, in each cgroup hierarchy


class IsolationError(RuntimeError):
    """A piece of the sandbox cannot be set up on this host; the message says how to fix it."""


def own_user() -> str:
    """A container's ``user``: a user id of its own, with a group of the same id and no other."""
    uid = FIRST_UID + secrets.randbelow(UIDS)
    return f"{uid}:{uid}"


# -- arena-init --------------------------------------------------------------------------------------
_INIT_LOCK = threading.Lock()
_INIT: Path | None = None


def init_binary() -> Path:
    """arena-init (``referee/init.c``) for this host, where the engine can bind-mount it: built
    once per source with the host's C compiler (``$CC``, else ``cc``), statically, into
    :data:`CACHE`, and copied to a folder of this user's own under :data:`INIT_DIR`. A prebuilt
    one may be given instead as ``$ARENA_INIT`` (Arena's deploy image ships one). Raises
    :class:`IsolationError`."""
    global _INIT
    with _INIT_LOCK:
        if _INIT is None or not _INIT.is_file():
            _INIT = _publish(_built())
        return _INIT


def _built() -> Path:
    given = os.environ.get("ARENA_INIT")
    if given:
        if not os.access(given, os.X_OK):
            raise IsolationError(f"ARENA_INIT names {given!r}, which is not an executable file")
        return Path(given)
    source = INIT_SOURCE.read_bytes()
    digest = hashlib.sha256(source + platform.machine().encode()).hexdigest()[:16]
    binary = CACHE / "bin" / f"arena-init-{digest}"
    if binary.is_file():
        return binary
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise IsolationError("bot containers start under arena-init (referee/init.c), which is built once with "
                             "a C compiler, and this host has none: install one (apt-get install gcc libc6-dev), "
                             "or set ARENA_INIT to a prebuilt arena-init")
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(f".{binary.name}.{os.getpid()}")
    proc = subprocess.run([compiler, "-static", "-O2", "-o", str(partial), str(INIT_SOURCE)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        partial.unlink(missing_ok=True)
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-8:])
        raise IsolationError(f"cannot build arena-init with {compiler} (a static build needs the C library's "
                             f"static files: apt-get install libc6-dev):\n{tail}")
    os.replace(partial, binary)  # atomic: a referee beside this one finds it whole or not at all
    return binary


def _publish(binary: Path) -> Path:
    """A copy of ``binary`` in ``INIT_DIR/.arena-init-<uid>``, a folder that only this user may
    write (refused if it is anything else: /tmp is everybody's; and not ``arena-*``, the socket
    folders' sweep), named by its digest."""
    data = binary.read_bytes()
    folder = INIT_DIR / f".arena-init-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o755)
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise IsolationError(f"{folder} is not a folder of this user's own that only it may write: "
                             "remove it, and the referee makes it anew")
    target = folder / f"arena-init-{hashlib.sha256(data).hexdigest()[:16]}"
    if target.is_dir():  # cannot be made by the engine (a bind mount's source must exist): but never fail on it
        shutil.rmtree(target)
    if not target.is_file() or target.read_bytes() != data:
        partial = folder / f".{target.name}.{os.getpid()}"
        partial.write_bytes(data)
        partial.chmod(0o755)
        os.replace(partial, target)
    return target


# -- the seat's cgroup ----------------------------------------------------------------------------------
class SeatCgroup:
    """A cgroup of the seat's own on the Docker host (Docker's cgroupfs driver), which its
    containers run in: ``cgroup_parent`` is :attr:`parent`, and each container's cgroup is
    ``<hierarchy>/<name>/<container id>`` (v1) or ``<name>/<container id>`` (v2). Its
    memory cgroup inherits what a removed container's processes were charged for (pages of the
    page cache, dentries, inodes), which :meth:`reclaim` frees. Removed with the seat
    (:meth:`remove`), or by :func:`sweep_cgroups` after a referee that died."""

    def __init__(self, root: Path = CGROUP_ROOT, name: str = "") -> None:
        self.root = root
        self.name = name or f"{SEAT_CGROUP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
        self.v2 = (root / "cgroup.controllers").exists()

    @property
    def parent(self) -> str:
        return f"/{self.name}"

    def container_dir(self, hierarchy: str, container_id: str) -> Path:
        """A container's cgroup folder in ``hierarchy`` (``cpuacct``, ``memory``...; ignored on v2)."""
        return self.root / self.name / container_id if self.v2 else self.root / hierarchy / self.name / container_id

    def reclaim(self) -> None:
        """Frees what the seat's removed containers left charged to it. Raises OSError where
        this host does not let the referee write the seat's memory cgroup."""
        if self.v2:
            group = self.root / self.name
            current = int((group / "memory.current").read_text())  # OSError: not the engine's cgroup tree
            if current:
                with contextlib.suppress(OSError):  # EAGAIN: not all of it could go (what is still in use)
                    (group / "memory.reclaim").write_text(str(current))
        else:
            (self.root / "memory" / self.name / "memory.force_empty").write_text("0")

    def remove(self, wait: float = 5.0) -> None:
        """Removes the cgroup from every hierarchy (runc made it in each), once its containers'
        own are gone."""
        remove_cgroup(self.root, self.name, wait)


def remove_cgroup(root: Path, name: str, wait: float = 5.0) -> None:
    deadline = time.monotonic() + wait
    for folder in [root / name] if (root / "cgroup.controllers").exists() else [h / name for h in root.iterdir()]:
        while True:
            try:
                folder.rmdir()
            except FileNotFoundError:
                break
            except OSError:  # busy until runc has removed its containers' own cgroups
                if time.monotonic() > deadline:
                    break
                time.sleep(0.02)
            else:
                break


def sweep_cgroups(alive: Iterable[int] = (), root: Path = CGROUP_ROOT) -> int:
    """Removes the seat cgroups of referees of this host that are no longer running (their
    containers removed first, by :func:`referee.sandbox.sweep`), except those of ``alive``
    pids. Returns how many."""
    keep, found = set(alive), set[str]()
    for hierarchy in ([root] if (root / "cgroup.controllers").exists() else [h for h in root.iterdir() if h.is_dir()]):
        with contextlib.suppress(OSError):
            found.update(p.name for p in hierarchy.glob(f"{SEAT_CGROUP_PREFIX}*"))
    removed = 0
    for name in found:
        owner = re.fullmatch(rf"{SEAT_CGROUP_PREFIX}(\d+)-[0-9a-f]+", name)
        if owner and int(owner[1]) not in keep and not process_alive(int(owner[1])):
            seat = SeatCgroup(root, name)
            with contextlib.suppress(OSError):  # a referee killed before it could: what its bots left goes too
                seat.reclaim()
            seat.remove(wait=1.0)
            removed += 1
    return removed


# -- the image's files --------------------------------------------------------------------------------
@dataclasses.dataclass
class Layer:
    """What a layer folder (immutable once the image exists) holds that matters here."""

    files: list[tuple[bytes, int]]  # every regular file with data: (path, size)
    problems: list[str]  # why a container cannot run it safely (file_problems)
    warmed: bool = False  # its pages read by this process (warm)
    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)


_LAYERS: dict[str, Layer] = {}
_LAYERS_LOCK = threading.Lock()
PROBLEMS_SHOWN = 5


def image_layers(image_attrs: dict[str, Any]) -> list[Path]:
    """The host folders of an image's layers, top first (overlay2), or [] when the engine keeps
    them otherwise."""
    driver = image_attrs.get("GraphDriver") or {}
    data = driver.get("Data") or {}
    if driver.get("Name") != "overlay2" or not data.get("UpperDir"):
        return []
    lower = [p for p in (data.get("LowerDir") or "").split(":") if p]
    return [Path(data["UpperDir"]), *map(Path, lower)]


def layer(folder: Path) -> Layer:
    """The layer at ``folder``: walked once per host (the walk is kept in :data:`CACHE`, since a
    league starts a referee process per match), read once per process. Raises OSError (not root,
    say)."""
    key = str(folder)
    with _LAYERS_LOCK:
        found = _LAYERS.get(key)
    if found is None:
        found = _kept_walk(folder)
        with _LAYERS_LOCK:
            found = _LAYERS.setdefault(key, found)
    return found


WALKS = CACHE / "layers"  # one file per layer walked: its files and problems
WARM_FRESH_S = 600.0  # a layer another referee warmed this long ago is taken as still in the page cache


def _record(folder: Path, kind: str) -> Path:
    return WALKS / f"{hashlib.sha256(os.fsencode(folder)).hexdigest()[:32]}.{kind}"


def _identity(folder: Path) -> list[int]:
    """What tells this layer folder from another that a later image put at the same path (never
    seen: the engine names layers at random), so that a kept walk is never another's."""
    info = folder.stat()
    return [info.st_dev, info.st_ino, info.st_ctime_ns]


def _kept_walk(folder: Path) -> Layer:
    """The walk kept for ``folder`` by an earlier process, or a new one (then kept). Only this
    user may write :data:`CACHE`: what it holds is the referee's own, as trusted as its code."""
    identity = _identity(folder)
    path = _record(folder, "json")
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        kept = json.loads(path.read_bytes())
        if kept["folder"] == str(folder) and kept["identity"] == identity:
            base = os.fsencode(folder)
            files = [(base + os.fsencode(name), int(size)) for name, size in kept["files"]]
            return Layer(files, [str(p) for p in kept["problems"]])
    found = _walk(folder)
    base_length = len(os.fsencode(folder))
    record = {"folder": str(folder), "identity": identity, "problems": found.problems,
              "files": [(os.fsdecode(name[base_length:]), size) for name, size in found.files]}
    with contextlib.suppress(OSError):  # not kept: the next process walks again
        _write_atomically(path, json.dumps(record).encode())
    return found


def prune_walks() -> int:
    """Removes the kept walks (and warm stamps) of layers that are gone (their images removed).
    Returns how many layers'."""
    removed = 0
    with contextlib.suppress(OSError):
        for path in WALKS.glob("*.json"):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                if not Path(json.loads(path.read_bytes())["folder"]).is_dir():
                    path.unlink()
                    path.with_suffix(".warm").unlink(missing_ok=True)
                    removed += 1
    return removed


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}")
    try:
        partial.write_bytes(data)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _warmed_lately(folder: Path) -> bool:
    """Whether a referee of this boot warmed ``folder`` less than :data:`WARM_FRESH_S` ago. A
    page evicted since costs a bot's start-up a read from the disk, nothing else: what a bot's
    process loads is charged to its seat and reclaimed all the same."""
    with contextlib.suppress(OSError, ValueError):
        boot, at = _record(folder, "warm").read_text().split()
        return boot == _boot_id() and 0 <= time.time() - float(at) < WARM_FRESH_S
    return False


def _boot_id() -> str:
    with contextlib.suppress(OSError):
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    return ""


def _walk(top: Path) -> Layer:
    """Every file of a layer, never following a symlink (a layer's names and links are a bot's)."""
    files: list[tuple[bytes, int]] = []
    problems: list[str] = []
    base = os.fsencode(top)
    stack = [base]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                shown = os.fsdecode(entry.path[len(base):]) or "/"
                if stat.S_ISDIR(info.st_mode):
                    stack.append(entry.path)
                elif stat.S_ISREG(info.st_mode):
                    if info.st_size:
                        files.append((entry.path, info.st_size))
                    if info.st_mode & stat.S_IWOTH:
                        problems.append(f"{shown!r} may be written by any user (mode {info.st_mode & 0o7777:04o}), "
                                        "which would let a bot read the page cache of its pages: chmod o-w")
                if not stat.S_ISLNK(info.st_mode) and _only_for_build_user(info):
                    problems.append(f"{shown!r} is {'a folder' if stat.S_ISDIR(info.st_mode) else 'a file'} that only "
                                    f"its owner or group may {'open' if stat.S_ISDIR(info.st_mode) else 'read'} "
                                    f"(mode {info.st_mode & 0o7777:04o}, user {info.st_uid}, group {info.st_gid}), "
                                    "but a bot runs as a user of its own in each container: chmod a+rX")
    return Layer(files, problems)


def _only_for_build_user(info: os.stat_result) -> bool:
    """Whether the build user (or its group) may read (or run, or open: ``x``) it but others may not."""
    bits = 0
    if info.st_uid == BUILD_UID:
        bits |= (info.st_mode >> 6) & 0o5
    if info.st_gid == BUILD_UID:
        bits |= (info.st_mode >> 3) & 0o5
    return bool(bits & ~info.st_mode & 0o5)


def file_problems(folders: Iterable[Path]) -> list[str]:
    """Why containers of an image with these layers cannot run safely: a file any user may write
    (``mincore()`` would answer on it) or one only the build user may read; [] if none. Raises
    OSError where the layers cannot be read (the referee is not root)."""
    problems = [p for folder in folders for p in layer(folder).problems]
    if len(problems) > PROBLEMS_SHOWN:
        problems = [*problems[:PROBLEMS_SHOWN], f"and {len(problems) - PROBLEMS_SHOWN} more"]
    return problems


_LIBC = ctypes.CDLL(None, use_errno=True)
_NR_CACHESTAT = 451  # the same on every architecture (Linux 6.5)
PAGE = os.sysconf("SC_PAGE_SIZE")


class _CachestatRange(ctypes.Structure):
    _fields_ = [("off", ctypes.c_uint64), ("len", ctypes.c_uint64)]


class _Cachestat(ctypes.Structure):
    _fields_ = [(field, ctypes.c_uint64) for field in ("cache", "dirty", "writeback", "evicted", "recently_evicted")]


_HAS_CACHESTAT = True


def _cached_pages(fd: int) -> int | None:
    """How many of the file's pages are in the page cache, or None where the kernel cannot say
    cheaply (before Linux 6.5)."""
    global _HAS_CACHESTAT
    if not _HAS_CACHESTAT:
        return None
    out = _Cachestat()
    if _LIBC.syscall(_NR_CACHESTAT, fd, ctypes.byref(_CachestatRange(0, 0)), ctypes.byref(out), 0) != 0:
        if ctypes.get_errno() in (errno.ENOSYS, errno.EPERM):
            _HAS_CACHESTAT = False
        return None
    return cast(int, out.cache)  # a c_uint64 field reads as an int


def warm(folders: Iterable[Path], budget_s: float = 30.0) -> tuple[int, int]:
    """Reads every page of the files of these layers into the page cache, charged to this
    process's cgroup, once per layer and process, and not at all when a referee did it lately
    (:func:`_warmed_lately`); returns (files read, bytes read). Other threads warming the same
    layer wait for the one that does. Raises OSError where the layers cannot be read."""
    files = read = 0
    deadline = time.monotonic() + budget_s
    for folder in folders:
        found = layer(folder)
        with found.lock:
            if found.warmed or _warmed_lately(folder):
                found.warmed = True
                continue
            buffer = bytearray(1 << 20)
            for path, size in found.files:
                if time.monotonic() > deadline:
                    return files, read  # a slow disk: the rest another time (this only saves start-up)
                try:
                    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NOATIME", 0))
                except OSError:
                    continue
                try:
                    cached = _cached_pages(fd)
                    if cached is None or cached < (size + PAGE - 1) // PAGE:
                        files += 1
                        while chunk := os.readv(fd, [buffer]):
                            read += chunk
                finally:
                    os.close(fd)
            found.warmed = True
            with contextlib.suppress(OSError):
                _write_atomically(_record(folder, "warm"), f"{_boot_id()} {time.time()}".encode())
    return files, read
