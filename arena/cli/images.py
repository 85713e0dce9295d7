"""``arena images``: the local base images bots are built on."""

from __future__ import annotations

import click

from referee.sandbox import docker_client

from ..images import BASE_IMAGES, ImageBuildError, base_image_status, build_base
from .options import user_errors


@click.group()
def images() -> None:
    """Base images for bots, built offline from Debian packages."""


@images.command("build")
@user_errors
def build() -> None:
    """Build every base image that is missing (a second run takes seconds)."""
    client = docker_client(timeout=120)
    for image in BASE_IMAGES:
        try:
            build_base(client, image, say=click.echo)
        except ImageBuildError as exc:
            raise click.ClickException(f"{image.name}: {exc}") from exc


@images.command("list")
@user_errors
def list_images() -> None:
    """Show the base images and whether they exist."""
    for image, present in base_image_status(docker_client()):
        click.echo(f"{image.tag:<32} {'present' if present else 'missing':<8} {image.description}")
