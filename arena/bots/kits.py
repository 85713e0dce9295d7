"""``arena kit install LANGUAGE DIR``: a kit for a bot run on the host (``arena match --bot
NAME=CMD``, ``arena bot check --command CMD``), copied out of its base image: offline, and the
very code and packages that the bot's image is built against.

- **javascript**: ``DIR/node_modules``: the kit (``arenabot``, with its ``.proto`` files) and the
  npm packages it needs, as the Node base has them: ``require('arenabot')`` then works for a
  ``bot.js`` in DIR with the host's ``node``.
- **go**: ``DIR`` becomes a GOPATH holding the kit (``arena/arenabot``), the generated protocol
  code (``arena/v1/arenapb``) and the source of every package they import (gRPC, protobuf:
  Debian's, as the Go base has them): ``GOPATH=DIR GO111MODULE=off go build`` with the host's
  ``go`` (Go 1.19 or newer, as Debian's ``golang-go``).
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors
from docker.models.containers import Container

from referee.sandbox import LABEL, PROFILE

from .config import BotError
from .images import GO_BASE, NODE_BASE, BaseImage


@dataclass(frozen=True)
class Kit:
    base: BaseImage
    roots: tuple[str, ...]  # the GOPATHs (Go) or the folder (JavaScript) in the image whose files are copied
    usage: str  # how to use it, DIR as {dir}


KITS = {
    "javascript": Kit(NODE_BASE, ("/usr/local/lib/",),
                      "require('arenabot') works for a bot in {dir}: try it with\n"
                      "  arena match --game sobek --bot \"me=node {dir}/bot.js\" --bot r=builtin:random"),
    "go": Kit(GO_BASE, ("/usr/local/share/arena-go/", "/usr/share/gocode/"),
              "{dir} is a GOPATH: build your bot with\n"
              "  GOPATH={dir} GO111MODULE=off CGO_ENABLED=0 go build -o bot .\n"
              "then try it with: arena match --game sobek --bot me=./bot --bot r=builtin:random"),
}
# Go: the folder of every package the kit needs outside the standard library (its own, the
# generated protocol code, gRPC and protobuf and what they import)
GO_DEPS = ["go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "arena/arenabot"]
MAX_KIT_MB = 256  # what a kit may be: the JavaScript one is about 14 MiB


def install_kit(client: docker.DockerClient, language: str, folder: Path) -> str:
    """Copies ``language``'s kit out of its base image into ``folder`` (made if missing; what is
    there is overwritten file by file); returns how to use it."""
    if language not in KITS:
        raise BotError(f"no kit to install for {language!r}: kits to install are {', '.join(KITS)} (the Python "
                       "kit comes with Arena; a C++ bot builds in its image)")
    kit = KITS[language]
    try:
        client.images.get(kit.base.tag)
    except docker.errors.ImageNotFound:
        raise BotError(f"the {language} base image {kit.base.tag} is missing: run `make images` "
                       "(`arena images build`)") from None
    if language == "javascript":
        paths = ["/usr/local/lib/node_modules"]
    else:
        try:  # our own base image, with a bot's limits and no network: nothing is fetched
            listed = client.containers.run(kit.base.tag, GO_DEPS, remove=True, stdout=True, stderr=True,
                                           labels={LABEL: "1"}, **PROFILE.container_options())
        except docker.errors.ContainerError as exc:
            raise BotError(f"listing the Go kit's packages in {kit.base.tag} failed: {exc}") from None
        dirs = sorted({line for line in listed.decode().split() if line})
        paths = [d for d in dirs if not any(d.startswith(other + "/") for other in dirs)]  # each tree once
    container = client.containers.create(kit.base.tag, ["true"], labels={LABEL: "1"}, network_mode="none")
    try:
        for path in paths:
            root = next((r for r in kit.roots if path.startswith(r)), None)
            if root is None:
                raise BotError(f"the {language} kit's package {path} is outside {', '.join(kit.roots)}")
            _copy_out(container, path, folder / str(Path(path).parent.relative_to(root)))
    finally:
        container.remove(force=True)
    return kit.usage.format(dir=folder)


def _copy_out(container: Container, path: str, into: Path) -> None:
    """The tree ``path`` of the (stopped) container, into the folder ``into``: only files, folders
    and links inside it (tarfile's data filter), and at most MAX_KIT_MB."""
    stream, _ = container.get_archive(path)
    data = io.BytesIO()
    for chunk in stream:
        data.write(chunk)
        if data.tell() > MAX_KIT_MB * 2**20:
            raise BotError(f"{path} in the base image is over {MAX_KIT_MB} MiB")
    data.seek(0)
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=data) as tar:
        tar.extractall(into, filter="data")
