import fcntl
import os
import shutil
import tempfile
import time
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The test process is a referee, and referee turns gRPC's fork handlers off before anything imports
# grpc (test modules import the Python kit, which does). With them on, a bot forked while another
# thread is in gRPC can die of SIGSEGV before its exec.
import referee  # noqa: F401
from tests.disks import small_disk  # noqa: F401 - a fixture: a small tmpfs of the test's own
from tests.services import (
    SHARED_REDIS_URL,
    PostgresServer,
    RedisServer,
    ServiceError,
    make_postgres_template,
    redis_answers,
    sweep,
)

# pytest-xdist's workers inherit COLUMNS=80 and LINES=24 from it: a command's table in a pipe would
# then fit 80 columns, unlike under one process, in CI's log or a user's pipe (no COLUMNS there)
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)

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


# Redis and PostgreSQL servers (tests/services.py) ---------------------------------------------


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The setup's Redis (scripts/redis-up.sh), database 15: shared by every test session on the
    machine, so a test keeps to a queue (and keys) of its own."""
    if not redis_answers(SHARED_REDIS_URL):
        pytest.fail(f"these tests need the Redis at {SHARED_REDIS_URL}, which does not answer: "
                    "run scripts/redis-up.sh as root")
    return SHARED_REDIS_URL


@pytest.fixture(scope="session")
def _services_swept() -> None:
    """Once a session, before its first private server: what killed sessions left (tests/services.py)."""
    sweep()


@pytest.fixture
def private_redis(tmp_path, _services_swept):
    """A Redis server of this test's own (a ``RedisServer``), to stop, kill and start again;
    stopped at the end."""
    try:
        server = RedisServer(tmp_path / "redis")
    except (OSError, ServiceError) as exc:
        pytest.fail(f"could not start a private redis-server (run scripts/redis-up.sh as root): {exc}")
    yield server
    server.kill()


@pytest.fixture(scope="session")
def _postgres_template(_services_swept):
    """A stopped cluster the private servers are copied from (initdb once a session); deleted
    at the end."""
    try:
        template = make_postgres_template()
    except (OSError, ServiceError) as exc:
        pytest.fail(f"could not make a private PostgreSQL cluster (run scripts/postgres-up.sh as root): {exc}")
    yield template
    shutil.rmtree(template, ignore_errors=True)


@pytest.fixture
def private_postgres(_postgres_template):
    """A PostgreSQL server of this test's own (a ``PostgresServer``: database ``arena`` at
    ``.url``), to stop and start again; stopped and deleted at the end."""
    try:
        server = PostgresServer(_postgres_template)
    except (OSError, ServiceError) as exc:
        pytest.fail(f"could not start a private PostgreSQL server: {exc}")
    yield server
    server.remove()


# Two processes (pytest -n 2, pytest-xdist) ---------------------------------------------------
#
# Tests are dealt out a file at a time, but some files go to one process together, in order:
# tests/web's share one session fixture (a site with a played league that some tests add to);
# tests/sandbox and tests/referee look at the whole machine (no process of a bot script left,
# no test image left). A test marked ``serial`` (a timing bound that one busy neighbour may
# strain but a second test process must not, or a sweep of every dead referee's leftovers on the
# machine) runs alone: it takes a lock for writing, every other test (its setup included) one
# for reading, and a turnstile lets a waiting serial test in before the next reader.
# make test runs the rest of the suite (all but tests/games and tests/search) this way.

# taken at import: some tests point the temporary directory of their process elsewhere
LOCKS = Path(tempfile.gettempdir()) / "arena-test-locks"
GROUPS: dict[tuple[str, ...], str] = {("tests", "web"): "web", ("tests", "sandbox"): "machine",
                                      ("tests", "referee"): "machine"}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """Our groups, by path (xdist_group marks do not group under pytest 9.2: xdist 3.8 renames
    ``item._nodeid``, which pytest no longer reads)."""
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return GROUPS.get(tuple(path.split("/")[:2]), path)

    return Groups(config, log)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is None:  # one process: nothing to share the machine with
        yield
        return
    LOCKS.mkdir(exist_ok=True)
    serial = item.get_closest_marker("serial") is not None
    with open(LOCKS / f"{run}.turnstile", "a") as turnstile, open(LOCKS / f"{run}.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(lock, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        if not serial:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        else:
            _quiet_machine()
        yield  # closing the files releases the locks


QUIET_SHARE = 0.25  # of the machine's CPU time, busy outside this process, that a serial test waits out
QUIET_WAIT_S = 30.0


def _busy_share(seconds: float = 0.5) -> float:
    """The share of the machine's CPU time spent outside idle and I/O wait over ``seconds``,
    this process's own taken out."""
    def sample() -> tuple[int, int, float]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields), fields[3] + fields[4], sum(os.times()[:2])
    total0, idle0, own0 = sample()
    time.sleep(seconds)
    total1, idle1, own1 = sample()
    ticks = os.sysconf("SC_CLK_TCK")
    busy = (total1 - total0) - (idle1 - idle0) - (own1 - own0) * ticks
    return max(0.0, busy / max(1, total1 - total0))


def _quiet_machine() -> None:
    """A serial test measures time: it starts once what earlier tests left is gone (containers
    of referees that have ended, a build still being torn down) and the machine is near idle,
    or after QUIET_WAIT_S with a warning saying how busy it still was."""
    from referee.sandbox import sweep

    sweep()
    deadline = time.monotonic() + QUIET_WAIT_S
    while (busy := _busy_share()) > QUIET_SHARE and time.monotonic() < deadline:
        pass
    if busy > QUIET_SHARE:
        warnings.warn(f"a serial test starts with {busy:.0%} of the machine's CPU busy elsewhere", stacklevel=1)


def pytest_sessionfinish(session):
    """A process done with its tests removes the lock files (the other, if still running, makes
    its own and is alone)."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run is not None:
        for suffix in ("turnstile", "lock"):
            (LOCKS / f"{run}.{suffix}").unlink(missing_ok=True)
