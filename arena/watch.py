"""Following a match as it is played, game by game, in the public view (``arena watch``).

What is shown of a game is what a spectator may know: a header (the game, its deal label, who
sits where), its **public events** in words, and the scores at its end. The events are the
engine's own public rendering: the record's seed and actions are replayed through the engine,
and each event is taken as ``state.history(seat)`` gives it for a seat number that is in no
event's ``to`` (``games/arena_games/views.py``: the rendering every seat is sent when it is not
an insider), then put in words by ``referee/textlog.py``. No view of a seat, no action (an
action may be a secret choice), no failure detail (it may quote a bot's output); that a seat
failed is told with the scores, as the seats are told.

**Duplicate deals.** The k matches of a table's duplicate cycle deal the same cards in other
seat rotations: what a public event shows in one copy of a deal (a card played, the hands shown
at a game's end) is hidden in a hand in another copy, being played or still to be played (or
played again: a match whose referee failed, or whose run was stopped, starts again from its first
game with the same deals). So the games of a league match are held back, but for their headers
(the game, its deal's label, who sits where: told as each game begins), until the table's whole
cycle is stored (``arena/access.py``, asked as the public: the web server's rule too).
Watching the cycle's last match, its games follow, in order, once it is stored; watching another,
the watch ends when its match is stored, saying how much of the cycle is.

A records folder with no plan in its spec (``arena match``, the referee alone) plays its deals
only itself, one game at a time, so nothing is held. A folder whose spec plans its deals (a
league's or ``arena compare``'s cycle) is followed only through the store that runs it: other
matches of its cycle may be showing its hands, and only the store says which are running.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from arena_games import GameError, State, get_game
from referee.records import Record, RecordError, read_record
from referee.spec import MatchSpec, SpecError, load_spec
from referee.textlog import event_lines, printable, result_lines

from . import access
from .league import LeagueError, cycles, get_league, live
from .league.status import match_name
from .store import League, LiveMatch, Match, Store

POLL = 0.25  # seconds between looks at the records being written
GRACE = 3.0  # seconds a match may have neither its LiveMatch row nor a stored match before it counts as stopped


class WatchError(Exception):
    """A match that cannot be watched; the message says why."""


@dataclass(frozen=True)
class LeagueSlot:
    """A match of a league: (round, table) in league ``name``."""

    league_id: int
    name: str
    players: int
    round: int
    table: str

    @property
    def cycle(self) -> int:
        return self.round // self.players

    def __str__(self) -> str:
        return match_name(self.name, self.round, self.table)


@dataclass
class Target:
    """What is watched: a records folder, and the league match it is (None: a match of its own)."""

    folder: Path
    slot: LeagueSlot | None = None
    stored: int | None = None  # the stored match's id, when it is one


def resolve(text: str, store: Store | None) -> Target:
    """``text`` as ``arena watch`` takes it: a records folder, ``LEAGUE/ROUND/TABLE`` (the match
    being played there, or stored there), or a stored match's id."""
    folder = Path(text)
    if (folder / "spec.json").is_file():
        return _folder_target(folder, store)
    if folder.is_dir():
        raise WatchError(f"{text} is a folder without a spec.json: not the records of a match")
    if store is None:
        raise WatchError(f"{printable(text)}: no such records folder, and no store to find a league's match in")
    with store() as session:
        if text.isdigit():
            match = session.get(Match, int(text))
            if match is None:
                raise WatchError(f"no stored match {text}")
            return Target(Path(match.record_dir), _slot(session.get(League, match.league_id), match.round,
                                                        match.table), match.id)
        parts = text.rsplit("/", 2)
        if len(parts) != 3 or not parts[1].isdigit() or not re.fullmatch(r"\d+(,\d+)*", parts[2]):
            raise WatchError(f"{printable(text)} is neither a records folder, nor LEAGUE/ROUND/TABLE (as "
                             "`arena league status` names the matches being played), nor a stored match's id")
        try:
            league = get_league(session, parts[0])
        except LeagueError as exc:
            raise WatchError(str(exc)) from None
        slot = _slot(league, int(parts[1]), parts[2])
        row = _live_row(session, slot)
        if row is not None:
            return Target(Path(row.record_dir), slot)
        match = _stored(session, slot)
        if match is None:
            raise WatchError(f"no match of league {printable(league.name)} is being played at round {slot.round}, "
                             f"table {slot.table}, nor stored there")
        return Target(Path(match.record_dir), slot, match.id)


def _folder_target(folder: Path, store: Store | None) -> Target:
    try:
        spec = load_spec(folder / "spec.json")
    except SpecError as exc:
        raise WatchError(str(exc)) from None
    if store is not None:
        with store() as session:
            for row in live.running(session.scalars(select(LiveMatch))):
                if _same(row.record_dir, folder):
                    return Target(folder, _slot(session.get(League, row.league_id), row.round, row.table))
            # a league's records folder is named after its attempt (runner.match_job)
            for match in session.scalars(select(Match).where(Match.attempt == folder.resolve().name)):
                if _same(match.record_dir, folder):
                    return Target(folder, _slot(session.get(League, match.league_id), match.round, match.table),
                                  match.id)
    if spec.plan:
        raise WatchError(f"{folder} is a match of a duplicate cycle (its spec plans its deals, which other matches "
                         "play in other rotations, perhaps right now), and the store knows no league match with "
                         "these records: watch it through the store of its league (--db), as LEAGUE/ROUND/TABLE. "
                         "The matches of `arena compare` cannot be watched")
    return Target(folder)


def _same(a: str, b: Path) -> bool:
    return a == str(b) or Path(a).resolve() == b.resolve()


def _slot(league: League | None, round_: int, table: str) -> LeagueSlot:
    assert league is not None
    return LeagueSlot(league.id, league.name, league.players, round_, table)


def _live_row(session: Any, slot: LeagueSlot) -> LiveMatch | None:
    row = session.scalar(select(LiveMatch).where(LiveMatch.league_id == slot.league_id,
                                                 LiveMatch.round == slot.round, LiveMatch.table == slot.table))
    return row if row is not None and live.alive(row) else None


def _stored(session: Any, slot: LeagueSlot) -> Match | None:
    return session.scalar(select(Match).where(Match.league_id == slot.league_id, Match.round == slot.round,
                                              Match.table == slot.table))


def held(store: Store, slot: LeagueSlot) -> cycles.Cycle | None:
    """The match's duplicate cycle, if it is not all stored: its games are held back until the
    public may see them (:func:`arena.access.may_see_table`: once it is)."""
    with store() as session:
        cycle = cycles.cycle_of(session, slot.league_id, slot.round, slot.table)
    return None if access.may_see_table(None, access.Game(public=cycle.complete)) else cycle


@dataclass
class _Game:
    """A game being followed: its record as far as it is replayed, and what was printed."""

    index: int
    record: Record
    state: State
    names: list[str]  # escaped
    applied: int = 0  # decisions replayed
    shown: int = 0  # public events printed


@dataclass
class Watcher:
    """Follows ``target``: each :meth:`poll` returns the lines to print now, and sets
    :attr:`finished` (with :attr:`failed` if the match stopped before its end)."""

    target: Target
    store: Store | None = None
    finished: bool = False
    failed: bool = False
    games: int = 0  # in the match
    next_game: int = 0  # the first game not printed to its end
    game: _Game | None = None
    spec: MatchSpec | None = field(default=None, repr=False)
    grace: float = GRACE
    gone_since: float | None = None  # when the match's row was first seen gone, the match not stored
    announced: int = 0  # games whose header was printed while the match's cycle held them back
    held_said: bool = False  # the notice that they are held back was printed

    def start(self) -> list[str]:
        """The first lines: what is watched."""
        self._load_spec()
        slot = self.target.slot
        what = (f"league {printable(slot.name)}, round {slot.round} (cycle {slot.cycle}), table {slot.table}"
                if slot else f"the match in {self.target.folder}")
        state = f"stored as match {self.target.stored}" if self.target.stored is not None else "being played"
        if slot is None:
            state = "over" if (self.target.folder / "result.json").exists() else "being played"
        return [f"watching {what}: {self.games} game(s), {state}; the public view (no seat's hidden cards)"]

    def _load_spec(self) -> None:
        if not self.target.folder.is_dir():
            raise WatchError(f"the match's records ({self.target.folder}) are not on this machine: a worker on "
                             "another host plays it, or they were moved")
        try:
            self.spec = load_spec(self.target.folder / "spec.json")
        except SpecError as exc:
            raise WatchError(str(exc)) from None
        self.games = self.spec.games

    def poll(self) -> list[str]:
        lines: list[str] = []
        slot, store = self.target.slot, self.store
        row: LiveMatch | None = None
        stored: int | None = self.target.stored
        if slot is not None and store is not None and stored is None:
            with store() as session:
                row = _live_row(session, slot)
                if row is None:
                    match = _stored(session, slot)
                    stored = None if match is None else match.id
            if row is not None and not _same(row.record_dir, self.target.folder):
                # its referee failed and the match is played again, from its first game, in a new folder
                self.target.folder, self.next_game, self.game, self.announced = Path(row.record_dir), 0, None, 0
                self._load_spec()
                lines.append(f"the match started again (its referee failed): following it from its first game, "
                             f"records in {row.record_dir}")
        cycle = held(store, slot) if slot is not None and store is not None else None
        if cycle is not None:
            lines += self._announce(cycle)
        while cycle is None and self.next_game < self.games:
            more, done = self._follow(self.next_game)
            lines += more
            if not done:  # waiting for more of this game
                break
            self.next_game += 1
        gone = slot is not None and store is not None and row is None and stored is None
        if not gone:
            self.gone_since = None
        elif self.gone_since is None:
            self.gone_since = time.monotonic()
        if cycle is not None and stored is not None:
            self.finished = True
            lines.append(f"the match is over: stored as match {stored}; its games stay hidden until its duplicate "
                         f"cycle is stored ({cycle.describe()}): `arena watch {stored}` shows them then")
            return lines
        if cycle is not None or self.next_game < self.games:
            # a ladder plays a match whose referee failed again at once, under a new row: wait for it a little
            if gone and time.monotonic() - (self.gone_since or 0.0) >= self.grace:
                self.finished = self.failed = True
                lines.append("the match stopped before its end (its run was stopped, or its referee failed) and "
                             "is not stored: it is played again from its first game (a ladder's run does so at "
                             "once, a round robin's next run)")
            return lines
        if slot is None or store is None:
            self.finished = True
            lines.append("the match is over")
        elif stored is not None:
            self.finished = True
            lines.append(f"the match is over: stored as match {stored} (arena show match {stored})")
        elif row is None and time.monotonic() - (self.gone_since or 0.0) >= self.grace:
            self.finished = self.failed = True
            lines.append("the match was played to its end but is not stored: its run stopped first; the league's "
                         "next run plays it again")
        return lines  # else played to its end, being stored: the next poll says as what

    def _follow(self, index: int) -> tuple[list[str], bool]:
        """What is new in game ``index``, and whether it is now printed to its end."""
        lines: list[str] = []
        path = self.target.folder / f"game-{index:03d}.jsonl"
        try:
            record = read_record(path, growing=True)
        except RecordError:
            return lines, False  # not begun, or not even its header yet
        game = self.game
        if game is None:
            game = self.game = self._begin(index, record)
            lines.append(self._header(index, record, game.names))
        game.record = record
        lines += self._advance(game)
        if record.result is not None:
            if not game.state.is_terminal() or record.result.get("scores") != game.state.scores():
                raise WatchError(f"{path}: the record's result and its replay through the engine disagree")
            failures = [printable(str(f), 32) for f in record.result.get("failures", [])]
            lines += result_lines(get_game(record.header["game"]), record.result["scores"], record.result["ranks"],
                                  game.names, failures)
            self.game = None
            return lines, True
        return lines, False

    def _header(self, index: int, record: Record, names: list[str]) -> str:
        seats = ", ".join(f"seat {s} {n}" for s, n in enumerate(names))
        return f"== game {index} of {self.games}, deal {printable(str(record.header.get('deal', '?')))}: {seats}"

    def _announce(self, cycle: cycles.Cycle) -> list[str]:
        """While the match's cycle holds its games back: the notice, once, and each game's header
        as it begins (when a game begins is not its content)."""
        lines = []
        if not self.held_said:
            self.held_said = True
            lines.append(f"   (held: its duplicate cycle is not all stored, {cycle.describe()}; the cycle's other "
                         "matches deal these games' cards in other seats, so what the games show waits until the "
                         "whole cycle is stored)")
        while self.announced < self.games:
            try:
                record = read_record(self.target.folder / f"game-{self.announced:03d}.jsonl", growing=True)
            except RecordError:
                break  # not begun, or not even its header yet
            lines.append(self._header(self.announced, record, self._begin(self.announced, record).names))
            self.announced += 1
        return lines

    def _begin(self, index: int, record: Record) -> _Game:
        h = record.header
        try:
            spec = get_game(h["game"])
            n = int(h["num_players"])
            state = spec.new_game(n, int(h["seed"]), h["settings"])
            names = [printable(str(s.get("bot", f"seat {i}")), 40) for i, s in enumerate(h["seats"])]
        except (KeyError, TypeError, ValueError, AttributeError, GameError) as exc:
            raise WatchError(f"game {index}: a record the engine cannot start ({exc})") from None
        return _Game(index, record, state, (names + [f"seat {i}" for i in range(len(names), n)])[:n])

    def _advance(self, game: _Game) -> list[str]:
        """Replays the decisions written since the last poll; the public events they made, in words."""
        state = game.state
        for k in range(game.applied, len(game.record.decisions)):
            d = game.record.decisions[k]
            if d.get("seat") != state.current_player():
                raise WatchError(f"game {game.index}, decision {k}: the record and the engine disagree on whose "
                                 "decision it is")
            try:
                state.apply(d["action"])
            except (GameError, KeyError) as exc:
                raise WatchError(f"game {game.index}, decision {k}: {exc}") from None
        game.applied = len(game.record.decisions)
        # a seat number no event is addressed to: every event as a seat that is not an insider sees it
        public = state.history(state.num_players)
        new, game.shown = public[game.shown:], len(public)
        return list(event_lines(state.game, new, game.names))
