"""``python -m referee SPEC [--out DIR]`` (or ``arena-referee``): run one match.

Programs start it through :func:`referee.launch` (``referee/launch.py``).

Writes ``result.json``, one ``game-NNN.jsonl`` record per game and each bot's capped
output into the output directory, and prints one line per game.
The referee and its bots run on one CPU core unless ``--cpu`` says otherwise (see
``referee/cpu.py``).
Exit status: 0 when the match ran (whatever the bots did), 2 for a bad spec, 3 when the disk
holding the output directory is full (bots stopped, sockets removed, what was written kept),
130 when stopped by SIGTERM or SIGINT (bots stopped, sockets removed, finished games kept).
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import signal
import sys
from pathlib import Path

from . import cpu
from .launch import NO_SPACE_STATUS
from .match import MatchCancelled, run_match, tune_gc
from .spec import SpecError, load_spec


def die_with_parent() -> None:
    """When started by a league runner (ARENA_PARENT_PID), end when it ends, even by kill -9:
    the kernel sends SIGTERM, and the match stops cleanly (bots and sockets removed)."""
    parent = os.environ.get("ARENA_PARENT_PID", "")
    if not parent.isdigit() or not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != int(parent):  # the parent died before prctl took effect
        sys.exit("arena-referee: the league runner that started this match is gone")


PR_SET_PDEATHSIG = 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-referee", description="Run one Arena match.")
    parser.add_argument("spec", help="match spec file (.json or .toml)")
    parser.add_argument("--out", help="output directory (default: runs/<match_id>)")
    parser.add_argument("--cpu", help="CPUs for the referee and its bots: auto (the one it starts on; the "
                                      "default, or ARENA_CPU), none (anywhere), or a list such as 1 or 0,2")
    args = parser.parse_args(argv)
    die_with_parent()
    try:
        cpu.place(args.cpu)  # before any gRPC thread starts, so that all of them inherit it
    except cpu.CpuOptionError as exc:
        print(f"arena-referee: {exc}", file=sys.stderr)
        return 2
    try:
        spec = load_spec(args.spec)
    except SpecError as exc:
        print(f"arena-referee: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path("runs") / spec.match_id
    tune_gc()
    try:
        run_match(spec, out, progress=lambda line: print(line, flush=True))
    except MatchCancelled as exc:
        print(f"arena-referee: {exc}; records of finished games are in {out}", file=sys.stderr)
        return 130
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        where = Path(exc.filename).parent if exc.filename else out  # a file it could not make, or the records
        print(f"arena-referee: no space left on the disk holding {where.resolve()}: the match stopped "
              f"({exc.strerror}); what was written is in {out}", file=sys.stderr)
        return NO_SPACE_STATUS
    print(f"result: {out / 'result.json'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
