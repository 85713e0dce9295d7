"""The sandbox tests use the Docker fixtures shared with the league tests, and check that
they leave nothing on the host (`mark`)."""

from ..docker_fixtures import (  # noqa: F401 - fixtures
    ADVERSARY_BASE,
    ATTACKS,
    ROOT,
    SAMPLES,
    adversary_images,
    arena_containers,
    cpp_base,
    cpp_images,
    docker_client,
    misbehaving_images,
    sample_images,
    test_bot_images,
)
from .leftovers import mark  # noqa: F401 - fixture
