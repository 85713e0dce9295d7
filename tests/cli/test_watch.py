"""`arena watch MATCH`: a match followed game by game in the public view.

What matters: every line it prints of a game is the engine's public rendering of that game
(its events as a seat that is no insider sees them) and never an insider's, and nothing of a
game is printed while a copy of its deal (the same cards, another rotation: another match of
its table's duplicate cycle) is being played. Checked step by step on records written here
line by line, and on a real league whose two matches of one cycle are played side by side.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
from pathlib import Path

import pexpect
from click.testing import CliRunner
from sqlalchemy import delete, select

from arena.cli import main as arena
from arena.league import live
from arena.league.runner import match_spec, run_league
from arena.league.schedule import ScheduleOptions, Slot
from arena.league.status import league_status
from arena.store import League, LiveMatch, Match
from arena.watch import Watcher, resolve
from arena_games import State, get_game
from referee.records import RecordWriter, read_record
from referee.textlog import event_lines, printable, result_lines

from .helpers import ProcessBots, league_of

ROOT = Path(__file__).resolve().parents[2]
EVIL = "\x1b[2Jevil\r\nforged"


# -- what watch must print, from a finished record -----------------------------------------------
def renderings(path: Path) -> tuple[list[str], set[str]]:
    """A finished game's public lines (events, then the scores) and every line an insider's
    rendering of an event gives that the public one does not."""
    record = read_record(path)
    h = record.header
    spec = get_game(h["game"])
    names = [printable(str(s["bot"]), 40) for s in h["seats"]]
    state = record.replay()
    n = state.num_players
    public = list(event_lines(spec, state.history(n), names))
    secret = {line for seat in range(n) for line in event_lines(spec, state.history(seat), names)} - set(public)
    result = record.result
    assert result is not None
    failures = [printable(f, 32) for f in result["failures"]]
    return public + list(result_lines(spec, result["scores"], result["ranks"], names, failures)), secret


def by_game(lines: list[str]) -> dict[int, list[str]]:
    """The printed lines of each game (its header and the held-back notice left out)."""
    games: dict[int, list[str]] = {}
    current = None
    for line in lines:
        if line.startswith("== game "):
            current = int(line.split()[2])
            games[current] = []
        elif current is not None and not line.startswith("   (its deal is being played") \
                and not line.startswith("the match "):
            games[current].append(line)
    return games


def check_public(lines: list[str], folder: Path, games: int) -> None:
    printed = by_game(lines)
    assert sorted(printed) == list(range(games))
    for g in range(games):
        public, secret = renderings(folder / f"game-{g:03d}.jsonl")
        assert printed[g] == public, f"game {g}"
        assert not secret & set(lines), f"game {g} printed an insider's rendering: {secret & set(lines)}"


# -- records written here, line by line ----------------------------------------------------------
class GameWriter:
    """Game ``index`` of ``spec`` played with random actions, its record written a few lines at
    a time, as a referee writes it."""

    def __init__(self, spec, folder: Path, index: int) -> None:
        self.game = get_game(spec.game)
        self.state: State = self.game.new_game(spec.num_players, spec.game_seed(index), spec.settings)
        self.rng = random.Random(index)
        self.record = RecordWriter(folder / f"game-{index:03d}.jsonl", live=True)
        self.record.header(match_id=spec.match_id, game_index=index, game=spec.game,
                           engine_version=self.game.version, num_players=spec.num_players,
                           seed=spec.game_seed(index), deal=spec.deal(index), settings=spec.settings,
                           rotation=spec.rotation(index),
                           seats=[{"seat": s, "bot": spec.bots[spec.bot_at(index, s)].name, "version": "1"}
                                  for s in range(spec.num_players)])

    def step(self, decisions: int) -> None:
        for _ in range(decisions):
            if self.state.is_terminal():
                return
            seat, action = self.state.current_player(), self.rng.choice(self.state.legal_actions())
            self.state.apply(action)
            self.record.decision(seat, action, 1.0)

    def finish(self) -> None:
        self.step(10_000)
        self.record.result(self.state.scores(), self.state.ranks(), [""] * self.state.num_players)
        self.record.close()


def running_match(store, league: str, round_: int, runs: Path):
    """The spec and records folder of the match at ``round_`` (the league's one table), with its
    LiveMatch row (this process: alive)."""
    with store() as session:
        lg = session.scalar(select(League).where(League.name == league))
        bots = {e.bot.id: e.bot for e in lg.entries}
        slot = Slot(round_, tuple(sorted(bots)))
        spec = match_spec(league, lg.game, lg.settings, lg.secret, slot, bots, ScheduleOptions.from_dict(lg.schedule))
        folder = runs / f"r{round_}"
        folder.mkdir(parents=True)
        (folder / "spec.json").write_text(json.dumps(spec.to_dict()))
        session.add(LiveMatch(league_id=lg.id, round=round_, table=slot.key, bots=list(slot.table),
                              record_dir=str(folder), host=live.HOST, pid=os.getpid()))
        session.commit()
    return spec, folder, slot


def test_a_game_waits_while_its_deal_is_played_elsewhere(store, tmp_path):
    """Rounds 0 and 1 of a cycle play the same deals; round 3 (the next cycle) others. Watching
    round 0: game 0 shows only its header until round 1's game 0 ends, game 1 waits for round 1
    to play it (or to stop), and the output is each game's public rendering, whole."""
    league_of(store, "l", ["a", EVIL, "c"])
    spec0, r0, slot = running_match(store, "l", 0, tmp_path)
    spec1, r1, _ = running_match(store, "l", 1, tmp_path)
    spec3, r3, _ = running_match(store, "l", 3, tmp_path)
    assert spec0.game_seed(0) == spec1.game_seed(0) != spec3.game_seed(0)  # the same cards in a cycle
    other = GameWriter(spec3, r3, 0)  # another cycle's match, being played: no copy of these deals
    other.step(3)
    target = resolve(f"l/0/{slot.key}", store)
    assert target.folder == r0 and target.stored is None
    watcher = Watcher(target, store, grace=0)
    out = watcher.start()
    assert out == [f"watching league l, round 0 (cycle 0), table {slot.key}: 3 game(s), being played; the public "
                   "view (no seat's hidden cards)"]
    mine, copy = GameWriter(spec0, r0, 0), GameWriter(spec1, r1, 0)
    mine.step(8)
    copy.step(2)
    lines = watcher.poll()
    assert len(lines) == 2 and lines[0].startswith("== game 0 of 3, deal c0d0: seat 0 ")
    assert "\\x1b[2Jevil\\r\\nforged@1" in lines[0]
    assert lines[1] == f"   (its deal is being played right now in l/1/{slot.key}, in another rotation: what " \
                       "this game shows waits until that game ends)"
    out += lines
    mine.finish()
    assert watcher.poll() == []  # over here, not there
    copy.step(20)
    assert watcher.poll() == []
    copy.finish()
    lines = watcher.poll()  # game 0 whole; game 1 not begun here
    out += lines
    assert lines[-1].startswith("  ") and not watcher.finished

    mine = GameWriter(spec0, r0, 1)
    mine.step(5)
    lines = watcher.poll()  # round 1 has not begun its game 1: it will play it
    assert [line[:14] for line in lines] == ["== game 1 of 3", "   (its deal i"]
    out += lines
    mine.step(5)
    assert watcher.poll() == []
    with store() as session, session.begin():  # round 1 stops (its runner was killed, say)
        session.execute(delete(LiveMatch).where(LiveMatch.round == 1))
    lines = watcher.poll()
    assert lines and not any(line.startswith("==") for line in lines)  # game 1's events so far
    out += lines
    mine.finish()
    mine = GameWriter(spec0, r0, 2)
    mine.step(3)
    out += watcher.poll()
    mine.finish()
    out += watcher.poll()
    assert not watcher.finished  # played, not stored yet
    with store() as session, session.begin():  # stored, as the runner stores it
        session.add(Match(league_id=target.slot.league_id, round=0, table=slot.key, bots=list(slot.table),
                          record_dir=str(r0), restarts=[0, 0, 0], started_at=live_started(session), attempt=r0.name))
        session.execute(delete(LiveMatch).where(LiveMatch.round == 0))
    lines = watcher.poll()
    assert watcher.finished and not watcher.failed
    assert lines == ["the match is over: stored as match 1 (arena show match 1)"]
    out += lines
    check_public(out, r0, 3)
    for line in out:
        assert line.isprintable(), repr(line)

    # the stored match, by id or by its folder: replayed at once (round 3, another cycle, holds nothing)
    for ref in ("1", str(r0)):
        again = Watcher(resolve(ref, store), store)
        whole = again.start() + again.poll()
        assert again.finished and "stored as match 1" in whole[0]
        check_public(whole, r0, 3)


def live_started(session):
    return session.scalar(select(LiveMatch.started_at).where(LiveMatch.round == 0))


def test_a_match_that_stops_before_its_end(store, tmp_path):
    league_of(store, "l", ["a", "b", "c"])
    spec, folder, slot = running_match(store, "l", 0, tmp_path)
    GameWriter(spec, folder, 0).step(4)
    watcher = Watcher(resolve(str(folder), store), store, grace=0)  # its folder: the store knows it
    assert watcher.target.slot is not None and watcher.target.slot.round == 0
    watcher.start()
    assert watcher.poll()[0].startswith("== game 0")
    with store() as session, session.begin():
        session.execute(delete(LiveMatch))
    lines = watcher.poll()
    assert watcher.finished and watcher.failed and "stopped before its end" in lines[-1]


def test_records_folders(store, db_url, tmp_path):
    """A folder of `arena match` (deals of its own) is watched with no store; a league's folder
    is not, unless the store that runs it is given: its cycle's other matches may be showing
    its hands."""
    out = tmp_path / "m"
    played = CliRunner().invoke(arena, ["match", "--game", "boss", "--games", "2", "--out", str(out), "--json",
                                        "--bot", f"{EVIL}=builtin:random", "--bot", "b=builtin:random"])
    assert played.exit_code == 0, played.output
    result = CliRunner().invoke(arena, ["watch", str(out), "--db", f"sqlite:///{tmp_path}/none.db"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"watching the match in {out}: 2 game(s), over; the public view (no seat's hidden cards)"
    assert lines[-1] == "the match is over"
    check_public(lines, out, 2)
    assert all(line.isprintable() for line in lines) and "\\x1b[2Jevil" in result.output

    league_of(store, "l", ["a", "b", "c"])
    spec, folder, _ = running_match(store, "l", 0, tmp_path / "runs")
    with store() as session, session.begin():
        session.execute(delete(LiveMatch))
    refused = CliRunner().invoke(arena, ["watch", str(folder), "--db", db_url])
    assert refused.exit_code == 1 and "duplicate cycle" in refused.output
    for wrong, says in (("l/0/9,9,9", "nor stored there"), ("nope/0/1,2,3", "unknown league"),
                        ("77", "no stored match"), ("l/x", "neither a records folder")):
        result = CliRunner().invoke(arena, ["watch", wrong, "--db", db_url])
        assert result.exit_code == 1 and says in result.output, (wrong, result.output)


def test_ctrl_c_stops_watching(store, db_url, tmp_path):
    """A game held back (its copy is being played) until Ctrl-C: a clean stop, no traceback."""
    league_of(store, "l", ["a", "b", "c"])
    spec0, r0, slot = running_match(store, "l", 0, tmp_path)
    spec1, r1, _ = running_match(store, "l", 1, tmp_path)
    GameWriter(spec0, r0, 0).step(5)
    GameWriter(spec1, r1, 0).step(5)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli", "watch", f"l/0/{slot.key}", "--db", db_url],
                          cwd=str(ROOT), encoding="utf-8", timeout=30)
    child.expect("its deal is being played right now")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "stopped watching" in child.before and "Traceback" not in child.before


def test_watching_a_real_league_match(store, db_url, tmp_path):
    """Two matches of one cycle played side by side by referee processes (a bot out of process,
    so records are written as played), round 0 watched from its first game while round 1 is
    held back at its start: status lists both, the watch prints each game's public rendering,
    and no line of a game (but its header) before that game's copy in round 1 has ended."""
    ids = league_of(store, "l", ["a", EVIL, "c"], deals=2)  # 6 games a match
    table = ",".join(map(str, sorted(ids)))
    gate = tmp_path / "go"
    errors: list[BaseException] = []

    def run() -> None:
        try:
            run_league(store, "l", rounds=2, jobs=2, runs_dir=tmp_path / "runs",
                       executor=ProcessBots(think=0.002, gates={1: gate}))
        except BaseException as exc:  # noqa: BLE001 - the test's thread reports it
            errors.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    deadline = time.monotonic() + 30
    while len(rows := live_rows(store)) < 2:
        assert time.monotonic() < deadline and not errors, errors
        time.sleep(0.02)
    names = [r["match"] for r in league_status(store, "l")["running"]]
    assert names == [f"l/0/{table}", f"l/1/{table}"]
    copy = Path(rows[1])
    watcher = Watcher(resolve(names[0], store), store)
    out, during, current = watcher.start(), 0, None
    while not watcher.finished:
        assert time.monotonic() < deadline + 60, out
        lines = watcher.poll()
        copy_running = rows[1] in live_rows(store)
        for line in lines:
            if line.startswith("== game "):
                current = int(line.split()[2])
            elif line.startswith("   (its deal is being played right now in "):
                gate.touch()  # round 1 may play now: round 0's game waits for it
            elif current is not None and not line.startswith("the match") and copy_running:
                copy_record = read_record(copy / f"game-{current:03d}.jsonl", growing=True)
                assert copy_record.result is not None, f"game {current} shown while its copy is played: {line}"
        during += bool(lines) and not (watcher.target.folder / "result.json").exists()
        out += lines
        time.sleep(0.1)
    runner.join(30)
    assert not errors, errors
    assert out[2] == f"   (its deal is being played right now in l/1/{table}, in another rotation: what this game " \
                     "shows waits until that game ends)"
    assert during, "the watch printed nothing while the match was played"
    assert not watcher.failed and out[-1].startswith("the match is over: stored as match ")
    check_public(out, watcher.target.folder, 6)


def live_rows(store) -> list[str]:
    """The record folders of the matches being played, by round."""
    with store() as session:
        return [row.record_dir for row in live.running(session.scalars(select(LiveMatch).order_by(LiveMatch.round)))]
