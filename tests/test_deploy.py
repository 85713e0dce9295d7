"""deploy/compose.yaml and docs/deploy.md say what the `arena` command accepts: every command
parses against the real CLI, every environment variable is one its options read, and what
docs/deploy.md says each service needs of its host is in the file."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import click
import pytest
import yaml

from arena.cli import main as arena

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "deploy" / "compose.yaml"
DOCS = ROOT / "docs" / "deploy.md"
# what .env must hold (${NAME:?...}); everything else has a default in the file
ENV = {"POSTGRES_PASSWORD": "db-password", "REDIS_PASSWORD": "broker-password"}
ARENA_SERVICES = ("server", "worker", "runner")
RUNS = "/var/lib/arena/runs"
VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolate(value, env: dict[str, str]):
    """Compose's interpolation: ``${NAME}``, ``${NAME:-default}``, ``${NAME:?error}``, ``$$``."""
    if isinstance(value, dict):
        return {key: interpolate(item, env) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env) for item in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match) -> str:
        if match.group(0) == "$$":
            return "$"
        name, op, arg = match.group(1) or match.group(4), match.group(2), match.group(3)
        if env.get(name):
            return env[name]
        if op and op.endswith("?"):
            raise AssertionError(f"${{{name}}} must be set: {arg}")
        return arg if op else ""

    return VARIABLE.sub(one, value)


def parse(argv: list[str]) -> click.Context:
    """The context `arena ARGV` would run, options converted and checked, without running it."""
    assert argv[0] == "arena", argv
    command: click.Command | None = arena
    ctx = arena.make_context("arena", list(argv[1:]))
    rest = list(argv[1:])
    while isinstance(command, click.Group):
        name, command, rest = command.resolve_command(ctx, rest)
        assert name is not None and command is not None  # resolve_command fails on a name it does not know
        ctx = command.make_context(name, list(rest), parent=ctx)
    return ctx


def cli_envvars() -> dict[str, set[str]]:
    """Every environment variable an `arena` option reads: name -> the options' names."""
    found: dict[str, set[str]] = {}

    def walk(command: click.Command) -> None:
        for param in command.params:
            for name in [param.envvar] if isinstance(param.envvar, str) else param.envvar or []:
                found.setdefault(name, set()).add(param.name)
        if isinstance(command, click.Group):  # arena's top level imports its commands lazily
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                walk(cast(click.Command, command.get_command(ctx, name)))  # a name list_commands gave

    walk(arena)
    return found


@pytest.fixture(scope="module")
def compose() -> dict:
    return interpolate(yaml.safe_load(COMPOSE.read_text()), ENV)


@pytest.fixture
def clean_env(monkeypatch):
    for name in cli_envvars():
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_compose_file_has_a_broker_a_database_a_server_workers_and_a_runner(compose):
    services = compose["services"]
    assert set(services) >= {"redis", "postgres", "server", "worker", "runner"}
    assert int(services["worker"]["deploy"]["replicas"]) >= 1
    assert services["runner"]["profiles"] == ["runner"] and "profiles" not in services["worker"]
    # the broker keeps its queue through a restart, and never drops a queued task
    redis_command = " ".join(services["redis"]["command"])
    assert "--appendonly yes" in redis_command and "--maxmemory-policy noeviction" in redis_command
    assert any(volume.endswith(":/data") for volume in services["redis"]["volumes"])
    assert "requirepass $REDIS_PASSWORD" in redis_command  # from the environment, not the command line
    assert services["redis"]["environment"]["REDIS_PASSWORD"] == ENV["REDIS_PASSWORD"]
    # both published on the loopback unless PRIVATE_ADDR says otherwise
    for name in ("redis", "postgres"):
        assert all(port.startswith("127.0.0.1:") for port in services[name]["ports"]), name


def test_every_arena_command_in_the_compose_file_parses(compose, clean_env):
    services = compose["services"]
    for name in ARENA_SERVICES:
        for key, value in services[name]["environment"].items():
            clean_env.setenv(key, value)
        ctx = parse(services[name]["command"])
        assert ctx.params.get("db_url") == services[name]["environment"]["ARENA_DB"], name
    worker = parse(services["worker"]["command"]).params
    assert (worker["concurrency"], worker["visibility_timeout"], worker["queue"]) == (4, 3600, "arena")
    assert worker["broker"] == "redis://:broker-password@redis:6379/0"
    runner = parse(services["runner"]["command"])
    assert runner.command_path == "arena league run" and runner.params["executor"] == "celery"
    assert runner.params["broker"] == worker["broker"]
    assert parse(services["server"]["command"]).command_path == "arena serve"
    with pytest.raises(click.UsageError):  # the check can fail
        parse(["arena", "worker", "--concurrency", "many"])


def test_the_environment_is_what_the_cli_reads(compose):
    readers = cli_envvars()
    for variable, option in (("ARENA_DB", "db_url"), ("ARENA_BROKER", "broker"), ("ARENA_QUEUE", "queue")):
        assert option in readers.get(variable, set()), variable
    for name in ARENA_SERVICES:
        environment = compose["services"][name]["environment"]
        assert set(environment) == {"ARENA_DB", "ARENA_BROKER", "ARENA_QUEUE"}, name
        assert set(environment) <= set(readers), name
        db, broker = urlsplit(environment["ARENA_DB"]), urlsplit(environment["ARENA_BROKER"])
        postgres = compose["services"]["postgres"]["environment"]
        assert (db.scheme, db.username, db.password, db.hostname, db.port, db.path) == (
            "postgresql+psycopg", postgres["POSTGRES_USER"], postgres["POSTGRES_PASSWORD"], "postgres", 5432,
            "/" + postgres["POSTGRES_DB"])
        assert (broker.scheme, broker.password, broker.hostname, broker.port) == (
            "redis", ENV["REDIS_PASSWORD"], "redis", 6379)


def test_arena_services_get_what_a_referee_needs_of_its_host(compose):
    for name in ARENA_SERVICES:
        service = compose["services"][name]
        mounts = {volume.split(":")[1]: volume for volume in service["volumes"]}
        assert service["cgroup"] == "host", name
        assert mounts["/var/run/docker.sock"] == "/var/run/docker.sock:/var/run/docker.sock", name
        assert mounts["/tmp"] == "/tmp:/tmp", name  # the seats' socket folders, resolved on the host
        assert mounts["/sys/fs/cgroup"] == "/sys/fs/cgroup:/sys/fs/cgroup:rw", name
        assert mounts["/var/lib/docker"] == "/var/lib/docker:/var/lib/docker:ro", name  # the image layers
        assert mounts[RUNS] == f"{RUNS}:{RUNS}", name
        # each command's records go under the runs folder, which is the same path on the host
        params = parse(service["command"]).params
        folder = params["runs_dir"]  # --runs-dir, or the server's --runs
        assert str(folder).startswith(RUNS), (name, folder)


def test_the_dockerfile_copies_what_it_installs():
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = re.findall(r"^COPY (?!--from=)(.+) \S+$", dockerfile, re.M)  # from the context, not a stage
    sources = [source for line in copied for source in line.split()]
    assert {"protos/python", "games", "kits/python", "pyproject.toml", "arena", "referee"} <= set(sources)
    assert all((ROOT / source).exists() for source in sources), sources
    assert "FROM python:3.11-slim-bookworm" in dockerfile


def test_the_deploy_docs_yaml_and_commands_parse(clean_env):
    text = DOCS.read_text()
    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)
    yamls = [body for kind, body in blocks if kind == "yaml"]
    assert yamls, "docs/deploy.md has its Kubernetes sketch"
    for body in yamls:
        documents = [doc for doc in yaml.safe_load_all(body) if doc]
        assert documents and all(isinstance(doc, dict) and "kind" in doc for doc in documents)
    worker = next(doc for body in yamls for doc in yaml.safe_load_all(body) if doc.get("kind") == "Deployment")
    containers = {c["name"]: c for c in worker["spec"]["template"]["spec"]["containers"]}
    assert parse(containers["worker"]["command"]).params["concurrency"] == int(
        containers["dind"]["resources"]["requests"]["cpu"])  # a core per match

    commands = []
    for kind, body in blocks:
        if kind != "sh":
            continue
        for line in body.splitlines():
            words = shlex.split(line, comments=True)
            if "arena" in words and not any(w.startswith("<") for w in words):
                commands.append(words[words.index("arena"):])
    assert len(commands) >= 4
    for argv in commands:
        parse(argv)


def test_the_commands_in_the_compose_files_comments_parse(clean_env):
    commands = []
    for line in COMPOSE.read_text().splitlines():
        text = line.strip()
        if text.startswith("#") and "docker compose" in text:
            words = shlex.split(text[1:], comments=True)
            if "arena" in words:
                commands.append(words[words.index("arena"):])
    assert len(commands) >= 1
    for argv in commands:
        parse(argv)
