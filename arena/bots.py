"""Bots as submissions: a folder with a Dockerfile and a ``bot.toml``, built into an image
tagged by name and version, then validated by playing it.

``bot.toml``::

    name = "prohis-heuristic"     # lower case letters, digits, ., _ and -
    version = "1.0.0"
    language = "python"
    author = "Ada"
    games = ["prohis"]             # optional: the games it plays (empty or absent: all)

    [build]                        # optional
    context = "."                  # the build context, relative to the folder
    dockerfile = "Dockerfile"      # relative to the folder, inside the context
    args = { KEY = "value" }       # build arguments
"""

from __future__ import annotations

import re
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests.exceptions
import urllib3.exceptions

from referee.games import GAMES

from .images import PYTHON_BASE

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
VERSION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
IMAGE_REPOSITORY = "arena-bot"
BUILD_TIMEOUT = 600  # seconds
MAX_IMAGE_MB = 1024
LANGUAGE_BASES = {"python": PYTHON_BASE}  # the offline base passed as the BASE build argument


class BotError(Exception):
    """A bot that cannot be built or does not pass validation; the message says why."""


@dataclass(frozen=True)
class BotConfig:
    folder: Path
    name: str
    version: str
    language: str
    author: str
    games: tuple[str, ...] = ()
    context: Path = field(default=Path("."))
    dockerfile: Path = field(default=Path("Dockerfile"))
    args: dict[str, str] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return f"{IMAGE_REPOSITORY}/{self.name}:{self.version}"


def load_bot_config(folder: str | Path) -> BotConfig:
    folder = Path(folder)
    if not folder.is_dir():
        raise BotError(f"{folder} is not a folder (a bot is a folder with a Dockerfile and a bot.toml)")
    path = folder / "bot.toml"
    if not path.is_file():
        raise BotError(f"no bot.toml in {folder}: it must give name, version, language and author")
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BotError(f"{path} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"name", "version", "language", "author", "games", "build"})
    if unknown:
        raise BotError(f"{path}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "version", "language", "author"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise BotError(f"{path}: {key!r} is missing or not a non-empty string")
    if not NAME.match(data["name"]):
        raise BotError(f"{path}: name {data['name']!r} must be lower case letters, digits, '.', '_' or '-'")
    if not VERSION.match(data["version"]):
        raise BotError(f"{path}: version {data['version']!r} may hold only letters, digits, '.', '_' and '-'")
    games = data.get("games", [])
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise BotError(f"{path}: games must be a list of game names")
    unknown_games = [g for g in games if g not in GAMES]
    if unknown_games:
        raise BotError(f"{path}: unknown game(s) {', '.join(unknown_games)}; "
                       f"known: {', '.join(sorted(GAMES))}")
    build = data.get("build", {})
    if not isinstance(build, dict) or set(build) - {"context", "dockerfile", "args"}:
        raise BotError(f"{path}: [build] takes only context, dockerfile and args")
    args = build.get("args", {})
    if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
        raise BotError(f"{path}: [build] args must be a table of strings")
    context = (folder / build.get("context", ".")).resolve()
    dockerfile = (folder / build.get("dockerfile", "Dockerfile")).resolve()
    if not dockerfile.is_file():
        raise BotError(f"no Dockerfile: {dockerfile} does not exist")
    if not dockerfile.is_relative_to(context):
        raise BotError(f"the Dockerfile {dockerfile} must be inside the build context {context}")
    return BotConfig(folder=folder, name=data["name"], version=data["version"], language=data["language"],
                     author=data["author"], games=tuple(games), context=context, dockerfile=dockerfile,
                     args=dict(args))


@dataclass
class BuildResult:
    tag: str
    size_mb: float
    seconds: float
    log: list[str]


def build_bot(
    client: docker.DockerClient,
    config: BotConfig,
    timeout: float = BUILD_TIMEOUT,
    max_size_mb: float = MAX_IMAGE_MB,
    say: Callable[[str], None] = lambda line: None,
) -> BuildResult:
    """Builds the bot's image. Every failure raises BotError naming the cause."""
    base = LANGUAGE_BASES.get(config.language)
    buildargs = dict(config.args)
    if base is not None:
        try:
            client.images.get(base.tag)
        except docker.errors.ImageNotFound:
            raise BotError(f"the {config.language} base image {base.tag} is missing: "
                           "run `make images`") from None
        buildargs["BASE"] = base.tag
    labels = {"arena.bot.name": config.name, "arena.bot.version": config.version,
              "arena.bot.language": config.language, "arena.bot.author": config.author,
              "arena.bot.games": ",".join(config.games)}
    api = docker.from_env().api  # closed below: the daemon cancels a build whose client is gone
    log: list[str] = []
    start = time.monotonic()
    try:
        dockerfile = str(config.dockerfile.relative_to(config.context))
        stream = api.build(path=str(config.context), dockerfile=dockerfile, tag=config.tag,
                           buildargs=buildargs, labels=labels, rm=True, forcerm=True,
                           decode=True, pull=False, timeout=max(1, int(timeout)))
        for chunk in stream:
            if "stream" in chunk:
                for line in chunk["stream"].splitlines():
                    if line.strip():
                        log.append(line)
                        say(line)
            if "error" in chunk:
                raise BotError(f"the build of {config.tag} failed: {chunk['error'].strip()}"
                               + _tail(log))
            if time.monotonic() - start > timeout:
                raise BotError(f"the build of {config.tag} took longer than {timeout:.0f} s")
    except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError,
            urllib3.exceptions.ReadTimeoutError, TimeoutError):
        raise BotError(f"the build of {config.tag} took longer than {timeout:.0f} s") from None
    except docker.errors.APIError as exc:
        raise BotError(f"the build of {config.tag} failed: {exc.explanation}" + _tail(log)) from None
    finally:
        api.close()
    try:
        size_mb = client.images.get(config.tag).attrs["Size"] / 2**20
    except docker.errors.ImageNotFound:
        raise BotError(f"the build of {config.tag} produced no image" + _tail(log)) from None
    if size_mb > max_size_mb:
        client.images.remove(config.tag, force=True)
        raise BotError(f"the image {config.tag} is {size_mb:.0f} MiB, over the cap of {max_size_mb:.0f} MiB")
    return BuildResult(config.tag, size_mb, time.monotonic() - start, log)


def _tail(log: list[str], lines: int = 12) -> str:
    return ("\nlast lines of the build:\n  " + "\n  ".join(log[-lines:])) if log else ""


# -- validation ------------------------------------------------------------------------------
@dataclass
class GameCheck:
    game: str
    ok: bool
    reason: str = ""
    detail: str = ""
    score: int = 0
    rank: int = 0


@dataclass
class Validation:
    image: str
    ok: bool
    hello: dict[str, Any] = field(default_factory=dict)
    problem: str = ""  # why it failed before any game
    games: list[GameCheck] = field(default_factory=list)
    log: str = ""  # the bot's own output (stdout and stderr), capped

    def summary(self) -> str:
        if self.problem:
            return f"{self.image}: FAILED: {self.problem}"
        failed = [g for g in self.games if not g.ok]
        if failed:
            what = ", ".join(f"{g.game} ({g.reason}: {g.detail})" for g in failed)
            return f"{self.image}: FAILED in {what}"
        return f"{self.image}: OK ({', '.join(g.game for g in self.games)})"


def validate_bot(image: str, startup_ms: int = 15_000, decision_ms: int = 2_000,
                 say: Callable[[str], None] = lambda line: None) -> Validation:
    """What a submission runs first: start the bot, check its hello, then play one game
    against random bots at the smallest player count of each game it claims."""
    from referee.match import Match, run_async
    from referee.records import read_record
    from referee.sandbox import probe_image
    from referee.spec import parse_spec

    with tempfile.TemporaryDirectory(prefix="arena-validate-") as tmp:
        hello, failure, log = run_async(probe_image(image, Path(tmp), startup_ms))
        if failure is not None:
            return Validation(image, False, problem=str(failure), log=log)
        unknown = sorted(set(hello["games"]) - set(GAMES))
        if unknown:
            return Validation(image, False, hello=hello, log=log,
                              problem=f"the hello claims unknown game(s): {', '.join(map(repr, unknown))}")
        result = Validation(image, True, hello=hello, log=log)
        say(f"hello: {hello['name']} {hello['version']}, protocol {hello['protocol_version']}, "
            f"games: {', '.join(hello['games']) or 'all'}")
        for game in hello["games"] or sorted(GAMES):
            spec = GAMES[game]
            # not the name from the hello: the bot chose it, and names become file names
            bots = [{"name": "candidate", "image": image}] + [
                {"name": f"random-{i}", "builtin": "random"} for i in range(1, spec.min_players)]
            match_spec = parse_spec({"match_id": f"validate-{game}", "game": game, "games": 1, "seed": 1,
                                     "bots": bots, "max_restarts": 0,
                                     "time": {"startup_ms": startup_ms, "decision_ms": decision_ms,
                                              "bank_ms": 5 * decision_ms}})
            out = Path(tmp) / game
            outcome = run_async(Match(match_spec, out).run())["games"][0]
            seat = outcome["bots"].index(0)
            check = GameCheck(game, not outcome["failures"][seat], outcome["failures"][seat],
                              score=outcome["scores"][seat], rank=outcome["ranks"][seat])
            if not check.ok:
                failures = read_record(out / outcome["record"]).failures
                check.detail = next((f["detail"] for f in failures if f["seat"] == seat), "")
                result.ok = False
            log_file = next(out.glob("bot0-*.log"), None)
            if log_file is not None:
                result.log += log_file.read_text(errors="replace")
            say(f"{game}: " + ("ok" if check.ok else f"FAILED: {check.reason}: {check.detail}"))
            result.games.append(check)
        return result
