"""The build of a bot folder (a Dockerfile and a ``bot.toml``: :mod:`arena.bots.config`) into an
image tagged by name and version, checked by playing it later (:mod:`arena.bots.check`).

A build reads nothing outside the bot folder (or the wider ``root`` that whoever runs the
build, never bot.toml, may give, for bots that share files) and Arena's base images (FROM
and COPY --from name a base or an earlier stage, nothing else: :mod:`arena.bots.dockerfile`),
and runs in a sandbox of its own (:class:`BuildLimits`): no network (no ADD of a URL, no image
pulled), limits on memory, processes, CPU and file size for every RUN step, and the whole
build's time and disk watched while it runs. RUN steps run as the user the Dockerfile is at:
the base image's, or root after ``USER root``. That root is root in a container with Docker's
default capabilities and seccomp profile, no network, those limits and the build's time cap:
what any untrusted ``docker build`` gets, and what package installs need. Hosts that build bots
from strangers should also remap root (dockerd ``--userns-remap``). An image is tagged only once
it passes every check; a failed or refused build removes the images it made, and one that passes
leaves its image only, with no parent (:mod:`arena.bots.cache`).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import docker
import docker.errors
import requests.exceptions
import urllib3.exceptions

from referee import isolation, limits
from referee.sandbox import docker_client, image_problems
from referee.sockets import process_alive

from .cache import (
    CACHE_LABEL,
    FLAT_LABEL,
    STAGES_REPOSITORY,
    keep_cache,
    remade,
    remove_new_images,
    remove_steps_images,
)
from .config import IMAGE_REPOSITORY, BotConfig, BotError
from .dockerfile import check_context, check_dockerfile
from .images import LANGUAGES
from .offline import offline_hint

if TYPE_CHECKING:
    from docker.api.build import _ContainerLimits  # types-docker's TypedDict of build's container_limits

BUILD_TIMEOUT = limits.BUILD_TIMEOUT_S
MAX_IMAGE_MB = limits.MAX_IMAGE_MB
CPU_PERIOD = 100_000  # µs: the CFS period that a build's CPU quota is a share of


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

    def container_limits(self) -> _ContainerLimits:
        """The ``container_limits`` of docker-py's ``build``."""
        return {"memory": self.memory_mb * 2**20, "memswap": self.memory_mb * 2**20,
                "cpushares": self.cpu_shares}

    def engine_params(self, cgroup_parent: str) -> dict[str, Any]:
        """The build parameters of the engine's API that docker-py's ``build`` cannot pass."""
        size = self.file_size_mb * 2**20
        return {"cgroupparent": cgroup_parent, "cpuperiod": CPU_PERIOD, "cpuquota": int(self.cpus * CPU_PERIOD),
                "ulimits": json.dumps([{"Name": "fsize", "Soft": size, "Hard": size}])}


BUILD_LIMITS = BuildLimits()


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
    base = LANGUAGES[config.base]
    buildargs = dict(config.args)
    try:
        client.images.get(base.tag)
    except docker.errors.ImageNotFound:
        raise BuildUnavailable(f"the {config.base} base image {base.tag} is missing: run `make images`") from None
    buildargs["BASE"] = base.tag
    check_context(config)
    check_dockerfile(client, config)
    labels = {"arena.bot.name": config.name, "arena.bot.version": config.version,
              "arena.bot.language": config.language, "arena.bot.base": config.base,
              "arena.bot.protocol": config.protocol,
              "arena.bot.author": config.author,
              "arena.bot.games": ",".join(config.games)}
    dockerfile = str(config.dockerfile.relative_to(config.context))
    repository = f"{IMAGE_REPOSITORY}/{config.name}"
    log: list[str] = []
    made: list[str] = []  # the ids of the images the build says it made
    image_id = flat = ""
    images = client.api.images(all=True)
    before = {image["Id"] for image in images}
    # the build's cache: only this bot's own, its last build's image (each step of
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
                                           f"{chunk['error'].strip()}" + _killed(chunk["error"], limits) + _tail(log)
                                           + offline_hint(log))
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
        flat = remade(client, engine, image["Id"], {CACHE_LABEL: None, FLAT_LABEL: "1"})
        client.api.tag(flat, repository, config.version)
    except BotError:
        remove_new_images(client, [*made, flat] if flat else made, before)
        raise
    with contextlib.suppress(BotError, docker.errors.APIError):  # a cache: the build passed without it
        keep_cache(client, engine, flat, stages)
    remove_steps_images(client, image["Id"], made, before)
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
