"""Running one match from another program: the one way Arena does it.

``launch(spec, out_dir)`` writes the spec to ``out_dir/spec.json``, runs it in a referee
process of its own (``python -m referee``, see ``referee/__main__.py``) and reads the
result it wrote. ``arena match``, the league executor and bot validation all run their
matches this way; the match loop itself is ``referee/match.py``.

A referee process is told its caller's pid (``ARENA_PARENT_PID``) and ends when its caller
ends, even by kill -9: no match goes on playing for a caller that is gone.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from .spec import MatchSpec, parse_spec

STDERR_LINES = 10  # of a failed referee's output, in the error
NO_SPACE_STATUS = 3  # a referee's exit status when the disk holding its output directory is full


class RefereeFailed(RuntimeError):
    """The referee process ended without a result; the message says how, and where its files are."""


class NoSpaceLeft(RefereeFailed):
    """The disk holding a match's output directory (``folder``) is full: not the match's fault,
    and every match written there fails until space is freed."""

    def __init__(self, message: str, folder: Path) -> None:
        super().__init__(message)
        self.folder = folder


@dataclass(frozen=True)
class MatchResult:
    """A finished match: what the referee wrote in ``result.json`` and how long it took."""

    spec: MatchSpec
    out_dir: Path
    data: dict[str, Any]
    """``result.json``: the spec as run, each game, each bot's totals, timings."""
    started_at: datetime
    seconds: float
    """The referee process's wall time, start-up and teardown included."""

    @property
    def games(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], self.data["games"])

    @property
    def totals(self) -> list[dict[str, Any]]:
        return cast(list[dict[str, Any]], self.data["totals"])


def launch(spec: MatchSpec, out_dir: Path, cpu: str | None = None, echo: bool = False) -> MatchResult:
    """Plays ``spec`` in a referee process of its own, writing its records into ``out_dir``.

    ``cpu`` is the referee's ``--cpu`` (default: the referee's own, ``auto`` unless
    ``ARENA_CPU`` says otherwise). With ``echo`` the referee prints its progress lines and
    messages on this process's output; without, they are dropped, and the last lines of its
    error output go into :class:`RefereeFailed`. A spec that cannot be run raises
    :class:`~referee.spec.SpecError` before anything is written.
    """
    checked = parse_spec(spec.to_dict())  # what the referee will read, refused here if it would be there
    spec_path = out_dir / "spec.json"
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        spec_path.write_text(json.dumps(checked.to_dict(), indent=1))
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise no_space(checked, out_dir) from None
        raise RefereeFailed(f"cannot write the spec of {checked.match_id} into {out_dir}: {exc.strerror}") from None
    command = [sys.executable, "-m", "referee", str(spec_path), "--out", str(out_dir)]
    if cpu is not None:
        command += ["--cpu", cpu]
    started_at, t0 = datetime.now(UTC), time.perf_counter()
    proc = subprocess.run(command, env={**os.environ, "ARENA_PARENT_PID": str(os.getpid())},
                          stdin=subprocess.DEVNULL, stdout=None if echo else subprocess.DEVNULL,
                          stderr=None if echo else subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    result_path = out_dir / "result.json"
    if proc.returncode == NO_SPACE_STATUS:
        said = [line for line in (proc.stderr or "").splitlines() if NO_SPACE in line]
        raise no_space(checked, out_dir, said[-1].partition(NO_SPACE)[2].partition(":")[0] if said else "")
    if proc.returncode != 0 or not result_path.exists():
        tail = "\n".join((proc.stderr or "").strip().splitlines()[-STDERR_LINES:])
        raise RefereeFailed(f"the referee of {checked.match_id} failed (exit status {proc.returncode}); "
                            f"see {out_dir}" + (f"\n{tail}" if tail else ""))
    return MatchResult(checked, out_dir, read_result(checked, out_dir), started_at, seconds)


NO_SPACE = "no space left on the disk holding "  # as the referee says it


def no_space(spec: MatchSpec, out_dir: Path, where: str = "") -> NoSpaceLeft:
    """The failure of a match whose referee found the disk holding ``where`` (default: its
    records, ``out_dir``) full."""
    folder = Path(where) if where else out_dir.resolve()
    return NoSpaceLeft(f"{NO_SPACE}{folder}: the referee of {spec.match_id} could not write its records "
                       f"(see {out_dir})", folder)


def read_result(spec: MatchSpec, out_dir: Path) -> dict[str, Any]:
    """The ``result.json`` a referee wrote for ``spec``, checked for what its readers take from it
    (a game per game of the spec, each with its seats, scores, ranks, failures and record, and
    each bot's totals); :class:`RefereeFailed` when it cannot be read, naming the match and why."""
    path = out_dir / "result.json"
    try:
        data = json.loads(path.read_text())
        problem = result_problem(spec, data)
    except OSError as exc:
        problem = exc.strerror or str(exc)
    except UnicodeDecodeError:
        problem = "it is not UTF-8 text"
    except json.JSONDecodeError as exc:
        problem = f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        problem = "not JSON: nested too deep"
    if problem:
        raise RefereeFailed(f"the referee of {spec.match_id} wrote a result.json that cannot be read ({problem}); "
                            f"see {out_dir}")
    return cast(dict[str, Any], data)  # result_problem found none


GAME_KEYS = {"index": int, "seed": int, "deal": str, "bots": list, "scores": list, "ranks": list, "failures": list,
             "record": str}


def result_problem(spec: MatchSpec, data: Any) -> str:
    """What is wrong with a match's result, for its readers (the league runner stores each game
    from it); "" when nothing."""
    if not isinstance(data, dict):
        return "not a JSON object"
    games, totals = data.get("games"), data.get("totals")
    if not isinstance(games, list) or not isinstance(totals, list):
        return "no list of games or of totals"
    if len(games) != spec.games:
        return f"{len(games)} game(s), the match has {spec.games}"
    timings = data.get("timings", {})
    if not isinstance(timings, dict) or not all(isinstance(v, int | float) for v in timings.values()):
        return "its timings are not numbers"
    bots = len(spec.bots)
    if len(totals) != bots or not all(isinstance(t, dict) and isinstance(t.get("restarts"), int) for t in totals):
        return f"the totals are not those of {bots} bots"
    for number, game in enumerate(games):
        if not isinstance(game, dict) or any(not isinstance(game.get(key), kind) for key, kind in GAME_KEYS.items()):
            return f"game {number} lacks one of {', '.join(GAME_KEYS)}"
        seats = game["bots"]
        if not seats or any(not isinstance(b, int) or not 0 <= b < bots for b in seats) \
                or not len(game["scores"]) == len(game["ranks"]) == len(game["failures"]) == len(seats):
            return f"game {number}'s seats, scores, ranks and failures do not match"
    return ""
