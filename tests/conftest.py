import os

import pytest
from hypothesis import HealthCheck, settings

# The test process is a referee, and referee turns gRPC's fork handlers off before anything imports
# grpc (test modules import the Python kit, which does). With them on, a bot forked while another
# thread is in gRPC can die of SIGSEGV before its exec.
import referee  # noqa: F401

# before any test package imports it (tests/web uses it too): its checks explain their failures
pytest.register_assert_rewrite("tests.league.helpers")

# "ci" (the default) plays thousands of games per engine; "dev" is a quick pass.
settings.register_profile(
    "ci", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
