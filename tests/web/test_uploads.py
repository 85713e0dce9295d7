"""Uploads are hostile input: every hostile archive is refused over HTTP with its own message,
and leaves nothing on disk (no partial folder, no spooled file, in the uploads folder or in the
temporary folder). The archives are real, built here with tarfile and zipfile (and by hand where
those refuse to write them: a 10 GB zip bomb, a zip with a socket)."""

from __future__ import annotations

import io
import os
import re
import socket
import stat
import struct
import tarfile
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Iterator

import httpx
import pytest

from arena.bots.upload import UploadLimits, UploadRefused, _Entry, _Unpacker, pack_folder, unpack
from arena.store import open_store
from arena.web import WebSettings, create_app
from referee import limits

from .conftest import Site, add_users, live_server

MiB = 2**20
TOML = b'name = "uploaded"\nversion = "1"\nlanguage = "python"\nauthor = "Ada"\n'
DOCKERFILE = b"ARG BASE\nFROM ${BASE}\nCOPY bot.py /bot/bot.py\n"
BOT = {"bot.toml": TOML, "Dockerfile": DOCKERFILE, "bot.py": b"print('hi')\n"}


# -- archives -----------------------------------------------------------------------------------
def tgz(*members: tuple[tarfile.TarInfo, bytes | None], base: dict[str, bytes] | None = None,
        errors: str = "strict") -> bytes:
    """A .tar.gz of the files of ``base`` (default: a good bot folder), then ``members``."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors=errors) as tar:
        for name, content in (BOT if base is None else base).items():
            tar.addfile(info(name, size=len(content)), io.BytesIO(content))
        for member, data in members:
            tar.addfile(member, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def info(name: str, type: bytes = tarfile.REGTYPE, size: int = 0, link: str = "", mode: int = 0o644) -> tarfile.TarInfo:  # noqa: A002
    member = tarfile.TarInfo(name)
    member.type, member.size, member.linkname, member.mode = type, size, link, mode
    return member


def zipped(entries: dict[str, bytes], base: dict[str, bytes] | None = None,
           modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # "Duplicate name": on purpose
        for name, data in {**(BOT if base is None else base)}.items():
            archive.writestr(name, data)
        for name, data in entries.items():
            member = zipfile.ZipInfo(name.removesuffix("#dup"))
            if modes and name in modes:
                member.create_system = 3
                member.external_attr = modes[name] << 16
            archive.writestr(member, data)
    return buffer.getvalue()


def zeros_deflated(size: int) -> bytes:
    """``size`` bytes of zeros as a raw deflate stream, about 1/1000 of the size, made in well
    under a second: 1 MiB of zeros compressed after a full flush is the same bytes every time."""
    chunk = b"\0" * MiB
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    repeated = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH) == repeated
    return first + repeated * (size // MiB - 2) + compressor.compress(chunk) + compressor.flush()


def zip_bomb(size: int = 10 * 2**30) -> bytes:
    """A zip of one entry, ``size`` bytes of zeros (zip64 sizes), beside a good bot folder. Its
    CRC is left 0: nothing that reads it honestly gets that far."""
    data = zeros_deflated(size)
    name = b"zeros.bin"
    extra = struct.pack("<HHQQ", 1, 16, size, len(data))
    # zipfile's own record layouts (undocumented, so not in its stubs), to forge the sizes it reads
    local = struct.pack(zipfile.structFileHeader, b"PK\x03\x04", 45, 0, 0, 8, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFFF,  # type: ignore[attr-defined]
                        len(name), len(extra)) + name + extra
    head = zipped({}, base=BOT)  # the good files first, then the bomb appended to its entries
    good = zipfile.ZipFile(io.BytesIO(head))
    offset_cd = good.start_dir
    central_good = head[offset_cd:head.rindex(b"PK\x05\x06")]
    body = head[:offset_cd] + local + data
    central = struct.pack(zipfile.structCentralDir, b"PK\x01\x02", 45, 3, 45, 0, 0, 8, 0, 0, 0, 0xFFFFFFFF,  # type: ignore[attr-defined]
                          0xFFFFFFFF, len(name), len(extra), 0, 0, 0, 0o100644 << 16, offset_cd) + name + extra
    directory = central_good + central
    end = struct.pack(zipfile.structEndArchive, b"PK\x05\x06", 0, 0, len(good.infolist()) + 1,  # type: ignore[attr-defined]
                      len(good.infolist()) + 1, len(directory), len(body), 0)
    return body + directory + end


def tar_bomb(size: int = 10 * 2**30) -> bytes:
    """A .tar.gz whose one member is ``size`` bytes of zeros, made the same way (a gzip member
    is a header, a raw deflate stream and a trailer; the CRC is left 0)."""
    header = info("zeros.bin", size=size).tobuf(tarfile.GNU_FORMAT)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + start + zeros_deflated(size)
            + struct.pack("<LL", 0, (size + len(header)) & 0xFFFFFFFF))


def many_files(count: int) -> dict[str, bytes]:
    return {**BOT, **{f"f/{i:05d}.txt": b"x" for i in range(count)}}


# -- the server ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Iterator[Site]:
    """A server without the worker (nothing is built here), whose temporary folder is a fresh
    one of its own, so that a file spooled there would show."""
    root = tmp_path_factory.mktemp("uploads")
    spool = root / "tmp"
    spool.mkdir()
    before = tempfile.tempdir
    tempfile.tempdir = str(spool)
    try:
        store = open_store(f"sqlite:///{root}/arena.db")
        tokens = add_users(store)
        app = create_app(store, WebSettings(runs_dir=root / "runs", uploads_dir=root / "uploads", worker=False))
        with live_server(app) as url:
            yield Site(url, store, root / "runs", tokens)
    finally:
        tempfile.tempdir = before


def leftovers(site: Site) -> list[str]:
    uploads = site.runs_dir.parent / "uploads"
    return sorted(os.listdir(uploads) if uploads.exists() else []) + sorted(os.listdir(site.runs_dir.parent / "tmp"))


def refused(site: Site, archive: bytes, status: int, *words: str) -> str:
    with site.client("alice") as alice:
        reply = alice.post("/api/v1/submissions", files={"archive": ("bot.tar.gz", archive, "application/gzip")})
    assert reply.status_code == status, reply.text
    detail = reply.json()["detail"]
    for word in words:
        assert word in detail, detail
    assert leftovers(site) == [], "a refused upload left something on disk"
    return detail


HOSTILE = {
    "traversal": (tgz((info("../x", size=1), b"x")), "'../x' has '..' in its path"),
    "traversal inside": (tgz((info("a/../../x", size=1), b"x")), "'..' in its path"),
    "absolute path": (tgz((info("/etc/x", size=1), b"x")), "'/etc/x' is an absolute path"),
    "drive letter": (zipped({"C:/x": b"x"}), "starts with a drive letter"),
    "backslash": (zipped({"..\\x": b"x"}), "backslash"),
    "symlink to /etc/passwd": (tgz((info("passwd", tarfile.SYMTYPE, link="/etc/passwd"), None)),
                               "points to '/etc/passwd', an absolute path"),
    "symlink out": (tgz((info("up", tarfile.SYMTYPE, link="../../etc/passwd"), None)), "out of the bot folder"),
    "symlink out through a symlink": (tgz((info("sub/up", tarfile.SYMTYPE, link=".."), None),
                                          (info("t", tarfile.SYMTYPE, link="sub/up/.."), None)),
                                      "'t' points to 'sub/up/..', out of the bot folder"),
    "zip symlink out": (zipped({"up": b"../../x"}, modes={"up": stat.S_IFLNK | 0o777}), "out of the bot folder"),
    "entry beneath a symlink": (tgz((info("l", tarfile.SYMTYPE, link="."), None), (info("l/x", size=1), b"x")),
                                "lies beneath 'l', which is a symlink"),
    "hard link out": (tgz((info("h", tarfile.LNKTYPE, link="../../x"), None)), "hard link 'h' to '../../x'"),
    "hard link to nothing": (tgz((info("h", tarfile.LNKTYPE, link="etc/passwd"), None)),
                             "not a file earlier in the archive"),
    "char device": (tgz((info("null", tarfile.CHRTYPE), None)), "'null' is a device file"),
    "block device": (tgz((info("sda", tarfile.BLKTYPE), None)), "is a device file"),
    "FIFO": (tgz((info("pipe", tarfile.FIFOTYPE), None)), "'pipe' is a FIFO"),
    "zip socket": (zipped({"sock": b""}, modes={"sock": stat.S_IFSOCK | 0o644}), "'sock' is a socket"),
    "no bot.toml": (tgz(base={"Dockerfile": DOCKERFILE}), "no bot.toml"),
    "no Dockerfile": (zipped({}, base={"bot.toml": TOML}), "no Dockerfile"),
    "two folders": (tgz(base={"a/bot.toml": TOML, "b/Dockerfile": DOCKERFILE}), "top holds 'a/', 'b/'"),
    "not an archive": (b"#!/bin/sh\nrm -rf /\n", "not a .tar.gz or a .zip"),
    "plain tar": (tarfile.TarInfo("x").tobuf() + b"\0" * 1024, "not a .tar.gz or a .zip"),
    "truncated": (tgz()[:-30], "corrupt"),
    "gzip of no tar": (b"\x1f\x8b" + zlib.compress(b"x" * 1000)[2:], "corrupt"),
    "corrupt zip": (zipped({})[:-40], "corrupt"),
    "duplicate": (zipped({"bot.toml#dup": TOML}), "'bot.toml' is in the archive twice"),
    "not UTF-8 (tar)": (tgz((info("caf\udce9.txt", size=1), b"x"), errors="surrogateescape"), "not valid UTF-8"),
    "control character": (tgz((info("a\x1b[2J.txt", size=1), b"x")), "control or invisible character"),
    "bidi override": (zipped({"gpj.\u202eexe": b"x"}), "control or invisible character"),
    "too deep": (tgz((info("/".join(["d"] * 40) + "/x", size=1), b"x")), "folders deep"),
    # bot.toml is hostile too (tests/sandbox/test_bot_toml.py has every case): each was a 500
    "bot.toml: a 5,000-digit integer": (tgz(base={**BOT, "bot.toml": TOML + b"games = [" + b"9" * 5000 + b"]\n"}),
                                        "line 5 (games): an integer of 5000 digits"),
    "bot.toml: 20,000 nested arrays": (tgz(base={**BOT, "bot.toml": TOML + b"games = " + b"[" * 20000 + b"]" * 20000}),
                                       "line 5 (games): arrays or tables nested more than"),
    "bot.toml: a NUL in dockerfile": (tgz(base={**BOT, "bot.toml": TOML + b'[build]\ndockerfile = "D\\u0000"\n'}),
                                      "[build] dockerfile holds a control character (U+0000)"),
    "bot.toml: a 4 MiB build argument": (tgz(base={**BOT, "bot.toml": TOML + b'[build]\nargs = { X = "'
                                                   + b"x" * 4 * MiB + b'" }\n'}), "bot.toml is over the 64 KiB"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_archive_is_refused_with_its_reason_and_leaves_nothing(site, case):
    archive, words = HOSTILE[case]
    refused(site, archive, 400, words)


def test_a_name_that_is_not_utf8_in_a_zip_is_refused(site):
    archive = zipped({"caf\u00e9.txt": b"x"}).replace("caf\u00e9".encode(), b"caf\xff\xfe", 2)
    refused(site, archive, 400, "not valid UTF-8")  # flagged UTF-8 by zipfile, and not


def test_a_zip_bomb_of_10_gb_of_zeros_is_refused_at_200_mb(site):
    bomb = zip_bomb()
    assert len(bomb) < 12 * MiB
    refused(site, bomb, 413, f"unpacks to more than {limits.UNPACKED_MB} MB")


def test_a_tar_bomb_is_refused(site):
    refused(site, tar_bomb(), 413, f"unpacks to more than {limits.UNPACKED_MB} MB")


def test_files_over_the_unpacked_limit_in_all_are_refused(tmp_path):
    """Each file under the limit, their sum over it (a limit of 1 MiB, for speed)."""
    archive = tmp_path / "a.tgz"
    archive.write_bytes(tgz((info("a", size=600_000), b"a" * 600_000), (info("b", size=600_000), b"b" * 600_000)))
    with pytest.raises(UploadRefused, match="unpacks to more than 1 MB"):
        unpack(archive, tmp_path / "out", UploadLimits(unpacked=MiB))
    assert os.listdir(tmp_path / "out") == []


def test_the_bytes_written_are_counted_not_the_sizes_headers_say(tmp_path):
    """An entry whose header says 1 byte and whose stream gives 2 MiB (tarfile and zipfile stop
    at what the header says, so the stream is made here): refused at the limit."""
    unpacker = _Unpacker(tmp_path, UploadLimits(unpacked=MiB))
    liar = _Entry("liar.bin", "file", 0o644, 1, open=lambda: io.BytesIO(b"\0" * (2 * MiB)))
    with pytest.raises(UploadRefused, match="unpacks to more than 1 MB"):
        unpacker.add(liar)
    assert unpacker.bytes <= MiB + 64 * 1024


def test_a_long_name_header_of_a_gigabyte_is_refused_before_it_is_read(site):
    header = info("././@LongLink", tarfile.GNUTYPE_LONGNAME, size=2**30).tobuf(tarfile.USTAR_FORMAT)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    start = compressor.compress(header) + compressor.flush(zlib.Z_FULL_FLUSH)
    archive = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + start + zeros_deflated(256 * MiB) + b"\0" * 8
    refused(site, archive, 400, "a header of 1,073,741,824 bytes")


def test_a_tar_of_6000_files_is_refused(site):
    refused(site, tgz(base=many_files(6000)), 413, f"more than {limits.UPLOAD_FILES:,} files")


def test_a_zip_of_6000_files_is_refused_before_its_directory_is_read(site):
    refused(site, zipped({}, base=many_files(6000)), 413, f"more than {limits.UPLOAD_FILES:,} files")


def test_a_21_mb_upload_is_refused_while_it_is_read(site):
    archive = os.urandom(21 * MiB)  # random: a gzip header would not make it smaller
    refused(site, b"\x1f\x8b" + archive, 413, f"over {limits.UPLOAD_MB} MB")


def test_content_length_is_not_trusted(site):
    """A body sent in chunks says no length: it is counted as it comes. A Content-Length far
    over the limit is refused before the body is read."""
    boundary = "b0undary"
    head = (f'--{boundary}\r\ncontent-disposition: form-data; name="archive"; filename="a.tgz"\r\n'
            "content-type: application/gzip\r\n\r\n").encode()

    def body() -> Iterator[bytes]:
        yield head + b"\x1f\x8b"
        for _ in range(25):
            yield os.urandom(MiB)
        yield f"\r\n--{boundary}--\r\n".encode()

    with site.client("alice") as alice:
        chunked = alice.post("/api/v1/submissions", content=body(),
                             headers={"content-type": f"multipart/form-data; boundary={boundary}"})
        assert chunked.status_code == 413 and "over 20 MB" in chunked.json()["detail"]
    host, port = site.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as raw:  # httpx would not lie
        raw.sendall(f"POST /api/v1/submissions HTTP/1.1\r\nhost: {host}\r\n"
                    f"authorization: Bearer {site.tokens['alice']}\r\n"
                    f"content-type: multipart/form-data; boundary=x\r\ncontent-length: {10 * 2**30}\r\n\r\n"
                    "--x\r\n".encode())
        assert raw.recv(4096).startswith(b"HTTP/1.1 413 ")
    assert leftovers(site) == []


def test_a_request_without_an_archive_or_not_multipart_is_refused(site):
    with site.client("alice") as alice:
        assert "multipart/form-data" in alice.post("/api/v1/submissions", json={"archive": "x"}).json()["detail"]
        reply = alice.post("/api/v1/submissions", data={"leagues": "x"}, files={"other": ("a", b"a")})
        assert reply.status_code == 400 and "no archive" in reply.json()["detail"]
        two = alice.post("/api/v1/submissions", files=[("archive", ("a.tgz", tgz())), ("archive", ("b.tgz", tgz()))])
        assert two.status_code == 400 and "one archive" in two.json()["detail"]
    assert leftovers(site) == []


def test_anonymous_uploads_are_refused_before_the_body_is_read(site):
    with httpx.Client(base_url=site.url) as anonymous:
        assert anonymous.post("/api/v1/submissions", files={"archive": ("a.tgz", tgz())}).status_code == 401
    assert leftovers(site) == []


# -- what is accepted, and how it is unpacked -----------------------------------------------------
def test_files_get_safe_modes_and_are_ours_links_inside_are_kept(tmp_path):
    archive = tmp_path / "bot.tar.gz"
    archive.write_bytes(tgz((info("top/run.sh", size=3, mode=0o4777), b"ls\n"),  # setuid, world-writable
                            (info("top/data", size=1, mode=0o2640), b"d"),
                            (info("top/sub", tarfile.DIRTYPE, mode=0o1777), None),
                            (info("top/sub/link", tarfile.SYMTYPE, link="../run.sh"), None),
                            (info("top/copy", tarfile.LNKTYPE, link="top/data"), None),
                            base={"top/bot.toml": TOML, "top/Dockerfile": DOCKERFILE}))
    unpacked = unpack(archive, tmp_path / "uploads")
    folder = unpacked.folder
    assert folder.parent == tmp_path / "uploads" and sorted(os.listdir(tmp_path / "uploads")) == [folder.name]
    assert sorted(os.listdir(folder)) == ["Dockerfile", "bot.toml", "copy", "data", "run.sh", "sub"]
    modes = {name: stat.S_IMODE((folder / name).lstat().st_mode) for name in ("run.sh", "data", "sub", "copy")}
    assert modes == {"run.sh": 0o755, "data": 0o644, "sub": 0o755, "copy": 0o644}
    assert os.readlink(folder / "sub" / "link") == "../run.sh" and (folder / "sub" / "link").read_text() == "ls\n"
    assert (folder / "copy").read_bytes() == b"d" and not (folder / "copy").samefile(folder / "data")
    assert {(folder / n).lstat().st_uid for n in os.listdir(folder)} == {os.getuid()}
    assert unpacked.files == 7


def test_a_zip_of_a_folder_and_macos_resource_forks(tmp_path):
    archive = tmp_path / "bot.zip"
    archive.write_bytes(zipped({"__MACOSX/bot/._bot.toml": b"junk"},
                               base={f"bot/{name}": data for name, data in BOT.items()}))
    folder = unpack(archive, tmp_path / "uploads").folder
    assert sorted(os.listdir(folder)) == ["Dockerfile", "bot.py", "bot.toml"]


def test_pack_folder_packs_what_the_server_unpacks_and_refuses_what_it_refuses(tmp_path):
    folder = tmp_path / "my-bot"
    (folder / "lib").mkdir(parents=True)
    for name, data in BOT.items():
        (folder / name).write_bytes(data)
    (folder / "lib" / "x.py").write_text("x = 1\n")
    (folder / "lib" / "alias").symlink_to("x.py")
    (tmp_path / "packed.tgz").write_bytes(pack_folder(folder))
    unpacked = unpack(tmp_path / "packed.tgz", tmp_path / "uploads").folder
    assert sorted(str(p.relative_to(unpacked)) for p in unpacked.rglob("*")) == [
        "Dockerfile", "bot.py", "bot.toml", "lib", "lib/alias", "lib/x.py"]
    (folder / "lib" / "out").symlink_to("/etc/passwd")
    with pytest.raises(UploadRefused, match="out of the bot folder"):
        pack_folder(folder)
    (folder / "lib" / "out").unlink()
    os.mkfifo(folder / "pipe")
    with pytest.raises(UploadRefused, match="'pipe' is not a file, a folder or a symlink"):
        pack_folder(folder)
    (folder / "pipe").unlink()
    (folder / "Dockerfile").unlink()
    with pytest.raises(UploadRefused, match="no Dockerfile"):
        pack_folder(folder)


def test_the_upload_form_needs_its_csrf_token_and_shows_why_an_archive_is_refused(site):
    with site.browser("alice") as browser:
        page = browser.get("/submit").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page)[1]
        files = {"archive": ("bot.tar.gz", tgz((info("../x", size=1), b"x")), "application/gzip")}
        stale = browser.post("/submit", data={"csrf": "forged"}, files=files)
        assert stale.status_code == 403 and "the form is stale" in stale.text
        # a browser's session on the API needs it too: a cookie is sent by a browser by itself
        assert browser.post("/api/v1/submissions", files=files).status_code == 403
        shown = browser.post("/submit", data={"csrf": csrf}, files=files)
        assert shown.status_code == 400 and 'id="submit-error"' in shown.text
        assert "&#39;../x&#39; has &#39;..&#39; in its path" in shown.text
    assert leftovers(site) == []
