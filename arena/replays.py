"""Replays: a game rebuilt from its record, step by step, as one seat saw it or as the full table.

A record's seed and actions replay the game through its engine (``referee/records.py``). Step
*k* is decision *k*: who decided, the action, the think time, whether the referee's fallback
played it; and the table just before it, as the chosen seat saw it: the engine's
``state.view(seat)``, the very call with which the referee's match loop builds that seat's
decision request (``referee/match.py``), so at the seat's own decisions the view is what it was
sent, byte for byte once encoded (``tests/web/test_hidden.py`` checks this against what a bot
received). Between its decisions it is the seat's view at that point: what it may know, with
the events since its last decision. The last step is the table after the game (whose events
are those the seat was sent with the game's end), or, for a game still being played, the
decision pending.

The full table (every seat's view at every step, and every event) exists only for a finished
game; :func:`rebuild` also hides, when asked to (a game that is not public yet), what the
other seats did. A bot's debug text for a decision (``referee/debug.py``) is in a step only for
the seats the caller names, public game or not: its owner's. Who may see which is
``arena/access.py``'s to say.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from threading import Lock
from typing import Any

from arena_games import GameError, get_game
from referee.records import Record, RecordError, read_record
from referee.textlog import event_lines


@dataclass(frozen=True)
class Replay:
    """A rebuilt game. ``steps`` are plain dicts (the API sends them as they are):

    - ``step``: its number; ``seat``: who decides (-1 after the game);
    - ``action``; ``said``: the action in the game's words, as the replay's seat may know it
      (``describe_action(action, secret)``, the secret for its own steps or the full table's);
      ``ms`` (think time), ``fallback`` (the referee played it for a failed seat),
      ``failure`` (the reason, when the seat failed at this decision): None, when hidden;
    - ``debug`` (only in a replay that shows some seat's debug texts): the deciding bot's debug
      text for this decision when its seat is one of those (else None, as when it sent none);
    - ``end`` (the game is over) and ``pending`` (the decision being asked now);
    - ``sent``: this step's view is the one the seat was asked this decision with, and
      ``legal`` the legal actions it was sent (else None); never, for the full table;
    - for one seat: ``view`` (its view) and ``events`` (its view's events, in words);
    - for the full table: ``views`` (each seat's) and ``events`` (every event since the step
      before, in words, secrets included).
    """

    game: str
    title: str
    names: list[str]  # the bot in each seat, as the caller named them
    seat: int | None  # whose table; None: the full table
    debug: tuple[int, ...]  # the seats whose debug text the steps show
    over: bool  # the record has its result
    decisions: int
    steps: list[dict[str, Any]]
    result: dict[str, Any] | None  # scores, ranks, failures (the reason, by seat)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "game": self.game, "title": self.title, "names": self.names,
            "seat": "all" if self.seat is None else self.seat, "over": self.over,
            "decisions": self.decisions, "steps": self.steps, "result": self.result}
        if self.debug:  # else the replay is what it was before debug texts (a bundle's views, byte for byte)
            out["debug_seats"] = list(self.debug)
        return out

    def json(self) -> bytes:
        """:meth:`to_dict` as JSON (2 MB for the full table of a long 4-player game)."""
        return json.dumps(self.to_dict(), separators=(",", ":")).encode()

    @cached_property
    def gzipped(self) -> bytes:
        """:meth:`json`, gzipped, made once per replay (which is cached with it): views repeat
        from step to step, so it is a fiftieth of the size or less."""
        return gzip.compress(self.json(), compresslevel=6)


def rebuild(record: Record, seat: int | None, names: list[str] | None = None, public: bool = True,
            debug: Iterable[int] = ()) -> Replay:
    """Replays ``record`` for ``seat`` (None: the full table, which needs a finished game).

    ``names`` label the seats in the events' words (default: the record's bot names). Without
    ``public`` (a game not over, or of a duplicate cycle not all stored), the other seats'
    actions, think times and failures are hidden. Failure details are not part of a replay:
    they may quote a bot's output (its last lines, when it crashed), which is its owner's.
    ``debug``: the seats whose bots' debug texts the steps show (``access.may_read_debug``'s);
    none by default. Raises :class:`RecordError` for a record the engine does not replay.
    """
    h = record.header
    try:
        spec = get_game(h["game"])
        n = int(h["num_players"])
        state = spec.new_game(n, int(h["seed"]), h["settings"])
    except (KeyError, TypeError, ValueError, GameError) as exc:
        raise RecordError(f"a record the engine cannot start: {exc}") from None
    if seat is None and not (public and record.result is not None):
        raise ValueError("the full table is shown only once the game is over")
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat must be 0 to {n - 1}")
    names = names or [str(s.get("bot", f"seat {i}")) for i, s in enumerate(h.get("seats", []))]
    names = (names + [f"seat {i}" for i in range(len(names), n)])[:n]
    shown = tuple(sorted({int(s) for s in debug if 0 <= int(s) < n}))

    def words(events: list[dict[str, Any]]) -> list[str]:
        return list(event_lines(spec, events, names))

    # each seat's first failure: (the number of decisions before it, whether it was asked one)
    failed: dict[int, tuple[int, bool, str]] = {}
    for f in record.failures:
        failed.setdefault(f["seat"], (f["decision"], f.get("at") == "decision", f["reason"]))

    def asked(s: int, k: int) -> bool:
        f = failed.get(s)
        return f is None or f[0] > k or (f[0] == k and f[1])

    steps: list[dict[str, Any]] = []
    seen = 0  # events of the full log already in words

    def table(step: dict[str, Any], decider: int, legal: list[str]) -> dict[str, Any]:
        nonlocal seen
        if seat is None:
            step["sent"], step["legal"] = False, None
            step["views"] = [state.view(s) for s in range(n)]
            log = state.history()
            step["events"], seen = words(log[seen:]), len(log)
        else:
            view = state.view(seat)
            step["sent"] = decider == seat and asked(seat, step["step"]) and not step["end"]
            step["legal"] = list(legal) if step["sent"] else None
            step["view"] = view
            step["events"] = words(view["events"])
        return step

    for k, d in enumerate(record.decisions):
        s = state.current_player()
        if d.get("seat") != s:
            raise RecordError(f"decision {k} is seat {d.get('seat')}'s, but the engine asks seat {s}")
        legal = state.legal_actions()
        mine = public or s == seat
        first = failed.get(s)
        step = {
            "step": k, "seat": s,
            "action": d["action"] if mine else None,
            # in the game's words, as the replay's seat may know it: another seat's secret stays
            # unsaid even where the action is shown (a public game), so no step mixes perspectives
            "said": spec.describe_action(d["action"], seat is None or s == seat) if mine else None,
            "ms": d.get("ms", 0.0) if mine else None,
            "fallback": bool(d.get("fallback")) if mine else None,
            "failure": (first[2] if first and first[0] == k and first[1] else "") if mine else None,
            "end": False, "pending": False,
        }
        if shown:  # beside an action the asker sees, and only its own seats' (not hidden ones of its own)
            step["debug"] = d.get("debug") if s in shown and mine else None
        steps.append(table(step, s, legal))
        try:
            state.apply(d["action"])
        except GameError as exc:
            raise RecordError(f"decision {k}: {exc}") from None
    k = len(record.decisions)
    over = state.is_terminal()
    if (record.result is not None) != over:
        raise RecordError("the record's result and the replayed game disagree on whether it is over")
    s = -1 if over else state.current_player()
    last = {"step": k, "seat": s, "action": None, "said": None, "ms": None, "fallback": None, "failure": None,
            "end": over, "pending": not over}
    if shown:
        last["debug"] = None
    steps.append(table(last, s, [] if over else state.legal_actions()))
    result = None
    if record.result is not None:
        if record.result.get("scores") != state.scores():
            raise RecordError(f"replaying the record gives scores {state.scores()}, it says {record.result['scores']}")
        result = {"scores": record.result["scores"], "ranks": record.result["ranks"],
                  "failures": record.result["failures"]}
    return Replay(spec.name, spec.title, names, seat, shown, over, k, steps, result)


# -- from files, cached ---------------------------------------------------------------------------
_CACHE: OrderedDict[tuple, Replay] = OrderedDict()
_CACHE_SIZE = 48  # a replay holds a view per step (per seat, for the full table): 0.4 to 4 MB
_lock = Lock()


def load(path: str | Path, seat: int | None, names: list[str] | None = None, public: bool = True,
         debug: Iterable[int] = ()) -> Replay:
    """The replay of the record at ``path`` (:func:`rebuild`). A finished game's is cached,
    by the file's identity, size and time; a game being played is read as far as it is written."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    debug = tuple(sorted(set(debug)))
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, seat, tuple(names or ()), public, debug)
    with _lock:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    record = read_record(path, growing=True)
    replay = rebuild(record, seat, names, public, debug)
    if replay.over:
        with _lock:
            _CACHE[key] = replay
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    return replay


@dataclass(frozen=True)
class GameSoFar:
    """A game of a match, from its record alone (no replay): for lists of running games."""

    index: int
    path: Path
    over: bool
    decisions: int
    scores: list[int] | None


def games_so_far(record_dir: str | Path) -> list[GameSoFar]:
    """The games whose records are in ``record_dir`` (a match being played), in order; a
    record without its result line is a game not over."""
    out = []
    for path in sorted(Path(record_dir).glob("game-*.jsonl")):
        try:
            record = read_record(path, growing=True)
            index = int(record.header["game_index"])
        except (RecordError, KeyError, TypeError, ValueError):
            continue  # not even its header yet
        result = record.result
        out.append(GameSoFar(index, path, result is not None, len(record.decisions),
                             result["scores"] if result else None))
    return out
