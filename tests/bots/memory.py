"""A bot that tries to remember across its processes through the host's caches (tests/sandbox/test_memory.py).

    python3 memory.py

Its image (built by the test) holds ``/bot/own``, a file of 256 pages owned by the build user
(uid 10001, which bots ran as), 256 one-page files ``/bot/pages/<i>``, and an empty folder
``/bot/names``. Before its first decision, each process reads what an earlier process may
have left, by each means, and then leaves a fresh random token of :data:`BITS` bits by all of
them, printing both on stderr:

    READ <means> <bits as 0/1>
    WROTE <bits as 0/1>

- ``mincore``: bit i is whether page i of /bot/own is in the page cache, as ``mincore()`` says
  (the kernel answers only to the file's owner or a writer); written by evicting every page
  (``posix_fadvise(DONTNEED)``, and ``madvise(MADV_PAGEOUT)`` of a mapping) and reading the pages of 1-bits.
- ``pages``: bit i is whether /bot/pages/<i> reads fast (it is cached); written by evicting every
  file and reading those of 1-bits.
- ``names``: bit i is whether looking up a missing name in /bot/names is fast (a negative dentry
  is cached); written by looking up the names of 1-bits. A name is looked up once, so each
  process writes names of its own: ``<salt>-<match>-<game>-<i>`` (the salt is the image's
  /bot/salt, the match's number the digit in its opponents' names, ``m<match>a``), and reads those
  of the process before it (the game before, or the previous match's last, game 2).

Reading by time needs a threshold: the median of the times, as a token has about as many 1s as
0s. It plays random legal actions.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import random
import sys
import time
from pathlib import Path

from arenabot import run
from arenabot.strategies import RandomStrategy

BITS = 256
PAGE = os.sysconf("SC_PAGE_SIZE")
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
MADV_RANDOM, MADV_PAGEOUT = 1, 21
SALT = Path("/bot/salt").read_text().strip() if os.path.exists("/bot/salt") else "nosalt"


def bits(values: list[bool]) -> str:
    return "".join("1" if v else "0" for v in values)


def fast(times: list[int]) -> list[bool]:
    """Which times are below their median (a token has about as many 1s as 0s)."""
    cut = sorted(times)[len(times) // 2]
    return [t < cut for t in times]


def own_mapping() -> tuple[int, int, int]:
    fd = os.open("/bot/own", os.O_RDONLY)
    size = os.fstat(fd).st_size
    addr = LIBC.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    LIBC.madvise(ctypes.c_void_p(addr), ctypes.c_size_t(size), MADV_RANDOM)  # no read-ahead: one page a bit
    return fd, addr, size


def read_mincore(slot: str) -> list[bool]:
    fd, addr, size = own_mapping()
    vec = (ctypes.c_ubyte * (size // PAGE))()
    LIBC.mincore(ctypes.c_void_p(addr), ctypes.c_size_t(size), vec)
    LIBC.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
    os.close(fd)
    return [bool(v & 1) for v in vec][:BITS]


def write_mincore(token: list[bool], slot: str) -> None:
    fd, addr, size = own_mapping()
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    LIBC.madvise(ctypes.c_void_p(addr), ctypes.c_size_t(size), MADV_PAGEOUT)
    for i, bit in enumerate(token):
        if bit:
            ctypes.c_char.from_address(addr + i * PAGE).value  # noqa: B018 - a read that faults the page in
    LIBC.munmap(ctypes.c_void_p(addr), ctypes.c_size_t(size))
    os.close(fd)


def read_pages(slot: str) -> list[bool]:
    times = []
    for i in random.sample(range(BITS), BITS):  # in no order a read-ahead could follow
        fd = os.open(f"/bot/pages/{i}", os.O_RDONLY)
        t = time.perf_counter_ns()
        os.pread(fd, 1, 0)
        times.append((i, time.perf_counter_ns() - t))
        os.close(fd)
    by_bit = [t for _, t in sorted(times)]
    return fast(by_bit)


def write_pages(token: list[bool], slot: str) -> None:
    for i, bit in enumerate(token):
        fd = os.open(f"/bot/pages/{i}", os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        if bit:
            os.pread(fd, 1, 0)
        os.close(fd)


def lookup(name: str) -> int:
    t = time.perf_counter_ns()
    with contextlib.suppress(FileNotFoundError):
        os.stat(f"/bot/names/{name}")
    return time.perf_counter_ns() - t


def read_names(slot: str) -> list[bool]:
    times = {i: lookup(f"{SALT}-{slot}-{i}") for i in random.sample(range(BITS), BITS)}
    return fast([times[i] for i in range(BITS)])


def write_names(token: list[bool], slot: str) -> None:
    for i, bit in enumerate(token):
        if bit:
            lookup(f"{SALT}-{slot}-{i}")


MEANS = {"mincore": (read_mincore, write_mincore), "pages": (read_pages, write_pages),
         "names": (read_names, write_names)}


def token_bits() -> list[bool]:
    return [b == "1" for b in format(int.from_bytes(os.urandom(BITS // 8), "big"), f"0{BITS}b")]


class Memory(RandomStrategy):
    done = False

    def start_game(self, info):
        super().start_game(info)
        match = int(next(p for p in info["players"] if p != "memory")[1:-1])  # m<match>a
        game = info["game_index"]
        self.slots = (f"{match}-{game - 1}" if game else f"{match - 1}-2", f"{match}-{game}")

    def decide(self, view, legal):
        if not self.done:
            self.done = True
            before, mine = self.slots
            for means, (read, _) in MEANS.items():
                print(f"READ {means} {bits(read(before))}", file=sys.stderr, flush=True)
            token = token_bits()
            for _, write in MEANS.values():
                try:
                    write(token, mine)
                except OSError as exc:
                    print(f"REFUSED {exc}", file=sys.stderr, flush=True)
            print(f"WROTE {bits(token)}", file=sys.stderr, flush=True)
        return super().decide(view, legal)


if __name__ == "__main__":
    run(Memory(), name="memory", version="1")
