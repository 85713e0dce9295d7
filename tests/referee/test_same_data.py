"""A strategy is told the same things inside the referee as over the wire, field by field."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from arena_games import GAMES
from referee.match import default_seat, run_match
from referee.seats import BuiltinSeat, ProcessSeat
from referee.spec import BotSpec, MatchSpec, parse_spec

from .helpers import MISBEHAVE, PY, ROOT

TAPE_BOT = ROOT / "tests" / "bots" / "tape.py"
_spec = importlib.util.spec_from_file_location("tape", TAPE_BOT)
assert _spec is not None and _spec.loader is not None  # a .py file's path: a source loader
tape = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tape)


def differences(inproc: Any, wire: Any, path: str) -> list[str]:
    """Where two pieces of plain data differ, in value or in type, each as one line."""
    if type(inproc) is not type(wire):
        return [f"{path}: {type(inproc).__name__} {inproc!r} in process, {type(wire).__name__} {wire!r} on the wire"]
    if isinstance(inproc, dict):
        out = [f"{path}.{k}: only {where}" for keys, others, where in ((inproc, wire, "in process"),
                                                                     (wire, inproc, "on the wire"))
               for k in keys if k not in others]
        for k in inproc.keys() & wire.keys():
            out += differences(inproc[k], wire[k], f"{path}.{k}")
        return out
    if isinstance(inproc, list | tuple):
        if len(inproc) != len(wire):
            return [f"{path}: {len(inproc)} items in process, {len(wire)} on the wire"]
        return [line for i, (a, b) in enumerate(zip(inproc, wire, strict=True))
                for line in differences(a, b, f"{path}[{i}]")]
    return [] if inproc == wire else [f"{path}: {inproc!r} in process, {wire!r} on the wire"]


class PatientSeat(ProcessSeat):
    """A local process that is given the time to read its last messages before it is killed:
    the referee kills a bot as soon as it has sent the match end, which a bot may not have read
    by then, nor the game end before it."""

    async def close(self) -> None:
        await self.exit_status(10.0)  # the kit returns, and its process exits, at the match end
        await super().close()


def play(game: str, out: Path, in_process: bool) -> list[tuple]:
    """Three games (three deals, each in another rotation, so that no process is renewed) of the
    tape bot against a built-in heuristic and a bot that answers illegally after two decisions;
    what the tape's strategy was told."""
    tape_file = out / "tape.pickle"
    spec = parse_spec({
        "match_id": "same-data", "game": game, "games": 3, "seed": 13, "duplicate": False,
        "bots": [{"name": "tape", "command": [PY, str(TAPE_BOT), str(tape_file)]},
                 {"name": "heuristic", "builtin": "heuristic"},
                 {"name": "illegal", "command": [*MISBEHAVE, "illegal", "2"]}],
        "time": {"startup_ms": 20000, "decision_ms": 10000, "bank_ms": 60000},
    })

    def seat(match: MatchSpec, bot: BotSpec, socket_dir: Path, log: Path):
        if bot.name != "tape":
            return default_seat(match, bot, socket_dir, log)
        if in_process:
            return BuiltinSeat(bot.name, bot.version, lambda: tape.Tape(str(tape_file)))
        return PatientSeat(bot.name, bot.version, bot.command, socket_dir, log)

    run_match(spec, out, seat_factory=seat)
    return tape.read_tape(str(tape_file))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_strategy_is_told_the_same_in_process_and_over_the_wire(game, tmp_path):
    inproc = play(game, tmp_path / "in-process", in_process=True)
    wire = play(game, tmp_path / "wire", in_process=False)

    calls = [entry[0] for entry in inproc]
    assert calls.count("start_game") == calls.count("end_game") == 3, calls
    assert calls.count("decide") > 10
    starts = [entry[1] for entry in inproc if entry[0] == "start_game"]
    ends = [entry[1] for entry in inproc if entry[0] == "end_game"]
    # what the Strategy docstring promises, all of it, and not empty where it cannot be
    assert all(set(s) == {"game", "game_index", "seat", "num_players", "players", "seed", "settings"}
               for s in starts)
    assert all(set(e) == {"scores", "ranks", "failures", "events"} for e in ends)
    assert [s["game_index"] for s in starts] == [0, 1, 2] and {s["seat"] for s in starts} == {0, 1, 2}
    assert all(s["game"] == game and s["players"] and s["settings"] and s["num_players"] == 3 for s in starts)
    assert all("illegal" in e["failures"] and len(e["scores"]) == len(e["ranks"]) == 3 for e in ends)
    assert any(e["events"] for e in ends)

    assert [e[0] for e in wire] == calls, "the calls differ: the two runs did not play the same games"
    found = [line for i, (a, b) in enumerate(zip(inproc, wire, strict=True))
             for line in differences(a[1:], b[1:], f"call {i} ({a[0]})")]
    assert not found, f"{len(found)} difference(s):\n" + "\n".join(found[:20])
