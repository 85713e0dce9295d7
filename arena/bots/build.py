"""Bots as submissions: a folder with a Dockerfile and a ``bot.toml``, built into an image
tagged by name and version (and checked by playing it: ``arena/conformance.py``).

``bot.toml``::

    name = "prohis-heuristic"     # lower case letters, digits, ., _ and -
    version = "1.0.0"
    language = "python"            # selects the base image: one of arena.images.LANGUAGES
    protocol = "grpc"              # optional: "grpc" (the default) or "stdio" (JSON lines, see arenabot.stdio)
    author = "Ada"
    games = ["prohis"]             # optional: the games it plays (empty or absent: all)

    [build]                        # optional
    context = "."                  # the build context, relative to the folder
    dockerfile = "Dockerfile"      # relative to the folder, inside the context
    args = { KEY = "value" }       # build arguments

bot.toml is hostile input: read within bounds, each refusal naming its key.

A build reads nothing outside the bot folder (or the wider ``root`` that whoever runs the
build, never bot.toml, may give, for bots that share files) and Arena's base images (FROM
and COPY --from name a base or an earlier stage, nothing else), and runs in a sandbox of its
own (:class:`BuildLimits`): no network (no ADD of a URL, no image pulled), limits on memory,
processes, CPU and file size for every RUN step, and the whole build's time and disk watched
while it runs. RUN steps run as the user the Dockerfile is at: the base image's, or root
after ``USER root``. That root is root in a container with Docker's default capabilities and
seccomp profile, no network, those limits and the build's time cap: what any untrusted
``docker build`` gets, and what package installs need. Hosts that build bots from strangers
should also remap root (dockerd ``--userns-remap``). An image is tagged only once it passes
every check; a failed or refused build removes the images it made, and one that passes
leaves its image only, with no parent: none of its steps is an image another build could use.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import secrets
import socket
import stat
import sys
import tarfile
import threading
import time
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import docker
import docker.errors
import requests.exceptions
import urllib3.exceptions

from arena_games import GAMES
from referee import isolation, limits
from referee.sandbox import docker_client, image_problems
from referee.sockets import process_alive

from .images import BASE_IMAGES, LANGUAGES

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
VERSION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
IMAGE_REPOSITORY = "arena-bot"
FLAT_LABEL = "arena.flat"  # on an image re-made with no parent (_remade): it differs from the build's by that
# a bot's cache for its next build: its last build's earlier stages (:stage<k>) and a twin of its
# image (:final), labelled CACHE_LABEL. The engine re-parents a cached image that it finds whole
# (to the steps it restores under it), so the bot's own image is never the cache: it stays of no parent
STAGES_REPOSITORY = "arena-bot-stages"
CACHE_LABEL = "arena.cache"
AUTHOR_CHARS = limits.AUTHOR_CHARS  # bot.toml's author: free text, shown as the bot's subtitle
BUILD_TIMEOUT = limits.BUILD_TIMEOUT_S
MAX_IMAGE_MB = limits.MAX_IMAGE_MB
PROTOCOLS = ("grpc", "stdio")  # how a bot talks: gRPC itself, or JSON lines through the stdio adapter
CPU_PERIOD = 100_000  # µs: the CFS period that a build's CPU quota is a share of


class BotError(Exception):
    """A bot folder that cannot be built; the message says why."""


class BuildUnavailable(BotError):
    """This host cannot build bots (its set-up, not the bot): the message is for its operator."""


@dataclass(frozen=True)
class BuildLimits:
    """The limits of a bot's build, besides having no network. Each RUN step is a container of
    its own with these limits; the pids limit holds for the whole build, through a cgroup of
    its own (the engine's build API has no pids limit)."""

    memory_mb: int = limits.BUILD_MEMORY_MB  # and the same for memory+swap: no swap
    pids: int = limits.BUILD_PIDS  # processes and threads
    cpus: float = limits.BUILD_CPUS
    cpu_shares: int = limits.BUILD_CPU_SHARES  # half a default container's weight: running matches come first
    file_size_mb: int = MAX_IMAGE_MB  # ulimit fsize: no file larger than an image may be
    seconds: float = limits.BUILD_TIMEOUT_S  # the whole build's time: past it, its steps are stopped

    def container_limits(self) -> dict[str, int]:
        """The ``container_limits`` of docker-py's ``build``."""
        return {"memory": self.memory_mb * 2**20, "memswap": self.memory_mb * 2**20,
                "cpushares": self.cpu_shares}

    def engine_params(self, cgroup_parent: str) -> dict[str, Any]:
        """The build parameters of the engine's API that docker-py's ``build`` cannot pass."""
        size = self.file_size_mb * 2**20
        return {"cgroupparent": cgroup_parent, "cpuperiod": CPU_PERIOD, "cpuquota": int(self.cpus * CPU_PERIOD),
                "ulimits": json.dumps([{"Name": "fsize", "Soft": size, "Hard": size}])}


BUILD_LIMITS = BuildLimits()


@dataclass(frozen=True)
class BotConfig:
    folder: Path
    root: Path  # what the build may read: the bot folder, or a folder around it
    name: str
    version: str
    language: str
    author: str
    games: tuple[str, ...] = ()
    protocol: str = "grpc"
    context: Path = field(default=Path("."))
    dockerfile: Path = field(default=Path("Dockerfile"))
    args: dict[str, str] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return f"{IMAGE_REPOSITORY}/{self.name}:{self.version}"


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a bot's name (it goes into an image tag and onto pages), or None.
    fullmatch: ``$`` would let a trailing newline through."""
    if NAME.fullmatch(name):
        return None
    return f"name {name!r} must be lower case letters, digits, '.', '_' or '-' (a letter or digit first, at most 63)"


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot be a bot's version, or None."""
    if VERSION.fullmatch(version):
        return None
    return f"version {version!r} may hold only letters, digits, '.', '_' and '-' (not '.' or '-' first, at most 128)"


def load_bot_config(folder: str | Path, root: str | Path | None = None) -> BotConfig:
    """Reads and checks a bot folder's bot.toml, as hostile input: bounded in size, nesting and
    each value's length, no control character in a name, a path or a build argument, and each
    refusal a BotError naming the key. The build may read only what is inside ``root``
    (default: the bot folder itself); bot.toml cannot widen that, only the caller can."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BotError(f"{folder} is not a folder (a bot is a folder with a Dockerfile and a bot.toml)")
    root = Path(root if root is not None else folder).resolve()
    if not folder.resolve().is_relative_to(root):
        raise BotError(f"the bot folder {folder} is not inside the root {root}")
    path = folder / "bot.toml"
    if not path.is_file():
        raise BotError(f"no bot.toml in {folder}: it must give name, version, language and author")
    if not Path(os.path.realpath(path)).is_relative_to(root):
        raise BotError(f"{path} is a symlink leading out of the bot folder; a build may read only what is "
                       f"inside {root}")
    data = _read_toml(path)
    unknown = [key for key in data if key not in ("name", "version", "language", "protocol", "author", "games",
                                                  "build")]
    if unknown:
        raise BotError(f"{path}: unknown key(s) {_listed(unknown)}")
    for key in ("name", "version", "language", "author"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise BotError(f"{path}: {key!r} is missing or not a non-empty string")
    for problem in (name_problem(data["name"]), version_problem(data["version"]),
                    _text_problem("'author'", data["author"], AUTHOR_CHARS)):
        if problem:
            raise BotError(f"{path}: {problem}")
    if data["language"] not in LANGUAGES:
        raise BotError(f"{path}: language {_shown(data['language'])} is not one Arena has a base image for; "
                       f"known: {', '.join(LANGUAGES)} (a bot in any other language can use the stdio "
                       "protocol on one of these bases: see docs/writing-a-bot.md)")
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise BotError(f"{path}: protocol {_shown(protocol)} must be one of {', '.join(map(repr, PROTOCOLS))}")
    games = data.get("games", [])
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise BotError(f"{path}: games must be a list of game names")
    if len(games) > len(GAMES):
        raise BotError(f"{path}: games lists {len(games)} games, over the {len(GAMES)} there are")
    unknown_games = [g for g in games if g not in GAMES]
    if unknown_games:
        raise BotError(f"{path}: unknown game(s) {_listed(unknown_games)}; known: {', '.join(sorted(GAMES))}")
    build = data.get("build", {})
    if not isinstance(build, dict) or set(build) - {"context", "dockerfile", "args"}:
        raise BotError(f"{path}: [build] takes only context, dockerfile and args")
    args = _build_args(path, build.get("args", {}))
    context = _confined(path, root, "context", build.get("context", "."))
    dockerfile = _confined(path, root, "dockerfile", build.get("dockerfile", "Dockerfile"))
    try:
        if not dockerfile.is_file():
            raise BotError(f"no Dockerfile: {dockerfile} does not exist")
    except OSError as exc:
        raise BotError(f"{path}: [build] dockerfile: {exc.strerror}") from None
    if not dockerfile.is_relative_to(context):
        raise BotError(f"the Dockerfile {dockerfile} must be inside the build context {context}")
    return BotConfig(folder=folder, root=root, name=data["name"], version=data["version"],
                     language=data["language"], author=data["author"], games=tuple(games), protocol=protocol,
                     context=context, dockerfile=dockerfile, args=args)


TOML_DEPTH = 8  # arrays and tables inside each other, table headers counted: bot.toml needs 3
ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
FILE_NAME_BYTES = 255  # of each part of a path, as on Linux


def _read_toml(path: Path) -> dict[str, Any]:
    """bot.toml's table, read within bounds: its size, its nesting (tomllib's parser recurses
    into each array and inline table: deep enough, Python's recursion limit), and its integers
    (Python reads no integer of more than 4,300 digits)."""
    cap = limits.BOT_TOML_KB * 1024
    with open(path, "rb") as file:
        raw = file.read(cap + 1)
    if len(raw) > cap:
        raise BotError(f"{path} is over the {limits.BOT_TOML_KB} KiB a bot.toml may be")
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        raise BotError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if problem := _nesting_problem(text):
        raise BotError(f"{path}: {problem}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BotError(f"{path} is not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer too long for Python to read
        line, key, digits = _long_integer(text)
        if line:
            raise BotError(f"{path}: line {line} ({key}): an integer of {digits} digits; bot.toml takes "
                           "strings, and lists and tables of them") from None
        raise BotError(f"{path} holds a value that cannot be read: {exc}") from None
    except RecursionError:
        raise BotError(f"{path}: arrays or tables are nested too deep") from None


def _nesting_problem(text: str) -> str:
    """Why ``text`` nests arrays or tables more than TOML_DEPTH deep (naming the key and the
    line where it does), or "". A scan of TOML's brackets outside its strings and comments."""
    depth, line, key, quote, table = 0, 1, "", "", ""
    statement = []  # the characters of the line so far, outside brackets: the key of a `key = value`
    i = 0
    while i < len(text):
        char = text[i]
        if quote:  # inside a string: ", ', \"\"\" or '''
            if char == "\\" and quote[0] == '"':
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            line += char == "\n"
            i += 1
            continue
        if char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        if char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if char == "[" and depth == 0 and not "".join(statement).strip():  # a table header: [build]
            end = text.find("\n", i) % (len(text) + 1)  # the line's end, or the text's
            table, i = text[i:end].partition("#")[0].strip(" \t[]"), end
            continue
        if char in "[{":
            if depth == 0:
                key = "".join(statement).partition("=")[0].strip() or key
                key = f"[{table}] {key}" if table else key
            depth += 1
            if depth > TOML_DEPTH:
                return f"line {line} ({key or 'a table header'}): arrays or tables nested more than {TOML_DEPTH} deep"
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "\n":
            line += 1
            if depth == 0:
                statement = []
        elif depth == 0:
            statement.append(char)
        i += 1
    return ""


def _long_integer(text: str) -> tuple[int, str, int]:
    """The line, key and length of the first integer of text too long for Python to read."""
    for number, line in enumerate(text.splitlines(), 1):
        if match := re.search(rf"[0-9][0-9_]{{{sys.get_int_max_str_digits() - 1},}}", line):
            return number, line.partition("=")[0].strip(), len(match[0].replace("_", ""))
    return 0, "", 0


def _build_args(path: Path, args: Any) -> dict[str, str]:
    """[build] args: a table of at most BUILD_ARGS strings, each named as a build argument is
    and at most BUILD_ARG_CHARS long. BASE is Arena's: the base image."""
    if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
        raise BotError(f"{path}: [build] args must be a table of strings")
    if len(args) > limits.BUILD_ARGS:
        raise BotError(f"{path}: [build] args holds {len(args)} build arguments, over {limits.BUILD_ARGS}")
    for name, value in args.items():
        where = f"[build] args {_shown(name)}"
        if not ARG_NAME.fullmatch(name):
            raise BotError(f"{path}: {where}: {_shown(name)} cannot name a build argument (a letter or '_', "
                           "then letters, digits or '_')")
        if name == "BASE":
            raise BotError(f"{path}: {where}: BASE is Arena's: the build gets the base image of its language as "
                           "BASE")
        if problem := _text_problem(where, value, limits.BUILD_ARG_CHARS):
            raise BotError(f"{path}: {problem}")
    return dict(args)


def _text_problem(what: str, value: str, chars: int) -> str:
    """Why ``value`` cannot be a name or a path in bot.toml (``what``: its key), or ""."""
    if len(value) > chars:
        return f"{what} is over {chars} characters"
    if bad := next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")), None):
        return f"{what} holds a control character (U+{ord(bad):04X}): no control or invisible characters"
    return ""


def _shown(value: str, chars: int = 40) -> str:
    """A hostile string as an error message shows it: quoted and escaped, and cut short."""
    return repr(value[:chars]) + ("..." if len(value) > chars else "")


def _listed(values: list[str], most: int = 8) -> str:
    shown = ", ".join(_shown(v) for v in values[:most])
    return shown + (f" and {len(values) - most} more" if len(values) > most else "")


def _confined(toml: Path, root: Path, key: str, value: Any) -> Path:
    """The resolved path of ``[build] key``, which must lead to a place inside ``root``."""
    if not isinstance(value, str) or not value:
        raise BotError(f"{toml}: [build] {key} must be a path relative to the bot folder")
    if problem := _text_problem(f"[build] {key}", value, limits.UPLOAD_PATH_CHARS):
        raise BotError(f"{toml}: {problem}")
    if long := next((p for p in Path(value).parts if len(p.encode()) > FILE_NAME_BYTES), None):
        raise BotError(f"{toml}: [build] {key}: the name {_shown(long)} is over {FILE_NAME_BYTES} bytes")
    if Path(value).is_absolute():
        raise BotError(f"{toml}: [build] {key} {value!r} is an absolute path; "
                       "give a path relative to the bot folder")
    resolved = Path(os.path.realpath(toml.parent / value))  # through every symlink on the way
    if not resolved.is_relative_to(root):
        raise BotError(f"{toml}: [build] {key} {value!r} leads outside the bot folder; "
                       f"a build may read only what is inside {root}")
    return resolved


@dataclass
class BuildResult:
    tag: str
    size_mb: float
    seconds: float
    log: list[str]


def build_bot(
    client: docker.DockerClient,
    config: BotConfig,
    timeout: float | None = None,
    max_size_mb: float = MAX_IMAGE_MB,
    say: Callable[[str], None] = lambda line: None,
    limits: BuildLimits = BUILD_LIMITS,
) -> BuildResult:
    """Builds the bot's image in the build's sandbox and tags it once it passes every check.
    ``timeout`` (default: ``limits.seconds``) caps the build's time, and ``max_size_mb`` the
    image and, while the build runs, every byte it writes. Every failure raises BotError naming
    the cause, and leaves none of the build's images; a build that passes leaves only its image,
    with no parent: no step of it is an image that another build could start from."""
    seconds = limits.seconds if timeout is None else timeout
    base = LANGUAGES[config.language]
    buildargs = dict(config.args)
    try:
        client.images.get(base.tag)
    except docker.errors.ImageNotFound:
        raise BuildUnavailable(f"the {config.language} base image {base.tag} is missing: run `make images`") from None
    buildargs["BASE"] = base.tag
    _check_context(config)
    _check_dockerfile(client, config)
    labels = {"arena.bot.name": config.name, "arena.bot.version": config.version,
              "arena.bot.language": config.language, "arena.bot.protocol": config.protocol,
              "arena.bot.author": config.author,
              "arena.bot.games": ",".join(config.games)}
    dockerfile = str(config.dockerfile.relative_to(config.context))
    repository = f"{IMAGE_REPOSITORY}/{config.name}"
    log: list[str] = []
    made: list[str] = []  # the ids of the images the build says it made
    image_id = flat = ""
    images = client.api.images(all=True)
    before = {image["Id"] for image in images}
    # the build's cache: only this bot's own, its last build's stages and image (each step of
    # them is found by its history)
    stages = f"{STAGES_REPOSITORY}/{config.name}"
    cache = [tag for image in images for tag in image.get("RepoTags") or () if tag.startswith(f"{stages}:")]
    start = time.monotonic()
    watch = _Watch(client, config.tag, seconds, max_size_mb, made, before)
    engine = client.info()
    try:
        try:
            with _build_cgroup(client, limits.pids, engine) as cgroup, watch.running(cgroup):
                api = docker_client().api  # the build's own: the daemon cancels a build whose client is gone
                try:
                    api.params = limits.engine_params(cgroup)  # sent with every request of this client
                    stream = api.build(path=str(config.context), dockerfile=dockerfile, buildargs=buildargs,
                                       labels=labels, rm=True, forcerm=True, decode=True, pull=False,
                                       cache_from=cache or None, timeout=max(1, int(seconds) + 30),
                                       network_mode="none", container_limits=limits.container_limits(),
                                       use_config_proxy=False)  # no proxy settings of the host in the build
                    for chunk in stream:
                        for line in chunk.get("stream", "").splitlines():
                            if step := STEP_RESULT.fullmatch(line):
                                made.append(step[1])
                            if line.strip():
                                log.append(line)
                                say(line)
                        image_id = chunk.get("aux", {}).get("ID", image_id)
                        if "error" in chunk:
                            raise BotError(watch.stopped or f"the build of {config.tag} failed: "
                                           f"{chunk['error'].strip()}" + _killed(chunk["error"], limits) + _tail(log))
                        # stopped: its steps are stopped as they start, and the engine ends the build
                        # (and removes its containers) before the stream ends; closing it at once
                        # would leave the engine to end the build on its own, later
                        if watch.stopped and time.monotonic() - watch.stopped_at > DRAIN_S:
                            raise BotError(watch.stopped)
                    if watch.stopped:
                        raise BotError(watch.stopped)
                finally:
                    api.close()
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError,
                urllib3.exceptions.ReadTimeoutError, TimeoutError):
            raise BotError(watch.stopped or f"the build of {config.tag} ran longer than {seconds:.0f} s") from None
        except docker.errors.APIError as exc:
            raise BotError(f"the build of {config.tag} failed: {exc.explanation}" + _tail(log)) from None
        if not image_id:
            raise BotError(f"the build of {config.tag} produced no image" + _tail(log))
        made.append(image_id)
        image = client.api.inspect_image(image_id)
        refusal = image_refusal(image["Config"]) or image_file_refusal(image)
        if refusal:
            raise BotError(f"the image of {config.tag} is refused: {refusal}")
        size_mb = image["Size"] / 2**20
        if size_mb > max_size_mb:
            raise BotError(f"the image {config.tag} is {size_mb:.0f} MiB, over the cap of {max_size_mb:.0f} MiB")
        # the same whether the build ran its steps or found them all in the cache: a rebuild of
        # the same folder is the same image (registered bots name its id)
        flat = _remade(client, engine, image["Id"], {CACHE_LABEL: None, FLAT_LABEL: "1"})
        client.api.tag(flat, repository, config.version)
    except BotError:
        _remove_new_images(client, [*made, flat] if flat else made, before)
        raise
    with contextlib.suppress(BotError, docker.errors.APIError):  # a cache: the build passed without it
        _keep_stages(client, engine, image["Id"], flat, made, before, stages)
    _remove_steps_images(client, image["Id"], made, before)
    return BuildResult(config.tag, size_mb, time.monotonic() - start, log)


def _tail(log: list[str], lines: int = 12) -> str:
    return ("\nlast lines of the build:\n  " + "\n  ".join(log[-lines:])) if log else ""


def _killed(error: str, limits: BuildLimits) -> str:
    if error.rstrip().endswith("non-zero code: 137"):  # 128 + SIGKILL
        return f" (killed: most likely over the build's memory limit of {limits.memory_mb} MiB)"
    return ""


def remove_bot_image(client: docker.DockerClient, tag: str) -> None:
    """Removes the bot image ``tag`` (``arena-bot/NAME:VERSION``) and the cache its builds keep
    for the next one (``arena-bot-stages/NAME``: its stages and its image's twin, which hold its
    layers and its code too), with the layers only they used; what is not there is skipped."""
    with contextlib.suppress(docker.errors.APIError):
        client.api.remove_image(tag)
    name = tag.split("/", 1)[-1].rsplit(":", 1)[0]
    with contextlib.suppress(docker.errors.APIError):
        for image in client.api.images(name=f"{STAGES_REPOSITORY}/{name}"):
            for cached in image.get("RepoTags") or ():
                with contextlib.suppress(docker.errors.APIError):
                    client.api.remove_image(cached)


def image_refusal(image_config: dict[str, Any] | None) -> str:
    """Why Arena refuses an image's settings, or '' (the same sentence at build and check time)."""
    problems = image_problems(image_config)
    if not problems:
        return ""
    return ("it declares what Arena's sandbox does not allow (an instruction inherited from the base "
            "image counts too: start from one without it):\n  " + "\n  ".join(problems))


def image_file_refusal(image: dict[str, Any]) -> str:
    """Why Arena refuses an image's files (``docker image inspect``), or '': a file any user may
    write, or one only the build user may read (referee/isolation.py). '' where the layers
    cannot be read here (not root): the referee checks them again before every container."""
    try:
        problems = isolation.file_problems(isolation.image_layers(image))
    except OSError:
        return ""
    return "its files would not be safe in the sandbox:\n  " + "\n  ".join(problems) if problems else ""


# -- the build's sandbox ---------------------------------------------------------------------
CGROUPS = Path("/sys/fs/cgroup")
BUILD_CGROUP_PREFIX = "arena-build-"  # arena-build-<pid>-<random>, in each cgroup hierarchy
STEP_RESULT = re.compile(r" ---> ([0-9a-f]{12,64})")  # the legacy builder's line for each step's image
REMOTE_SOURCE = re.compile(r"://|^git@|\$")  # a URL, a git repository, or a variable that may hold one


def _check_context(config: BotConfig) -> None:
    """Refuses what would bring something of the host into the build: a symlink leading out of
    the root (Docker would copy the link, but an author's folder has no use for one), or anything
    but files, folders and symlinks (docker-py would read a FIFO named .dockerignore forever)."""
    for folder, dirs, files in os.walk(config.context):
        for name in dirs + files:
            path = Path(folder, name)
            mode = path.lstat().st_mode
            shown = str(path.relative_to(config.root))
            if stat.S_ISLNK(mode) and not Path(os.path.realpath(path)).is_relative_to(config.root):
                raise BotError(f"{shown!r} is a symlink leading out of the bot folder (to {os.readlink(path)!r}); "
                               f"a build may read only what is inside {config.root}")
            if not (stat.S_ISLNK(mode) or stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise BotError(f"{shown!r} is not a file, a folder or a symlink; a bot folder holds nothing else")


def _check_dockerfile(client: docker.DockerClient, config: BotConfig) -> None:
    """Refuses what would bring into the build anything but the bot folder and Arena's base
    images: a ``FROM`` of any other image, a ``COPY --from`` of anything but an earlier stage (a
    bot's image, or any step of its build, by id or by a prefix of its id: a RUN step would print
    its files into the build log, which goes back to the author; or an image not on this engine,
    which the engine would pull), the same in an ``ONBUILD`` trigger (which runs in a later
    stage), and an ADD of a URL (the engine downloads it itself, with the host's own network).
    The Dockerfile is read as the engine's own parser reads it (:func:`_instructions`), and what
    is not plainly allowed is refused: no variable but ``${BASE}`` in a FROM."""
    stages: list[str] = []  # the names of the stages so far ("" for one without a name)
    for number, keyword, flags, args in _instructions(config.dockerfile.read_bytes(), config.dockerfile.name):
        where = f"{config.dockerfile.name}, line {number}"
        if keyword == "onbuild":  # its trigger runs where a later stage starts FROM this one: as late a check
            trigger, flags, args = _split_command(args, where)
            if trigger in ("from", "onbuild"):
                raise BotError(f"{where}: ONBUILD {trigger.upper()} is refused: a trigger may not start a stage")
            _check_instruction(where, trigger, flags, args, stages)
        elif keyword == "from":
            stages.append(_check_from(client, where, flags, args, stages))
        else:
            _check_instruction(where, keyword, flags, args, stages)


def _check_instruction(where: str, keyword: str, flags: list[str], args: str, stages: list[str]) -> None:
    """The checks of an instruction other than FROM and ONBUILD."""
    if keyword in ("copy", "add"):
        for flag in flags:
            name, _, value = flag.removeprefix("--").partition("=")
            if name.lower() == "from":
                _check_copy_from(where, keyword.upper(), value, stages)
        if keyword == "add":
            for source in _add_sources(args):
                if REMOTE_SOURCE.search(source):
                    raise BotError(f"{where}: ADD {source!r} is refused: ADD downloads a URL (which a variable "
                                   "may hold) with the Docker engine's own network. Bot builds are offline: "
                                   "put the file in the bot folder and COPY it")
    elif keyword == "run" and flags:
        raise BotError(f"{where}: RUN {flags[0]!r} is refused: RUN takes no flags in a bot's build")


FROM_ALLOWED = ("start from Arena's base image (FROM ${BASE}; or another of Arena's bases by its exact tag or "
                "id), from an earlier stage of this Dockerfile by its name, or from scratch")


def _check_from(client: docker.DockerClient, where: str, flags: list[str], args: str, stages: list[str]) -> str:
    """Checks a FROM; returns the name of the stage it starts (or "")."""
    if flags:
        raise BotError(f"{where}: FROM {flags[0]!r} is refused: FROM takes no flags in a bot's build (the image is "
                       "built for this host's platform)")
    words = ASCII_BLANKS.split(args) if args else []
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "as"):
        raise BotError(f"{where}: FROM takes an image and, optionally, AS and a stage name")
    image = words[0]
    # Only literals: the engine expands the meta ARGs in a FROM, and Arena sets BASE itself.
    # A stage is found by its name, lower-cased; anything else, an id's prefix too, is an image.
    if not (image in ("${BASE}", "$BASE", "scratch") or (image.isascii() and image.lower() in stages)
            or image in _arena_bases(client)):
        raise BotError(f"{where}: FROM {image!r} is refused: a bot's build may {FROM_ALLOWED}; it reads no other "
                       "image (another bot's holds its author's code) and pulls nothing")
    if len(words) < 3:
        return ""
    name = words[2]
    if not (name.isascii() and STAGE_NAME.fullmatch(name.lower())):
        raise BotError(f"{where}: {name!r} cannot name a stage: a letter, then letters, digits, '-', '_' or '.'")
    return name.lower()


def _check_copy_from(where: str, keyword: str, value: str, stages: list[str]) -> None:
    """A ``--from`` names an earlier stage, by its name or its number; the engine takes anything
    else for an image (a stage's number is an image's id prefix once out of range)."""
    earlier = stages[:-1]  # the stage this instruction is in is not finished
    if value.isascii() and (value.lower() in [s for s in earlier if s]
                            or (re.fullmatch(r"[+-]?[0-9]{1,9}", value) and 0 <= int(value) < len(earlier))):
        return
    raise BotError(f"{where}: {keyword} --from={value!r} is refused: --from names an earlier stage of this Dockerfile, "
                   "by its name or its number; a build reads no other image (another bot's holds its author's code)")


def _arena_bases(client: docker.DockerClient) -> dict[str, str]:
    """Every reference to one of Arena's base images that a FROM may give, to its image id: its
    content tag, its ``:latest`` while that is the same image, and its id."""
    bases: dict[str, str] = {}
    for base in BASE_IMAGES:
        with contextlib.suppress(docker.errors.APIError):
            image_id = client.api.inspect_image(base.tag)["Id"]
            bases.update({base.tag: image_id, image_id: image_id})
            with contextlib.suppress(docker.errors.APIError):
                if client.api.inspect_image(f"{base.name}:latest")["Id"] == image_id:
                    bases[f"{base.name}:latest"] = image_id
    return bases


def _add_sources(args: str) -> list[str]:
    """ADD's sources, in its JSON form (the engine decodes the first JSON value and ignores what
    follows it) and in its shell form: each is checked, whichever the engine takes."""
    words = ASCII_BLANKS.split(args) if args else []
    sources = words[:-1]
    with contextlib.suppress(ValueError):
        value, _ = json.JSONDecoder().raw_decode(args)
        if isinstance(value, list):
            sources += [str(word) for word in value[:-1]]
    return sources


# -- the engine's Dockerfile parser, as the classic builder of Docker 20.10 vendors it (moby/buildkit
# frontend/dockerfile/parser): lines split at \n only, a BOM dropped, parser directives only until
# the first line that is none, the escape character's own continuation rule, comments dropped inside
# a continuation, Go's notion of white space. Read differently, a line could hide a FROM from this
# check that the engine then runs.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"  # unicode.IsSpace
GO_SPACE_BYTES = b"\t\n\v\f\r \x85\xa0"  # unicode.IsSpace of a byte taken as a rune
ASCII_BLANKS = re.compile(r"[\t\v\f\r ]+")  # the parser's reWhitespace
DIRECTIVE = re.compile(r"#[\t\n\f\r ]*([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*\Z")
STAGE_NAME = re.compile(r"[a-z][a-z0-9_.-]*")
MAX_LINE = 64 * 1024 - 1  # bufio.Scanner's: the engine refuses a longer line


def _instructions(data: bytes, name: str = "Dockerfile") -> Iterator[tuple[int, str, list[str], str]]:
    """A Dockerfile's instructions as the engine's parser splits them: (first line, keyword in
    lower case, flags, arguments). A keyword that is not ASCII is refused (the engine lower-cases
    it by Unicode's rules, which could make one of its keywords)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if lines:
        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            raise BotError(f"{name}, line {number}: a line is longer than {MAX_LINE} bytes")
    escape, done, seen = "\\", False, set()

    where = name

    def directive(line: str, number: int) -> None:
        nonlocal escape, done
        if done:
            return
        match = DIRECTIVE.match(line)
        found = match[1].lower() if match else ""
        if found not in ("escape", "syntax"):
            done = True
            return
        if found in seen:
            raise BotError(f"{where}, line {number}: only one {found} parser directive can be used")
        seen.add(found)
        if found == "escape":
            if match[2] not in ("`", "\\"):
                raise BotError(f"{where}, line {number}: the escape character must be ` or \\")
            escape = match[2]

    def continued(line: str) -> tuple[str, bool]:
        e = re.escape(escape)
        joined, found = re.subn(rf"([^{e}]){e}[ \t]*\Z|^{e}[ \t]*\Z", lambda m: m[1] or "", line, count=1)
        return joined, found == 1

    text = [line.decode("utf-8", "surrogateescape") for line in lines]
    index = 0
    while index < len(text):
        raw, index = text[index], index + 1
        first = index
        token = raw.lstrip(GO_SPACE)
        directive(token, index)
        line, more = continued("" if token.startswith("#") else token)
        if not more and line == "":
            continue
        while more and index < len(text):
            raw, index = text[index], index + 1
            directive(raw, index)
            if raw.lstrip(GO_SPACE).startswith("#"):
                continue  # a comment inside an instruction
            part = "" if raw.startswith("#") else raw
            if part.lstrip(GO_SPACE) == "":
                continue  # an empty continuation line
            part, more = continued(part)
            line += part
        yield first, *_split_command(line, f"{where}, line {first}")


def _split_command(line: str, where: str) -> tuple[str, list[str], str]:
    """The parser's splitCommand: the keyword, the flags (``--name=value`` words before the
    arguments, quotes and backslashes as its extractBuilderFlags reads them) and the rest."""
    keyword, *rest = ASCII_BLANKS.split(line.strip(GO_SPACE), maxsplit=1)
    if not keyword.isascii():
        raise BotError(f"{where}: the instruction {keyword!r} is not one: an instruction is ASCII")
    flags: list[str] = []
    args = ""
    if rest:
        args, flags = _extract_flags(rest[0].encode("utf-8", "surrogateescape"))
        for flag in flags:
            if not flag.isascii():
                raise BotError(f"{where}: the flag {flag!r} is not ASCII")
    return keyword.lower(), flags, args.strip(GO_SPACE)


def _extract_flags(line: bytes) -> tuple[str, list[str]]:
    """extractBuilderFlags, byte for byte as the engine runs it (a byte taken as a rune: a
    non-ASCII byte in a flag comes out as another character, so such a flag is refused)."""
    words: list[str] = []
    word, quote, blank_ok, phase = "", 0, False, "spaces"
    pos = 0
    while pos <= len(line):
        ch = line[pos] if pos < len(line) else 0
        if phase == "spaces":
            if pos == len(line):
                break
            if ch in GO_SPACE_BYTES:
                pos += 1
                continue
            if ch != ord("-") or pos + 1 == len(line) or line[pos + 1] != ord("-"):
                return line[pos:].decode("utf-8", "surrogateescape"), words
            phase = "word"
        if phase in ("word", "quote") and pos == len(line):
            if word != "--" and (blank_ok or word):
                words.append(word)
            break
        if phase == "word":
            if ch in GO_SPACE_BYTES:
                phase = "spaces"
                if word == "--":
                    return line[pos:].decode("utf-8", "surrogateescape"), words
                if blank_ok or word:
                    words.append(word)
                word, blank_ok = "", False
                pos += 1
                continue
            if ch in b"'\"":
                quote, blank_ok, phase = ch, True, "quote"
                pos += 1
                continue
            if ch == ord("\\"):
                if pos + 1 == len(line):
                    pos += 1
                    continue
                pos += 1
                ch = line[pos]
            word += chr(ch)
            pos += 1
            continue
        if phase == "quote":
            if ch == quote:
                phase = "word"
                pos += 1
                continue
            if ch == ord("\\"):
                if pos + 1 == len(line):
                    phase = "word"
                    pos += 1
                    continue
                pos += 1
                ch = line[pos]
            word += chr(ch)
            pos += 1
    return "", words


@contextlib.contextmanager
def _build_cgroup(client: docker.DockerClient, pids: int, info: dict[str, Any] | None = None) -> Iterator[str]:
    """A cgroup of the build's own on the Docker host, holding its pids limit; yields its path
    for the engine's ``cgroupparent``. On the way out it removes the containers still in it (a
    cancelled step), then the cgroup from every hierarchy (runc makes it in each)."""
    info = info or client.info()
    driver, version = info.get("CgroupDriver"), info.get("CgroupVersion")
    if (driver, version) != ("cgroupfs", "1"):
        raise BuildUnavailable("bot builds are held to their pids limit by a cgroup that Arena sets up for Docker's "
                       f"cgroupfs driver on cgroup v1; this engine has the {driver} driver on cgroup v{version}")
    if info.get("Name") != socket.gethostname():
        raise BuildUnavailable("bot builds are held to their pids limit by a cgroup that Arena sets up on the Docker "
                       f"host, so they must run there: this is {socket.gethostname()}, the engine runs on "
                       f"{info.get('Name')}")
    for stale in (CGROUPS / "pids").glob(f"{BUILD_CGROUP_PREFIX}*"):  # a killed build's
        owner = re.fullmatch(rf"{BUILD_CGROUP_PREFIX}(\d+)-[0-9a-f]+", stale.name)
        if owner and not process_alive(int(owner[1])):
            _remove_cgroup(client, stale.name)
    name = f"{BUILD_CGROUP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        (CGROUPS / "pids" / name).mkdir()
        (CGROUPS / "pids" / name / "pids.max").write_text(str(pids))
    except OSError as exc:
        _remove_cgroup(client, name)
        raise BuildUnavailable(f"cannot set up the build's cgroup {CGROUPS / 'pids' / name}: {exc.strerror} "
                       "(bot builds need root on the Docker host)") from None
    try:
        yield f"/{name}"
    finally:
        _remove_cgroup(client, name)


def _remove_cgroup(client: docker.DockerClient, name: str, wait: float = 10.0) -> None:
    _remove_steps(client, name)
    isolation.remove_cgroup(CGROUPS, name, wait)  # from every hierarchy, once runc has removed the steps' own




def _remove_new_images(client: docker.DockerClient, made: Iterable[str], before: set[str]) -> None:
    """Removes the images of a failed or refused build, newest first. The ids come from the
    build's output, which a RUN step can forge: only an untagged image that did not exist when
    the build started is removed (a forged id could name only another build's fresh image,
    which it cannot know)."""
    for image_id in reversed(list(dict.fromkeys(made))):
        try:
            image = client.api.inspect_image(image_id)
        except docker.errors.NotFound:
            continue
        if image["Id"] not in before and not image.get("RepoTags"):
            with contextlib.suppress(docker.errors.APIError):
                client.api.remove_image(image["Id"], noprune=True)


# -- while the build runs: its time and its disk ------------------------------------------------
WATCH_S = 0.1  # between two looks at a running build (longer while a look takes long)
DRAIN_S = 30.0  # that a stopped build's engine has to end it
INODE_BYTES = 4096  # what each file, folder or link counts at least: an empty file takes an inode


class _Watch:
    """Watches a build from a thread of its own while it runs: its time, and the disk it takes
    (every layer it has made so far, and what its running steps have written: their containers'
    upper directories and volumes, found through the build's cgroup). Past either cap it stops
    the build's steps; ``stopped`` then says why."""

    def __init__(self, client: docker.DockerClient, tag: str, seconds: float, disk_mb: float,
                 made: list[str], before: set[str]) -> None:
        self.client, self.tag, self.seconds, self.disk_mb = client, tag, seconds, disk_mb
        self.made, self.before = made, before
        self.stopped = ""
        self.peak = 0  # bytes: the most the build was seen to take
        self.stopped_at = 0.0
        self._layers: dict[str, str] = {}  # a made image's id -> the folder of the layer it made ("" if none)
        self._folders: dict[str, str] = {}  # an image's id -> the folder of its top layer
        self._parents: dict[str, str] = {}
        self._new: dict[str, bool] = {}  # whether the image was not there before the build
        self._sizes: dict[str, int] = {}  # a made layer's folder -> its bytes (a layer never changes)
        self._steps: dict[str, list[str]] = {}  # container id -> the folders it writes to
        self._done = threading.Event()

    @contextlib.contextmanager
    def running(self, cgroup: str) -> Iterator[None]:
        thread = threading.Thread(target=self._run, args=(cgroup.lstrip("/"),), name="build-watch", daemon=True)
        thread.start()
        try:
            yield
        finally:
            self._done.set()
            thread.join()
            self._gone()

    def _gone(self, wait: float = 60.0) -> None:
        """Waits until the steps it saw are gone, the images they ran on free to remove: a
        step stopped with a gigabyte written takes a while to remove, and the engine's own
        removal makes ours return at once ("already in progress")."""
        deadline = time.monotonic() + wait
        for step in self._steps:
            while time.monotonic() < deadline:
                try:
                    self.client.api.remove_container(step, force=True, v=True)
                except docker.errors.NotFound:
                    break
                except docker.errors.APIError:
                    time.sleep(0.1)

    def _run(self, cgroup: str) -> None:
        try:
            self._watch(cgroup)
        except Exception as exc:  # noqa: BLE001 - unwatched, the build would have no caps: stop it
            self._stop(cgroup, f"the build of {self.tag} was stopped: its watch failed ({type(exc).__name__}: {exc})")
            while not self._done.wait(WATCH_S):
                _remove_steps(self.client, cgroup)

    def _watch(self, cgroup: str) -> None:
        start = time.monotonic()
        wait = WATCH_S
        while not self._done.wait(wait):
            if self.stopped:  # and every step that starts until the engine ends the build
                _remove_steps(self.client, cgroup)
                continue
            if time.monotonic() - start > self.seconds:
                self._stop(cgroup, f"the build of {self.tag} ran longer than {self.seconds:.0f} s (its time cap)")
                continue
            looked = time.monotonic()
            cap = int(self.disk_mb * 2**20)
            try:
                used = self._disk(cgroup, cap)
            except (OSError, docker.errors.APIError, requests.exceptions.RequestException):
                continue  # the engine busy, a folder gone: the next look
            self.peak = max(self.peak, used)
            if used > cap:
                self._stop(cgroup, f"the image {self.tag} grew past {self.disk_mb:.0f} MiB while it was built, over "
                                   f"the cap of {self.disk_mb:.0f} MiB (every file a step writes counts, in every "
                                   "stage, at least 4 KiB each): the build was stopped")
                continue
            wait = max(WATCH_S, 2 * (time.monotonic() - looked))  # a tree of many files takes a while to count

    def _stop(self, cgroup: str, reason: str) -> None:
        self.stopped, self.stopped_at = reason, time.monotonic()
        _remove_steps(self.client, cgroup)

    def _layer(self, image_id: str) -> str:
        """The folder of the image's top layer, or ""."""
        if image_id not in self._folders:
            try:
                image = self.client.api.inspect_image(image_id)
            except docker.errors.APIError:
                return ""
            self._folders[image_id] = _upper(image)
            self._parents[image_id] = image.get("Parent", "")
            self._new[image_id] = image["Id"] not in self.before
        return self._folders[image_id]

    def _disk(self, cgroup: str, cap: int) -> int:
        """The bytes the build takes now, counted up to a little past ``cap``."""
        for image_id in [i for i in list(self.made) if i not in self._layers]:
            folder = self._layer(image_id)
            parent = self._parents.get(image_id, "")
            # an image there before (the base, or what a RUN step printed as if made) is not the
            # build's, and a step that changed only settings (LABEL, CMD) has its parent's layer
            new = self._new.get(image_id, False) and (not parent or self._layer(parent) != folder)
            self._layers[image_id] = folder if new else ""
        used = 0
        for folder in {f for f in self._layers.values() if f}:
            if folder not in self._sizes:
                self._sizes[folder] = _disk_use(Path(folder), cap)
            used += self._sizes[folder]
        steps = CGROUPS / "pids" / cgroup
        for step in (p.name for p in (steps.iterdir() if steps.is_dir() else ()) if p.is_dir()):
            if step not in self._steps:
                try:
                    container = self.client.api.inspect_container(step)
                except docker.errors.APIError:
                    continue
                upper = _upper(container)
                volumes = [m["Source"] for m in container.get("Mounts") or () if m.get("Type") == "volume"]
                self._steps[step] = [f for f in (upper, *volumes) if f]
            for folder in self._steps[step]:
                used += _disk_use(Path(folder), cap - used)
        return used


def _upper(inspected: dict[str, Any]) -> str:
    """The folder of an image's top layer, or of a container's own, from its inspection ("" if none)."""
    return ((inspected.get("GraphDriver") or {}).get("Data") or {}).get("UpperDir", "")


def _disk_use(folder: Path, cap: int) -> int:
    """The bytes of every file under ``folder`` (its length or its blocks, whichever is more:
    committing a layer writes a sparse file out whole), and at least INODE_BYTES for each file,
    folder or link; counting stops a little past ``cap``."""
    used = 0
    stack = [folder]
    while stack and used <= cap:
        try:
            entries = os.scandir(stack.pop())
        except OSError:  # gone meanwhile: the step ended
            continue
        with entries:
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used += max(info.st_size if stat.S_ISREG(info.st_mode) else 0, info.st_blocks * 512, INODE_BYTES)
                if stat.S_ISDIR(info.st_mode):
                    stack.append(Path(entry.path))
    return used


def _remove_steps(client: docker.DockerClient, cgroup: str) -> None:
    """Removes the containers in the build's cgroup ``cgroup`` (its running steps)."""
    pids = CGROUPS / "pids" / cgroup
    for container in (pids.iterdir() if pids.is_dir() else ()):
        if container.is_dir():  # a container's cgroup is named by its id
            with contextlib.suppress(docker.errors.APIError):
                client.api.remove_container(container.name, force=True, v=True)


# -- the image without its steps ----------------------------------------------------------------
def _remade(client: docker.DockerClient, engine: dict[str, Any], image_id: str, labels: dict[str, str | None],
            fresh: bool = False) -> str:
    """The image ``image_id`` (layers, settings and history) with ``labels`` set (None: taken
    off), as an image of no parent; returns its id, the same for the same image and labels.
    The classic builder keeps each step as an image whose parent is the step before, and keeps
    them as long as the image is there: the step that copied the bot's code in would stay an
    image of its own, which another build could start from by its id. Loading the image's own
    configuration back, changed by a label, makes one of no parent from the layers the engine
    has: nothing is copied. ``fresh``: an image of that id there already, given a parent since
    (a cache the engine found whole), is made again, and the steps it was given removed."""
    config = json.loads(_raw_config(engine, image_id))
    settings = config.setdefault("config", {})
    merged = {**(settings.get("Labels") or {}), **{k: v for k, v in labels.items() if v is not None}}
    settings["Labels"] = {k: v for k, v in merged.items() if labels.get(k, v) is not None}
    digest = _digest(config)
    try:
        there = client.api.inspect_image(digest)
    except docker.errors.ImageNotFound:
        there = None
    if there is None or not there.get("Parent") or not fresh:
        return there["Id"] if there is not None and not there.get("Parent") else _load_config(client, config)
    # made again: a holder of its layers meanwhile (it may be the only image that has its last
    # ones), then it, then the steps the engine gave it
    settings["Labels"] = {**settings["Labels"], "arena.holder": secrets.token_hex(8)}
    holder = _load_config(client, config)
    settings["Labels"].pop("arena.holder")
    try:
        client.api.remove_image(digest, force=True, noprune=True)
        _load_config(client, config)
    finally:
        with contextlib.suppress(docker.errors.APIError):
            client.api.remove_image(holder)
        with contextlib.suppress(docker.errors.APIError):
            client.api.remove_image(there["Parent"])  # each untagged step under it, up the chain
    return digest


def _digest(config: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(json.dumps(config, separators=(",", ":")).encode()).hexdigest()


def _load_config(client: docker.DockerClient, config: dict[str, Any]) -> str:
    """Loads ``config`` as an image of no parent, from layers the engine has; returns its id."""
    data = json.dumps(config, separators=(",", ":")).encode()
    digest = hashlib.sha256(data).hexdigest()
    layers = len((config.get("rootfs") or {}).get("diff_ids") or ())
    manifest = [{"Config": f"{digest}.json", "RepoTags": None, "Layers": [f"{i}/layer.tar" for i in range(layers)]}]
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:  # no layer in it: the engine has them all
        for name, content in ((f"{digest}.json", data), ("manifest.json", json.dumps(manifest).encode())):
            member = tarfile.TarInfo(name)
            member.size = len(content)
            tar.addfile(member, io.BytesIO(content))
    try:
        for message in client.api.load_image(archive.getvalue(), quiet=True):
            if message.get("error"):
                raise BotError(f"the image could not be made an image of no parent: {message['error']}")
    except docker.errors.APIError as exc:
        raise BotError(f"the image could not be made an image of no parent: {exc.explanation}") from None
    return f"sha256:{digest}"


def _raw_config(info: dict[str, Any], image_id: str) -> bytes:
    """The image's configuration as the engine stores it (the API shows it only reshaped), read
    from the engine's image store on this host (``info``: the engine's), and checked against the
    id it is the digest of."""
    digest = image_id.removeprefix("sha256:")
    path = Path(info.get("DockerRootDir", "/var/lib/docker"), "image", info.get("Driver", ""), "imagedb", "content",
                "sha256", digest)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BotError(f"cannot read the image's configuration at {path}: {exc.strerror} (bot builds need root on "
                       "the Docker host)") from None
    if hashlib.sha256(raw).hexdigest() != digest:
        raise BotError(f"{path} is not the configuration of the image {image_id}")
    return raw


def _keep_stages(client: docker.DockerClient, engine: dict[str, Any], built: str, flat: str, made: Iterable[str],
                 before: set[str], repository: str) -> None:
    """Keeps the bot's cache for its next build in ``repository`` in place of the last build's:
    the last image of each earlier stage of a multi-stage build as ``:stage<k>``, and a twin of
    its image ``flat`` as ``:final``, each an image of no parent labelled CACHE_LABEL. A stage's
    last image is one of the build's that no other of its images has under it (an id the build
    printed that was there before is no stage of it, unless it is this bot's cache of before,
    found again whole)."""
    found: dict[str, dict[str, Any]] = {}
    for step in dict.fromkeys(made):
        with contextlib.suppress(docker.errors.APIError):
            image = client.api.inspect_image(step)
            found.setdefault(image["Id"], image)
    under = {image.get("Parent") for image in found.values()}
    ends = [image for image_id, image in found.items()
            if image_id != built and image_id not in under and image.get("Parent")
            and (image_id not in before or any(t.startswith(f"{repository}:") for t in image.get("RepoTags") or ()))]
    old = {image["Id"] for image in client.api.images(name=repository)}
    cache = {CACHE_LABEL: "1", FLAT_LABEL: "1"}
    kept = {f"{repository}:stage{k}": _remade(client, engine, image["Id"], cache, fresh=True)
            for k, image in enumerate(ends)}
    kept[f"{repository}:final"] = _remade(client, engine, flat, cache, fresh=True)
    for tag, image_id in kept.items():
        client.api.tag(image_id, *tag.rsplit(":", 1))
    for image_id in old - set(kept.values()):  # the last build's, and any stage it had more
        with contextlib.suppress(docker.errors.APIError):
            for tag in client.api.inspect_image(image_id).get("RepoTags") or ():
                if tag.startswith(f"{repository}:") and tag not in kept:
                    client.api.remove_image(tag, noprune=True)
            if not client.api.inspect_image(image_id).get("RepoTags"):
                client.api.remove_image(image_id)  # and the steps under it, if a cache hit put any there


def _remove_steps_images(client: docker.DockerClient, built: str, made: Iterable[str], before: set[str]) -> None:
    """Once the image is made an image of no parent: removes the one the build made and, with
    it, the chain of steps under it (the engine removes each untagged parent that nothing else
    has under it), then what is left of the steps of its other stages."""
    gone: set[str] = set()
    with contextlib.suppress(docker.errors.APIError):
        if not client.api.inspect_image(built).get("RepoTags"):  # or a full cache hit: this bot's image of before
            gone = {r["Deleted"] for r in client.api.remove_image(built) or () if r.get("Deleted")}
    _remove_new_images(client, [i for i in made if not any(g.startswith(f"sha256:{i}") for g in gone)], before)
