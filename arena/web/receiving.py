"""An upload received: a ``multipart/form-data`` request read into the uploads folder, counting
the bytes as they come (Content-Length is not trusted, and nothing is spooled anywhere else).
What is received is then unpacked with care by :func:`arena.bots.upload.unpack`; everything here is
refused as there, with an :class:`~arena.bots.upload.UploadRefused` that leaves nothing on disk."""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from starlette.requests import Request

from ..bots.upload import LIMITS, UploadLimits, UploadRefused, too_large

if TYPE_CHECKING:
    from python_multipart.multipart import MultipartCallbacks

FIELDS_BYTES = 64 * 1024  # of a request's fields besides the archive
MAX_PARTS = 100  # of a multipart request


@dataclass
class Received:
    """A multipart request: its fields, and the archive spooled into the uploads folder (the
    caller removes it: :meth:`discard`)."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    archive: Path | None = None
    filename: str = ""

    def discard(self) -> None:
        if self.archive is not None:
            with contextlib.suppress(FileNotFoundError):
                self.archive.unlink()
            self.archive = None

    def last(self, name: str, default: str = "") -> str:
        values = self.fields.get(name)
        return values[-1] if values else default


async def receive_upload(request: Request, spool: Path, limits: UploadLimits = LIMITS) -> Received:
    """Reads a ``multipart/form-data`` request whose file field ``archive`` is the bot folder
    packed, into a new file in ``spool``; the other fields as text. The archive is cut off at
    ``limits.packed`` bytes, counted as they arrive; a larger one is refused (413) after the
    rest of the body is read and dropped (up to ``limits.drain``), and nothing stays on disk."""
    from python_multipart.exceptions import MultipartParseError
    from python_multipart.multipart import MultipartParser, parse_options_header

    content_type, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if content_type != b"multipart/form-data" or not boundary:
        raise UploadRefused("send the bot folder as multipart/form-data, its archive in a file field named 'archive'")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limits.drain:  # believed only to refuse
        raise UploadRefused(too_large(limits), 413)
    received = Received()
    spool.mkdir(parents=True, exist_ok=True)
    state = _PartState(received, spool, limits)
    parser = MultipartParser(boundary, state.callbacks())
    total = 0
    try:
        async for chunk in request.stream():
            total += len(chunk)
            if state.problem is None and total > limits.packed + FIELDS_BYTES:
                state.refuse(UploadRefused(too_large(limits), 413))
            if state.problem is None:
                try:
                    parser.write(chunk)
                except MultipartParseError as exc:
                    state.refuse(UploadRefused(f"the request is not well-formed multipart/form-data: {exc}"))
                except UploadRefused as exc:
                    state.refuse(exc)
            if state.problem is not None and (state.problem.status != 413 or total > limits.drain):
                break  # a bad request is answered at once; a large one once the client is done, if it ever is
        if state.problem is None:
            try:
                parser.finalize()
            except MultipartParseError as exc:
                state.refuse(UploadRefused(f"the request is not well-formed multipart/form-data: {exc}"))
            if state.problem is None and not state.ended:
                state.refuse(UploadRefused("the request ended before its multipart body did"))
        if state.problem is not None:
            raise state.problem
        if received.archive is None:
            raise UploadRefused("no archive: send the bot folder as a .tar.gz or .zip in a file field named "
                                "'archive'")
        return received
    except BaseException:
        state.close()
        received.discard()
        raise


async def drain(request: Request, limits: UploadLimits = LIMITS) -> None:
    """Reads and drops a request's body (up to ``limits.drain``) before it is refused: a client
    still sending when the connection closes would not see the answer."""
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limits.drain:
            break


class _PartState:
    """The multipart parser's callbacks: the archive part goes to a file, the rest to fields."""

    def __init__(self, received: Received, spool: Path, limits: UploadLimits) -> None:
        self.received, self.spool, self.limits = received, spool, limits
        self.problem: UploadRefused | None = None
        self.ended = False
        self.parts = 0
        self.field_bytes = 0
        self.header_field = bytearray()
        self.header_value = bytearray()
        self.headers: dict[str, bytes] = {}
        self.name = ""
        self.out: IO[bytes] | None = None
        self.size = 0
        self.value = bytearray()

    def callbacks(self) -> MultipartCallbacks:
        return {"on_part_begin": self.part_begin, "on_header_field": self.header_field_data,
                "on_header_value": self.header_value_data, "on_header_end": self.header_end,
                "on_headers_finished": self.headers_finished, "on_part_data": self.part_data,
                "on_part_end": self.part_end, "on_end": self.end}

    def refuse(self, problem: UploadRefused) -> None:
        self.problem = problem
        self.close()
        self.received.discard()

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None

    def part_begin(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise UploadRefused(f"the request has more than {MAX_PARTS} fields")
        self.headers, self.name, self.size, self.value = {}, "", 0, bytearray()

    def header_field_data(self, data: bytes, start: int, end: int) -> None:
        self.header_field += data[start:end]

    def header_value_data(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def header_end(self) -> None:
        self.headers[self.header_field.decode("latin-1").lower()] = bytes(self.header_value)
        self.header_field, self.header_value = bytearray(), bytearray()

    def headers_finished(self) -> None:
        from python_multipart.multipart import parse_options_header

        _, options = parse_options_header(self.headers.get("content-disposition", b""))
        self.name = options.get(b"name", b"").decode("utf-8", "replace")
        filename = options.get(b"filename")
        if self.name == "archive" and filename is not None:
            if self.received.archive is not None:
                raise UploadRefused("send one archive, not several")
            if not filename:  # a form sent with no file chosen
                return
            self.received.filename = filename.decode("utf-8", "replace")
            path = self.spool / f".upload-{secrets.token_hex(8)}"
            self.out = open(path, "xb")  # noqa: SIM115 - closed in part_end or close()
            self.received.archive = path

    def part_data(self, data: bytes, start: int, end: int) -> None:
        if self.out is not None:
            self.size += end - start
            if self.size > self.limits.packed:
                raise UploadRefused(too_large(self.limits), 413)
            self.out.write(data[start:end])
        elif self.name != "archive":
            self.field_bytes += end - start
            if self.field_bytes > FIELDS_BYTES:
                raise UploadRefused(f"the request's fields are over {FIELDS_BYTES // 1024} KiB")
            self.value += data[start:end]

    def part_end(self) -> None:
        if self.out is not None:
            self.close()
        elif self.name and self.name != "archive":
            self.received.fields.setdefault(self.name, []).append(self.value.decode("utf-8", "replace"))

    def end(self) -> None:
        self.ended = True


