"""A bot that attacks its sandbox, for the container tests.

    python3 adversary.py ATTACK

It plays three random legal actions, then attacks. Attacks the sandbox must refuse print
``REFUSED: ...`` to stderr and the bot plays on; an attack that works prints
``BREACH: ...`` (the tests fail on any). The others end the bot or hang it:

  forkbomb    fork without end (the pids limit refuses; the decision times out)
  membomb     allocate without end (killed: out of memory)
  busyloop    spin on the CPU (times out)
  sleep       sleep forever (times out)
  filltmp     fill /tmp (refused: no space)
  writeroot   write to the root filesystem (refused: read-only)
  writesocket write, delete or replace in the socket folder (refused: read-only)
  egress      reach the network (refused: no network)
  hostsnoop   read the host's environment and files (refused: not there)
  daemon      leave a daemon behind, then exit (the container's removal ends it)
  flood       write 64 MiB to stdout and stderr (kept, capped), then play on
  logflood    write 8 MiB to stdout and 8 MiB to stderr before every reply, from the first
  credit      sleep 5 ms of every turn, and compute 4 ms right after each reply (on the next seat's
              time, hoping the idle part of its own turn pays for it)
  exit        exit mid-game
  spin        start four processes that spin on the CPU for the rest of the match, and play on
              (the fairness guard freezes the bot whenever it is not asked)
"""

from __future__ import annotations

import errno
import os
import random
import socket
import sys
import threading
import time

from arenabot import run

ATTACK = sys.argv[1]
DAEMON_MARK = "424242"  # the daemon runs `sleep 424242`: the tests look for it on the host
rng = random.Random(0)
moves = 0


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def refused(what: str, exc: OSError) -> None:
    say(f"REFUSED: {what}: {errno.errorcode.get(exc.errno or 0, exc.errno)} {exc.strerror}")


def attack() -> None:
    if ATTACK == "forkbomb":
        children = 0
        told = False
        while True:
            try:
                if os.fork() == 0:
                    children = 0  # the children fork too
                else:
                    children += 1
            except OSError as exc:
                if not told:
                    refused(f"fork after {children} children", exc)
                    told = True
                time.sleep(0.001)
    if ATTACK == "membomb":
        hog = []
        while True:
            hog.append(bytearray(16 * 2**20))
    if ATTACK == "busyloop":
        while True:
            pass
    if ATTACK == "sleep":
        time.sleep(3600)
    if ATTACK == "filltmp":
        written = 0
        try:
            for i in range(1000):
                with open(f"/tmp/fill{i}", "wb") as f:
                    for _ in range(8):
                        f.write(b"\0" * 2**20)
                        written += 2**20
            say(f"BREACH: wrote {written} bytes to /tmp")
        except OSError as exc:
            refused(f"/tmp full after {written // 2**20} MiB", exc)
    if ATTACK == "writeroot":
        for path in ("/bot/evil", "/etc/evil", "/usr/bin/evil", "/evil"):
            try:
                with open(path, "w") as f:
                    f.write("x")
                say(f"BREACH: wrote {path}")
            except OSError as exc:
                refused(f"write {path}", exc)
    if ATTACK == "writesocket":
        sock = os.environ["ARENA_SOCKET"].removeprefix("unix://")
        folder = os.path.dirname(sock)
        for what, act in (("create a file", lambda: open(f"{folder}/evil", "w").close()),
                          ("delete the socket", lambda: os.unlink(sock)),
                          ("replace the socket", lambda: os.rename(sock, f"{folder}/moved")),
                          ("symlink in the folder", lambda: os.symlink("/etc/passwd", f"{folder}/link"))):
            try:
                act()
                say(f"BREACH: could {what}")
            except OSError as exc:
                refused(what, exc)
    if ATTACK == "egress":
        for host, port in (("1.1.1.1", 53), ("172.17.0.1", 2375), ("8.8.8.8", 443)):
            try:
                socket.create_connection((host, port), timeout=2).close()
                say(f"BREACH: connected to {host}:{port}")
            except OSError as exc:
                refused(f"connect {host}:{port}", exc)
        try:
            socket.getaddrinfo("deb.debian.org", 80)
            say("BREACH: resolved a name")
        except OSError as exc:
            refused("resolve deb.debian.org", exc)
    if ATTACK == "hostsnoop":
        say(f"ENV: {','.join(sorted(os.environ))}")
        for path in ("/work/main/README.md", "/root/.bash_history", "/var/run/docker.sock",
                     "/run/docker.sock", "/etc/shadow"):
            try:
                with open(path, "rb") as f:
                    f.read(1)
                say(f"BREACH: read {path}")
            except OSError as exc:
                refused(f"read {path}", exc)
    if ATTACK == "daemon":
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", DAEMON_MARK])
            os._exit(0)
        time.sleep(0.5)
        os._exit(4)
    if ATTACK == "flood":
        chunk = "x" * 2**20 + "\n"
        for _ in range(32):
            sys.stdout.write(chunk)
            sys.stderr.write(chunk)
        sys.stdout.flush()
        say("FLOODED")
    if ATTACK == "exit":
        os._exit(5)
    if ATTACK == "spin":
        for _ in range(4):
            if os.fork() == 0:
                while True:
                    pass
        say("SPINNING")


def compute(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def decide(view, legal):
    global moves
    moves += 1
    if ATTACK == "credit":
        time.sleep(0.005)
        threading.Timer(0.0003, compute, (0.004,)).start()  # once the reply is on its way
    if ATTACK == "logflood":
        chunk = b"y" * 2**20
        for _ in range(8):
            sys.stdout.buffer.write(chunk)
            sys.stderr.buffer.write(chunk)
        sys.stdout.flush()
    if moves == 4:
        attack()
    return rng.choice(legal)


if __name__ == "__main__":
    run(decide, name=f"adversary-{ATTACK}", version="1")
