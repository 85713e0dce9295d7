"""What a build leaves: the bot's image as an image of no parent (none of its steps is an image
another build could start from), and the bot's cache for its next build; and their removal."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import secrets
import tarfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import docker
import docker.errors

from .config import BotError

FLAT_LABEL = "arena.flat"  # on an image re-made with no parent (remade): it differs from the build's by that
# a bot's cache for its next build: a twin of its image (:final), labelled CACHE_LABEL (the
# earlier stages of a multi-stage build are removed: see keep_cache). The engine re-parents a
# cached image that it finds whole (to the steps it restores under it), so the bot's own image
# is never the cache: it stays of no parent
STAGES_REPOSITORY = "arena-bot-stages"
CACHE_LABEL = "arena.cache"


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


def remove_new_images(client: docker.DockerClient, made: Iterable[str], before: set[str]) -> None:
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


# -- the image without its steps ----------------------------------------------------------------
def remade(client: docker.DockerClient, engine: dict[str, Any], image_id: str, labels: Mapping[str, str | None],
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


def keep_cache(client: docker.DockerClient, engine: dict[str, Any], flat: str, repository: str) -> None:
    """Keeps the bot's cache for its next build in ``repository`` in place of the last build's:
    a twin of its image ``flat`` as ``:final``, an image of no parent labelled CACHE_LABEL, which
    holds no layer the image does not. The earlier stages of a multi-stage build are not kept
    (nor any ``:stage<k>`` an older Arena kept): a build stage holds a toolchain's output and
    caches, often hundreds of MiB that nothing runs, and a rebuild runs its steps again."""
    old = {image["Id"] for image in client.api.images(name=repository)}
    cache = {CACHE_LABEL: "1", FLAT_LABEL: "1"}
    kept = {f"{repository}:final": remade(client, engine, flat, cache, fresh=True)}
    for tag, image_id in kept.items():
        repo, suffix = tag.rsplit(":", 1)
        client.api.tag(image_id, repo, suffix)
    for image_id in old - set(kept.values()):  # the last build's, and any stage it had more
        with contextlib.suppress(docker.errors.APIError):
            for tag in client.api.inspect_image(image_id).get("RepoTags") or ():
                if tag.startswith(f"{repository}:") and tag not in kept:
                    client.api.remove_image(tag, noprune=True)
            if not client.api.inspect_image(image_id).get("RepoTags"):
                client.api.remove_image(image_id)  # and the steps under it, if a cache hit put any there


def remove_steps_images(client: docker.DockerClient, built: str, made: Iterable[str], before: set[str]) -> None:
    """Once the image is made an image of no parent: removes the one the build made and, with
    it, the chain of steps under it (the engine removes each untagged parent that nothing else
    has under it), then what is left of the steps of its other stages."""
    gone: set[str] = set()
    with contextlib.suppress(docker.errors.APIError):
        if not client.api.inspect_image(built).get("RepoTags"):  # or a full cache hit: this bot's image of before
            gone = {r["Deleted"] for r in client.api.remove_image(built) or () if r.get("Deleted")}
    remove_new_images(client, [i for i in made if not any(g.startswith(f"sha256:{i}") for g in gone)], before)
