"""The match spec: what the referee is asked to run, read from a JSON or TOML file.

Example (JSON)::

    {
      "match_id": "demo-1",
      "game": "prohis",
      "settings": {"max_bribe_offers": 2},
      "games": 8,
      "seed": 7,
      "bots": [
        {"name": "heur", "command": "python sample_bots/python/prohis_heuristic/bot.py"},
        {"name": "rand", "command": ["python", "sample_bots/python/random/bot.py"]},
        {"name": "inproc", "builtin": "random"}
      ],
      "time": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 10000},
      "max_restarts": 2
    }

Each bot is reached one way: ``command`` (a local process, told its socket in
``ARENA_SOCKET``), ``builtin`` (an in-process strategy: random or heuristic), or
``image`` (a Docker container; see the sandbox).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shlex
import tomllib
from pathlib import Path
from typing import Any

from .games import GameError, get_game


class SpecError(ValueError):
    """A match spec that cannot be run; the message names the field and the problem."""


@dataclasses.dataclass(frozen=True)
class TimeControl:
    startup_ms: int = 10_000
    decision_ms: int = 1_000
    bank_ms: int = 10_000


@dataclasses.dataclass(frozen=True)
class BotSpec:
    name: str
    version: str = ""
    command: tuple[str, ...] = ()
    builtin: str = ""
    image: str = ""

    @property
    def kind(self) -> str:
        return "process" if self.command else "builtin" if self.builtin else "docker"


@dataclasses.dataclass(frozen=True)
class MatchSpec:
    game: str
    bots: tuple[BotSpec, ...]
    games: int = 1
    seed: int = 0
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    match_id: str = "match"
    time: TimeControl = TimeControl()
    max_restarts: int = 2
    duplicate: bool = True
    """Deal the same seed to each of the n rotations in turn, so that luck cancels."""

    @property
    def num_players(self) -> int:
        return len(self.bots)

    def rotation(self, game_index: int) -> int:
        return game_index % self.num_players

    def bot_at(self, game_index: int, seat: int) -> int:
        """Which bot (index into ``bots``) sits at ``seat`` in game ``game_index``."""
        return (seat + self.rotation(game_index)) % self.num_players

    def game_seed(self, game_index: int) -> int:
        block = game_index // self.num_players if self.duplicate else game_index
        return derive_seed(self.seed, "game", block)

    def bot_seed(self, game_index: int, seat: int) -> int:
        return derive_seed(self.seed, "bot", game_index, seat)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def derive_seed(*parts: Any) -> int:
    """A 31-bit seed from any parts, stable across runs and platforms."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFF_FFFF


def load_spec(path: str | Path) -> MatchSpec:
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise SpecError(f"cannot read match spec {path}: {exc.strerror}") from None
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        kind = "TOML" if path.suffix == ".toml" else "JSON"
        raise SpecError(f"match spec {path} is not valid {kind}: {exc}") from None
    return parse_spec(data)


def parse_spec(data: Any) -> MatchSpec:
    """Validates a spec mapping; every problem is reported with the field it is in."""
    if not isinstance(data, dict):
        raise SpecError("a match spec must be a mapping")
    known = {f.name for f in dataclasses.fields(MatchSpec)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SpecError(f"unknown field(s) in match spec: {', '.join(unknown)}")
    for required in ("game", "bots"):
        if required not in data:
            raise SpecError(f"match spec needs {required!r}")
    try:
        game = get_game(data["game"])
    except GameError as exc:
        raise SpecError(str(exc)) from None
    bots = data["bots"]
    if not isinstance(bots, list) or not bots:
        raise SpecError("'bots' must be a non-empty list")
    parsed_bots = tuple(_parse_bot(i, b) for i, b in enumerate(bots))
    names = [b.name for b in parsed_bots]
    if len(set(names)) != len(names):
        raise SpecError(f"bot names must be unique within a match, got {names}")
    try:
        game.check_players(len(parsed_bots))
        settings = game.settings.from_mapping(data.get("settings") or {}).to_dict()
        game.new_game(len(parsed_bots), 0, settings)  # some settings must also fit the player count
    except GameError as exc:
        raise SpecError(str(exc)) from None
    time = data.get("time") or {}
    if not isinstance(time, dict) or set(time) - {"startup_ms", "decision_ms", "bank_ms"}:
        raise SpecError("'time' takes startup_ms, decision_ms and bank_ms")
    for key, value in time.items():
        if not isinstance(value, int) or value < (0 if key == "bank_ms" else 1):
            raise SpecError(f"time.{key} must be a positive number of milliseconds, got {value!r}")
    out = MatchSpec(
        game=game.name,
        bots=parsed_bots,
        games=_int(data, "games", 1, minimum=1),
        seed=_int(data, "seed", 0, minimum=0),
        settings=settings,
        match_id=str(data.get("match_id", "match")),
        time=TimeControl(**time),
        max_restarts=_int(data, "max_restarts", 2, minimum=0),
        duplicate=bool(data.get("duplicate", True)),
    )
    if not out.match_id or "/" in out.match_id:
        raise SpecError(f"match_id must be a plain name, got {out.match_id!r}")
    return out


def _int(data: dict, key: str, default: int, minimum: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise SpecError(f"'{key}' must be an integer >= {minimum}, got {value!r}")
    return value


def _parse_bot(index: int, raw: Any) -> BotSpec:
    where = f"bots[{index}]"
    if not isinstance(raw, dict):
        raise SpecError(f"{where} must be a mapping with a name and one of command, builtin, image")
    unknown = sorted(set(raw) - {"name", "version", "command", "builtin", "image"})
    if unknown:
        raise SpecError(f"{where}: unknown field(s) {', '.join(unknown)}")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise SpecError(f"{where} needs a name")
    ways = [k for k in ("command", "builtin", "image") if raw.get(k)]
    if len(ways) != 1:
        raise SpecError(f"{where} ({name}) needs exactly one of command, builtin, image")
    command = raw.get("command") or ()
    if command == ():
        pass
    elif isinstance(command, str):
        command = tuple(shlex.split(command))
    elif isinstance(command, list) and all(isinstance(c, str) for c in command):
        command = tuple(command)
    else:
        raise SpecError(f"{where} ({name}): command must be a string or a list of strings")
    builtin = raw.get("builtin") or ""
    if builtin and builtin not in ("random", "heuristic"):
        raise SpecError(f"{where} ({name}): builtin must be random or heuristic, got {builtin!r}")
    return BotSpec(name=name, version=str(raw.get("version", "")), command=command,
                   builtin=builtin, image=str(raw.get("image") or ""))
