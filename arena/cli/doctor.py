"""``arena doctor``: is everything in place to run containerised bots?"""

from __future__ import annotations

import click

from referee.isolation import prune_walks
from referee.sandbox import NoDockerEngine, docker_client, sweep

from ..bots.images import base_image_status


@click.command()
def doctor() -> None:
    """Check the Docker engine and base images; sweep what dead referees and removed images left behind."""
    try:
        client = docker_client(timeout=15)
        info = client.info()
    except NoDockerEngine as exc:
        click.echo(f"docker engine: NOT RUNNING: {exc}, or `make images`")
        containers, dirs = sweep()
        click.echo(f"swept: {dirs} leftover socket folder(s)")
        raise SystemExit(1) from None
    click.echo(f"docker engine: up (server {info.get('ServerVersion')}, storage {info.get('Driver')}, "
               f"cgroup v{info.get('CgroupVersion', '?')})")
    missing = 0
    for image, present in base_image_status(client):
        missing += not present
        click.echo(f"base image {image.tag}: {'present' if present else 'MISSING (run: make images)'}")
    bots = client.images.list(filters={"label": "arena.bot.name"})
    click.echo(f"bot images: {len(bots)}")
    containers, dirs = sweep()
    click.echo(f"swept: {containers} leftover container(s), {dirs} leftover socket folder(s), "
               f"{prune_walks()} kept walk(s) of image layers that are gone")
    if missing:
        raise SystemExit(1)
