"""No memory across a bot's processes through the host's caches (referee/isolation.py).

tests/bots/memory.py writes a random token into the page cache (by ``mincore()``'s answer and
by read times) and into the dentry cache (by lookup times) in each of its processes, and reads
what the one before it wrote. Outside Arena's sandbox (the same image, plain ``docker run``
as the build user) the next container reads the token back; in a duplicate match, from one
rotation to the next and from one match to the next, it reads nothing: every means agrees with
the token no more than chance does. docs/writing-a-bot.md ("Memory across processes") states the
bound this test measures.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import pytest

from arena.bots.build import image_file_refusal
from referee.match import run_match
from referee.spec import parse_spec

from ..docker_fixtures import ADVERSARY_BASE, ROOT, TEST_IMAGES
from .conftest import arena_containers

pytestmark = pytest.mark.serial  # read times: a busy neighbour only blurs them, but keep them clean

BITS = 256
CHANCE = BITS / 2 + 4 * math.sqrt(BITS) / 2  # agreement by chance stays below this (4 sigma)
FILES = ("RUN mkdir /bot/pages /bot/names && python3 -c \"import os; open('/bot/own', 'wb').write(os.urandom(2**20)); "
         "[open(f'/bot/pages/{i}', 'wb').write(os.urandom(4096)) for i in range(256)]\" "
         "&& chown 10001:10001 /bot/own\n"
         # /bot/names in 8 layers: a missing name is looked up in each, which makes a miss slower
         + "".join(f"RUN touch /bot/names/.layer{i}\n" for i in range(8)))


def image(docker_client, tmp_path: Path, tag: str, extra: str = "") -> str:
    (tmp_path / "memory.py").write_bytes((ROOT / "tests" / "bots" / "memory.py").read_bytes())
    (tmp_path / "salt").write_text(os.urandom(8).hex())  # names never looked up before (tests/bots/memory.py)
    (tmp_path / "Dockerfile").write_text(f"FROM {ADVERSARY_BASE}\nUSER root\n{FILES}{extra}USER 10001:10001\n"
                                         "COPY memory.py salt /bot/\n"
                                         'CMD ["python3", "/bot/memory.py"]\n')
    docker_client.images.build(path=str(tmp_path), tag=tag, rm=True, forcerm=True)
    os.sync()  # the layers' new files are dirty pages, which no eviction drops until they are written
    return tag


@pytest.fixture(scope="module")
def memory_image(docker_client, adversary_images, tmp_path_factory) -> str:
    return image(docker_client, tmp_path_factory.mktemp("memory"), f"{TEST_IMAGES}/memory:1")


def processes(log: str) -> list[tuple[dict[str, str], str]]:
    """Per process, in order: what it read by each means, and the token it wrote."""
    out, reads = [], {}
    for line in log.splitlines():
        if line.startswith("READ "):
            _, means, read = line.split()
            reads[means] = read
        elif line.startswith("WROTE "):
            out.append((reads, line.split()[1]))
            reads = {}
    return out


def agreement(a: str, b: str) -> int:
    return sum(x == y for x, y in zip(a, b, strict=True))


def test_outside_arena_the_next_container_reads_the_token(docker_client, memory_image):
    """The probe works on this host: plain containers of the image, one after the other."""
    script = ("import sys; sys.path.insert(0, '/bot'); import memory\n"
              "if sys.argv[1] == 'write':\n"
              "    token = [b == '1' for b in sys.argv[2]]\n"
              "    for _, write in memory.MEANS.values(): write(token, 'control')\n"
              "else:\n"
              "    for means, (read, _) in memory.MEANS.items(): print(means, memory.bits(read('control')))\n")
    token = format(int.from_bytes(os.urandom(BITS // 8), "big"), f"0{BITS}b")

    def run(*args: str) -> str:
        return subprocess.run(["docker", "run", "--rm", "--read-only", "--network", "none", "--user", "10001:10001",
                               memory_image, "python3", "-c", script, *args],
                              capture_output=True, text=True, check=True, timeout=120).stdout

    run("write", token)
    read = dict(line.split() for line in run("read").splitlines())
    agreed = {means: agreement(token, bits) for means, bits in read.items()}
    figures = f"agreement with the {BITS}-bit token, out of Arena's sandbox: {agreed}"
    assert agreed["mincore"] >= 0.95 * BITS, figures
    assert agreed["pages"] >= 0.9 * BITS, figures
    assert agreed["names"] >= 0.75 * BITS, figures
    print(figures)


def test_no_token_reaches_the_next_rotation_or_the_next_match(tmp_path, docker_client, memory_image):
    logs, totals = [], []
    for m in range(2):
        spec = parse_spec({"match_id": f"memory-{m}", "game": "prohis", "games": 3, "seed": 7 + m,
                           "bots": [{"name": "memory", "image": memory_image},  # the opponents' names say the match
                                    {"name": f"m{m}a", "builtin": "random"}, {"name": f"m{m}b", "builtin": "random"}],
                           "time": {"startup_ms": 20000, "decision_ms": 10000, "bank_ms": 10000}})
        result = run_match(spec, tmp_path / f"m{m}")
        assert not any(g["failures"][g["bots"].index(0)] for g in result["games"]), result["games"]
        totals.append(result["totals"][0])
        logs.append((tmp_path / f"m{m}" / "bot0-memory.log").read_text())
        assert not arena_containers(docker_client, f"memory-{m}")
    chain = [p for log in logs for p in processes(log)]
    assert len(chain) == 6, logs  # a fresh process per rotation: 3 a match
    assert all(t["isolated"] for t in totals), totals
    agreed = {means: [agreement(prev[1], nxt[0][means]) for prev, nxt in zip(chain, chain[1:], strict=False)]
              for means in ("mincore", "pages", "names")}
    pooled = {means: sum(found) for means, found in agreed.items()}
    n = BITS * len(chain[1:])
    figures = (f"agreement of each process's read with the token of the one before ({BITS} bits; chance "
               f"{BITS // 2}, 4 sigma {CHANCE:.0f}), 5 transitions (2 rotations, a match, 2 rotations): {agreed}; "
               f"pooled {pooled} of {n}")
    print(figures)
    assert all(a <= CHANCE for found in agreed.values() for a in found), figures
    assert all(k <= n / 2 + 4 * math.sqrt(n) / 2 for k in pooled.values()), figures
    assert "REFUSED" not in "".join(logs)  # every means ran: the filter makes eviction a no-op, not an error


def test_an_image_whose_files_would_open_a_channel_is_refused(tmp_path, docker_client, adversary_images):
    """A file that any user may write answers mincore(); one only the build user may read would
    be unreadable to a container's own user: both are refused, naming the file."""
    tag = image(docker_client, tmp_path, f"{TEST_IMAGES}/memory:refused",
                "RUN chmod 666 /bot/pages/0 && chmod 600 /bot/own\n")
    spec = parse_spec({"match_id": "memory-refused", "game": "prohis", "games": 1,
                       "bots": [{"name": "memory", "image": tag}, {"name": "r1", "builtin": "random"},
                                {"name": "r2", "builtin": "random"}], "max_restarts": 0})
    result = run_match(spec, tmp_path / "m")
    game = result["games"][0]
    assert game["failures"][game["bots"].index(0)] == "start_failed"
    detail = (tmp_path / "m" / game["record"]).read_text()
    assert "'/bot/pages/0' may be written by any user (mode 0666)" in detail, detail
    assert "'/bot/own' is a file that only its owner or group may read (mode 0600, user 10001" in detail, detail
    assert not arena_containers(docker_client, "memory-refused")
    # arena bot build and arena bot check say the same, before any match
    refusal = image_file_refusal(docker_client.api.inspect_image(tag))
    assert "'/bot/pages/0' may be written by any user" in refusal and "'/bot/own' is a file" in refusal, refusal
