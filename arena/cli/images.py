"""``arena images``: the local base images bots are built on, and bot images kept in the store."""

from __future__ import annotations

import time
from pathlib import Path

import click

from referee.sandbox import docker_client

from ..bots.images import BASE_IMAGES, PYTHON_BASE, ImageBuildError, base_image_status, build_bases, build_wheels
from .completion import complete_bots
from .options import quiet_option, user_errors, with_store
from .output import echo_json, json_option, print_table
from .progress import Progress


@click.group()
def images() -> None:
    """Base images for bots, built offline from Debian packages."""


@images.command("build")
@quiet_option
@user_errors
def build(quiet: bool) -> None:
    """Build every base image that is missing (a second run takes seconds)."""
    client = docker_client(timeout=120)
    start = time.monotonic()
    with Progress("base images", unit="images", total=len(BASE_IMAGES), quiet=quiet, rate=False, lines=False,
                  doing="building") as shown:
        def said(line: str) -> None:
            # "TAG: step ...": the step each image (two at a time) is at; a line without a tag is a step of all
            shown.message(line)
            key = line.split(": ", 1)[0] if ": " in line else ""
            if key:
                shown.ended("")
            shown.started(key, line)

        def built(tag: str) -> None:
            shown.ended(tag)
            shown.advance(1)

        try:
            tags = build_bases(client, BASE_IMAGES, say=said, built=built)
        except ImageBuildError as exc:
            raise click.ClickException(str(exc)) from exc
    click.echo(f"{len(tags)} base image(s) ready in {time.monotonic() - start:.1f} s")


@images.command("list")
@json_option
@user_errors
def list_images(as_json: bool) -> None:
    """Show the base images and whether this host's Docker engine has them."""
    status = base_image_status(docker_client())
    if as_json:
        echo_json([{"language": image.language, "image": image.tag, "present": present,
                    "description": image.description} for image, present in status])
        return
    print_table(["language", "image", "status", "description"],
                [[image.language, image.tag, "present" if present else "missing", image.description]
                 for image, present in status], optional=[3])


@images.command("archive")
@click.argument("bots", nargs=-1, metavar="[BOT[@VERSION]]...", shell_complete=complete_bots)
@click.option("--all", "every", is_flag=True, help="Every registered bot that is not retired.")
@with_store(create=False)
@user_errors
def archive(bots: tuple[str, ...], every: bool, store) -> None:
    """Keep the images of registered bots in the store (gzipped `docker save`s), from this
    host's Docker engine, so that `arena worker`s on hosts without them can load them. A
    bot's image must be the one it was registered with; images archived already are skipped.

    Exit status 1 when an image cannot be archived (the others still are)."""
    from sqlalchemy import select

    from referee.textlog import printable

    from ..bots.archives import ArchiveError, archive_bot
    from ..bots.registry import find_bot
    from ..store import Bot

    if not bots and not every:
        raise click.UsageError("name the bots (NAME or NAME@VERSION), or give --all")
    with store() as session:
        chosen = list(session.scalars(select(Bot).where(Bot.retired_at.is_(None)).order_by(Bot.name, Bot.id))) \
            if every else []
        chosen += [find_bot(session, label) for label in bots]
    failed = 0
    engine = docker_client(timeout=600)
    try:
        for bot in {b.id: b for b in chosen}.values():
            name = f"{printable(bot.label, 100)} ({printable(bot.image, 200)})"
            try:
                done = archive_bot(store, bot, engine)
            except ArchiveError as exc:
                failed += 1
                click.echo(f"{name}: {exc}", err=True)
                continue
            if done.written:
                click.echo(f"{name}: archived, {mib(done.size)} gzipped from a {mib(done.image_size)} image "
                           f"in {done.seconds:.1f} s")
            else:
                click.echo(f"{name}: archived already ({mib(done.size)})")
    finally:
        engine.close()
    if failed:
        raise click.ClickException(f"{failed} image(s) could not be archived")


def mib(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


@images.command("wheels")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("dist"), show_default=True)
def wheels(out: Path) -> None:
    """Build the protocol package, the game engines and the Python bot kit into wheels: what the Python base
    image installs, and what a Python bot outside it can `pip install`."""
    try:
        for wheel in build_wheels(PYTHON_BASE.projects, out):
            click.echo(str(wheel))
    except ImageBuildError as exc:
        raise click.ClickException(str(exc)) from exc
