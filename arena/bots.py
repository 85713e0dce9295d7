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

A build reads nothing outside the bot folder (or the wider ``root`` that whoever runs the
build, never bot.toml, may give, for bots that share files) and its base
image, and runs in a sandbox of its own (:class:`BuildLimits`): no network (no ADD of a URL,
no image pulled, no bot's image read), and limits on memory, processes, CPU and file size for
every RUN step. RUN steps run as the user the Dockerfile is at: the base image's, or root
after ``USER root``. That root is root in a container with Docker's default capabilities and
seccomp profile, no network, those limits and the build's time cap: what any untrusted
``docker build`` gets, and what package installs need. Hosts that build bots from strangers
should also remap root (dockerd ``--userns-remap``). An image is tagged only once it passes
every check; a failed or refused build removes the images it made.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socket
import stat
import time
import tomllib
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

from .images import LANGUAGES

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
VERSION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
IMAGE_REPOSITORY = "arena-bot"
BUILD_TIMEOUT = limits.BUILD_TIMEOUT_S
MAX_IMAGE_MB = limits.MAX_IMAGE_MB
PROTOCOLS = ("grpc", "stdio")  # how a bot talks: gRPC itself, or JSON lines through the stdio adapter
CPU_PERIOD = 100_000  # µs: the CFS period that a build's CPU quota is a share of


class BotError(Exception):
    """A bot folder that cannot be built; the message says why."""


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
    """Reads and checks a bot folder's bot.toml. The build may read only what is inside ``root``
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
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise BotError(f"{path} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"name", "version", "language", "protocol", "author", "games", "build"})
    if unknown:
        raise BotError(f"{path}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "version", "language", "author"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise BotError(f"{path}: {key!r} is missing or not a non-empty string")
    for problem in (name_problem(data["name"]), version_problem(data["version"])):
        if problem:
            raise BotError(f"{path}: {problem}")
    if data["language"] not in LANGUAGES:
        raise BotError(f"{path}: language {data['language']!r} is not one Arena has a base image for; "
                       f"known: {', '.join(LANGUAGES)} (a bot in any other language can use the stdio "
                       "protocol on one of these bases: see docs/writing-a-bot.md)")
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise BotError(f"{path}: protocol {protocol!r} must be one of {', '.join(map(repr, PROTOCOLS))}")
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
    context = _confined(path, root, "context", build.get("context", "."))
    dockerfile = _confined(path, root, "dockerfile", build.get("dockerfile", "Dockerfile"))
    if not dockerfile.is_file():
        raise BotError(f"no Dockerfile: {dockerfile} does not exist")
    if not dockerfile.is_relative_to(context):
        raise BotError(f"the Dockerfile {dockerfile} must be inside the build context {context}")
    return BotConfig(folder=folder, root=root, name=data["name"], version=data["version"],
                     language=data["language"], author=data["author"], games=tuple(games), protocol=protocol,
                     context=context, dockerfile=dockerfile, args=dict(args))


def _confined(toml: Path, root: Path, key: str, value: Any) -> Path:
    """The resolved path of ``[build] key``, which must lead to a place inside ``root``."""
    if not isinstance(value, str) or not value:
        raise BotError(f"{toml}: [build] {key} must be a path relative to the bot folder")
    if Path(value).is_absolute():
        raise BotError(f"{toml}: [build] {key} {value!r} is an absolute path; "
                       "give a path relative to the bot folder")
    resolved = Path(os.path.realpath(toml.parent / value))  # through every symlink on the way
    if not resolved.is_relative_to(root):
        raise BotError(f"{toml}: [build] {key} {value!r} leads outside the bot folder (to {resolved}); "
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
    timeout: float = BUILD_TIMEOUT,
    max_size_mb: float = MAX_IMAGE_MB,
    say: Callable[[str], None] = lambda line: None,
    limits: BuildLimits = BUILD_LIMITS,
) -> BuildResult:
    """Builds the bot's image in the build's sandbox and tags it once it passes every check.
    Every failure raises BotError naming the cause, and leaves none of the build's images."""
    base = LANGUAGES[config.language]
    buildargs = dict(config.args)
    try:
        client.images.get(base.tag)
    except docker.errors.ImageNotFound:
        raise BotError(f"the {config.language} base image {base.tag} is missing: run `make images`") from None
    buildargs["BASE"] = base.tag
    _check_context(config)
    _check_dockerfile(client, config, buildargs)
    labels = {"arena.bot.name": config.name, "arena.bot.version": config.version,
              "arena.bot.language": config.language, "arena.bot.protocol": config.protocol,
              "arena.bot.author": config.author,
              "arena.bot.games": ",".join(config.games)}
    dockerfile = str(config.dockerfile.relative_to(config.context))
    api = docker_client().api  # the build's own, closed below: the daemon cancels a build whose client is gone
    log: list[str] = []
    made: list[str] = []  # the ids of the images the build says it made
    image_id = ""
    before = set(client.api.images(all=True, quiet=True))
    start = time.monotonic()
    try:
        try:
            with _build_cgroup(client, limits.pids) as cgroup:
                api.params = limits.engine_params(cgroup)  # sent with every request of this client
                stream = api.build(path=str(config.context), dockerfile=dockerfile, buildargs=buildargs,
                                   labels=labels, rm=True, forcerm=True, decode=True, pull=False,
                                   timeout=max(1, int(timeout)), network_mode="none",
                                   container_limits=limits.container_limits(),
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
                        raise BotError(f"the build of {config.tag} failed: {chunk['error'].strip()}"
                                       + _killed(chunk["error"], limits) + _tail(log))
                    if time.monotonic() - start > timeout:
                        raise BotError(f"the build of {config.tag} took longer than {timeout:.0f} s")
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError,
                urllib3.exceptions.ReadTimeoutError, TimeoutError):
            raise BotError(f"the build of {config.tag} took longer than {timeout:.0f} s") from None
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
        client.api.tag(image_id, f"{IMAGE_REPOSITORY}/{config.name}", config.version)
    except BotError:
        _remove_new_images(client, made, before)
        raise
    finally:
        api.close()
    return BuildResult(config.tag, size_mb, time.monotonic() - start, log)


def _tail(log: list[str], lines: int = 12) -> str:
    return ("\nlast lines of the build:\n  " + "\n  ".join(log[-lines:])) if log else ""


def _killed(error: str, limits: BuildLimits) -> str:
    if error.rstrip().endswith("non-zero code: 137"):  # 128 + SIGKILL
        return f" (killed: most likely over the build's memory limit of {limits.memory_mb} MiB)"
    return ""


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


def _check_dockerfile(client: docker.DockerClient, config: BotConfig, buildargs: dict[str, str]) -> None:
    """Refuses what would bring into the build anything but the bot folder and its base image:
    an ADD of a URL (the Docker engine downloads it itself, with the host's own network), and a
    FROM or COPY --from of a bot's image (a RUN step would print its files into the build log,
    which goes back to the author) or of an image not on this engine (the engine would pull it)."""
    meta: dict[str, str] = {}  # the ARGs before the first FROM: FROM may use them
    stages: list[str] = []  # the stages so far, by number and by name
    froms = 0
    for number, keyword, args in _instructions(config.dockerfile.read_text(errors="replace")):
        where = f"{config.dockerfile.name}, line {number}"
        words = _words(args)
        if keyword == "ARG" and not froms:
            for word in words:
                name, _, default = word.partition("=")
                meta[name] = buildargs.get(name, default.strip("\"'"))
        elif keyword == "FROM" and (refs := [w for w in words if not w.startswith("--")]):
            image, *alias = refs  # FROM [--platform=...] image [AS name]
            image = _expand(image, meta)
            if image.lower() not in stages + ["scratch"]:
                _check_image(client, where, "FROM", image)
            stages += [str(froms), *(name.lower() for name in alias[1:2])]
            froms += 1
        elif keyword == "COPY":
            for source in (w.removeprefix("--from=") for w in words if w.startswith("--from=")):
                if source.lower() not in stages:
                    _check_image(client, where, "COPY --from", source)
        elif keyword == "ADD":
            for source in [w for w in words if not w.startswith("--")][:-1]:
                if REMOTE_SOURCE.search(source):
                    raise BotError(f"{where}: ADD {source!r} is refused: ADD downloads a URL (which a variable "
                                   "may hold) with the Docker engine's own network. Bot builds are offline: "
                                   "put the file in the bot folder and COPY it")


def _check_image(client: docker.DockerClient, where: str, what: str, image: str) -> None:
    try:
        labels = client.api.inspect_image(image)["Config"].get("Labels") or {}
    except docker.errors.APIError:
        raise BotError(f"{where}: {what} {image!r} is not an image on this Docker engine, and bot builds are "
                       "offline: start from the base image that Arena passes as the BASE build argument") from None
    if labels.get("arena.bot.name"):
        raise BotError(f"{where}: {what} {image!r} is refused: it is the image of the bot "
                       f"{labels['arena.bot.name']!r}, and a build may read no bot's image")


def _words(args: str) -> list[str]:
    """An instruction's arguments, in JSON or shell form."""
    if args.startswith("["):
        with contextlib.suppress(ValueError):
            words = json.loads(args)
            if isinstance(words, list):
                return [str(w) for w in words]
    return args.split()


def _expand(word: str, variables: dict[str, str]) -> str:
    """``$VAR``, ``${VAR}``, ``${VAR:-default}`` and ``${VAR:+alternative}``, as Docker expands them."""
    def value(match: re.Match[str]) -> str:
        name, operator, other = match[1] or match[4], match[2], match[3]
        current = variables.get(name, "")
        if operator == "-":
            return current or other
        if operator == "+":
            return other if current else ""
        return current

    return re.sub(r"\$(?:\{(\w+)(?::([-+])([^}]*))?\}|(\w+))", value, word)


def _instructions(text: str) -> Iterator[tuple[int, str, str]]:
    """A Dockerfile's instructions as (first line, KEYWORD, arguments), with continuation lines
    joined and comments dropped as Docker does."""
    escape = "\\"
    for line in text.splitlines():  # parser directives: comments before anything else
        directive = re.fullmatch(r"\s*#\s*(\w+)\s*=\s*(\S*)\s*", line)
        if not directive:
            break
        if directive[1].lower() == "escape" and directive[2]:
            escape = directive[2][0]
    joined, first = "", 0
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue  # blank lines and comments, between instructions or inside one
        first = first or number
        joined += stripped
        if stripped.endswith(escape):
            joined = joined[:-1] + " "
            continue
        keyword, *args = joined.split(None, 1)
        yield first, keyword.upper(), "".join(args)
        joined, first = "", 0
    if joined.strip():  # a continuation at the very end
        keyword, *args = joined.split(None, 1)
        yield first, keyword.upper(), "".join(args)


@contextlib.contextmanager
def _build_cgroup(client: docker.DockerClient, pids: int) -> Iterator[str]:
    """A cgroup of the build's own on the Docker host, holding its pids limit; yields its path
    for the engine's ``cgroupparent``. On the way out it removes the containers still in it (a
    cancelled step), then the cgroup from every hierarchy (runc makes it in each)."""
    info = client.info()
    driver, version = info.get("CgroupDriver"), info.get("CgroupVersion")
    if (driver, version) != ("cgroupfs", "1"):
        raise BotError("bot builds are held to their pids limit by a cgroup that Arena sets up for Docker's "
                       f"cgroupfs driver on cgroup v1; this engine has the {driver} driver on cgroup v{version}")
    if info.get("Name") != socket.gethostname():
        raise BotError("bot builds are held to their pids limit by a cgroup that Arena sets up on the Docker "
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
        raise BotError(f"cannot set up the build's cgroup {CGROUPS / 'pids' / name}: {exc.strerror} "
                       "(bot builds need root on the Docker host)") from None
    try:
        yield f"/{name}"
    finally:
        _remove_cgroup(client, name)


def _remove_cgroup(client: docker.DockerClient, name: str, wait: float = 10.0) -> None:
    pids = CGROUPS / "pids" / name
    for container in (pids.iterdir() if pids.is_dir() else ()):
        if container.is_dir():  # a container's cgroup is named by its id
            with contextlib.suppress(docker.errors.APIError):
                client.api.remove_container(container.name, force=True, v=True)
    deadline = time.monotonic() + wait
    for hierarchy in CGROUPS.iterdir():
        while True:
            try:
                (hierarchy / name).rmdir()
            except FileNotFoundError:
                break
            except OSError:  # busy until runc has removed the containers' own cgroups
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            else:
                break


def process_alive(pid: int) -> bool:
    """Whether a process ``pid`` of this host (or container) may still run: another user's counts."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
