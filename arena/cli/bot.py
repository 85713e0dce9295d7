"""``arena bot``: build a bot folder into an image, and validate an image by playing it."""

from __future__ import annotations

from pathlib import Path

import click

from ..bots import BUILD_TIMEOUT, MAX_IMAGE_MB, BotError, build_bot, load_bot_config, validate_bot
from .docker_client import docker_client


@click.group()
def bot() -> None:
    """Bots as container images."""


@bot.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--timeout", default=BUILD_TIMEOUT, show_default=True, help="Seconds the build may take.")
@click.option("--max-size-mb", default=MAX_IMAGE_MB, show_default=True, help="Cap on the image size.")
@click.option("--quiet", "-q", is_flag=True, help="Do not echo the build's output.")
def build(path: Path, timeout: int, max_size_mb: int, quiet: bool) -> None:
    """Build the bot folder PATH (a Dockerfile and a bot.toml) into arena-bot/NAME:VERSION."""
    try:
        config = load_bot_config(path)
        result = build_bot(docker_client(), config, timeout=timeout, max_size_mb=max_size_mb,
                           say=(lambda line: None) if quiet else (lambda line: click.echo(f"  {line}")))
    except BotError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"built {result.tag} ({result.size_mb:.0f} MiB, {result.seconds:.1f} s)")


@bot.command()
@click.argument("image")
@click.option("--startup-ms", default=15_000, show_default=True)
@click.option("--decision-ms", default=2_000, show_default=True)
def validate(image: str, startup_ms: int, decision_ms: int) -> None:
    """Start IMAGE, check its hello, and play a short game of each game it claims."""
    docker_client()
    result = validate_bot(image, startup_ms=startup_ms, decision_ms=decision_ms,
                          say=lambda line: click.echo(f"  {line}"))
    click.echo(result.summary())
    if not result.ok:
        if result.log.strip():
            click.echo("the bot's output (last lines):")
            for line in result.log.strip().splitlines()[-20:]:
                click.echo(f"  | {line}")
        raise SystemExit(1)
