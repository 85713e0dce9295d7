"""Bot builds run in a sandbox of their own: no network, limits on memory, processes, CPU and
file size, a context confined to the bot folder. Each attack is refused or contained with a
clear message, and a refused or failed build leaves nothing on the host."""

from __future__ import annotations

import contextlib
import http.server
import ipaddress
import os
import re
import socket
import threading
from pathlib import Path

import docker.errors
import pytest

from arena.bots import BUILD_LIMITS, BotError, BuildLimits, build_bot, load_bot_config
from arena.images import PYTHON_BASE
from referee.match import run_match
from referee.spec import parse_spec

from .leftovers import MARK

TOML = 'name = "{name}"\nversion = "1"\nlanguage = "python"\nauthor = "me"\n'
SECRET = "the host's secret 5f1c"


def bot_folder(tmp_path: Path, mark: str, steps: str, build: str = "") -> Path:
    """A bot folder whose build marks its images and containers, then runs ``steps``."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(TOML.format(name=f"t-{mark}") + (f"[build]\n{build}\n" if build else ""))
    (folder / "Dockerfile").write_text(f"ARG BASE\nFROM ${{BASE}}\nLABEL {MARK}={mark}\n{steps}")
    return folder


def failed_build(folder: Path, client, limits: BuildLimits = BUILD_LIMITS) -> str:
    """The message of the build's failure; the image was never tagged."""
    config = load_bot_config(folder)
    with pytest.raises(BotError) as info:
        build_bot(client, config, limits=limits)
    with pytest.raises(docker.errors.ImageNotFound):
        client.images.get(config.tag)
    return str(info.value)


# -- no network ------------------------------------------------------------------------------
def test_a_build_step_cannot_reach_the_host(tmp_path, docker_client, mark):
    ipam = docker_client.networks.get("bridge").attrs["IPAM"]["Config"][0]
    gateway = ipam.get("Gateway") or str(ipaddress.ip_network(ipam["Subnet"])[1])  # docker0 on the host
    with socket.create_server(("0.0.0.0", 0)) as server:  # every address of the host, docker0's too
        server.settimeout(10)
        port = server.getsockname()[1]
        connect = (f"python3 -c \"import socket; socket.create_connection(('{gateway}', {port}), timeout=5); "
                   "print('REACHED', 6 * 7)\"")
        # the control: a container on the default network does reach it
        control = docker_client.containers.run(PYTHON_BASE.tag, ["sh", "-c", connect], network_mode="bridge",
                                               labels={MARK: mark}, remove=True)
        assert b"REACHED 42" in control
        server.accept()[0].close()

        message = failed_build(bot_folder(tmp_path, mark, f"RUN {connect}\n"), docker_client)
        assert "Network is unreachable" in message and "REACHED 42" not in message, message
        server.setblocking(False)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected


class Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        Recorder.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(SECRET.encode())

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("add", [
    "ADD http://127.0.0.1:{port}/secret /secret",
    'ADD ["http://127.0.0.1:{port}/secret", "/secret"]',
    "ADD --chown=10001 \\\n    http://127.0.0.1:{port}/secret \\\n    /secret",
    "ARG URL=http://127.0.0.1:{port}/secret\nADD ${{URL}} /secret",
    "add\thttp://127.0.0.1:{port}/secret /secret",
])
def test_add_of_a_url_is_refused_before_the_engine_fetches_it(add, tmp_path, docker_client, mark):
    """The engine downloads ADD's URLs itself, on the host's network: it reached the host's
    loopback, whatever the build's network mode."""
    server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Recorder.requests = []
    try:
        steps = add.format(port=server.server_port) + "\nRUN cat /secret\n"
        message = failed_build(bot_folder(tmp_path, mark, steps), docker_client)
    finally:
        server.shutdown()
        server.server_close()
    assert re.search(r"Dockerfile, line \d+: ADD .* is refused", message), message
    assert "Bot builds are offline" in message
    assert Recorder.requests == [] and SECRET not in message


# -- nothing but the bot folder and its base image ---------------------------------------------
@pytest.mark.parametrize("dockerfile, expected", [
    ("FROM {random}\nRUN cat /bot/bot.py\n",
     "Dockerfile, line 1: FROM '{random}' is refused: it is the image of the bot 'random'"),
    ("ARG BASE\nFROM ${{BASE}}\nCOPY --from={random} /bot/bot.py /stolen.py\nRUN cat /stolen.py\n",
     "Dockerfile, line 3: COPY --from '{random}' is refused: it is the image of the bot 'random'"),
    ("ARG THEIRS={random}\nFROM ${{THEIRS:-scratch}}\n",
     "Dockerfile, line 2: FROM '{random}' is refused"),
    ("FROM registry.invalid:5000/debian:bookworm\n",
     "FROM 'registry.invalid:5000/debian:bookworm' is not an image on this Docker engine, and bot builds "
     "are offline"),
])
def test_a_build_reads_no_bots_image_and_pulls_nothing(dockerfile, expected, tmp_path, docker_client,
                                                       sample_images, mark):
    """Another bot's image holds its author's code, and the build log goes back to this author."""
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(dockerfile.format(random=sample_images["random"]))
    message = failed_build(folder, docker_client)
    assert expected.format(random=sample_images["random"]) in message, message
    assert "uniformly random" not in message  # the sample bot's docstring


def test_a_multi_stage_build_on_the_base_image_is_fine(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(
        f"ARG BASE\nFROM ${{BASE}} AS Build\nLABEL {MARK}={mark}\nRUN echo built > /tmp/out\n"
        f"FROM ${{BASE}}\nLABEL {MARK}={mark}\nCOPY --from=build /tmp/out /bot/out\n"
        "COPY --from=0 /tmp/out /bot/again\n")
    built = build_bot(docker_client, load_bot_config(folder))
    assert docker_client.images.get(built.tag).labels[MARK] == mark
    docker_client.images.remove(built.tag)  # with the build's untagged steps below it
    for _ in range(5):  # the first stage's, kept as the build's cache: children before parents
        for image in docker_client.api.images(all=True, quiet=True, filters={"label": f"{MARK}={mark}"}):
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(image)


# -- the context stays in the bot folder -------------------------------------------------------
@pytest.mark.parametrize("build, expected", [
    ('context = "../.."', r"\[build\] context '../..' leads outside the bot folder"),
    ('context = "/"', r"\[build\] context '/' is an absolute path"),
    ('context = "{folder}"', r"\[build\] context '.*' is an absolute path"),
    ('context = "outside"', r"\[build\] context 'outside' leads outside the bot folder"),  # a symlink
    ('context = "./sub/../.."', r"leads outside the bot folder"),
    ('dockerfile = "../Dockerfile"', r"\[build\] dockerfile '../Dockerfile' leads outside the bot folder"),
    ('dockerfile = "/etc/passwd"', r"\[build\] dockerfile '/etc/passwd' is an absolute path"),
    ('dockerfile = "Dockerfile.link"', r"\[build\] dockerfile 'Dockerfile.link' leads outside"),  # a symlink
])
def test_the_build_context_and_dockerfile_stay_in_the_bot_folder(build, expected, tmp_path, mark):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(SECRET)
    (tmp_path / "Dockerfile").write_text("FROM scratch\nCOPY outside/secret.txt /\n")
    folder = bot_folder(tmp_path, mark, "", build.format(folder=tmp_path / "bot"))
    (folder / "sub").mkdir()
    (folder / "outside").symlink_to(tmp_path / "outside")
    (folder / "Dockerfile.link").symlink_to(tmp_path / "Dockerfile")
    with pytest.raises(BotError, match=expected) as info:
        load_bot_config(folder)
    assert SECRET not in str(info.value)


def test_a_bot_toml_leading_out_of_the_bot_folder_is_refused(tmp_path, mark):
    folder = bot_folder(tmp_path, mark, "")
    (tmp_path / "theirs.toml").write_text((folder / "bot.toml").read_text().replace('"me"', f'"{SECRET}"'))
    (folder / "bot.toml").unlink()
    (folder / "bot.toml").symlink_to(tmp_path / "theirs.toml")
    with pytest.raises(BotError, match="bot.toml is a symlink leading out of the bot folder") as info:
        load_bot_config(folder)
    assert SECRET not in str(info.value)


def test_a_symlink_out_of_the_bot_folder_is_refused(tmp_path, docker_client, mark):
    (tmp_path / "secret.txt").write_text(SECRET)
    folder = bot_folder(tmp_path, mark, "COPY . /bot/\nRUN cat /bot/notes.txt\n")
    (folder / "notes.txt").symlink_to(tmp_path / "secret.txt")
    message = failed_build(folder, docker_client)
    assert "'notes.txt' is a symlink leading out of the bot folder" in message, message
    assert SECRET not in message


def test_a_fifo_in_the_bot_folder_is_refused(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "COPY . /bot/\n")
    os.mkfifo(folder / ".dockerignore")  # docker-py would wait on it forever
    message = failed_build(folder, docker_client)
    assert "'.dockerignore' is not a file, a folder or a symlink" in message, message


def test_a_wider_root_is_the_callers_to_give(tmp_path, mark):
    """For bots that share files, whoever runs the build may widen the root; bot.toml may not."""
    (tmp_path / "kit").mkdir()
    folder = bot_folder(tmp_path, mark, "", 'context = ".."\ndockerfile = "Dockerfile"')
    with pytest.raises(BotError, match="leads outside the bot folder"):
        load_bot_config(folder)
    config = load_bot_config(folder, root=tmp_path)
    assert config.context == tmp_path.resolve() and config.root == tmp_path.resolve()
    with pytest.raises(BotError, match="is not inside the root"):
        load_bot_config(folder, root=tmp_path / "kit")


# -- limits ------------------------------------------------------------------------------------
def test_a_build_step_cannot_take_more_memory_than_its_limit(tmp_path, docker_client, mark):
    steps = "RUN python3 -c \"b = b'x' * (2 << 30); print('ALLOCATED', len(b))\"\n"  # 2 GiB
    message = failed_build(bot_folder(tmp_path, mark, steps), docker_client)
    assert "returned a non-zero code: 137" in message, message
    assert f"over the build's memory limit of {BUILD_LIMITS.memory_mb} MiB" in message
    assert "ALLOCATED 2147483648" not in message


FORK = """\
import os, time
forks = 0
try:
    while forks < 2000:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        forks += 1
except OSError as exc:
    print("REFUSED after", forks, "forks:", exc.strerror)
print("FORKED", forks)
"""


def test_a_build_cannot_start_more_processes_than_its_limit(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "COPY fork.py /fork.py\nRUN python3 /fork.py; exit 1\n")
    (folder / "fork.py").write_text(FORK)
    message = failed_build(folder, docker_client)
    refused = re.search(r"REFUSED after (\d+) forks: Resource temporarily unavailable", message)
    assert refused, message
    assert int(refused[1]) < BUILD_LIMITS.pids, f"{refused[1]} forks under a limit of {BUILD_LIMITS.pids}"
    assert "FORKED 2000" not in message


SPIN = """\
import os, time
for _ in range(2):
    if os.fork() == 0:
        end = time.monotonic() + 3
        while time.monotonic() < end:
            pass
        os._exit(0)
start = time.monotonic()
os.wait(); os.wait()
times = os.times()
print(f"SPUN cpu={times.children_user + times.children_system:.2f} wall={time.monotonic() - start:.2f}")
"""


def test_a_build_gets_no_more_cpu_than_its_limit(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "COPY spin.py /spin.py\nRUN python3 /spin.py; exit 1\n")
    (folder / "spin.py").write_text(SPIN)
    message = failed_build(folder, docker_client)
    spun = re.search(r"SPUN cpu=([\d.]+) wall=([\d.]+)", message)
    assert spun, message
    cpu, wall = float(spun[1]), float(spun[2])
    # two spinners on two cores would take 2 CPU-seconds a second; the quota gives one
    assert cpu / wall <= BUILD_LIMITS.cpus * 1.15, f"{cpu:.2f} CPU-s in {wall:.2f} s under a limit of 1 CPU"


def test_a_build_step_cannot_write_a_file_larger_than_its_limit(tmp_path, docker_client, mark):
    steps = "RUN python3 -c \"open('/tmp/big', 'wb').write(b'x' * (2 << 20)); print('WROTE', 2 << 20)\"\n"
    message = failed_build(bot_folder(tmp_path, mark, steps), docker_client, BuildLimits(file_size_mb=1))
    assert "File too large" in message and "WROTE 2097152" not in message, message


def test_builds_refuse_an_engine_whose_cgroups_they_cannot_set_up(tmp_path, docker_client, mark, monkeypatch):
    """Where the pids limit cannot be set up, the build fails clearly rather than running without it."""
    info = docker_client.info()
    monkeypatch.setattr(type(docker_client), "info", lambda self: {**info, "CgroupDriver": "systemd",
                                                                    "CgroupVersion": "2"})
    message = failed_build(bot_folder(tmp_path, mark, "RUN true\n"), docker_client)
    assert "cgroupfs driver on cgroup v1; this engine has the systemd driver on cgroup v2" in message


# -- and a normal bot ----------------------------------------------------------------------
def test_a_sample_bot_still_builds_and_plays(tmp_path, docker_client, sample_images):
    image = docker_client.images.get(sample_images["random"])
    assert image.labels["arena.bot.name"] == "random"
    spec = parse_spec({"match_id": "sample-plays", "game": "prohis", "games": 2, "seed": 3, "bots": [
        {"name": "r", "image": sample_images["random"]}, {"name": "h", "image": sample_images["prohis_heuristic"]},
        {"name": "b", "builtin": "random"}]})
    result = run_match(spec, tmp_path)
    assert [g["failures"] for g in result["games"]] == [["", "", ""]] * 2, result["games"]
