"""Bots in Docker containers: the sandbox profile, the container seat, and the sweep.

:class:`SandboxProfile` holds every limit a bot's container runs under (its numbers are
``referee/limits.py``'s): no network, a read-only root and a small /tmp, no swap, one core, a
pids limit, no capabilities, a user of its own, and arena-init (``referee/init.c``) as its first
process. The profile is Arena's whatever the image says: of an image's settings only ENTRYPOINT,
CMD, ENV, WORKDIR and LABEL act, a health check is disabled and a volume refused
(:data:`REFUSED_SETTINGS`, which builds refuse too). A container lives for its match (or rotation),
is removed with its volumes, and :func:`sweep` removes what a dead referee left. Why each limit and
setting, as trusted judges do it: docs/sandbox.md ("The container profile").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import docker
import docker.errors
import docker.types
import requests.exceptions

from . import cpu, isolation, limits
from .fairness import CGROUP_ROOT, Cgroup, CgroupError
from .limits import LOG_CAP
from .output import FIFO_NAME, OutputPipe
from .seats import START_FAILED, TAIL_LINES, Failure, GrpcSeat
from .sockets import owner_alive as _owner_alive
from .sockets import owner_id
from .sockets import sweep as sweep_socket_folders
from .transport import TAIL_BYTES

LABEL = "arena.managed"
STDIO_ADAPTER = "/usr/local/bin/arena-stdio"  # in every Arena base image: runs a stdio bot (arenabot.stdio)
OWNER_LABEL = "arena.referee"  # "host:pid" of the referee that started the container
SOCKET_MOUNT = "/run/arena"
LANGUAGE_CHARS = 32  # of an image's arena.bot.language label, kept in the records (an image's text)


@dataclasses.dataclass(frozen=True)
class SandboxProfile:
    """The limits of one bot container. The defaults are Arena's (referee/limits.py)."""

    memory_mb: int = limits.MEMORY_MB  # and the same for memory+swap: no swap at all
    cpus: float = limits.CPUS
    pids: int = limits.PIDS
    tmpfs_mb: int = limits.TMPFS_MB  # /tmp, the only writable place
    shm_mb: int = limits.SHM_MB
    file_size_mb: int = limits.FILE_SIZE_MB  # ulimit fsize: no single file larger than this
    open_files: int = limits.OPEN_FILES
    log_max_size: str = limits.DOCKER_LOG_MAX  # docker's json-file log, one file (arena-init's own errors)
    user: str | None = None  # None: a user id of its own for each container (referee/isolation.py)

    def container_options(self) -> dict[str, Any]:
        """Keyword arguments for docker-py's ``containers.create``."""
        mb = 1024 * 1024
        return {
            "network_mode": "none",
            "read_only": True,
            "tmpfs": {"/tmp": f"rw,nosuid,nodev,size={self.tmpfs_mb}m,mode=1777"},
            "mem_limit": self.memory_mb * mb,
            "memswap_limit": self.memory_mb * mb,
            "nano_cpus": int(self.cpus * 1e9),
            "pids_limit": self.pids,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "user": self.user or isolation.own_user(),
            "init": False,  # arena-init is the init, whatever the engine's default: docker-init would hold its pipes
            "ipc_mode": "private",
            "shm_size": self.shm_mb * mb,
            "ulimits": [
                docker.types.Ulimit(name="fsize", soft=self.file_size_mb * mb, hard=self.file_size_mb * mb),
                docker.types.Ulimit(name="nofile", soft=self.open_files, hard=self.open_files),
            ],
            "log_config": docker.types.LogConfig(
                type="json-file", config={"max-size": self.log_max_size, "max-file": "1"}),
            "hostname": "bot",
            "stdin_open": False,
            "healthcheck": {"test": ["NONE"]},  # whatever the image declares: docs/sandbox.md says why
        }


PROFILE = SandboxProfile()

# The settings of an image's Config (``docker image inspect``) that Arena refuses at build and
# validate time: the Dockerfile instruction that sets each, and why it is refused and how to fix it.
REFUSED_SETTINGS = {
    "Volumes": ("VOLUME", "a volume is writable storage beside the read-only root and the /tmp cap, "
                "left on the host after the match; remove it and write to /tmp"),
    "Healthcheck": ("HEALTHCHECK", "the Docker engine would run the check on the host's CPU, outside "
                    "the bot's core; remove it (HEALTHCHECK NONE cancels a base image's)"),
    "ExposedPorts": ("EXPOSE", "bots have no network; remove it"),
    "StopSignal": ("STOPSIGNAL", "bots are always stopped with SIGKILL; remove it"),
    "OnBuild": ("ONBUILD", "a bot's image is never built upon; remove it"),
}


def image_problems(config: dict[str, Any] | None, keys: Iterable[str] = REFUSED_SETTINGS) -> list[str]:
    """One sentence for each setting of ``keys`` that an image's ``Config`` declares."""
    problems = []
    for key in keys:
        value = (config or {}).get(key)
        if not value or (key == "Healthcheck" and value.get("Test") == ["NONE"]):
            continue
        if isinstance(value, dict):  # a health check's command, or the volumes or ports
            value = value.get("Test") or sorted(value)
        instruction, why = REFUSED_SETTINGS[key]
        problems.append(f"{instruction} {value!r}: {why}")  # repr: the image's strings are hostile
    return problems


class NoDockerEngine(Exception):
    """No Docker engine answers; the message says how to start one."""


def docker_client(timeout: int = 60) -> docker.DockerClient:
    """A new client of the Docker engine (``DOCKER_HOST``, else the local socket) that has
    answered a ping. ``timeout`` is each request's, in seconds. Its owner closes it; most
    code shares the process's own, :func:`client`."""
    engine = None
    try:
        engine = docker.from_env(timeout=timeout)
        engine.ping()
    except (docker.errors.DockerException, requests.exceptions.RequestException) as exc:
        if engine is not None:
            engine.close()
        where = os.environ.get("DOCKER_HOST") or "unix:///var/run/docker.sock"
        raise NoDockerEngine(f"no Docker engine answers at {where} ({exc}); start one with "
                             "scripts/docker-up.sh (as root)") from None
    return engine


_CLIENT: docker.DockerClient | None = None


def client() -> docker.DockerClient:
    """The process's Docker client (created on first use)."""
    global _CLIENT
    if _CLIENT is None:
        _CLIENT = docker_client()
    return _CLIENT


WARM_WAIT_S = 3.0  # a seat's first start waits this long at most for its image's pages (isolation.warm)
_FILES = ThreadPoolExecutor(max_workers=1, thread_name_prefix="arena-files")  # walks image layers
_SEAT_CGROUPS: bool | None = None


def _seat_cgroups() -> bool:
    """Whether seats can have cgroups of their own here: Docker's cgroupfs driver, and a cgroup
    tree the referee may write (root). Whether it is the engine's own shows once a container
    is in it (``SeatCgroup.reclaim`` fails if not): a referee in a container with the host's
    cgroups (docs/deploy.md) has a hostname of its own."""
    global _SEAT_CGROUPS
    if _SEAT_CGROUPS is None:
        try:
            info = client().info()
        except (NoDockerEngine, docker.errors.DockerException, requests.exceptions.RequestException):
            return False
        memory = CGROUP_ROOT if (CGROUP_ROOT / "cgroup.controllers").exists() else CGROUP_ROOT / "memory"
        _SEAT_CGROUPS = info.get("CgroupDriver") == "cgroupfs" and os.access(memory, os.W_OK)
    return _SEAT_CGROUPS


def _warm(layers: list[Path], done: threading.Event) -> None:
    """Warms the layers in a thread that runs only when nothing else of the core wants to: it
    may go on into the match, on the match's core."""
    with contextlib.suppress(AttributeError, OSError):  # Linux
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # this thread only
    with contextlib.suppress(OSError):  # the layers cannot be read here: start-ups read from the disk
        isolation.warm(layers)
    done.set()


class ContainerSeat(GrpcSeat):
    """A bot in a container built from ``image``, for the whole match.

    An image labelled ``arena.bot.protocol=stdio`` (bot.toml's ``protocol = "stdio"``) runs
    under the stdio adapter of its base image: the adapter is the container's program, and the
    image's own ENTRYPOINT and CMD are the bot it runs; its hello gives the name, version and
    games of the image's ``arena.bot.*`` labels (``arena bot build`` sets them from bot.toml).
    """

    def __init__(self, name: str, version: str, image: str, socket_dir: Path, log_path: Path,
                 match_id: str = "", profile: SandboxProfile = PROFILE) -> None:
        super().__init__(name, version, socket_dir, log_path)
        self.image = image
        self.match_id = match_id
        self.profile = profile
        self.container: Any = None
        self.output = OutputPipe(log_path)
        self.seat_cgroup: isolation.SeatCgroup | None = None  # its containers' cgroup_parent, when it has one
        self._launching: asyncio.Future[tuple[Any, Cgroup | None]] | None = None

    @property
    def address(self) -> str:
        return f"unix://{SOCKET_MOUNT}/{self.socket_path.name}"  # as the container sees it

    async def launch(self) -> None:
        self.output.open(self.socket_dir)  # before the container: arena-init opens it for writing
        # A match stopped by a signal cancels this await, not the engine's calls in the thread: kill()
        # waits for them, so a container made after the cancel is still removed.
        self._launching = asyncio.ensure_future(asyncio.to_thread(self._create_and_start))
        self.container, self.cgroup = await asyncio.shield(self._launching)
        self._launching = None

    def _find_cgroup(self) -> Cgroup | None:
        """The container's cgroup, for the fairness guard (``referee/fairness.py``); None
        when this host does not let the referee read and freeze it."""
        parent = self.seat_cgroup.name if self.seat_cgroup else "docker"
        try:
            return Cgroup.of_docker_id(self.container.id, parent=parent)  # where Docker's cgroup drivers put it
        except CgroupError:
            pass
        try:
            self.container.reload()
            return Cgroup.of_pid(self.container.attrs["State"]["Pid"])
        except (docker.errors.APIError, CgroupError, KeyError, ValueError):
            return None

    def _program(self, config: dict[str, Any]) -> list[str]:
        """What arena-init runs: the image's ENTRYPOINT and CMD, under the stdio adapter for a
        stdio image."""
        if (config.get("Labels") or {}).get("arena.bot.protocol") == "stdio":
            return self._stdio_program(config)
        program = [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])]
        if not program:
            raise Failure(START_FAILED, f"the image {self.image} has neither ENTRYPOINT nor CMD: nothing to run")
        return program

    def _create_and_start(self) -> tuple[Any, Cgroup | None]:
        """The started container, and its cgroup."""
        try:
            engine = client()
            init = isolation.init_binary()
        except (NoDockerEngine, isolation.IsolationError) as exc:
            raise Failure(START_FAILED, str(exc)) from None
        options = self.profile.container_options()
        cpus = cpu.cpuset()
        if cpus is not None:  # the referee's own core(s): see referee/cpu.py
            options["cpuset_cpus"] = cpus
        try:
            image = engine.api.inspect_image(self.image)
        except docker.errors.ImageNotFound:
            raise Failure(START_FAILED, f"no image {self.image!r} (build it with: arena bot build)") from None
        except docker.errors.APIError as exc:
            raise Failure(START_FAILED, f"cannot inspect the image {self.image}: {exc.explanation}") from None
        config = image.get("Config") or {}
        options["entrypoint"] = [isolation.INIT_MOUNT, f"{SOCKET_MOUNT}/{FIFO_NAME}", "--"]
        options["command"] = self._program(config)
        if self.seat_cgroup is None and _seat_cgroups():
            self.seat_cgroup = isolation.SeatCgroup()
        if self.seat_cgroup is not None:
            options["cgroup_parent"] = self.seat_cgroup.parent
        layers = isolation.image_layers(image)
        problems = _FILES.submit(isolation.file_problems, layers)  # the walk, once per layer and process
        warmed = threading.Event()  # a daemon thread: a referee that ends does not wait for it
        threading.Thread(target=_warm, args=(layers, warmed), name="arena-warm", daemon=True).start()
        try:
            container = engine.containers.create(
                image["Id"],  # what was inspected, whatever the tag says by now
                environment={"ARENA_SOCKET": self.address, "HOME": "/tmp"},
                volumes={str(self.socket_dir): {"bind": SOCKET_MOUNT, "mode": "ro"}},
                # a mount, not a volume: the engine refuses a missing source instead of making a folder there
                mounts=[docker.types.Mount(isolation.INIT_MOUNT, str(init), type="bind", read_only=True)],
                labels={LABEL: "1", OWNER_LABEL: owner_id(), "arena.match": self.match_id,
                        "arena.bot": self.name},
                detach=True,
                **options,
            )
        except docker.errors.ImageNotFound:
            raise Failure(START_FAILED, f"no image {self.image!r} (build it with: arena bot build)") from None
        except docker.errors.APIError as exc:
            raise Failure(START_FAILED,
                          f"cannot create a container of {self.image}: {exc.explanation}") from None
        # The created container's own settings (its image's, merged), so no retag in between can
        # slip past. Of the refused settings only volumes would act here: the profile disables
        # health checks, and ports, stop signals and build triggers do nothing (docs/sandbox.md).
        config = dict(container.attrs.get("Config") or {})
        config["Volumes"] = {v: {} for v in config.get("Volumes") or {} if v != SOCKET_MOUNT}  # not ours
        refused = image_problems(config, keys=("Volumes",))
        with contextlib.suppress(OSError):  # the layers cannot be read here (not root): no check of files
            refused += problems.result()
        if refused:
            container.remove(force=True, v=True)
            raise Failure(START_FAILED, f"the image {self.image} is refused: {'; '.join(refused)}")
        warmed.wait(WARM_WAIT_S)  # only start-up time is at stake (isolation.warm)
        try:
            container.start()
        except docker.errors.APIError as exc:
            container.remove(force=True, v=True)
            raise Failure(START_FAILED, f"cannot start {self.image}: {exc.explanation}") from None
        self.container = container
        self.language = str((config.get("Labels") or {}).get("arena.bot.language", ""))[:LANGUAGE_CHARS]
        return container, self._find_cgroup()

    def _stdio_program(self, config: dict[str, Any]) -> list[str]:
        """The stdio adapter's command line that runs a stdio image's program."""
        labels = config.get("Labels") or {}
        if not labels.get("arena.base"):
            raise Failure(START_FAILED, f"the image {self.image} speaks stdio (arena.bot.protocol), but it is not "
                          f"built on an Arena base image, so it has no stdio adapter ({STDIO_ADAPTER}): build "
                          "it FROM the base image that arena bot build passes as the BASE argument")
        program = [*(config.get("Entrypoint") or []), *(config.get("Cmd") or [])]
        if not program:
            raise Failure(START_FAILED, f"the image {self.image} speaks stdio, but has neither ENTRYPOINT nor "
                          "CMD: the stdio adapter has no program to run (give the bot's command as CMD)")
        hello = [f"--name={labels.get('arena.bot.name') or self.name}",  # with "=": a value may start with "-"
                 f"--version={labels.get('arena.bot.version') or self.version or '0'}",
                 f"--games={labels.get('arena.bot.games', '')}"]
        return [STDIO_ADAPTER, *hello, "--", *program]

    async def output_tail(self) -> bytes:
        self.output.drain()  # what is in the pipe: a crashed bot's last words
        if self.output.tail:
            return bytes(self.output.tail)
        if self.container is None:
            return b""
        return await asyncio.to_thread(self._engine_log_tail)  # arena-init's own errors, if any

    def _engine_log_tail(self) -> bytes:
        try:  # a few lines more than shown: some may be empty
            logs: bytes = self.container.logs(stdout=True, stderr=True, tail=4 * TAIL_LINES)
            return logs[-TAIL_BYTES:]
        except (docker.errors.APIError, requests.exceptions.RequestException):
            return b""

    def timeout_note(self) -> str:
        if not self.output.throttled:
            return ""
        return (f"; its output passed the cap of {LOG_CAP // 1024} KiB a match, past which it is read at "
                f"{limits.LOG_RATE // 1024} KiB/s: a bot that writes faster waits in its writes")

    async def exit_status(self, wait: float) -> str | None:
        if self.container is None:
            return "not started"
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            state = await asyncio.to_thread(self._state)
            if state is None or state.get("Status") != "running":
                break
            if loop.time() >= deadline:
                return None
            await asyncio.sleep(0.05)
        if state is None:
            return "container gone"
        if state.get("OOMKilled"):
            return f"killed: out of memory (limit {self.profile.memory_mb} MiB)"
        code = state.get("ExitCode", -1)
        return f"killed by signal {code - 128}" if code > 128 else f"exit code {code}"

    def _state(self) -> dict[str, Any] | None:
        try:
            self.container.reload()
        except docker.errors.NotFound:
            return None
        return cast(dict[str, Any], self.container.attrs.get("State", {}))

    async def kill(self) -> None:
        launching, self._launching = self._launching, None
        if launching is not None:  # a launch cancelled mid-start, or failed (launch reported that)
            with contextlib.suppress(Exception):
                self.container, self.cgroup = await launching
        container, self.container = self.container, None
        cgroup, self.cgroup = self.cgroup, None
        if container is not None:
            engine_log = await asyncio.to_thread(self._remove, container, cgroup)
            self.output.drain()  # the last words still in the pipe
            self.output.append(engine_log)
        self.output.close()

    async def close(self) -> None:
        await super().close()
        self.output.finish()
        if self.seat_cgroup is not None:
            await asyncio.to_thread(self.seat_cgroup.remove)

    def memory_now(self) -> int | None:
        return None if self.container is None else peak_memory(self.container.id, self._parent)

    @property
    def _parent(self) -> str:
        return self.seat_cgroup.name if self.seat_cgroup else "docker"

    def _remove(self, container: Any, cgroup: Cgroup | None) -> bytes:
        """Removes the container, then reclaims what it left in the host's caches; returns what
        reached the engine's log (arena-init's own errors)."""
        self.memory_seen(peak_memory(container.id, self._parent))  # its cgroup goes when its processes end
        if cgroup is not None:  # a frozen container cannot be killed: see _thaw
            with contextlib.suppress(OSError):
                cgroup.thaw()
            cgroup.close()
        with contextlib.suppress(docker.errors.APIError):
            container.kill()
        logs = b""
        with contextlib.suppress(docker.errors.APIError, requests.exceptions.RequestException):
            logs = container.logs(stdout=True, stderr=True)[-TAIL_BYTES:]
        with contextlib.suppress(docker.errors.NotFound):
            container.remove(force=True, v=True)
        if self.seat_cgroup is None:
            self.isolated = False
        else:
            try:
                self.seat_cgroup.reclaim()
            except OSError:
                self.isolated = False
            else:
                self.isolated = self.isolated is not False
        return logs


def peak_memory(container_id: str, parent: str = "docker") -> int | None:
    """The most memory a running container's processes have held at once (its memory cgroup's
    peak, page cache included, as its limit counts it), in bytes; None where that cannot be read
    (the cgroup goes as soon as the container's processes end). ``parent``: the container's
    cgroup parent, the engine's own by default."""
    for path in (CGROUP_ROOT / "memory" / parent / container_id / "memory.max_usage_in_bytes",  # v1
                 CGROUP_ROOT / parent / container_id / "memory.peak",  # v2, cgroupfs driver
                 CGROUP_ROOT / "system.slice" / f"docker-{container_id}.scope" / "memory.peak"):  # v2, systemd
        with contextlib.suppress(OSError, ValueError):
            return int(path.read_text())
    return None


def _thaw(container: Any) -> None:
    """Thaws a container its referee may have left frozen (``referee/fairness.py``). runc kills
    a container by freezing it first and waits until it is frozen, which never happens to one
    frozen in the middle of an exec (the exec waits for threads that are frozen): without the
    thaw, its removal would hang."""
    with contextlib.suppress(CgroupError, KeyError, ValueError):
        cgroup = Cgroup.of_pid(container.attrs["State"]["Pid"])
        with contextlib.suppress(OSError):
            cgroup.thaw()
        cgroup.close()


def sweep(everything: bool = False) -> tuple[int, int]:
    """Removes containers and socket directories left by referees that are no longer
    running (with ``everything``, all of Arena's). Returns (containers, directories)."""
    containers = dirs = 0
    try:
        found = client().containers.list(all=True, filters={"label": LABEL})
    except (NoDockerEngine, docker.errors.DockerException):
        found = []
    for container in found:
        if everything or not _owner_alive(container.labels.get(OWNER_LABEL, "")):
            _thaw(container)
            with contextlib.suppress(docker.errors.APIError):
                container.remove(force=True, v=True)
                containers += 1
    with contextlib.suppress(OSError):  # their seats' cgroups (referee/isolation.py), once their containers are gone
        isolation.sweep_cgroups()
    dirs = sweep_socket_folders(everything)  # (referee/sockets.py)
    return containers, dirs
