"""Bot builds run in a sandbox of their own: no network, limits on memory, processes, CPU and
file size, a context confined to the bot folder. Each attack is refused or contained with a
clear message, and a refused or failed build leaves nothing on the host."""

from __future__ import annotations

import contextlib
import http.server
import ipaddress
import os
import re
import secrets
import socket
import threading
import time
from pathlib import Path

import docker.errors
import pytest

from arena.bots.build import BUILD_LIMITS, BuildLimits, build_bot
from arena.bots.cache import STAGES_REPOSITORY, remove_bot_image
from arena.bots.config import BotError, load_bot_config
from arena.bots.dockerfile import check_dockerfile, instructions
from arena.bots.images import PYTHON_BASE
from arena.bots.offline import offline_hint
from referee.match import run_match
from referee.spec import parse_spec

from .conftest import ROOT
from .leftovers import MARK, new_mark

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


OFFLINE = "builds have no network"


@pytest.mark.parametrize("steps, tool", [
    ("RUN apt-get install -y cowsay\n", "apt"),  # as the base's user: apt fails on its lock
    ("USER root\nRUN apt-get update && apt-get install -y cowsay\n", "apt"),  # as root: no package lists
    ("RUN python3 -c \"import urllib.request; urllib.request.urlopen('http://example.org/x.whl')\"\n", ""),
])
def test_a_step_that_reaches_for_the_network_fails_saying_builds_are_offline(steps, tool, tmp_path, docker_client,
                                                                             mark):
    message = failed_build(bot_folder(tmp_path, mark, steps), docker_client)
    said = OFFLINE + (f" ({tool} cannot download anything): vendor " if tool else ": vendor ")
    assert said in message and "in your folder (docs/writing-a-bot.md" in message, message
    assert message.rstrip().endswith('"Builds are offline and sandboxed")')


def test_a_step_that_fails_on_its_own_is_not_blamed_on_the_network(tmp_path, docker_client, mark):
    message = failed_build(bot_folder(tmp_path, mark, "RUN echo my own mistake && exit 3\n"), docker_client)
    assert "returned a non-zero code: 3" in message and OFFLINE not in message


@pytest.mark.parametrize("command, output, tool", [
    ("RUN pip install numpy", "ERROR: No matching distribution found for numpy", "pip"),
    ("RUN python3 -m pip download -d w grpcio", "/usr/bin/python3: No module named pip", "pip"),
    ("RUN npm ci", "sh: 1: npm: not found", "npm"),
    ("RUN go get github.com/pkg/errors", "mkdir /usr/local/share/arena-go/src/github.com: permission denied", "go"),
    ("RUN go build -o /bot/bot .", "dial tcp: lookup proxy.example: no such host", "go"),
    ("RUN cargo build --release", "warning: spurious network error (2 tries remaining)", "cargo"),
    ("RUN go build -o /bot/bot .", "./main.go:3:1: syntax error: non-declaration statement", None),
    ("RUN cargo build --release", "error[E0425]: cannot find value `x` in this scope", None),
    ("RUN pip install --no-index --find-links wheels numpy", "ERROR: numpy.whl is not a supported wheel", None),
    ("COPY missing /bot/", "COPY failed: file not found in build context", None),
])
def test_the_offline_hint_names_the_tool_only_where_the_network_was_wanted(command, output, tool):
    hint = offline_hint(["Step 1/3 : ARG BASE", "Step 3/3 : " + command, output])
    if tool is None:
        assert hint == ""
    else:
        assert f"{OFFLINE} ({tool} cannot download anything): vendor " in hint, hint


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
    ("FROM {random}\nRUN cat /bot/bot.py\n", "Dockerfile, line 1: FROM '{random}' is refused: a bot's build may start "
     "from Arena's base image"),
    ("ARG BASE\nFROM ${{BASE}}\nCOPY --from={random} /bot/bot.py /stolen.py\nRUN cat /stolen.py\n",
     "Dockerfile, line 3: COPY --from='{random}' is refused: --from names an earlier stage of this Dockerfile"),
    ("ARG THEIRS={random}\nFROM ${{THEIRS:-scratch}}\n", "Dockerfile, line 2: FROM '${{THEIRS:-scratch}}' is refused"),
    ("FROM registry.invalid:5000/debian:bookworm\n",
     "FROM 'registry.invalid:5000/debian:bookworm' is refused: a bot's build may start from Arena's base image"),
    ("FROM {adversary}\n", "FROM '{adversary}' is refused"),  # an image on the engine, no bot's: no base either
])
def test_a_build_reads_no_bots_image_and_pulls_nothing(dockerfile, expected, tmp_path, docker_client,
                                                       sample_images, adversary_images, mark):
    """Another bot's image holds its author's code, and the build log goes back to this author."""
    folder = bot_folder(tmp_path, mark, "")
    values = {"random": sample_images["random"], "adversary": adversary_images["sleep"]}
    (folder / "Dockerfile").write_text(dockerfile.format(**values))
    message = failed_build(folder, docker_client)
    assert expected.format(**values) in message, message
    assert "uniformly random" not in message  # the sample bot's docstring


def test_a_multi_stage_build_on_the_base_image_is_fine_and_leaves_no_stage(tmp_path, docker_client, mark):
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_text(
        f"ARG BASE\nFROM ${{BASE}} AS Build\nLABEL {MARK}={mark}\nRUN echo built > /tmp/out && "
        "head -c 4000000 /dev/zero > /tmp/toolchain\n"
        f"FROM {PYTHON_BASE.tag}\nCOPY --from=build /tmp/out /bot/out\nCOPY --from=0 /tmp/out /bot/again\n"
        f"LABEL {MARK}={mark}\n")
    config = load_bot_config(folder)
    built = build_bot(docker_client, config)
    image = docker_client.api.inspect_image(built.tag)
    assert image["Config"]["Labels"][MARK] == mark and not image["Parent"]

    def cache() -> list[dict]:  # the next build's cache: a twin of the image, sharing its layers
        return [docker_client.api.inspect_image(f"{STAGES_REPOSITORY}/{config.name}:final")]

    # no step of either stage is left as an image, the build stage included (its toolchain's
    # output is no layer of the image), and nothing dangles: the image and its twin are all there are
    for kept in cache():
        assert not kept["Parent"] and kept["RootFS"]["Layers"] == image["RootFS"]["Layers"]
    assert sorted(docker_client.api.images(all=True, quiet=True, filters={"label": f"{MARK}={mark}"})) == sorted(
        [image["Id"], *(kept["Id"] for kept in cache())])
    assert [t for i in docker_client.api.images(name=STAGES_REPOSITORY) for t in i["RepoTags"] or ()
            if t.startswith(f"{STAGES_REPOSITORY}/{config.name}:stage")] == []
    assert docker_client.api.images(quiet=True, filters={"dangling": True, "label": f"{MARK}={mark}"}) == []
    again = build_bot(docker_client, config)  # the build stage runs again
    rebuilt = docker_client.api.inspect_image(again.tag)
    assert not rebuilt["Parent"] and rebuilt["RootFS"]["Layers"][:-2] == image["RootFS"]["Layers"][:-2]
    assert rebuilt["Id"] == image["Id"]  # the same files: the COPY steps are found in the cache
    assert sorted(docker_client.api.images(all=True, quiet=True, filters={"label": f"{MARK}={mark}"})) == sorted(
        [rebuilt["Id"], *(kept["Id"] for kept in cache())])
    assert docker_client.api.images(quiet=True, filters={"dangling": True, "label": f"{MARK}={mark}"}) == []
    remove_bot_image(docker_client, built.tag)


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


# -- a build sees only Arena's bases and its own stages ------------------------------------------
@pytest.fixture(scope="module")
def victim(docker_client, tmp_path_factory):
    """Another author's bot, built first: the full id of each image its build made (a step's
    image exists while the build runs, whatever happens to it afterwards), its secret source, and
    its tag. The layer of ``COPY bot.py`` is the one that holds the source."""
    mark, secret = new_mark(), f"the victim's secret {secrets.token_hex(8)}"
    folder = tmp_path_factory.mktemp("victim") / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(TOML.format(name=f"victim-{mark}"))
    (folder / "bot.py").write_text(f"print({secret!r})\n")
    (folder / "Dockerfile").write_text(f'ARG BASE\nFROM ${{BASE}}\nLABEL {MARK}={mark}\nCOPY bot.py /bot/bot.py\n'
                                       'CMD ["python3", "/bot/bot.py"]\n')
    steps: list[str] = []  # (step, full id), in order

    def said(line: str) -> None:
        if (made := re.fullmatch(r" ---> ([0-9a-f]{12})", line)) and steps and steps[-1].startswith("COPY"):
            steps[-1] = docker_client.api.inspect_image(made[1])["Id"]
        elif line.startswith("Step ") and " : COPY " in line:
            steps.append("COPY")

    built = build_bot(docker_client, load_bot_config(folder), say=said)
    assert steps and steps[0].startswith("sha256:"), built.log
    yield {"copy": steps[0], "secret": secret, "tag": built.tag, "mark": mark}
    remove_bot_image(docker_client, built.tag)
    for _ in range(12):  # what the build left, if anything: children before parents
        for image in docker_client.api.images(all=True, quiet=True, filters={"label": f"{MARK}={mark}"}):
            with contextlib.suppress(docker.errors.APIError):
                docker_client.images.remove(image)


def unique_prefix(docker_client, image_id: str, at_least: int = 4) -> str:
    """The shortest prefix of ``image_id`` (at least 4 hex digits) that no other image's id has."""
    others = [i.removeprefix("sha256:") for i in docker_client.api.images(all=True, quiet=True) if i != image_id]
    hexid = image_id.removeprefix("sha256:")
    for length in range(at_least, 65):
        if not any(other.startswith(hexid[:length]) for other in others):
            return hexid[:length]
    return hexid


STEAL = "RUN cat /bot/bot.py /stolen.py || true\n"
ATTACKS = {
    "FROM its layer's id": ("FROM {id}\n" + STEAL, "line 1: FROM '{id}' is refused", ""),
    "FROM a prefix": ("FROM {prefix}\n" + STEAL, "line 1: FROM '{prefix}' is refused", ""),
    "FROM a 12-digit id": ("FROM {short}\n" + STEAL, "line 1: FROM '{short}' is refused", ""),
    "COPY --from its layer": ("ARG BASE\nFROM ${{BASE}}\nCOPY --from={id} /bot/bot.py /stolen.py\n" + STEAL,
                              "line 3: COPY --from='{id}' is refused", ""),
    "COPY --from a prefix": ("ARG BASE\nFROM ${{BASE}}\nCOPY --from={prefix} /bot/bot.py /stolen.py\n" + STEAL,
                             "line 3: COPY --from='{prefix}' is refused", ""),
    "ARG default in FROM": ("ARG THEIRS={id}\nFROM ${{THEIRS}}\n" + STEAL, "line 2: FROM '${{THEIRS}}' is refused",
                            ""),
    "bot.toml's arg in FROM": ("ARG THEIRS\nFROM $THEIRS\n" + STEAL, "line 2: FROM '$THEIRS' is refused",
                               'args = {{ THEIRS = "{id}" }}'),
    "a later stage FROM the layer": ("ARG BASE\nFROM ${{BASE}} AS a\nRUN true\nFROM {id}\n" + STEAL,
                                     "line 4: FROM '{id}' is refused", ""),
    "its tag": ("FROM {tag}\n" + STEAL, "line 1: FROM '{tag}' is refused", ""),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_build_cannot_read_another_bots_layers(attack, tmp_path, docker_client, victim, mark):
    """Only a bot image's last steps carry Arena's labels: the layer of its ``COPY`` is an image
    of its own in the engine's store (the classic builder keeps each step's image), by id or by
    any unique prefix of it, unless the build removed it."""
    dockerfile, expected, build = ATTACKS[attack]
    values = {"id": victim["copy"], "short": victim["copy"].removeprefix("sha256:")[:12],
              "prefix": unique_prefix(docker_client, victim["copy"]), "tag": victim["tag"]}
    folder = bot_folder(tmp_path, mark, "", build.format(**values))
    (folder / "Dockerfile").write_text(dockerfile.format(**values))
    said: list[str] = []
    config = load_bot_config(folder)
    try:
        built = build_bot(docker_client, config, say=said.append)
    except BotError as exc:
        message = str(exc)
    else:
        remove_bot_image(docker_client, built.tag)
        stolen = any(victim["secret"] in line for line in said)
        pytest.fail(f"built{', and the log shows the victim source' if stolen else ''}: {said[-6:]}")
    assert victim["secret"] not in message and not any(victim["secret"] in line for line in said), message
    assert expected.format(**values) in message, message
    assert "an earlier stage" in message or "earlier stage" in message, message


def test_no_step_of_a_bots_build_is_left_as_an_image(docker_client, victim):
    """Whatever the Dockerfile check lets through, nothing of another bot is there to read: the
    layer that holds its source is no image of its own, and the bot's image has no parent."""
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.api.inspect_image(victim["copy"])
    image = docker_client.api.inspect_image(victim["tag"])
    assert not image.get("Parent"), image.get("Parent")
    # and its twin, the next build's cache (a tag of the cache's own, which no FROM may name)
    twin = docker_client.api.inspect_image(f"{STAGES_REPOSITORY}/{victim['tag'].split('/', 1)[1].split(':')[0]}:final")
    assert not twin.get("Parent"), twin.get("Parent")
    assert sorted(docker_client.api.images(all=True, quiet=True, filters={"label": f"{MARK}={victim['mark']}"})) == \
        sorted([image["Id"], twin["Id"]])


# The engine's Dockerfile parser has rules of its own (moby/buildkit's, as the classic builder of
# Docker 20.10 vendors it); the check reads a Dockerfile by the same rules, or a line it reads
# as part of another could be a FROM the engine runs. Each of these hides one.
HIDDEN = {
    "a byte-order mark": ("\ufeffFROM {id}\n", 1),
    "lower case": ("from {id}\n", 1),
    "CR LF": ("FROM {id}\r\n", 1),
    "an ideographic space first": ("\u3000FROM {id}\n", 1),
    "continued": ("FROM \\\n  {id}\n", 1),
    "a comment inside": ("FROM \\\n# the victim\n\n{id}\n", 1),
    "a lone backslash": ("ARG BASE\nFROM ${{BASE}}\n\\\nFROM {id}\n", 3),
    "an escaped backslash at the end": ("ARG BASE\nFROM ${{BASE}}\nRUN echo \\\\\nFROM {id}\n", 4),
    "a form feed after the backslash": ("ARG BASE\nFROM ${{BASE}}\nRUN echo \\\f\nFROM {id}\n", 4),
    "a directive after another": ("# foo=bar\n# escape=`\nARG BASE\nFROM ${{BASE}}\nRUN echo `\nFROM {id}\n", 6),
    "a heredoc (the classic builder has none)": ("ARG BASE\nFROM ${{BASE}}\nRUN cat <<EOF\nFROM {id}\nEOF\n", 4),
    "--platform": ("FROM --platform=linux/amd64 {id}\n", 1),
    "COPY --FROM": ("ARG BASE\nFROM ${{BASE}}\ncopy --FROM={id} /bot/bot.py /s\n", 3),
    "COPY --from, JSON form": ('ARG BASE\nFROM ${{BASE}}\nCOPY --from={id} ["/bot/bot.py", "/s"]\n', 3),
    "COPY --from, quoted": ('ARG BASE\nFROM ${{BASE}}\nCOPY --from="{id}" /bot/bot.py /s\n', 3),
    "COPY --from, escaped": ("ARG BASE\nFROM ${{BASE}}\nCOPY --fr\\om={id} /bot/bot.py /s\n", 3),
    "COPY --from, this stage's number": ("ARG BASE\nFROM ${{BASE}}\nCOPY --from=0 /bot/bot.py /s\n", 3),
    "COPY --from, a later stage": ("ARG BASE\nFROM ${{BASE}}\nCOPY --from=later /a /s\nFROM ${{BASE}} AS later\n", 3),
    "ADD --from": ("ARG BASE\nFROM ${{BASE}}\nADD --from={id} /bot/bot.py /s\n", 3),
    "ONBUILD COPY --from": ("ARG BASE\nFROM ${{BASE}} AS a\nONBUILD COPY --from={id} /bot/bot.py /s\nFROM a\n", 3),
    "a stage named oddly": ("ARG BASE\nFROM ${{BASE}} AS \u212aa\nCOPY --from=ka /bot/bot.py /s\n", 2),
}


@pytest.mark.parametrize("case", list(HIDDEN))
def test_a_from_hidden_from_a_naive_reading_is_refused(case, tmp_path, docker_client, victim, mark):
    dockerfile, line = HIDDEN[case]
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_bytes(dockerfile.format(id=victim["copy"]).encode())
    message = failed_build(folder, docker_client)
    assert f"Dockerfile, line {line}: " in message and ("refused" in message or "cannot name" in message), message
    assert victim["secret"] not in message


# ... and the same rules, checked against the engine: the steps it runs are the instructions the
# check reads (with the 6 labels `arena bot build` adds).
READ_ALIKE = {  # WORKDIR takes the rest of its line as a path: whichever way a line is read, it builds
    "a directive after another": "# foo=bar\n# escape=`\nARG BASE\nFROM ${BASE}\nWORKDIR /x `\nFROM ${BASE}\n",
    "an escape directive": "# escape=`\nARG BASE\nFROM ${BASE}\nWORKDIR /x `\nFROM ${BASE}\n",
    "an indented escape directive": "  # escape=`\nARG BASE\nFROM ${BASE}\nWORKDIR /x `\nFROM ${BASE}\n",
    "the other rules": "\ufeffARG BASE\nFROM ${BASE}\n"  # a byte-order mark
                       "\\\nFROM ${BASE}\n"  # a lone backslash
                       "WORKDIR /x\\\\\nFROM ${BASE}\n"  # an escaped backslash at the end
                       "WORKDIR /x \\\f\nFROM ${BASE}\n"  # a form feed after the backslash
                       "WORKDIR /a \\\n# c\n\n  FROM ${BASE}\n"  # comments and blank lines inside
                       "WORKDIR /a \\\r\nFROM ${BASE}\r\n"  # CR LF
                       "WORKDIR /x <<EOF\nFROM ${BASE}\nLABEL EOF=1\n"  # a heredoc
                       "\u3000FROM ${BASE}\n",  # an ideographic space first
}


@pytest.mark.parametrize("case", list(READ_ALIKE))
def test_the_check_reads_a_dockerfile_as_the_engine_does(case, tmp_path, docker_client, mark):
    data = (READ_ALIKE[case] + f"LABEL {MARK}={mark}\n").encode()
    folder = bot_folder(tmp_path, mark, "")
    (folder / "Dockerfile").write_bytes(data)
    said: list[str] = []
    built = build_bot(docker_client, load_bot_config(folder), say=said.append)
    remove_bot_image(docker_client, built.tag)
    steps = [m[1] for line in said if (m := re.match(r"Step \d+/\d+ : (\S+)", line))]
    # and a LABEL step for each of the build's labels (arena.bot.name, version, language, base, ...)
    assert [step.lower() for step in steps] == [k for _, k, _, _ in instructions(data)] + ["label"] * 7, said


def test_what_a_dockerfile_may_name(tmp_path, docker_client, mark):
    """Arena's bases (by ${BASE}, tag or id), earlier stages (by name in any case, or number), scratch:
    every sample bot's and starter's Dockerfile among them."""
    base_id = docker_client.api.inspect_image(PYTHON_BASE.tag)["Id"]
    allowed = [
        "ARG BASE\nFROM ${BASE} AS Build\nRUN true\nFROM build AS two\nCOPY --from=BUILD /a /b\nCOPY --from=0 /a /b\n"
        "FROM scratch\nCOPY --from=two /a /b\nCOPY --from=1 /a /b\n",
        f"FROM {PYTHON_BASE.tag}\n", f"FROM {PYTHON_BASE.name}:latest\n", f"FROM {base_id}\n", "ARG BASE\nFROM $BASE\n",
        "# escape=`\nARG BASE\nFROM ${BASE} `\n  AS b\nCOPY --chown=10001 a b\n",
        "ARG BASE\nFROM ${BASE} AS a\nFROM a\nONBUILD RUN true\nONBUILD COPY --from=a /a /b\n",
        *[path.read_text() for path in sorted([*(ROOT / "sample_bots").glob("*/*/Dockerfile"),
                                               *(ROOT / "arena" / "starters").glob("*/Dockerfile")])],
    ]
    for number, dockerfile in enumerate(allowed):
        (tmp_path / str(number)).mkdir()
        folder = bot_folder(tmp_path / str(number), mark, "")
        (folder / "Dockerfile").write_text(dockerfile)
        check_dockerfile(docker_client, load_bot_config(folder))


# -- the build's disk and time, bounded while it runs ---------------------------------------------
WRITE = ("RUN python3 -c \"[open(f'{path}/f{{i}}', 'wb').write(b'x' * {mib} * 2**20) for i in range({files})]; "
         "print('WROTE', {files} * {mib})\"\n")


class DiskUse:
    """The peak growth of the used space of the disk that holds the engine's files, sampled
    every 20 ms (other tests on the machine write there too: a rough figure)."""

    def __init__(self, path: str = "/var/lib/docker") -> None:
        self.path, self.peak, self.done = path, 0, threading.Event()
        self.start = self.used()

    def used(self) -> int:
        fs = os.statvfs(self.path)
        return (fs.f_blocks - fs.f_bfree) * fs.f_frsize

    def __enter__(self) -> DiskUse:
        def sample() -> None:
            while not self.done.wait(0.02):
                self.peak = max(self.peak, self.used() - self.start)

        self.thread = threading.Thread(target=sample, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()


@pytest.mark.parametrize("steps, cap", [
    (WRITE.format(files=10, mib=100, path="/tmp"), 100),  # one step: 1000 MiB
    (WRITE.format(files=1, mib=60, path="/tmp") * 4, 150),  # four steps of 60 MiB: the layers made count
    ("USER root\nVOLUME /data\n" + WRITE.format(files=10, mib=100, path="/data"), 100),  # a volume of the step's
    ("RUN python3 -c \"[open(f'/tmp/{i}', 'w').close() for i in range(200000)]; print('WROTE', 200000)\"\n",
     100),  # empty files: 4 KiB each
], ids=["one step", "four steps", "a volume", "empty files"])
def test_a_build_that_writes_past_the_cap_is_stopped_while_it_runs(steps, cap, tmp_path, docker_client, mark):
    """The image cap was checked only after the build: one RUN writing 5 x 1000 MiB took 9.9 GiB
    of the host's disk (the step's files, then the layer made of them) before the refusal."""
    config = load_bot_config(bot_folder(tmp_path, mark, steps))
    with DiskUse() as disk, pytest.raises(BotError) as info:
        build_bot(docker_client, config, max_size_mb=cap)
    message = str(info.value)
    assert f"over the cap of {cap} MiB" in message and "the build was stopped" in message, message
    assert "WROTE" not in message
    # the step's files, and then the layer the engine makes of them: twice the cap at most, and
    # the time between two looks
    assert disk.peak < (2 * cap + 300) * 2**20, f"the disk grew by {disk.peak / 2**20:.0f} MiB under a cap of {cap}"
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(config.tag)


def test_a_build_past_its_time_is_stopped(tmp_path, docker_client, mark):
    config = load_bot_config(bot_folder(tmp_path, mark, f"RUN sleep 100000 # {mark}\n"))
    start = time.monotonic()
    with pytest.raises(BotError) as info:
        build_bot(docker_client, config, limits=BuildLimits(seconds=3))
    took = time.monotonic() - start
    assert f"the build of {config.tag} ran longer than 3 s" in str(info.value), info.value
    assert took < 15, f"stopped after {took:.1f} s"
