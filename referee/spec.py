"""The match spec: what the referee is asked to run, read from a JSON or TOML file.

A program builds a :class:`MatchSpec` (or reads one with :func:`parse_spec`) and runs it with
:func:`referee.launch`, which writes it as JSON (:meth:`MatchSpec.to_dict`, which reads back
into an equal spec) for the referee process to read.

Example (JSON)::

    {
      "match_id": "demo-1",
      "game": "prohis",
      "settings": {"max_bribe_offers": 2},
      "games": 8,
      "secret": "9f1c…64 hex digits…",
      "bots": [
        {"name": "heur", "command": "python sample_bots/python/prohis_heuristic/bot.py"},
        {"name": "rand", "command": ["python", "sample_bots/python/random/bot.py"]},
        {"name": "inproc", "builtin": "random"}
      ],
      "time": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 10000, "increment_ms": 0,
               "match_bank_ms": 0},
      "max_restarts": 2,
      "shutdown_ms": 0
    }

Each bot is reached one way: ``command`` (a local process, told its socket in
``ARENA_SOCKET``), ``builtin`` (an in-process strategy: random, heuristic or search), or
``image`` (a Docker container; see the sandbox).

Seeds. Every deal comes from ``secret`` (at least 128 bits, as hex; drawn from
``os.urandom`` when the spec gives none) through a keyed hash, so no bot can search for
it: what bots receive (their own seeds, the match id, names, settings) says nothing about
the deal. Bot seeds come from a second secret, ``bot_secret`` (by default derived from
``secret``), so two matches can hand their bots identical values and still deal
differently. ``seed: N`` is for development only: it stands for a secret anyone can
compute from N, which makes the deals reproducible *and guessable*.

Which deal each game plays, and in which seat rotation, is ``plan``: a list of
``[deal, rotation]`` pairs, one per game (a league passes one). Without it, ``games``
games are planned here: with ``duplicate`` (the default) every deal is replayed in each
rotation, rotation by rotation; otherwise every game is a new deal. Either way the
referee gives a bot a fresh process before it could see a deal a second time (see
``referee/match.py``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import math
import re
import secrets
import shlex
import tomllib
from pathlib import Path
from typing import Any

from arena_games import GameError, get_game
from arenabot.strategies import KINDS

from . import limits


class SpecError(ValueError):
    """A match spec that cannot be run; the message names the field and the problem."""


@dataclasses.dataclass(frozen=True)
class TimeControl:
    """A match's clock (referee/match.py enforces it; docs/protocol.md, "Time"). A decision may
    take ``decision_ms`` plus what is left of the seat's game bank plus what is left of the bot's
    match bank; time past ``decision_ms`` comes out of the game bank first, then the match bank."""

    startup_ms: int = limits.STARTUP_MS
    decision_ms: int = limits.DECISION_MS
    bank_ms: int = limits.BANK_MS
    """Per seat and game."""
    increment_ms: int = limits.INCREMENT_MS
    """Fischer increment: added to the seat's game bank after each decision answered in time
    (uncapped, as in chess: a quick bot's bank grows)."""
    match_bank_ms: int = limits.MATCH_BANK_MS
    """Per bot (not seat: seats rotate), for the whole match; 0: none."""


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


SECRET_BITS = 256  # fresh secrets; anything of at least MIN_SECRET_BITS is accepted
MIN_SECRET_BITS = 128
GAME_SEED_BITS = 128  # what an engine's shuffle gets from a deal (random.Random uses every bit)
BOT_SEED_BITS = 64  # GameStart.seed is a uint64
_HEX = re.compile(r"^[0-9a-f]+$")


def new_secret() -> str:
    """A fresh secret from the operating system's randomness, as hex."""
    return secrets.token_hex(SECRET_BITS // 8)


def dev_secret(seed: int) -> str:
    """The secret that ``seed: N`` stands for: reproducible, and public (anyone can compute
    it from N), so for development and tests only."""
    return hashlib.sha256(f"arena-dev-seed:{seed}".encode()).hexdigest()


def derive(secret: str, *parts: Any, bits: int = 64) -> int:
    """An integer of ``bits`` bits from HMAC-SHA256 keyed with ``secret`` (hex) over
    ``parts``: without the secret it cannot be computed or searched for."""
    message = "\x1f".join(map(str, parts)).encode()
    digest = hmac.new(bytes.fromhex(secret), message, hashlib.sha256).digest()
    return int.from_bytes(digest[: bits // 8], "big")


def derive_secret(secret: str, *parts: Any) -> str:
    """A secret of its own for a part of something (a league's match, a table's deals)."""
    return hmac.new(bytes.fromhex(secret), "\x1f".join(map(str, parts)).encode(), hashlib.sha256).hexdigest()


def check_secret(value: Any, where: str = "secret") -> str:
    if not isinstance(value, str) or not _HEX.match(value.lower()) or len(value) % 2:
        raise SpecError(f"{where} must be a hex string (an even number of 0-9a-f digits)")
    if len(value) * 4 < MIN_SECRET_BITS:
        raise SpecError(f"{where} must have at least {MIN_SECRET_BITS} bits ({MIN_SECRET_BITS // 4} hex digits), "
                        f"got {len(value) * 4}")
    return value.lower()


@dataclasses.dataclass(frozen=True)
class MatchSpec:
    game: str
    bots: tuple[BotSpec, ...]
    games: int = 1
    secret: str = dataclasses.field(default_factory=new_secret)
    """Every deal of the match is derived from it; never sent to a bot."""
    bot_secret: str = ""
    """The bots' seeds are derived from it; empty: derived from ``secret``."""
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    match_id: str = "match"
    time: TimeControl = TimeControl()
    max_restarts: int = limits.MAX_RESTARTS
    duplicate: bool = True
    """Without a plan: replay each deal in every rotation, so that luck cancels."""
    plan: tuple[tuple[str, int], ...] = ()
    """(deal, rotation) for each game; empty: planned from ``games`` and ``duplicate``."""
    seed: int | None = None
    """Set when ``secret`` stands for a development seed (see :func:`dev_secret`)."""
    shutdown_ms: int = 0
    """After MatchEnd, how long each live bot has to exit by itself before it is stopped, and
    result.json says how it ended (its ``shutdown``); 0: stopped at once, nothing said."""

    @property
    def num_players(self) -> int:
        return len(self.bots)

    @property
    def deals(self) -> int:
        """Distinct deals in a planned-here match."""
        return math.ceil(self.games / self.num_players) if self.duplicate else self.games

    def deal(self, game_index: int) -> str:
        """The deal game ``game_index`` plays: games with the same deal have the same cards."""
        if self.plan:
            return self.plan[game_index][0]
        return str(game_index % self.deals if self.duplicate else game_index)

    def rotation(self, game_index: int) -> int:
        if self.plan:
            return self.plan[game_index][1]
        # duplicate: rotation by rotation, each playing every deal, so that a bot needs a
        # fresh process once per rotation rather than once per game
        return game_index // self.deals if self.duplicate else game_index % self.num_players

    def bot_at(self, game_index: int, seat: int) -> int:
        """Which bot (index into ``bots``) sits at ``seat`` in game ``game_index``."""
        return (seat + self.rotation(game_index)) % self.num_players

    def game_seed(self, game_index: int) -> int:
        """The engine's seed for the game: the same for every game of a deal."""
        return derive(self.secret, "game", self.deal(game_index), bits=GAME_SEED_BITS)

    def bot_seed(self, game_index: int, seat: int) -> int:
        """The seed sent to the bot at ``seat``: for its own randomness, independent of the deal."""
        return derive(self.bot_secret or derive_secret(self.secret, "bots"), "bot", game_index, seat,
                      bits=BOT_SEED_BITS)

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON, which :func:`parse_spec` reads back into an equal spec."""
        return dataclasses.asdict(self)


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
    if not isinstance(bots, list | tuple) or not bots:
        raise SpecError("'bots' must be a non-empty list")
    parsed_bots = tuple(_parse_bot(i, b) for i, b in enumerate(bots))
    names = [b.name for b in parsed_bots]
    if len(set(names)) != len(names):
        raise SpecError(f"bot names must be unique within a match, got {names}")
    try:
        settings = game.validate(len(parsed_bots), data.get("settings") or {}).to_dict()
    except GameError as exc:
        raise SpecError(str(exc)) from None
    time = _parse_time(data.get("time") or {})
    plan = _parse_plan(data.get("plan"), len(parsed_bots))
    games = _int(data, "games", len(plan) or 1, minimum=1)
    if plan and games != len(plan):
        raise SpecError(f"'games' is {games} but the plan has {len(plan)} games")
    seed = None
    if data.get("seed") is not None:
        seed = _int(data, "seed", 0, minimum=0)
        secret = dev_secret(seed)
        # to_dict writes both: the seed, and the secret it stands for
        if data.get("secret") is not None and check_secret(data["secret"]) != secret:
            raise SpecError(f"'secret' is not the one 'seed' {seed} stands for: give either 'secret' or "
                            "'seed' (development only)")
    elif data.get("secret") is not None:
        secret = check_secret(data["secret"])
    else:
        secret = new_secret()
    bot_secret = check_secret(data["bot_secret"], "bot_secret") if data.get("bot_secret") else ""
    out = MatchSpec(
        game=game.name,
        bots=parsed_bots,
        games=games,
        secret=secret,
        bot_secret=bot_secret,
        seed=seed,
        plan=plan,
        settings=settings,
        match_id=str(data.get("match_id", "match")),
        time=TimeControl(**time),
        max_restarts=_int(data, "max_restarts", limits.MAX_RESTARTS, minimum=0),
        duplicate=bool(data.get("duplicate", True)),
        shutdown_ms=_int(data, "shutdown_ms", 0, minimum=0),
    )
    if not out.match_id or "/" in out.match_id:
        raise SpecError(f"match_id must be a plain name, got {out.match_id!r}")
    return out


TIME_KEYS = tuple(f.name for f in dataclasses.fields(TimeControl))
MAX_MS = 2**32 - 1  # the wire's uint32


def _parse_time(time: Any) -> dict[str, int]:
    """The ``time`` table: each key a whole number of milliseconds; a start and a decision take
    some time, a bank or an increment may be 0."""
    if not isinstance(time, dict) or set(time) - set(TIME_KEYS):
        unknown = sorted(set(time) - set(TIME_KEYS)) if isinstance(time, dict) else []
        raise SpecError(f"'time' takes {', '.join(TIME_KEYS[:-1])} and {TIME_KEYS[-1]}"
                        + (f"; unknown: {', '.join(map(str, unknown))}" if unknown else ""))
    for key, value in time.items():
        least = 1 if key in ("startup_ms", "decision_ms") else 0
        if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= MAX_MS:
            raise SpecError(f"time.{key} must be a whole number of milliseconds from {least} to {MAX_MS}, "
                            f"got {value!r}")
    return time


def _parse_plan(raw: Any, players: int) -> tuple[tuple[str, int], ...]:
    if not isinstance(raw, list | tuple | None):
        raise SpecError("'plan' must be a list of [deal, rotation] pairs")
    if not raw:  # how to_dict writes "no plan": result.json's spec loads again
        return ()
    plan = []
    for i, item in enumerate(raw):
        if (not isinstance(item, list | tuple) or len(item) != 2 or not isinstance(item[0], str | int)
                or isinstance(item[0], bool) or not isinstance(item[1], int) or isinstance(item[1], bool)
                or not 0 <= item[1] < players):
            raise SpecError(f"plan[{i}] must be [deal, rotation] with a rotation from 0 to {players - 1}, "
                            f"got {item!r}")
        plan.append((str(item[0]), item[1]))
    return tuple(plan)


def _int(data: dict[str, Any], key: str, default: int, minimum: int) -> int:
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
    elif isinstance(command, list | tuple) and all(isinstance(c, str) for c in command):
        command = tuple(command)
    else:
        raise SpecError(f"{where} ({name}): command must be a string or a list of strings")
    builtin = raw.get("builtin") or ""
    if builtin and builtin not in KINDS:
        raise SpecError(f"{where} ({name}): builtin must be {' or '.join(KINDS)}, got {builtin!r}")
    return BotSpec(name=name, version=str(raw.get("version", "")), command=command,
                   builtin=builtin, image=str(raw.get("image") or ""))
