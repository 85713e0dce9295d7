"""Bots in containers: the same games as local processes, and a sandbox that holds."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from arena_games import GAMES, get_game
from referee import cpu, isolation
from referee.limits import LOG_CAP
from referee.match import run_match
from referee.records import read_record
from referee.sandbox import PROFILE, ContainerSeat
from referee.spec import parse_spec

from ..referee.helpers import HEURISTIC_BOT, RANDOM_BOT, check_records_replay
from ..referee.test_misbehaving import processes_running
from .conftest import arena_containers

SECRET = "ARENA_TEST_SECRET"


def match(tmp_path: Path, bots: list[dict], games: int = 1, match_id: str = "box", game: str = "prohis",
          **extra) -> dict:
    data = {"match_id": match_id, "game": game, "games": games, "seed": 9, "bots": bots,
            "max_restarts": 0, **extra}
    return run_match(parse_spec(data), tmp_path)


def test_containerised_sample_bots_play_the_same_games_as_local_processes(tmp_path, sample_images):
    heuristic, random = sample_images["prohis_heuristic"], sample_images["random"]
    boxed = match(tmp_path / "boxed", games=8, match_id="boxed", bots=[
        {"name": "h1", "image": heuristic}, {"name": "r1", "image": random},
        {"name": "h2", "image": heuristic}, {"name": "r2", "image": random}])
    local = match(tmp_path / "local", games=8, match_id="local", bots=[
        {"name": "h1", "command": HEURISTIC_BOT}, {"name": "r1", "command": RANDOM_BOT},
        {"name": "h2", "command": HEURISTIC_BOT}, {"name": "r2", "command": RANDOM_BOT}])
    for g in range(8):
        name = f"game-{g:03d}.jsonl"
        boxed_actions = read_record(tmp_path / "boxed" / name).actions
        assert boxed_actions == read_record(tmp_path / "local" / name).actions
    assert [g["scores"] for g in boxed["games"]] == [g["scores"] for g in local["games"]]
    assert all(not any(g["failures"]) for g in boxed["games"])
    check_records_replay(tmp_path / "boxed", boxed)


def test_container_profile(docker_client, sample_images, tmp_path):
    """Inspect a live bot container: every limit of the profile is in force."""
    from referee.match import Match, run_async

    seen = {}

    class Spy(Match):
        async def play_game(self, g):
            container = self.seats[0].container
            container.reload()
            seen.update(container.attrs)
            await super().play_game(g)

    spec = parse_spec({"match_id": "profile", "game": "prohis", "games": 1, "bots": [
        {"name": "r", "image": sample_images["random"]}, {"name": "a", "builtin": "random"},
        {"name": "b", "builtin": "random"}]})
    everywhere = set(cpu.allowed())
    core = max(everywhere)
    cpu.pin({core})  # as the referee process pins itself: the bot's container must follow
    try:
        run_async(Spy(spec, tmp_path).run())
    finally:
        cpu.pin(everywhere)
    host = seen["HostConfig"]
    assert host["CpusetCpus"] == (str(core) if len(everywhere) > 1 else "")
    assert host["NetworkMode"] == "none"
    assert host["ReadonlyRootfs"] is True
    assert host["Memory"] == host["MemorySwap"] == PROFILE.memory_mb * 2**20
    assert host["NanoCpus"] == 10**9
    assert host["PidsLimit"] == PROFILE.pids
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["Init"] is False and host["IpcMode"] == "private"  # arena-init is the container's init
    assert seen["Config"]["Entrypoint"] == [isolation.INIT_MOUNT, "/run/arena/output", "--"]
    assert seen["Config"]["Cmd"] == ["python3", "-u", "/bot/bot.py"]  # the image's
    # only arena-init's own errors reach the engine's log: the bot's output goes to /run/arena/output
    assert host["LogConfig"] == {"Type": "json-file", "Config": {"max-file": "1", "max-size": "1m"}}
    assert "size=64m" in host["Tmpfs"]["/tmp"]
    uid, gid = map(int, seen["Config"]["User"].split(":"))  # a user of the container's own
    assert uid == gid and isolation.FIRST_UID <= uid < isolation.FIRST_UID + isolation.UIDS
    assert host["CgroupParent"].startswith(f"/{isolation.SEAT_CGROUP_PREFIX}")  # reclaimed after it
    assert seen["Config"]["Labels"]["arena.managed"] == "1"
    mounts = {m["Destination"]: m for m in seen["Mounts"]}
    assert sorted(mounts) == ["/run/arena", isolation.INIT_MOUNT]
    assert not any(m["RW"] for m in mounts.values())
    env = {e.split("=", 1)[0] for e in seen["Config"]["Env"]}
    image_env = {"PATH", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED"}
    assert env <= {"ARENA_SOCKET", "HOME"} | image_env
    assert not arena_containers(docker_client, "profile")


# attack -> (the recorded reason, the evidence in the bot's output: one of "a|b")
EXPECTED = {
    # the pids limit refuses forks (EAGAIN), seen by the bot or by gRPC's own threads
    "forkbomb": ("timeout", "REFUSED: fork after|Resource temporarily unavailable"),
    "membomb": ("crash", ""),
    "busyloop": ("timeout", ""),
    "sleep": ("timeout", ""),
    "filltmp": ("", "REFUSED: /tmp full after"),
    "writeroot": ("", "REFUSED: write /bot/evil: EROFS"),
    "writesocket": ("", "REFUSED: delete the socket: EROFS"),
    "egress": ("", "REFUSED: connect 1.1.1.1:53"),
    "hostsnoop": ("", "REFUSED: read /work/main/README.md: ENOENT"),
    "daemon": ("crash", ""),
    # the first 1 MiB of output is kept; past it the flood is read at 1 MiB/s, so the bot waits in
    # its writes until its decision's time is up (referee/output.py)
    "flood": ("timeout", "x" * 1000),
    "exit": ("crash", ""),
}


@pytest.mark.parametrize("attack", list(EXPECTED))
def test_adversarial_bot(attack, tmp_path, docker_client, adversary_images, monkeypatch):
    monkeypatch.setenv(SECRET, "the referee's secret")  # must not reach any container
    reason, evidence = EXPECTED[attack]
    match_id = f"attack-{attack}"
    t0 = time.monotonic()
    result = match(tmp_path, match_id=match_id, bots=[
        {"name": "attacker", "image": adversary_images[attack]},
        {"name": "calm1", "builtin": "random"}, {"name": "calm2", "builtin": "random"}],
        # the memory bomb must reach the cgroup's limit before its decision's time is up: under a
        # loaded machine (a second test process, CI) filling 512 MiB took over 3.5 s once
        time={"startup_ms": 20000, "decision_ms": 10_000 if attack == "membomb" else 3000, "bank_ms": 500})
    elapsed = time.monotonic() - t0
    game = result["games"][0]
    seat = game["bots"].index(0)
    log = (tmp_path / "bot0-attacker.log").read_text(errors="replace")

    # the outcome and its recorded reason
    assert game["failures"][seat] == reason, log[-2000:]
    if reason:
        assert game["ranks"][seat] == 3
        detail = read_record(tmp_path / game["record"]).failures[0]["detail"]
        if attack == "membomb":
            assert "out of memory" in detail
        if attack == "exit":
            assert "exit code 5" in detail
        if attack == "flood":
            assert "waits in its writes" in detail, detail
    assert any(e in log for e in evidence.split("|")), log[-2000:]
    assert "BREACH" not in log
    if attack == "hostsnoop":
        env_line = next(line for line in log.splitlines() if line.startswith("ENV: "))
        assert SECRET not in env_line
        # ours, the image's, docker's HOSTNAME, LC_CTYPE which Python sets itself (PEP 538), and
        # the one the kit sets in its own process (arenabot/__init__.py)
        assert set(env_line[5:].split(",")) <= {"ARENA_SOCKET", "HOME", "PATH", "PYTHONPATH",
                                                "PYTHONDONTWRITEBYTECODE", "HOSTNAME", "LC_CTYPE",
                                                "GRPC_ENABLE_FORK_SUPPORT"}
    if attack == "flood":
        assert len(log) <= LOG_CAP + 4096  # kept, and capped

    # the referee and the other seats are unaffected
    assert elapsed < 60
    assert [f for s, f in enumerate(game["failures"]) if s != seat] == ["", ""]
    check_records_replay(tmp_path, result)

    # nothing is left behind: no container, no process, no socket
    assert not arena_containers(docker_client, match_id)
    assert not processes_running("adversary.py")
    assert not [p for p in _host_processes() if "sleep 424242" in p]
    assert not [p for p in os.listdir("/tmp") if p.startswith("arena-") and
                (Path("/tmp") / p / "owner").exists() and
                (Path("/tmp") / p / "owner").read_text().endswith(f":{os.getpid()}")]


def _host_processes() -> list[str]:
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            out.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_plays_with_container_seats(game, tmp_path, docker_client, sample_images):
    """Each game's sample bots in containers: its heuristic (when it has one) and random bots,
    at the game's smallest player count, with no failure."""
    spec = get_game(game)
    heuristic = {"prohis": "prohis_heuristic"}.get(game, f"{game}_heuristic")
    images = [sample_images[heuristic]] if heuristic in sample_images else []
    images += [sample_images["random"]] * (spec.min_players - len(images))
    result = match(tmp_path, games=spec.min_players, match_id=f"each-{game}", bots=[
        {"name": f"b{i}", "image": image} for i, image in enumerate(images)], game=game)
    assert all(not any(g["failures"]) for g in result["games"])
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, f"each-{game}")


def test_a_seat_stopped_while_its_container_starts_leaves_no_container(tmp_path, docker_client, sample_images):
    """SIGTERM cancels the match while the engine is still making a bot's container (a worker or
    runner killed early in a match): the seat's close waits for the engine's calls and removes
    what they made, rather than finding no container yet and leaving it running."""
    match_id = f"cancelled-start-{os.getpid()}-{time.monotonic_ns()}"
    (tmp_path / "seat").mkdir()  # as the seat's connect makes it, with the seat's server in it
    seat = ContainerSeat("random", "1", sample_images["random"], tmp_path / "seat", tmp_path / "random.log",
                         match_id=match_id)

    async def start_then_stop() -> None:
        launch = asyncio.ensure_future(seat.launch())
        await asyncio.sleep(0.05)  # the thread is in the engine's create call: it takes far longer
        assert not launch.done()
        launch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await launch
        await seat.close()

    asyncio.run(start_then_stop())  # returns once the launch's thread is done, as a referee exits
    assert arena_containers(docker_client, match_id) == []
