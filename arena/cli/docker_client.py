"""One way to reach the Docker engine, with an error that says what to do."""

from __future__ import annotations

import click
import docker
import docker.errors


def docker_client() -> docker.DockerClient:
    try:
        client = docker.from_env(timeout=120)
        client.ping()
        return client
    except docker.errors.DockerException as exc:
        raise click.ClickException(
            f"no Docker engine answers ({exc}); start one with scripts/docker-up.sh (as root)"
        ) from exc
