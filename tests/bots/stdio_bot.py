"""A bot that speaks the stdio protocol (JSON lines), and misbehaves on purpose, for the adapter's tests.

    python3 stdio_bot.py KIND [AFTER] [TAPE]

It reads every line as JSON and plays random legal actions, seeded by each game's seed as the
kit's RandomStrategy is, for AFTER decisions (default 3), then once, at the next decision:
  well      plays on
  garbage   writes a line that is no action
  empty     writes an empty line
  huge      writes 10 MB on one line
  silent    writes nothing, and waits for stdin to close
  exit      writes its dying words on stderr, and exits with status 3
  kill      kills itself with SIGKILL
  hangup    closes its stdout, and sleeps on
then plays well again. With TAPE (a file path) it appends every line it reads there.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time

from arenabot.strategies import RandomStrategy

KIND = sys.argv[1]
AFTER = int(sys.argv[2]) if len(sys.argv) > 2 else 3
TAPE = open(sys.argv[3], "a") if len(sys.argv) > 3 else None  # noqa: SIM115 - for the whole run


def misbehave(kind: str) -> None:
    if kind == "garbage":
        print("hello referee", flush=True)
    elif kind == "empty":
        print(flush=True)
    elif kind == "huge":
        sys.stdout.write("x" * 10_000_000 + "\n")
        sys.stdout.flush()
    elif kind == "silent":
        sys.stdin.read()
    elif kind == "exit":
        print("working hard\nthese are my dying words", file=sys.stderr, flush=True)
        os._exit(3)
    elif kind == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "hangup":
        os.close(1)
        time.sleep(3600)


def main() -> None:
    strategy = RandomStrategy()
    decisions = 0
    for line in sys.stdin:
        if TAPE is not None:
            TAPE.write(line)
            TAPE.flush()
        message = json.loads(line)
        if message["type"] == "game_start":
            strategy.start_game(message)
        elif message["type"] == "decision":
            decisions += 1
            if decisions == AFTER + 1 and KIND != "well":
                misbehave(KIND)
                continue
            print(strategy.decide(message["view"], message["legal_actions"]), flush=True)


if __name__ == "__main__":
    main()
