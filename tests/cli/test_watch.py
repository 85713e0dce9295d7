"""`arena watch MATCH`: a match followed game by game in the public view.

What matters: every line it prints of a game is the engine's public rendering of that game
(its events as a seat that is no insider sees them) and never an insider's, and nothing of a
league's game but its header is printed until its table's whole duplicate cycle (the matches
that deal the same cards in other rotations) is stored, whether or not one of them is being
played. Checked step by step on records written here line by line, and on a real league whose
cycle of two matches is stopped after the first, then completed.
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
        elif current is not None and not line.startswith("   (held: ") and not line.startswith("the match "):
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


def store_match(store, slot, round_: int, folder: Path) -> int:
    """The match at ``round_`` of ``slot``'s league and table stored, as the runner stores it
    (its games are in its records)."""
    with store() as session, session.begin():
        match = Match(league_id=slot.league_id, round=round_, table=slot.table, bots=[int(b) for b in
                      slot.table.split(",")], record_dir=str(folder), restarts=[0, 0, 0],
                      started_at=session.scalar(select(LiveMatch.started_at).where(LiveMatch.round == round_)),
                      attempt=folder.name)
        session.add(match)
        session.execute(delete(LiveMatch).where(LiveMatch.round == round_))
        session.flush()
        return match.id


def test_games_wait_until_their_whole_cycle_is_stored(store, tmp_path):
    """Rounds 0, 1 and 2 of a cycle deal the same cards. Watching round 0 while it is played:
    each game's header only, as it begins; once it is stored, with rounds 1 and 2 not, the watch
    ends and says so, and so does watching it by id. Watching round 2 with 0 and 1 stored: held
    too, while it is played (it could be played again); once stored, every game's public
    rendering, whole. Then round 0, by id or folder, is replayed at once."""
    league_of(store, "l", ["a", EVIL, "c"])
    spec0, r0, slot = running_match(store, "l", 0, tmp_path)
    target = resolve(f"l/0/{slot.key}", store)
    assert target.folder == r0 and target.stored is None
    watcher = Watcher(target, store, grace=0)
    assert watcher.start() == [f"watching league l, round 0 (cycle 0), table {slot.key}: 3 game(s), being played; "
                               "the public view (no seat's hidden cards)"]
    held = ("   (held: its duplicate cycle is not all stored, cycle 0 of table 1,2,3 (rounds 0 to 2): 0 of its 3 "
            "matches stored; the cycle's other matches deal these games' cards in other seats, so what the games "
            "show waits until the whole cycle is stored)")
    assert watcher.poll() == [held]
    mine = GameWriter(spec0, r0, 0)
    mine.step(8)
    lines = watcher.poll()
    assert len(lines) == 1 and lines[0].startswith("== game 0 of 3, deal c0d0: seat 0 ")
    assert "\\x1b[2Jevil\\r\\nforged@1" in lines[0]
    mine.finish()
    assert watcher.poll() == []  # over, not shown
    for index in (1, 2):
        mine = GameWriter(spec0, r0, index)
        mine.step(5)
        assert [line[:14] for line in watcher.poll()] == [f"== game {index} of 3"]
        mine.finish()
        assert watcher.poll() == []
    assert not watcher.finished
    stored = store_match(store, target.slot, 0, r0)
    lines = watcher.poll()
    assert watcher.finished and not watcher.failed
    assert lines == [f"the match is over: stored as match {stored}; its games stay hidden until its duplicate cycle "
                     "is stored (cycle 0 of table 1,2,3 (rounds 0 to 2): 1 of its 3 matches stored): `arena watch "
                     f"{stored}` shows them then"]
    by_id = CliRunner().invoke(arena, ["watch", str(stored), "--db", str(store.engine.url)])
    assert by_id.exit_code == 0, by_id.output
    said = by_id.output.splitlines()
    assert [line[:9] for line in said[2:5]] == ["== game 0", "== game 1", "== game 2"] and len(said) == 6
    assert said[1].startswith("   (held: ") and "1 of its 3 matches stored" in said[-1]

    # round 1 stored; round 2, the cycle's last, played: held until stored, then whole
    spec1, r1, _ = running_match(store, "l", 1, tmp_path)
    for index in range(3):
        GameWriter(spec1, r1, index).finish()
    store_match(store, target.slot, 1, r1)
    spec2, r2, _ = running_match(store, "l", 2, tmp_path)
    watcher = Watcher(resolve(f"l/2/{slot.key}", store), store, grace=0)
    out = watcher.start()
    for index in range(3):
        mine = GameWriter(spec2, r2, index)
        mine.step(6)
        out += watcher.poll()
        mine.finish()
        out += watcher.poll()
    assert [line[:9] for line in out[1:]] == ["   (held:", "== game 0", "== game 1", "== game 2"]
    last = store_match(store, target.slot, 2, r2)
    lines = watcher.poll()
    assert watcher.finished and not watcher.failed
    assert lines[-1] == f"the match is over: stored as match {last} (arena show match {last})"
    check_public(lines, r2, 3)
    for line in out + lines:
        assert line.isprintable(), repr(line)

    # round 0, stored, by id or by its folder: the cycle is all stored, replayed at once
    for ref in (str(stored), str(r0)):
        again = Watcher(resolve(ref, store), store)
        whole = again.start() + again.poll()
        assert again.finished and f"stored as match {stored}" in whole[0]
        check_public(whole, r0, 3)


def test_a_match_that_stops_before_its_end(store, tmp_path):
    league_of(store, "l", ["a", "b", "c"])
    spec, folder, slot = running_match(store, "l", 0, tmp_path)
    GameWriter(spec, folder, 0).step(4)
    watcher = Watcher(resolve(str(folder), store), store, grace=0)  # its folder: the store knows it
    assert watcher.target.slot is not None and watcher.target.slot.round == 0
    watcher.start()
    assert [line[:9] for line in watcher.poll()] == ["   (held:", "== game 0"]
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
    """A game held back (its cycle is not all stored) until Ctrl-C: a clean stop, no traceback."""
    league_of(store, "l", ["a", "b", "c"])
    spec0, r0, slot = running_match(store, "l", 0, tmp_path)
    GameWriter(spec0, r0, 0).step(5)
    child = pexpect.spawn(sys.executable, ["-m", "arena.cli", "watch", f"l/0/{slot.key}", "--db", db_url],
                          cwd=str(ROOT), encoding="utf-8", timeout=30)
    child.expect("held: its duplicate cycle is not all stored")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "stopped watching" in child.before and "Traceback" not in child.before


def test_watching_a_real_league_whose_cycle_is_stopped_half_way(store, db_url, tmp_path):
    """The Boss for two: a cycle is two matches of four games, the same four deals in both seat
    rotations, played by referee processes (a bot out of process, so records are written as
    played). The league run to one round, round 0 watched from its first game: each game's
    header and nothing else, then that its games stay hidden; by id too. Run to two rounds,
    round 1 watched: held while it is played, then every game's public rendering; and round 0,
    by id, too."""
    ids = league_of(store, "l", ["a", EVIL], deals=2, game="boss", players=2)
    table = ",".join(map(str, sorted(ids)))
    runs = tmp_path / "runs"

    def watch_while_run(rounds: int, round_: int) -> tuple[Watcher, list[str]]:
        gate = tmp_path / f"go-{round_}"
        errors: list[BaseException] = []

        def run() -> None:
            try:
                run_league(store, "l", rounds=rounds, jobs=1, runs_dir=runs,
                           executor=ProcessBots(think=0.002, gates={round_: gate}))
            except BaseException as exc:  # noqa: BLE001 - the test's thread reports it
                errors.append(exc)

        runner = threading.Thread(target=run, daemon=True)
        runner.start()
        deadline = time.monotonic() + 30
        while not live_rows(store):
            assert time.monotonic() < deadline and not errors, errors
            time.sleep(0.02)
        assert [r["match"] for r in league_status(store, "l")["running"]] == [f"l/{round_}/{table}"]
        watcher = Watcher(resolve(f"l/{round_}/{table}", store), store)
        out = watcher.start()
        gate.touch()  # the match may play now: its first game is watched from its start
        while not watcher.finished:
            assert time.monotonic() < deadline + 60, out
            out += watcher.poll()
            time.sleep(0.05)
        runner.join(30)
        assert not errors, errors
        assert not watcher.failed, out
        return watcher, out

    watcher, out = watch_while_run(1, 0)
    first = watcher.target.folder
    assert out[1].startswith("   (held: its duplicate cycle is not all stored, cycle 0 of table ")
    assert [line[:9] for line in out[2:-1]] == [f"== game {g}" for g in range(4)]
    assert out[-1].startswith("the match is over: stored as match 1; its games stay hidden until its duplicate cycle "
                              "is stored") and "1 of its 2 matches stored" in out[-1]
    by_id = CliRunner().invoke(arena, ["watch", "1", "--db", db_url])
    assert by_id.exit_code == 0 and by_id.output.splitlines()[2:-1] == out[2:-1], by_id.output
    # `arena show` is the operator's: everything, and that the cycle is not public yet
    shown = CliRunner().invoke(arena, ["show", "match", "1", "--db", db_url]).output
    assert "not public yet: its cycle 0 of table" in shown and "1 of its 2 matches stored" in shown
    assert json.loads(CliRunner().invoke(arena, ["show", "game", "1", "--json", "--db", db_url]).output)[
        "cycle_complete"] is False

    watcher, out = watch_while_run(2, 1)
    assert out[1].startswith("   (held: ") and "1 of its 2 matches stored" in out[1]
    assert out[-1] == "the match is over: stored as match 2 (arena show match 2)"
    check_public(out, watcher.target.folder, 4)
    with store() as session:
        deals = [sorted(g.deal for g in m.games) for m in session.scalars(select(Match).order_by(Match.round))]
    assert deals == [["c0d0", "c0d1", "c0d2", "c0d3"]] * 2  # the same deals, in the other rotation
    by_id = CliRunner().invoke(arena, ["watch", "1", "--db", db_url])
    assert by_id.exit_code == 0, by_id.output
    check_public(by_id.output.splitlines(), first, 4)
    assert "not public yet" not in CliRunner().invoke(arena, ["show", "match", "1", "--db", db_url]).output
    assert json.loads(CliRunner().invoke(arena, ["show", "match", "1", "--json", "--db", db_url]).output)[
        "cycle_complete"] is True


def live_rows(store) -> list[str]:
    """The record folders of the matches being played, by round."""
    with store() as session:
        return [row.record_dir for row in live.running(session.scalars(select(LiveMatch).order_by(LiveMatch.round)))]
