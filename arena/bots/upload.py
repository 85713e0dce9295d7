"""Bot folders uploaded to a server: hostile archives, unpacked with care.

An upload is a ``.tar.gz`` or a ``.zip``, told apart by its first bytes, never by its name. The
web server receives it into its uploads folder (``arena/web/receiving.py``); :func:`unpack`
unpacks the archive into a fresh folder there; :func:`pack_folder` makes the archive that
``arena bot submit --server`` sends, refusing what the server would refuse.

Each of these is refused with an :class:`UploadRefused` that names the entry and the reason,
and leaves nothing on disk (no spooled file, no partial folder); the limits are in
``referee/limits.py`` ("Uploads"):

- an archive over ``UPLOAD_MB`` packed, over ``UNPACKED_MB`` unpacked or over ``UPLOAD_FILES``
  entries (zip and tar bombs: the bytes written are counted, the headers are believed only
  to refuse early); paths deeper than ``UPLOAD_PATH_DEPTH`` or longer than ``UPLOAD_PATH_CHARS``;
- names that are absolute, hold ``..``, a drive letter or a backslash, are not valid UTF-8, or
  hold a control or invisible character; the same path twice;
- device files, FIFOs, sockets and any other special entry;
- a hard link (tar) to anything but a regular file earlier in the archive: one inside is
  unpacked as a copy of that file;
- a symlink with an absolute target, or one that leads out of the bot folder once everything is
  unpacked (through other links too). Symlinks inside are kept (a vendored ``node_modules/.bin``
  is made of them); they are made last, so no file is ever written through one, and no entry
  may lie beneath one;
- not a ``.tar.gz`` or ``.zip``, a corrupt one, an encrypted zip entry, an unknown compression;
- no ``bot.toml``, or no Dockerfile, at the top of the archive or of its one top-level folder
  (an archive with a single top-level folder is that folder).

What is unpacked is made by this process, so owned by its user: files ``0644`` (``0755`` if the
archive marks them executable), folders ``0755``; never a setuid, setgid or sticky bit, never
the archive's owner or times.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import secrets
import shutil
import stat
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Protocol

from referee import limits
from referee.textlog import printable

MiB = 2**20
CHUNK = 64 * 1024
GZIP_MAGIC = b"\x1f\x8b"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip, or an empty one
MAX_LINK_TARGET = 1024  # bytes of a symlink's target
MAX_NAME_BYTES = 255  # of one name in a path, as on Linux
IGNORED = "__MACOSX"  # the resource forks macOS adds to a zip: counted, never unpacked


class UploadRefused(Exception):
    """An upload the server does not take; the message says why (and quotes names escaped)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
        """The HTTP status to answer with: 413 for what is too large, else 400."""


@dataclass(frozen=True)
class UploadLimits:
    packed: int = limits.UPLOAD_MB * MiB
    unpacked: int = limits.UNPACKED_MB * MiB
    files: int = limits.UPLOAD_FILES
    depth: int = limits.UPLOAD_PATH_DEPTH
    path_chars: int = limits.UPLOAD_PATH_CHARS

    @property
    def drain(self) -> int:
        """Bytes of a request over the limit read (and dropped) before answering 413: a client
        still sending when the connection closes would not see the answer. Past this, the
        connection is just closed."""
        return 4 * self.packed


LIMITS = UploadLimits()


def _shown(name: str) -> str:
    return repr(printable(name, 120))


def too_large(limits: UploadLimits) -> str:
    return (f"the archive is over {limits.packed // MiB} MB: an upload may be at most {limits.packed // MiB} MB "
            "packed (leave out what the build does not need)")


# -- unpacking ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Unpacked:
    folder: Path  # the bot folder: a new folder in the uploads folder
    files: int
    bytes: int


@dataclass
class _Entry:
    name: str
    kind: str  # file, dir, symlink, hardlink, or what a special entry is ("a device file", ...)
    mode: int = 0o644
    size: int = 0  # as its header says: believed only to refuse early
    link: str = ""  # a link's target
    open: Callable[[], IO[bytes]] | None = None


class Room(Protocol):
    """Room on the server's disk, shared by every upload (``arena/web/quotas.py``): ``check``
    refuses what an archive's headers say is too much, ``take`` each chunk before it is written."""

    def check(self, declared: int) -> None: ...

    def take(self, size: int) -> None: ...


def unpack(archive: Path, parent: Path, limits: UploadLimits = LIMITS, room: Room | None = None) -> Unpacked:
    """Unpacks ``archive`` (a .tar.gz or a .zip) into a new folder in ``parent`` and returns the
    bot folder: that folder, or the archive's one top-level folder. Raises
    :class:`UploadRefused`, leaving nothing, for anything in the module's list, or what
    ``room`` refuses."""
    parent.mkdir(parents=True, exist_ok=True)
    staging = parent / f".unpacking-{secrets.token_hex(8)}"
    staging.mkdir(mode=0o755)
    try:
        with archive.open("rb") as file:
            head = file.read(4)
            if head[:2] == GZIP_MAGIC:
                entries: Callable[[IO[bytes], UploadLimits], Iterator[_Entry]] = _tar_entries
            elif head in ZIP_MAGIC:
                entries = _zip_entries
            else:
                raise UploadRefused("the upload is not a .tar.gz or a .zip archive (pack the bot folder with "
                                    "`tar czf bot.tar.gz FOLDER` or `zip -r bot.zip FOLDER`)")
            # read it all once, writing nothing: names, kinds, the count and the sizes it says
            # are checked before the first file is made (and a bomb of many files makes none)
            for unpacker in (_Unpacker(staging, limits, dry=True), _Unpacker(staging, limits, room=room)):
                try:
                    for entry in entries(file, limits):
                        unpacker.add(entry)
                    if unpacker.dry and room is not None:
                        room.check(unpacker.bytes)
                except NotImplementedError as exc:
                    raise UploadRefused("the archive uses what this server cannot unpack: "
                                        f"{printable(str(exc), 200)}") from None
                except (tarfile.TarError, zipfile.BadZipFile, zlib.error, EOFError, gzip.BadGzipFile) as exc:
                    raise UploadRefused(f"the archive is corrupt or truncated: {printable(str(exc), 200)}") from None
        folder = unpacker.finish()
        final = parent / secrets.token_hex(8)
        folder.rename(final)
        if folder != staging:
            shutil.rmtree(staging)
        return Unpacked(final, unpacker.files, unpacker.bytes)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # never follows a symlink
        raise


class _Capped(io.RawIOBase):
    """A stream that refuses to yield more than ``cap`` bytes: the whole of a tar, its headers
    included (a PAX or GNU long-name header is read into memory whole, whatever size it says)."""

    def __init__(self, raw: io.BufferedIOBase, cap: int, message: str) -> None:
        self.raw, self.left, self.message = raw, cap, message

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        want = self.left + 1 if size is None or size < 0 else min(size, self.left + 1)
        data = self.raw.read(want)
        self.left -= len(data)
        if self.left < 0:
            raise UploadRefused(self.message, 413)
        return data


class _TarInfo(tarfile.TarInfo):
    """Refuses a long-name or PAX header over ``MAX_HEADER`` bytes before tarfile reads it into
    memory whole."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in HEADER_TYPES and self.size > MAX_HEADER:
            raise UploadRefused(f"the archive has a header of {self.size:,} bytes: at most {MAX_HEADER:,} are "
                                "allowed (long names and PAX headers)")
        return super()._proc_member(tarfile_)  # type: ignore[misc]  # private to tarfile, so not in typeshed


HEADER_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE, tarfile.XGLTYPE,
                tarfile.SOLARIS_XHDTYPE)
MAX_HEADER = 64 * 1024


def _tar_entries(file: IO[bytes], limits: UploadLimits) -> Iterator[_Entry]:
    file.seek(0)
    # every entry's headers (up to 3 blocks with long names) on top of the files' own bytes
    cap = limits.unpacked + (limits.files + 2) * 3 * tarfile.BLOCKSIZE + tarfile.RECORDSIZE
    capped = _Capped(gzip.GzipFile(fileobj=file, mode="rb"), cap, _too_large_unpacked(limits))
    try:
        tar = tarfile.open(fileobj=capped, mode="r|", encoding="utf-8", errors="surrogateescape", tarinfo=_TarInfo)  # noqa: SIM115
    except (tarfile.TarError, gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise UploadRefused("the upload is gzip-compressed but not a tar archive, or a corrupt one: "
                            f"{printable(str(exc), 200)}") from None
    with tar:
        for member in tar:
            if member.isreg():
                kind = "file"
            elif member.isdir():
                kind = "dir"
            elif member.issym():
                kind = "symlink"
            elif member.islnk():
                kind = "hardlink"
            elif member.ischr() or member.isblk():
                kind = "a device file"
            elif member.isfifo():
                kind = "a FIFO"
            else:
                kind = f"an entry of type {member.type!r}"
            yield _Entry(member.name, kind, member.mode, member.size, member.linkname,
                         partial(_extracted, tar, member) if kind == "file" else None)


def _extracted(tar: tarfile.TarFile, member: tarfile.TarInfo) -> IO[bytes]:
    file = tar.extractfile(member)
    assert file is not None  # tarfile gives None only for an entry that is not a regular file
    return file


def _zip_entries(file: IO[bytes], limits: UploadLimits) -> Iterator[_Entry]:
    file.seek(0)
    # the central directory's size and count, before reading it whole (private to zipfile: not in typeshed)
    end = zipfile._EndRecData(file)  # type: ignore[attr-defined]
    if end is None:
        raise UploadRefused("the upload looks like a zip but is corrupt: it has no central directory")
    if end[zipfile._ECD_ENTRIES_TOTAL] > limits.files:  # type: ignore[attr-defined]
        raise UploadRefused(_too_many(limits), 413)
    if end[zipfile._ECD_SIZE] > limits.files * (46 + limits.path_chars * 4 + 256):  # type: ignore[attr-defined]
        raise UploadRefused(f"the zip's directory is too large for {limits.files:,} entries", 413)
    try:
        archive = zipfile.ZipFile(file)
    except UnicodeDecodeError:
        raise UploadRefused("an entry of the zip is marked UTF-8 but its name is not valid UTF-8") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise UploadRefused(f"the zip is corrupt: {printable(str(exc), 200)}") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > limits.files:
            raise UploadRefused(_too_many(limits), 413)
        for info in infos:
            name = info.orig_filename
            if not info.flag_bits & 0x800:  # not marked UTF-8: often UTF-8 all the same (Info-ZIP)
                try:
                    name = name.encode("cp437").decode("utf-8")
                except UnicodeDecodeError:
                    raise UploadRefused(f"the zip entry {_shown(name)} has a name that is not valid UTF-8") from None
            if info.flag_bits & 0x1:
                raise UploadRefused(f"the zip entry {_shown(name)} is encrypted: send it unencrypted")
            mode = info.external_attr >> 16 if info.create_system == 3 else 0  # made on Unix: its mode
            if name.endswith("/") or stat.S_ISDIR(mode):
                kind = "dir"
            elif stat.S_ISLNK(mode):
                kind = "symlink"
            elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                kind = "a device file"
            elif stat.S_ISFIFO(mode):
                kind = "a FIFO"
            elif stat.S_ISSOCK(mode):
                kind = "a socket"
            elif stat.S_IFMT(mode) == 0 or stat.S_ISREG(mode):  # no type: a file (zipfile writes 0o600 alone)
                kind = "file"
            else:
                kind = f"an entry of mode {mode:o}"
            link = ""
            if kind == "symlink":
                if info.file_size > MAX_LINK_TARGET:
                    raise UploadRefused(f"the symlink {_shown(name)} has a target over {MAX_LINK_TARGET} bytes")
                with archive.open(info) as target:
                    raw = target.read(MAX_LINK_TARGET + 1)
                try:
                    link = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise UploadRefused(f"the symlink {_shown(name)} has a target that is not valid UTF-8") from None
            yield _Entry(name, kind, mode or 0o644, info.file_size, link,
                         partial(archive.open, info) if kind == "file" else None)


def _too_many(limits: UploadLimits) -> str:
    return f"the archive holds more than {limits.files:,} files: an upload may hold at most {limits.files:,}"


def _too_large_unpacked(limits: UploadLimits) -> str:
    return (f"the archive unpacks to more than {limits.unpacked // MiB} MB: an upload may unpack to at most "
            f"{limits.unpacked // MiB} MB")


DRIVE = re.compile(r"^[A-Za-z]:")


def check_path(name: str, what: str, limits: UploadLimits = LIMITS) -> tuple[str, ...]:
    """The parts of a path inside an archive (``.`` and empty parts dropped), or
    :class:`UploadRefused` naming ``what`` ("the entry", "the link ... target") and why."""
    shown = _shown(name)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in name):  # what surrogateescape made of bytes that are not UTF-8
        raise UploadRefused(f"{what} {shown} has a name that is not valid UTF-8")
    if any(not c.isprintable() for c in name if c != " "):
        raise UploadRefused(f"{what} {shown} has a control or invisible character in its name")
    if "\\" in name:
        raise UploadRefused(f"{what} {shown} has a backslash in its name: paths in an archive use '/' "
                            "(and a backslash is no separator on Linux)")
    if name.startswith("/"):
        raise UploadRefused(f"{what} {shown} is an absolute path: an archive holds paths inside the bot folder")
    if DRIVE.match(name):
        raise UploadRefused(f"{what} {shown} starts with a drive letter: an archive holds paths inside the bot "
                            "folder")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise UploadRefused(f"{what} {shown} has '..' in its path: it would lead out of the bot folder")
    if len(name) > limits.path_chars or any(len(p.encode()) > MAX_NAME_BYTES for p in parts):
        raise UploadRefused(f"{what} {shown} has a path over {limits.path_chars} characters, or a name over "
                            f"{MAX_NAME_BYTES} bytes")
    if len(parts) > limits.depth:
        raise UploadRefused(f"{what} {shown} is more than {limits.depth} folders deep")
    return parts


class _Unpacker:
    """Makes the entries of an archive, one by one, in ``root``; symlinks last. A ``dry`` one
    makes nothing: it checks the entries, their count and the sizes their headers say."""

    def __init__(self, root: Path, limits: UploadLimits, dry: bool = False, room: Room | None = None) -> None:
        self.root, self.limits, self.dry, self.room = root, limits, dry, room
        self.sizes: dict[tuple[str, ...], int] = {}  # what each file's header says (dry)
        self.files = 0
        self.bytes = 0
        self.kinds: dict[tuple[str, ...], str] = {}  # path -> file, dir, symlink, or parent (made for an entry)
        self.symlinks: list[tuple[tuple[str, ...], str]] = []

    def add(self, entry: _Entry) -> None:
        self.files += 1
        if self.files > self.limits.files:
            raise UploadRefused(_too_many(self.limits), 413)
        if entry.kind not in ("file", "dir", "symlink", "hardlink"):
            raise UploadRefused(f"the entry {_shown(entry.name)} is {entry.kind}: an upload holds only files, "
                                "folders and links")
        parts = check_path(entry.name, "the entry", self.limits)
        if not parts or parts[0] == IGNORED:
            return
        path = "/".join(parts)
        for depth in range(1, len(parts)):
            above = parts[:depth]
            kind = self.kinds.get(above)
            if kind in ("file", "symlink"):
                raise UploadRefused(f"the entry {_shown(path)} lies beneath {_shown('/'.join(above))}, which is a "
                                    f"{kind}, not a folder")
            if kind is None:
                if not self.dry:
                    self._mkdir(self.root / "/".join(above))
                self.kinds[above] = "parent"
        existing = self.kinds.get(parts)
        if existing is not None and not (existing == "parent" and entry.kind == "dir"):
            raise UploadRefused(f"the entry {_shown(path)} is in the archive twice")
        target = self.root / path
        if entry.kind == "dir":
            if existing is None and not self.dry:
                self._mkdir(target)
            self.kinds[parts] = "dir"
        elif entry.kind == "file":
            if entry.size > self.limits.unpacked - self.bytes:  # a header is believed only to refuse
                raise UploadRefused(_too_large_unpacked(self.limits), 413)
            if self.dry:
                self.bytes += entry.size
                self.sizes[parts] = entry.size
            else:
                assert entry.open is not None
                with entry.open() as source:
                    self._write(target, source, entry.mode)
            self.kinds[parts] = "file"
        elif entry.kind == "hardlink":
            linked = check_path(entry.link, f"the hard link {_shown(path)} to", self.limits)
            if self.kinds.get(linked) != "file":
                raise UploadRefused(f"the hard link {_shown(path)} points to {_shown(entry.link)}, which is not a "
                                    "file earlier in the archive: links may not lead out of the bot folder")
            if self.dry:
                self.bytes += self.sizes[linked]
                if self.bytes > self.limits.unpacked:
                    raise UploadRefused(_too_large_unpacked(self.limits), 413)
                self.sizes[parts] = self.sizes[linked]
            else:
                with (self.root / "/".join(linked)).open("rb") as source:
                    self._write(target, source, os.stat(self.root / "/".join(linked)).st_mode)
            self.kinds[parts] = "file"
        else:
            link = entry.link
            if not link or link.startswith("/") or DRIVE.match(link):
                raise UploadRefused(f"the symlink {_shown(path)} points to {_shown(link)}, an absolute path: links "
                                    "may not lead out of the bot folder")
            if len(link.encode()) > MAX_LINK_TARGET or any(not c.isprintable() for c in link if c != " ") \
                    or "\\" in link or any(0xD800 <= ord(c) <= 0xDFFF for c in link):
                raise UploadRefused(f"the symlink {_shown(path)} has a target that is too long, not UTF-8, or holds a "
                                    "backslash or a control character")
            self.symlinks.append((parts, link))
            self.kinds[parts] = "symlink"

    @staticmethod
    def _mkdir(path: Path) -> None:
        path.mkdir()
        os.chmod(path, 0o755, follow_symlinks=False)  # whatever the umask

    def _write(self, target: Path, source: IO[bytes], mode: int) -> None:
        safe = 0o755 if mode & 0o111 else 0o644  # no setuid, setgid or sticky bit; read by all
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, safe)
        with os.fdopen(fd, "wb") as out:
            os.fchmod(out.fileno(), safe)  # whatever the umask
            while chunk := source.read(CHUNK):
                self.bytes += len(chunk)
                if self.bytes > self.limits.unpacked:
                    raise UploadRefused(_too_large_unpacked(self.limits), 413)
                if self.room is not None:
                    self.room.take(len(chunk))
                out.write(chunk)

    def finish(self) -> Path:
        """Makes the symlinks, checks that each stays inside the bot folder, and returns it."""
        tops = [p for p in self.kinds if len(p) == 1]
        folder = self.root
        if len(tops) == 1 and self.kinds[tops[0]] in ("dir", "parent"):
            folder = self.root / tops[0][0]  # one top-level folder: that is the bot folder
        for parts, link in self.symlinks:
            os.symlink(link, self.root / "/".join(parts))
        inside, root = folder.resolve(), self.root.resolve()
        for parts, link in self.symlinks:
            path = root / "/".join(parts)
            lexical = os.path.normpath(os.path.join(path.parent, link))
            if not Path(lexical).is_relative_to(inside) or not Path(os.path.realpath(path)).is_relative_to(inside):
                raise UploadRefused(f"the symlink {_shown('/'.join(parts))} points to {_shown(link)}, out of the "
                                    "bot folder: links may not lead out of it")
        _check_bot_folder(folder, sorted("/".join(p) + ("/" if self.kinds[p] != "file" else "") for p in tops))
        return folder


def _check_bot_folder(folder: Path, tops: list[str]) -> None:
    """A bot.toml, and the Dockerfile it names (by default ``Dockerfile``), both plain files."""
    toml = folder / "bot.toml"
    if not toml.is_file() or toml.is_symlink():
        found = ", ".join(_shown(t) for t in tops[:10]) + (", ..." if len(tops) > 10 else "")
        raise UploadRefused("no bot.toml at the top of the archive, or of its one top-level folder: a bot folder "
                            f"holds a bot.toml and a Dockerfile (the archive's top holds {found or 'nothing'})")
    if toml.stat().st_size > limits.BOT_TOML_KB * 1024:
        return  # the submission says what is wrong with it (load_bot_config reads it within bounds)
    try:
        build = tomllib.loads(toml.read_text(errors="replace")).get("build", {})
    except (ValueError, RecursionError):  # not TOML, an integer of too many digits, nested too deep
        return
    if isinstance(build, dict) and "dockerfile" in build:
        return  # bot.toml names another one; the submission checks it is there
    dockerfile = folder / "Dockerfile"
    if not dockerfile.is_file() or dockerfile.is_symlink():
        raise UploadRefused("no Dockerfile next to bot.toml: a bot folder holds a bot.toml and a Dockerfile "
                            "(or names another in bot.toml's [build] dockerfile)")


# -- packing (arena bot submit --server) ---------------------------------------------------------
def pack_folder(folder: Path, limits: UploadLimits = LIMITS) -> bytes:
    """The bot folder as the .tar.gz that the server unpacks: its entries under one top-level
    folder, in a stable order, with no owner and safe modes. Refuses here what the server would
    refuse, with the same messages (then, for what only unpacking shows, unpacks it to check)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise UploadRefused(f"{folder} is not a folder (a bot is a folder with a Dockerfile and a bot.toml)")
    _check_bot_folder(folder, sorted(p.name for p in folder.iterdir()))
    top = "bot"
    buffer = io.BytesIO()
    files = unpacked = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, encoding="utf-8") as tar:
        for path in _walk(folder):
            relative = path.relative_to(folder).as_posix()
            name = f"{top}/{relative}"
            check_path(relative, "the entry", limits)
            files += 1
            if files > limits.files:
                raise UploadRefused(_too_many(limits), 413)
            info = tar.gettarinfo(str(path), arcname=name)
            if info is None:  # a socket
                raise UploadRefused(f"the entry {_shown(relative)} is a socket: an upload holds only files, folders "
                                    "and links")
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.issym():
                resolved = Path(os.path.realpath(path))
                if info.linkname.startswith("/") or not resolved.is_relative_to(folder.resolve()):
                    raise UploadRefused(f"the symlink {_shown(relative)} points to {_shown(info.linkname)}, out of "
                                        "the bot folder: links may not lead out of it")
                tar.addfile(info)
            elif info.isdir():
                info.mode = 0o755
                tar.addfile(info)
            elif info.isreg() or info.islnk():
                info.type, info.linkname = tarfile.REGTYPE, ""  # a hard link goes as the file it is
                info.size = path.stat().st_size
                info.mode = 0o755 if info.mode & 0o111 else 0o644
                unpacked += info.size
                if unpacked > limits.unpacked:
                    raise UploadRefused(_too_large_unpacked(limits), 413)
                with path.open("rb") as source:
                    tar.addfile(info, source)
            else:
                raise UploadRefused(f"the entry {_shown(relative)} is not a file, a folder or a symlink: an upload "
                                    "holds only files, folders and links")
    data = buffer.getvalue()
    if len(data) > limits.packed:
        raise UploadRefused(too_large(limits), 413)
    return data


def _walk(folder: Path) -> Iterator[Path]:
    """Every path under ``folder`` (not following symlinks), parents first, in name order."""
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        path = Path(entry.path)
        yield path
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(path)
