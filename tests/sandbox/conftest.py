"""The sandbox tests use the Docker fixtures shared with the league tests."""

from ..docker_fixtures import (  # noqa: F401 - fixtures
    ADVERSARY_BASE,
    ATTACKS,
    ROOT,
    SAMPLES,
    adversary_images,
    arena_containers,
    docker_client,
    misbehaving_images,
    sample_images,
    test_bot_images,
)
