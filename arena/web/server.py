"""The HTTP server: uvicorn, with the limits its httptools protocol lacks.

uvicorn's httptools protocol (llhttp) keeps a request's head in memory however long it grows (a
64 MB header was read whole, per connection), and has no clock on reading it: a client sending
its head a byte at a time, or never, holds its connection for ever. :class:`GuardedHttp`
adds, per connection (``WebSettings``):

- ``max_header_bytes``: a head (request line and headers) past it is answered 431 and the
  connection closed, having kept at most about twice that of it in memory;
- ``max_headers``: more header fields than that, 431;
- ``header_timeout``: a head must be whole this many seconds after its first byte arrives (or
  after the connection opens): else 408, or for a connection that sent nothing, a close;
- ``max_connections``: past it, requests get 503 (uvicorn's ``limit_concurrency``, answered with
  the security headers).

Between requests, uvicorn's keep-alive timeout (5 s) closes an idle connection. Every answer
given here carries the app's security headers, as the app's own do. The guard uses uvicorn's
protocol's own attributes (``cycle``, ``connections``, ``tasks``, ``app``): ``tests/web/test_limits.py``
fails if a uvicorn release changes them.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from .app import HEADERS
from .settings import WebSettings

LINGER_SECONDS, LINGER_BYTES = 1.0, 1024 * 1024  # what is read and dropped after a refusal, at most

TEXT_HEADERS = [(name.encode(), value.encode()) for name, value in HEADERS.items()] + [
    (b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]


def _refusal(status: int, message: str) -> Any:
    """An ASGI app answering ``status`` and closing the connection."""
    body = message.encode()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status,
                    "headers": [*TEXT_HEADERS, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return app


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above (set on a subclass: :func:`protocol`)."""

    max_head = WebSettings.max_header_bytes
    max_fields = WebSettings.max_headers
    head_timeout = WebSettings.header_timeout
    max_connections = WebSettings.max_connections

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reading_head = True  # the next bytes are a request's head
        self.head_bytes = 0
        self.head_fields = 0
        self.head_timer: asyncio.TimerHandle | None = None
        self.discarding: int | None = None  # once refused: bytes still read and dropped before closing

    # the head's clock
    def _arm(self) -> None:
        self._disarm()
        self.head_timer = self.loop.call_later(self.head_timeout, self._head_timed_out)

    def _disarm(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_timed_out(self) -> None:
        self.head_timer = None
        if self._done() or not self.reading_head:
            return
        if self._answering():  # a pipelined head waits for the answer before it: so does its clock
            self._arm()
            return
        if self.head_bytes:
            self._refuse(408, f"the request's head was not whole within {self.head_timeout:g} s")
        else:
            self.transport.close()

    def _done(self) -> bool:
        return self.transport.is_closing() or self.discarding is not None

    def _answering(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _refuse(self, status: int, message: str) -> None:
        if self._answering():  # no answer may cut into the one being sent
            self.transport.close()
            return
        body = message.encode()
        content = [STATUS_LINE[status]]
        for name, value in [*self.server_state.default_headers, *TEXT_HEADERS,
                            (b"content-length", str(len(body)).encode())]:
            content.extend([name, b": ", value, b"\r\n"])
        content.extend([b"\r\n", body])
        self.transport.write(b"".join(content))
        # a lingering close, as nginx's: the client may still be sending what is refused, and a
        # close with unread bytes resets the connection, which can lose the answer on its way
        self.discarding = LINGER_BYTES
        self._disarm()
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def send_400_response(self, msg: str) -> None:  # a request llhttp cannot parse
        self._refuse(400, msg)

    # the protocol (asyncio gives a stream's a Transport; uvicorn's own narrow BaseTransport to it too)
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()  # a connection that never sends is closed too

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.discarding is not None:
            self.discarding -= len(data)
            if self.discarding < 0:
                self.transport.close()
            return
        # fed in pieces of at most max_head bytes, counting those that start inside a head: llhttp
        # would buffer a header value whole before calling back
        for start in range(0, len(data), self.max_head):
            if self.transport.is_closing() or self.discarding is not None:
                return
            piece = data[start:start + self.max_head]
            if self.reading_head:
                if self.head_timer is None:
                    self._arm()
                self.head_bytes += len(piece)
            super().data_received(piece)
            if self.reading_head and self.head_bytes > self.max_head and not self._done():
                self._refuse(431, f"the request's head is over {self.max_head} bytes")
                return

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_fields += 1
        if self.head_fields <= self.max_fields:
            super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self.reading_head = False
        self._disarm()
        refusal = None
        if self.head_fields > self.max_fields:
            refusal = _refusal(431, f"the request has over {self.max_fields} header fields")
        elif len(self.connections) > self.max_connections or len(self.tasks) >= self.max_connections:
            refusal = _refusal(503, "the server has too many connections open: retry in a moment")
        if refusal is None:
            return super().on_headers_complete()
        app, self.app = self.app, refusal
        try:
            super().on_headers_complete()
        finally:
            self.app = app

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.reading_head, self.head_bytes, self.head_fields = True, 0, 0


def protocol(settings: WebSettings) -> type[GuardedHttp]:
    return type("ArenaHttp", (GuardedHttp,), {
        "max_head": settings.max_header_bytes, "max_fields": settings.max_headers,
        "head_timeout": settings.header_timeout, "max_connections": settings.max_connections})


def config(app: Any, host: str = "127.0.0.1", port: int = 8000, **more: Any) -> uvicorn.Config:
    """uvicorn's configuration for ``app`` (made by ``create_app``), with its settings' limits."""
    settings: WebSettings = app.state.settings
    return uvicorn.Config(app, host=host, port=port, http=protocol(settings), ws="none", log_level="warning",
                          server_header=False, proxy_headers=bool(settings.proxies),
                          forwarded_allow_ips=list(settings.proxies) or None, **more)


def serve(app: Any, host: str, port: int, sockets: list[socket.socket] | None = None) -> None:
    uvicorn.Server(config(app, host, port)).run(sockets=sockets)
