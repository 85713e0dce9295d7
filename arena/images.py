"""Base images for bots, built offline from Debian packages.

No container registry is reachable here, so nothing is pulled: ``debootstrap
--variant=minbase`` makes a Debian root filesystem and ``docker import`` turns it into
an image. The Python base adds python3 from Debian, the exact grpcio, protobuf and
uvloop versions that the generated protocol code was made with, installed from wheels
downloaded on the host, and this checkout's protocol package and Python bot kit
(``arena-protocol`` and ``arenabot``), built into wheels on the host: every Python bot,
ours or anyone's, gets the kit from its base, and its build needs only its own folder.

Each image is tagged with a digest of everything that goes into it (the kit's sources
included, so a change to the kit makes a new base), so a second ``make images`` finds the
tag and returns in seconds; ``:latest`` points at the newest.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import importlib.metadata
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors

SUITE = "bookworm"
MIRROR = os.environ.get("ARENA_DEBIAN_MIRROR", "http://deb.debian.org/debian")
CACHE = Path(os.environ.get("ARENA_CACHE", Path.home() / ".cache" / "arena"))
BOT_UID = 10001  # the non-root user every bot runs as
RECIPE_VERSION = "2"  # bump when the recipe below changes
ROOT = Path(__file__).resolve().parent.parent  # the checkout, whose kit goes into the Python base
NOT_BUILT = ("build", "dist", "*.egg-info", "__pycache__", "*.pyc")  # a project's leftovers, never in its wheel


@dataclass(frozen=True)
class BaseImage:
    name: str
    packages: tuple[str, ...]
    wheels: tuple[str, ...]  # distributions installed from host-downloaded wheels, at the host's versions
    description: str
    projects: tuple[Path, ...] = ()  # project folders of this checkout, built into wheels and installed too

    def pins(self) -> tuple[str, ...]:
        return tuple(f"{w}=={importlib.metadata.version(w)}" for w in self.wheels)

    def digest(self) -> str:
        recipe = "\n".join([RECIPE_VERSION, SUITE, platform.machine(), *self.packages, *self.pins(),
                            *map(source_digest, self.projects)])
        return hashlib.sha256(recipe.encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        return f"{self.name}:{self.digest()}"


PYTHON_BASE = BaseImage(
    name="arena/python-base",
    packages=("python3",),
    wheels=("grpcio", "protobuf", "typing_extensions", "uvloop"),
    description="Debian bookworm, python3, grpcio/protobuf/uvloop, and the Python bot kit (arenabot)",
    projects=(ROOT / "protos" / "python", ROOT / "kits" / "python"),
)
BASE_IMAGES = (PYTHON_BASE,)


class ImageBuildError(RuntimeError):
    pass


def source_digest(project: Path) -> str:
    """A digest of everything of ``project`` that can go into its wheel: every file of the
    folder but the leftovers of builds (:data:`NOT_BUILT`)."""
    if not (project / "pyproject.toml").is_file():
        raise ImageBuildError(f"{project} holds no pyproject.toml: the base images are built from a checkout "
                              "of Arena, whose protos/python and kits/python go into them")
    digest = hashlib.sha256()
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project)
        if path.is_file() and not any(fnmatch.fnmatch(part, skip) for part in rel.parts for skip in NOT_BUILT):
            digest.update(f"{rel.as_posix()}\0{path.stat().st_size}\0".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def build_wheels(projects: Iterable[Path], dest: Path) -> list[Path]:
    """Builds each project folder into a wheel in ``dest`` and returns the wheels there.

    Offline: with the setuptools of this environment, no build isolation. Each is built from
    a clean copy, since setuptools would put whatever an earlier build left in the folder's
    build/ into the wheel (a module deleted since, for one).
    """
    projects = list(projects)
    for project in projects:
        source_digest(project)  # a clear error for a folder that is no project
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="arena-wheels-") as tmp:
        copies, out = [Path(tmp) / str(i) for i in range(len(projects))], Path(tmp) / "out"
        for project, copy in zip(projects, copies, strict=True):
            shutil.copytree(project, copy, ignore=shutil.ignore_patterns(*NOT_BUILT))
        _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
              "--wheel-dir", str(out), *map(str, copies)], "building the wheels of " + ", ".join(map(str, projects)))
        return [Path(shutil.move(wheel, dest / wheel.name)) for wheel in sorted(out.glob("*.whl"))]


def existing(client: docker.DockerClient, image: BaseImage) -> bool:
    try:
        client.images.get(image.tag)
        return True
    except docker.errors.ImageNotFound:
        return False


def build_base(client: docker.DockerClient, image: BaseImage, say: Callable[[str], None] = print) -> str:
    """Builds ``image`` unless an image with its digest exists; returns its tag."""
    if existing(client, image):
        client.images.get(image.tag).tag(image.name, "latest")
        say(f"{image.tag}: up to date")
        return image.tag
    _need_debootstrap(say)
    wheels = _download_wheels(image, say)
    with tempfile.TemporaryDirectory(prefix="arena-rootfs-") as tmp:
        if image.projects:
            names = ", ".join(f"{p.parent.name}/{p.name}" for p in image.projects)
            say(f"{image.tag}: building the wheels of {names} ...")
            wheels += build_wheels(image.projects, Path(tmp) / "wheels")
        rootfs = Path(tmp) / "rootfs"
        say(f"{image.tag}: debootstrap {SUITE} ({', '.join(image.packages)}) ...")
        _run(["debootstrap", "--variant=minbase", f"--include={','.join(image.packages)}",
              SUITE, str(rootfs), MIRROR], "debootstrap")
        _slim(rootfs)
        if wheels:
            site = rootfs / "usr" / "local" / "lib" / f"python{_debian_python(rootfs)}" / "dist-packages"
            _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                  "--target", str(site), *map(str, wheels)], "installing wheels")
        _add_bot_user(rootfs)
        say(f"{image.tag}: docker import ...")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        assert tar.stdout is not None
        try:
            imported = client.api.import_image_from_stream(
                tar.stdout, repository=image.name, tag=image.digest(),
                changes=['ENV PATH=/usr/local/bin:/usr/bin:/bin', f'USER {BOT_UID}:{BOT_UID}',
                         'WORKDIR /bot', f'LABEL arena.base="{image.name}"'])
        finally:
            tar.stdout.close()
            tar.wait()
        if "error" in str(imported).lower() and "sha256" not in str(imported):
            raise ImageBuildError(f"docker import failed: {imported}")
    client.images.get(image.tag).tag(image.name, "latest")
    _untag_older(client, image)
    say(f"{image.tag}: built")
    return image.tag


def _untag_older(client: docker.DockerClient, image: BaseImage) -> None:
    """Drops the tags of earlier recipes; their layers go once no bot image is built on them."""
    for old in client.images.list(name=image.name):
        for tag in old.tags:
            if tag not in (image.tag, f"{image.name}:latest"):
                with contextlib.suppress(docker.errors.APIError):
                    client.images.remove(tag)


def _need_debootstrap(say: Callable[[str], None]) -> None:
    if shutil.which("debootstrap"):
        return
    if os.geteuid() != 0:
        raise ImageBuildError("debootstrap is missing; install it (apt-get install debootstrap) as root")
    say("installing debootstrap ...")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run(["apt-get", "update", "-qq"], "apt-get update", env)
    _run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "debootstrap"],
         "installing debootstrap", env)


def _download_wheels(image: BaseImage, say: Callable[[str], None]) -> list[Path]:
    if not image.wheels:
        return []
    key = hashlib.sha256("\n".join([platform.machine(), *image.pins()]).encode()).hexdigest()[:12]
    target = CACHE / "wheels" / key
    if not target.exists() or not any(target.glob("*.whl")):
        say(f"{image.tag}: downloading wheels {' '.join(image.pins())} ...")
        target.mkdir(parents=True, exist_ok=True)
        _run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
              "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
              "--platform", f"manylinux2014_{platform.machine()}",
              "--platform", f"manylinux_2_17_{platform.machine()}",
              "--platform", f"manylinux_2_28_{platform.machine()}",
              "-d", str(target), *image.pins()], "downloading wheels")
    return sorted(target.glob("*.whl"))


def _debian_python(rootfs: Path) -> str:
    found = sorted(p.name.removeprefix("python") for p in (rootfs / "usr" / "lib").glob("python3.*")
                   if p.name[len("python3."):].isdigit())
    if not found:
        raise ImageBuildError("debootstrap produced no python3")
    return found[-1]


def _slim(rootfs: Path) -> None:
    """Drops what a bot never needs: apt lists, docs, man pages, caches."""
    for rel in ("var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info",
                "var/cache/apt", "usr/share/locale"):
        path = rootfs / rel
        if path.exists():
            shutil.rmtree(path)
            path.mkdir()


def _add_bot_user(rootfs: Path) -> None:
    etc = rootfs / "etc"
    with open(etc / "passwd", "a") as f:
        f.write(f"bot:x:{BOT_UID}:{BOT_UID}:arena bot:/tmp:/usr/sbin/nologin\n")
    with open(etc / "group", "a") as f:
        f.write(f"bot:x:{BOT_UID}:\n")
    (rootfs / "bot").mkdir(exist_ok=True)


def _run(cmd: list[str], what: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise ImageBuildError(f"{what} failed (exit {proc.returncode}):\n{tail}")


def base_image_status(client: docker.DockerClient) -> list[tuple[BaseImage, bool]]:
    return [(image, existing(client, image)) for image in BASE_IMAGES]
