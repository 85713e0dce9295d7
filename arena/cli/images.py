"""``arena images``: the local base images bots are built on."""

from __future__ import annotations

from pathlib import Path

import click

from referee.sandbox import docker_client

from ..images import BASE_IMAGES, PYTHON_BASE, ImageBuildError, base_image_status, build_bases, build_wheels
from .options import user_errors


@click.group()
def images() -> None:
    """Base images for bots, built offline from Debian packages."""


@images.command("build")
@user_errors
def build() -> None:
    """Build every base image that is missing (a second run takes seconds)."""
    client = docker_client(timeout=120)
    try:
        build_bases(client, BASE_IMAGES, say=click.echo)
    except ImageBuildError as exc:
        raise click.ClickException(str(exc)) from exc


@images.command("list")
@user_errors
def list_images() -> None:
    """Show the base images and whether they exist."""
    for image, present in base_image_status(docker_client()):
        click.echo(f"{image.tag:<32} {'present' if present else 'missing':<8} {image.description}")


@images.command("wheels")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("dist"), show_default=True)
def wheels(out: Path) -> None:
    """Build the protocol package and the Python bot kit into wheels: what the Python base
    image installs, and what a Python bot outside it can `pip install`."""
    try:
        for wheel in build_wheels(PYTHON_BASE.projects, out):
            click.echo(str(wheel))
    except ImageBuildError as exc:
        raise click.ClickException(str(exc)) from exc
