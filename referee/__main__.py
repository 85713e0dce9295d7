"""``python -m referee SPEC [--out DIR]`` (or ``arena-referee``): run one match.

Writes ``result.json``, one ``game-NNN.jsonl`` record per game and each bot's capped
output into the output directory, and prints one line per game.
Exit status: 0 when the match ran (whatever the bots did), 2 for a bad spec, 130 when
stopped by SIGTERM or SIGINT (bots stopped, sockets removed, finished games kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .match import MatchCancelled, run_match, tune_gc
from .spec import SpecError, load_spec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-referee", description="Run one Arena match.")
    parser.add_argument("spec", help="match spec file (.json or .toml)")
    parser.add_argument("--out", help="output directory (default: runs/<match_id>)")
    args = parser.parse_args(argv)
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
    print(f"result: {out / 'result.json'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
