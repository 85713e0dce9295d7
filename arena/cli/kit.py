"""``arena kit``: the kits, for bots run on the host while they are written."""

from __future__ import annotations

from pathlib import Path

import click

from referee.sandbox import docker_client

from ..bots.config import BotError
from ..bots.kits import KITS, install_kit


@click.group()
def kit() -> None:
    """The bot kits, for a bot run on the host (arena match --bot NAME=CMD)."""


@kit.command()
@click.argument("language", type=click.Choice(sorted(KITS)))
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
def install(language: str, folder: Path) -> None:
    """Copy LANGUAGE's kit into FOLDER, out of its base image (offline: the very code a bot's
    image is built against), so that a bot there runs on the host with the host's node or go:
    the local loop of `arena match --bot me=CMD` and `arena bot check --command CMD`, with no
    image to rebuild after each change.

    javascript: FOLDER/node_modules (the kit, its protos and its npm packages). go: FOLDER
    becomes a GOPATH (the kit, the protocol's Go code, and gRPC's and protobuf's source)."""
    try:
        usage = install_kit(docker_client(timeout=120), language, folder)
    except BotError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"installed the {language} kit in {folder}")
    click.echo(usage)
