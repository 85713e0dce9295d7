"""Shared by the benchmarks: repeated timing, medians, and the output convention.

Every figure is printed as a line of text, or with ``--json`` as one JSON object
``{"bench": ..., "figure": ..., "value": ..., "unit": ...}`` per line.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import time
from typing import Any

import httpx

from referee import cpu


def pin_to_one_core() -> None:
    """Engines are single-threaded; pinning keeps the scheduler from adding noise."""
    if cpu.PINNABLE:
        cpu.pin({cpu.allowed()[0]})


class Report:
    def __init__(self, bench: str, as_json: bool) -> None:
        self.bench, self.as_json = bench, as_json

    def figure(self, figure: str, value: float, unit: str, note: str = "") -> None:
        if self.as_json:
            print(json.dumps({"bench": self.bench, "figure": figure, "value": round(value, 3), "unit": unit}))
        else:
            shown = f"{value:>14,.2f}" if abs(value) < 10 else f"{value:>14,.1f}"
            print(f"{self.bench:<10} {figure:<44} {shown} {unit}{'  ' + note if note else ''}")
        sys.stdout.flush()

    def note(self, text: str) -> None:
        """A remark beside the figures (on stderr, so JSON output stays one figure a line)."""
        print(f"{self.bench}: {text}", file=sys.stderr)


def median(values: list[float]) -> float:
    return statistics.median(values)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(command: list[str], port: int, **popen: Any) -> tuple[subprocess.Popen, str]:
    """A web server started by ``command`` (on ``port``), once it answers ``/healthz``; its URL."""
    process = subprocess.Popen(command, **popen)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{' '.join(command[:4])} exited with status {process.returncode}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{' '.join(command[:4])} did not answer within 60 s")
