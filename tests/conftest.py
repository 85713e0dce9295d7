import os

import pytest
from hypothesis import HealthCheck, settings

# The test process is a referee, and referee turns gRPC's fork handlers off before anything imports
# grpc (test modules import the Python kit, which does). With them on, a bot forked while another
# thread is in gRPC can die of SIGSEGV before its exec.
import referee  # noqa: F401

# before any test package imports it (tests/web uses it too): its checks explain their failures
pytest.register_assert_rewrite("tests.league.helpers")

# "ci" (the default): 300 derandomized games per engine and player count in test_properties (4,500 in
# all, the same every run); "thorough" (`make thorough`): 5,000 fresh ones each, for engine work;
# "dev" is a quick pass.
settings.register_profile(
    "ci", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile(
    "thorough", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=50, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
