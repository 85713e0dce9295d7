"""What every route and the HTTP server do with what is too much, over real HTTP: ids beyond the
store's range are 404 on every route (not SQLite's OverflowError as a 500); every error, a 500
included, carries the security headers; and the server refuses a huge request head quickly with
bounded memory, cuts off a client that sends its head a byte at a time or never, and still
serves ordinary, keep-alive and pipelined requests."""

from __future__ import annotations

import re
import socket
import threading
import time
from pathlib import Path

import pytest
from fastapi import HTTPException

from arena.web.ids import MAX_ID

from .conftest import app_routes, new_site

SECURITY = ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy")


def secured(reply) -> bool:
    return all(name in reply.headers for name in SECURITY) and reply.headers["x-content-type-options"] == "nosniff"


# -- ids ------------------------------------------------------------------------------------------
def number_params(route) -> list[str]:
    return [p.name for p in route.dependant.path_params if p.field_info.annotation is int]


@pytest.mark.parametrize("value", [MAX_ID + 1, 2**64, 10**40, -1, "12abc"])
def test_every_route_answers_an_id_out_of_range_with_404(empty_site, value):
    routes = [(path, route) for path, route in app_routes() if number_params(route)]
    assert len(routes) >= 15
    with empty_site.client("admin") as admin:
        for path, route in routes:
            numbers = number_params(route)
            url = re.sub(r"\{([^}]+)\}", lambda m, numbers=numbers: str(value) if m[1] in numbers else "web", path)
            for method in sorted(route.methods - {"HEAD"}):
                reply = admin.request(method, url)
                assert reply.status_code == 404 and secured(reply), (method, url, reply.status_code, reply.text[:200])
        reply = admin.get(f"/api/v1/bots/{value}")
        assert reply.json()["detail"] == f"no bot {value}"[:47]


def test_the_largest_id_in_range_is_an_unknown_one(empty_site):
    with empty_site.client("admin") as admin:
        for url in (f"/api/v1/bots/{MAX_ID}", f"/api/v1/games/{MAX_ID}", f"/matches/{MAX_ID}",
                    f"/api/v1/submissions/{MAX_ID}", f"/api/v1/matches/{MAX_ID}/output/{MAX_ID}"):
            reply = admin.get(url)
            assert reply.status_code == 404 and secured(reply), (url, reply.text[:200])


def test_an_unhandled_error_is_a_500_with_the_security_headers_and_nothing_of_it_shown(tmp_path):
    with new_site(tmp_path) as site:
        def boom() -> None:
            raise RuntimeError("a secret /srv/arena/path")

        def refused() -> None:
            raise HTTPException(418, "no")

        for path in ("/boom", "/api/v1/boom"):
            site.app.add_api_route(path, boom)
        site.app.add_api_route("/api/v1/teapot", refused)
        with site.client() as client:
            page, api, teapot = client.get("/boom"), client.get("/api/v1/boom"), client.get("/api/v1/teapot")
    assert page.status_code == api.status_code == 500 and teapot.status_code == 418
    assert secured(page) and secured(api) and secured(teapot)
    assert "text/html" in page.headers["content-type"] and api.json()["detail"].startswith("the server failed")
    assert "secret" not in page.text + api.text


# -- the HTTP server's limits ---------------------------------------------------------------------
def rss_mib() -> float:
    status = Path("/proc/self/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    assert found is not None, status
    return int(found[1]) / 1024


def flood_head(url: str, total: int) -> tuple[bytes, int, float]:
    """Sends a request whose one header is ``total`` bytes, reading as it sends; returns what
    came back, how many bytes the server took, and how long until it stopped taking them."""
    host, port = url.removeprefix("http://").split(":")
    chunk = b"a" * 65536
    sent, answer = 0, b""
    start = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ")
        sock.settimeout(0.05)
        while sent < total:
            try:
                sent += sock.send(chunk)
            except TimeoutError:
                pass
            except OSError:  # reset: the server is done with us
                break
            try:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
            except TimeoutError:
                pass
            except OSError:
                break
    return answer, sent, time.monotonic() - start


def test_a_64_mb_header_is_refused_at_once_with_bounded_memory(tmp_path):
    with new_site(tmp_path) as site:
        answer, sent, took = flood_head(site.url, 64 * 2**20)
        assert answer.startswith(b"HTTP/1.1 431 ") and b"head is over 32768 bytes" in answer, answer[:200]
        assert b"content-security-policy" in answer.lower()
        assert sent < 24 * 2**20 and took < 5, (sent, took)
        # eight at once: the server's memory stays put (it grew by 64 MB each before)
        before = rss_mib()
        results: list[tuple[bytes, int, float]] = []
        threads = [threading.Thread(target=lambda: results.append(flood_head(site.url, 64 * 2**20)))
                   for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        grown = rss_mib() - before
        assert all(a.startswith(b"HTTP/1.1 431 ") for a, _, _ in results), [a[:40] for a, _, _ in results]
        assert grown < 48, f"the server's process grew by {grown:.0f} MiB"
        with site.client() as client:
            assert client.get("/healthz").status_code == 200


def raw(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=10)


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_head_sent_a_byte_at_a_time_or_never_is_cut_off(tmp_path):
    with new_site(tmp_path, header_timeout=1.0) as site:
        slow = raw(site.url)
        start = time.monotonic()
        answer = b""
        for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
            try:
                slow.send(bytes([byte]))
            except OSError:
                break
            time.sleep(0.05)
            if time.monotonic() - start > 1.2:
                break
        slow.settimeout(5)
        answer = read_all(slow)
        took = time.monotonic() - start
        assert answer.startswith(b"HTTP/1.1 408 ") and 0.9 < took < 3, (answer[:100], took)
        idle = raw(site.url)
        start = time.monotonic()
        assert read_all(idle) == b"" and 0.9 < time.monotonic() - start < 3  # closed, never having sent
        slow.close()
        idle.close()


def test_too_many_header_fields_are_refused(tmp_path):
    with new_site(tmp_path) as site:
        sock = raw(site.url)
        fields = b"".join(b"X-%d: 1\r\n" % i for i in range(101))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + fields + b"\r\n")
        answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 431 ") and b"over 100 header fields" in answer, answer[:200]
        assert b"content-security-policy" in answer.lower()


def test_ordinary_keep_alive_pipelined_and_large_requests_are_served(tmp_path):
    with new_site(tmp_path, header_timeout=1.0) as site:
        sock = raw(site.url)
        # two requests in one packet, then a third after more than the head timeout: keep-alive
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        first = sock.recv(65536)
        time.sleep(1.5)
        # a head near the limit and a body far larger in the same packet: only the head counts
        head = b"POST /logout HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 30_000 + b"\r\nContent-Length: 200000\r\n\r\n"
        sock.sendall(head + b"b" * 200_000 + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        sock.settimeout(10)
        rest = read_all(sock)
        answers = re.findall(rb"HTTP/1\.1 (\d+) ", first + rest)
        assert answers == [b"200", b"200", b"303", b"200"], (first + rest)[:600]


def test_past_the_connections_cap_requests_get_503_with_the_security_headers(tmp_path):
    with new_site(tmp_path, max_connections=2) as site:
        idle = [raw(site.url) for _ in range(2)]
        sock = raw(site.url)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = read_all(sock)
        assert answer.startswith(b"HTTP/1.1 503 ") and b"content-security-policy" in answer.lower(), answer[:200]
        for other in idle:
            other.close()
        time.sleep(0.2)
        with site.client() as client:
            assert client.get("/healthz").status_code == 200
