"""Base images for bots, one per language, built offline from Debian packages.

No container registry is reachable here, so nothing is pulled: ``debootstrap
--variant=minbase`` makes a Debian root filesystem and ``docker import`` turns it into an
image. Every base holds python3 from Debian, the exact grpcio, protobuf and uvloop versions
that the generated protocol code was made with (wheels downloaded on the host), and this
checkout's protocol package, game engines and Python bot kit (``arena-protocol``,
``arena-games`` and ``arenabot``, built into wheels on the host; bots simulate with the engines): the
Python kit for Python bots, and in every base the stdio adapter (``arena-stdio``,
:mod:`arenabot.stdio`) for bots that speak JSON lines instead of gRPC. A language's own kit
(``kits/<language>/``) then finishes its base with the kit's ``image.Dockerfile``, built with
no network from a context holding the kit and ``protos/``: whatever that language needs from
elsewhere (npm packages, say) is fetched on the host by the image's ``prepare`` step first.
Every bot's build then needs only its own folder and its base.

Each image is tagged with a digest of everything that goes into it (the kits' sources
included, so a change to a kit makes a new base), so a second ``make images`` finds the
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
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors

# where downloads and built things are kept; the user of every base, which builds run as (at run
# time each container is a user of its own)
from referee.isolation import BUILD_UID as BOT_UID
from referee.isolation import CACHE
from referee.sandbox import STDIO_ADAPTER  # in every base: runs a JSON-lines bot (arenabot.stdio)

SUITE = "bookworm"
MIRROR = os.environ.get("ARENA_DEBIAN_MIRROR", "http://deb.debian.org/debian")
RECIPE_VERSION = "3"  # bump when the recipe below changes
ROOT = Path(__file__).resolve().parents[2]  # the checkout, whose kit goes into the Python base
NOT_BUILT = ("build", "dist", "*.egg-info", "__pycache__", "*.pyc", "node_modules")  # leftovers, never built in
PROTOS = ROOT / "protos" / "arena"  # the .proto files, in every kit stage's context as protos/arena
KIT_DOCKERFILE = "image.Dockerfile"  # in a kit folder: finishes its language's base, offline
# What every base holds for Python: the kit, and with it the stdio adapter.
PYTHON_WHEELS = ("grpcio", "protobuf", "typing_extensions", "uvloop")
PYTHON_PROJECTS = (ROOT / "protos" / "python", ROOT / "games", ROOT / "kits" / "python")


@dataclass(frozen=True)
class BaseImage:
    language: str  # bot.toml's ``language`` that selects this base
    name: str
    packages: tuple[str, ...]  # Debian packages (python3 is in every base)
    description: str
    kit: Path | None = None  # kits/<language>: its image.Dockerfile finishes the image
    prepare: Callable[[Path], None] | None = None  # host-side step on the kit stage's context (online)
    wheels: tuple[str, ...] = PYTHON_WHEELS  # installed from host-downloaded wheels, at the host's versions
    projects: tuple[Path, ...] = PYTHON_PROJECTS  # project folders of this checkout, built into wheels
    drop: tuple[str, ...] = ()  # globs of the root filesystem that no bot needs, removed before the import

    def pins(self) -> tuple[str, ...]:
        return tuple(f"{w}=={importlib.metadata.version(w)}" for w in self.wheels)

    def digest(self) -> str:
        kit = [tree_digest(self.kit), tree_digest(PROTOS)] if self.kit is not None else []
        recipe = "\n".join([RECIPE_VERSION, SUITE, platform.machine(), "python3", *self.packages, *self.pins(),
                            *map(source_digest, self.projects), *kit, *self.drop])
        return hashlib.sha256(recipe.encode()).hexdigest()[:12]

    @property
    def tag(self) -> str:
        return f"{self.name}:{self.digest()}"


PYTHON_BASE = BaseImage(
    language="python",
    name="arena/python-base",
    packages=(),
    description="Debian bookworm, python3, grpcio/protobuf/uvloop, and the Python bot kit (arenabot)",
)
CPP_BASE = BaseImage(
    language="cpp",
    name="arena/cpp-base",
    # g++ and the kit's libraries: gRPC's (with protobuf's and pkg-config's) to compile and link a bot,
    # protoc and its gRPC plugin to generate the kit's code; make for the kit's and a bot's own builds
    packages=("g++", "make", "pkgconf", "libgrpc++-dev", "libprotobuf-dev", "protobuf-compiler",
              "protobuf-compiler-grpc"),
    description="Debian bookworm, g++, gRPC and protobuf, and the C++ bot kit (libarenabot, arenabot.pc)",
    kit=ROOT / "kits" / "cpp",
)


def fetch_npm_packages(context: Path) -> None:
    """The JavaScript kit's npm packages, at the exact versions of its package-lock.json, into
    the kit stage's ``kit/node_modules``: fetched on the host (the stage has no network) and
    copied into the image as they are, which holds only for pure JavaScript (no install
    scripts run, and a native addon is refused)."""
    npm = shutil.which("npm")
    if npm is None:
        raise ImageBuildError("npm is missing: the Node base fetches its kit's packages with it on the host "
                              "(apt-get install npm)")
    kit = context / "kit"
    _run([npm, "ci", "--prefix", str(kit), "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund",
          "--prefer-offline"], "npm ci (the JavaScript kit's packages)")
    native = sorted(str(p.relative_to(kit)) for p in (kit / "node_modules").rglob("*.node"))
    if native:
        raise ImageBuildError(f"the JavaScript kit's packages hold native code ({', '.join(native)}): "
                              "the Node base takes only pure JavaScript packages, installed on the host")


NODE_BASE = BaseImage(
    language="javascript",
    name="arena/node-base",
    packages=("nodejs",),
    description="Debian bookworm, Debian's Node.js, @grpc/grpc-js and @grpc/proto-loader, and the JavaScript "
                "bot kit (arenabot)",
    kit=ROOT / "kits" / "javascript",
    prepare=fetch_npm_packages,
)
GO_BASE = BaseImage(
    language="go",
    name="arena/go-base",
    packages=("golang-go", "golang-google-grpc-dev", "golang-google-protobuf-dev", "protoc-gen-go",
              "protoc-gen-go-grpc", "protobuf-compiler"),
    description="Debian bookworm, Go 1.19, Debian's gRPC 1.33 and protobuf (GOPATH mode), and the Go bot kit",
    kit=ROOT / "kits" / "go",
    # Debian's compiled standard library (built with cgo, which needs a C compiler: the kit
    # compiles it without), the toolchain's test suite, and the tests of every Go package
    drop=("usr/lib/go-*/pkg/linux_*", "usr/share/go-*/test", "usr/share/go-*/src/**/testdata",
          "usr/share/go-*/src/**/*_test.go", "usr/share/gocode/src/**/testdata", "usr/share/gocode/src/**/*_test.go"),
)
BASE_IMAGES = (PYTHON_BASE, NODE_BASE, CPP_BASE, GO_BASE)
# bot.toml's language -> its base. A shell (sh, awk, perl) bot speaks stdio; those tools are in
# every base, and the Python one is the smallest.
LANGUAGES = {**{image.language: image for image in BASE_IMAGES}, "shell": PYTHON_BASE}


class ImageBuildError(RuntimeError):
    pass


def source_digest(project: Path) -> str:
    """A digest of everything of ``project`` that can go into its wheel: every file of the
    folder but the leftovers of builds (:data:`NOT_BUILT`)."""
    if not (project / "pyproject.toml").is_file():
        raise ImageBuildError(f"{project} holds no pyproject.toml: the base images are built from a checkout "
                              "of Arena, whose protos/python, games and kits/python go into them")
    return tree_digest(project)


def tree_digest(folder: Path) -> str:
    """A digest of every file of ``folder`` but the leftovers of builds (:data:`NOT_BUILT`)."""
    if not folder.is_dir():
        raise ImageBuildError(f"{folder} is missing: the base images are built from a checkout of Arena")
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
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


def build_bases(client: docker.DockerClient, images: Iterable[BaseImage] = BASE_IMAGES,
                say: Callable[[str], None] = print, parallel: int = 2,
                built: Callable[[str], None] | None = None) -> list[str]:
    """Builds every image of ``images`` that is missing; returns their tags. ``built(tag)`` is
    called as each is done (built, or up to date), from the thread that built it.

    The first is built alone (its packages fill the shared download cache, and every base starts
    with python3); the others ``parallel`` at a time. A base's build is mostly one dpkg process
    at a time, so on a machine of 2 cores two builds take little more than one. Each parallel
    build downloads into its own copy of the cache (hard links: no race on a file two builds
    fetch at once); what it fetched is linked back into the shared cache when it is done.
    """
    images = list(images)

    def one(image: BaseImage, private_cache: bool) -> str:
        try:
            tag = build_base(client, image, say, private_cache)
        except ImageBuildError as exc:
            raise ImageBuildError(f"{image.name}: {exc}") from exc
        if built:
            built(tag)
        return tag

    if not images:
        return []
    tags = [one(images[0], False)]
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="base") as pool:
        tags += pool.map(lambda image: one(image, True), images[1:])
    return tags


@contextlib.contextmanager
def _debs_cache(private: bool) -> Iterator[Path]:
    """The folder debootstrap downloads packages into (see :func:`build_bases`)."""
    shared = CACHE / "debs"  # every base's packages downloaded once
    shared.mkdir(parents=True, exist_ok=True)
    if not private:
        yield shared
        return
    with tempfile.TemporaryDirectory(prefix="debs-", dir=CACHE) as tmp:
        own = Path(tmp)
        for deb in shared.glob("*.deb"):
            os.link(deb, own / deb.name)
        yield own
        for deb in own.glob("*.deb"):
            with contextlib.suppress(FileExistsError):
                os.link(deb, shared / deb.name)


def build_base(client: docker.DockerClient, image: BaseImage, say: Callable[[str], None] = print,
               private_cache: bool = False) -> str:
    """Builds ``image`` unless an image with its digest exists; returns its tag.
    ``private_cache``: download into a copy of the package cache (for builds side by side)."""
    if existing(client, image):
        client.images.get(image.tag).tag(image.name, "latest")
        say(f"{image.tag}: up to date")
        return image.tag
    _need_debootstrap(say)
    wheels = _download_wheels(image, say)
    # a kit's stage starts from the imported root filesystem, tagged apart until it is done
    imported_tag = f"rootfs-{image.digest()}" if image.kit is not None else image.digest()
    with tempfile.TemporaryDirectory(prefix="arena-rootfs-") as tmp:
        if image.projects:
            names = ", ".join(str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p) for p in image.projects)
            say(f"{image.tag}: building the wheels of {names} ...")
            wheels += build_wheels(image.projects, Path(tmp) / "wheels")
        rootfs = Path(tmp) / "rootfs"
        packages = ("python3", *image.packages)
        say(f"{image.tag}: debootstrap {SUITE} ({', '.join(packages)}) ...")
        with _debs_cache(private_cache) as debs:
            _run(["debootstrap", "--variant=minbase", f"--include={','.join(packages)}", f"--cache-dir={debs}",
                  SUITE, str(rootfs), MIRROR], "debootstrap")
        _slim(rootfs, image.drop)
        if wheels:
            site = rootfs / "usr" / "local" / "lib" / f"python{_debian_python(rootfs)}" / "dist-packages"
            _run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                  "--target", str(site), *map(str, wheels)], "installing wheels")
            _add_stdio_adapter(rootfs)
        _add_bot_user(rootfs)
        say(f"{image.tag}: docker import ...")
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        assert tar.stdout is not None
        try:
            imported = client.api.import_image_from_stream(
                tar.stdout, repository=image.name, tag=imported_tag,
                changes=['ENV PATH=/usr/local/bin:/usr/bin:/bin', f'USER {BOT_UID}:{BOT_UID}',
                         'WORKDIR /bot', f'LABEL arena.base="{image.name}"'])
        finally:
            tar.stdout.close()
            tar.wait()
        if "error" in str(imported).lower() and "sha256" not in str(imported):
            raise ImageBuildError(f"docker import failed: {imported}")
    if image.kit is not None:
        try:
            _build_kit_stage(client, image, f"{image.name}:{imported_tag}", say)
        finally:
            with contextlib.suppress(docker.errors.APIError):
                client.images.remove(f"{image.name}:{imported_tag}", noprune=True)
    client.images.get(image.tag).tag(image.name, "latest")
    _untag_older(client, image)
    say(f"{image.tag}: built")
    return image.tag


def _build_kit_stage(client: docker.DockerClient, image: BaseImage, rootfs_tag: str,
                     say: Callable[[str], None]) -> None:
    """Finishes ``image`` with its kit's image.Dockerfile, FROM the imported root filesystem
    (build argument ROOTFS), from a context holding ``kit/`` (the kit folder) and ``protos/``
    (protos/arena as ``protos/arena``), after the image's ``prepare`` step on that context.
    The build has no network; the Dockerfile must leave the bot user (USER 10001:10001)."""
    assert image.kit is not None
    with tempfile.TemporaryDirectory(prefix="arena-kit-") as tmp:
        context = Path(tmp)
        shutil.copytree(image.kit, context / "kit", ignore=shutil.ignore_patterns(*NOT_BUILT))
        shutil.copytree(PROTOS, context / "protos" / "arena")
        if image.prepare is not None:
            say(f"{image.tag}: preparing the {image.language} kit ...")
            image.prepare(context)
        say(f"{image.tag}: building the {image.language} kit (kits/{image.kit.name}/{KIT_DOCKERFILE}) ...")
        log: list[str] = []
        try:
            for chunk in client.api.build(path=str(context), dockerfile=f"kit/{KIT_DOCKERFILE}",
                                          buildargs={"ROOTFS": rootfs_tag}, tag=image.tag, rm=True, forcerm=True,
                                          pull=False, network_mode="none", decode=True):
                log += [line for line in chunk.get("stream", "").splitlines() if line.strip()]
                if "error" in chunk:
                    raise ImageBuildError(f"the {image.language} kit stage failed: {chunk['error'].strip()}\n"
                                          + "\n".join(log[-15:]))
        except docker.errors.APIError as exc:
            raise ImageBuildError(f"the {image.language} kit stage failed: {exc.explanation}") from None
    user = client.api.inspect_image(image.tag)["Config"].get("User")
    if user != f"{BOT_UID}:{BOT_UID}":
        client.images.remove(image.tag, noprune=True)
        raise ImageBuildError(f"kits/{image.kit.name}/{KIT_DOCKERFILE} must end as the bot user "
                              f"(USER {BOT_UID}:{BOT_UID}), not {user!r}")


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


def _slim(rootfs: Path, drop: Iterable[str] = ()) -> None:
    """Drops what a bot never needs: apt lists, docs, man pages, caches, and what ``drop`` matches."""
    for rel in ("var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info",
                "var/cache/apt", "usr/share/locale"):
        path = rootfs / rel
        if path.exists():
            shutil.rmtree(path)
            path.mkdir()
    for path in [path for pattern in drop for path in rootfs.glob(pattern)]:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif os.path.lexists(path):  # not inside a folder dropped already
            path.unlink()


def _add_stdio_adapter(rootfs: Path) -> None:
    """``arena-stdio CMD...``: the adapter that plays a JSON-lines bot (see arenabot.stdio)."""
    adapter = rootfs / STDIO_ADAPTER.lstrip("/")
    adapter.write_text('#!/bin/sh\nexec python3 -m arenabot.stdio "$@"\n')
    adapter.chmod(0o755)


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
