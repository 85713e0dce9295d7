"""Go: the base image holds the kit compiled, Go bots build offline and play in containers
against the Python sample bots, and a Go bot's failings get the usual failure reasons. The
stdio sample bot answers the stdio protocol's lines with legal actions."""

from __future__ import annotations

import io
import json
import shutil
import subprocess

import pytest

from arena.bots.build import BuildResult, build_bot
from arena.bots.config import load_bot_config
from arena.bots.images import GO_BASE, build_base
from arena_games import GAMES, get_game
from referee.records import read_record

from ..docker_fixtures import TEST_IMAGES
from ..referee.helpers import check_debug_texts, check_records_replay
from .conftest import ROOT, arena_containers
from .test_containers import match

GO_SAMPLES = ROOT / "sample_bots" / "go"


@pytest.fixture(scope="module")
def go_base(docker_client) -> str:
    return build_base(docker_client, GO_BASE, say=lambda line: None)


@pytest.fixture(scope="module")
def go_images(docker_client, go_base) -> dict[str, BuildResult]:
    """The Go sample bots by folder name, each built as `arena bot build` does (offline, sandboxed)."""
    return {folder.name: build_bot(docker_client, load_bot_config(folder))
            for folder in sorted(p.parent for p in GO_SAMPLES.glob("*/bot.toml"))}


@pytest.fixture(scope="module")
def misbehaving_go(docker_client, go_base, tmp_path_factory) -> dict[str, str]:
    """tests/bots/misbehave.go, one image per mode."""
    context = tmp_path_factory.mktemp("go-misbehave")
    shutil.copy(ROOT / "tests" / "bots" / "misbehave.go", context / "misbehave.go")
    (context / "Dockerfile").write_text(
        "ARG BASE\nFROM ${BASE}\nCOPY misbehave.go /bot/\nRUN go build -o misbehave . && rm -rf \"$GOCACHE\"\n")
    base = f"{TEST_IMAGES}/go-misbehave:base"
    docker_client.images.build(path=str(context), tag=base, buildargs={"BASE": go_base}, rm=True, forcerm=True,
                               network_mode="none")
    images = {}
    for mode in ("panic", "illegal", "debug"):
        images[mode] = f"{TEST_IMAGES}/go-misbehave:{mode}"
        dockerfile = f'FROM {base}\nCMD ["/bot/misbehave", "{mode}"]\n'
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=images[mode], rm=True,
                                   forcerm=True)
    return images


def test_the_go_base_holds_the_kit_compiled(docker_client, go_base):
    """As the bot user, as in a bot's build: every package the kit needs, Go's own included, is
    installed and up to date, so a bot's build compiles only the bot. (The kit's Go tests ran
    in the base's build.) What GO_BASE drops is gone: the Go packages' tests, and the toolchain's
    compiled packages (Debian's library is replaced by the kit's)."""
    script = """
        go list -f '{{.ImportPath}} {{.Stale}}' -deps arena/arenabot
        echo "= $(go env GO111MODULE) $(go env CGO_ENABLED)"
        echo "= $(find /usr/share/go-*/src/ /usr/share/gocode/src/ -name '*_test.go' -o -name testdata | wc -l)"
        echo "= $(ls -d /usr/lib/go-*/pkg/*/cmd 2>/dev/null | wc -l)"
    """
    out = docker_client.containers.run(go_base, ["sh", "-c", script], network_mode="none", remove=True).decode()
    *lines, env, tests, toolchain = out.splitlines()
    packages = dict(line.split() for line in lines)
    assert {"arena/arenabot", "arena/v1/arenapb", "google.golang.org/grpc", "net"} <= set(packages)
    assert set(packages.values()) == {"false"}, [p for p, stale in packages.items() if stale != "false"]
    assert (env, tests, toolchain) == ("= off 0", "= 0", "= 0")


def test_the_go_samples_build_offline_into_the_base_plus_a_binary(docker_client, go_images):
    out = docker_client.containers.run(go_images["random"].tag, ["sh", "-c", "ls /bot; ls /tmp"],
                                       network_mode="none", remove=True).decode()
    assert out.split() == ["bot", "bot.go"]  # no build cache left in the image
    assert go_images["random"].seconds < 60  # about 5 s: only bot.go is compiled


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_go_random_bot_plays_every_game_against_the_python_bots(game, tmp_path, docker_client, go_images,
                                                                    sample_images):
    """At the game's smallest player count: the game's Python heuristic bot, and random ones."""
    spec = get_game(game)
    python = [sample_images[f"{game}_heuristic"]] + [sample_images["random"]] * (spec.min_players - 2)
    bots = [{"name": "go", "image": go_images["random"].tag}] + [
        {"name": f"py{i}", "image": image} for i, image in enumerate(python)]
    result = match(tmp_path, games=spec.min_players, match_id=f"go-{game}", bots=bots, game=game)
    assert all(not any(g["failures"]) for g in result["games"])
    assert result["totals"][0]["version"] == "1.0.0"  # from the Go bot's hello
    header = read_record(tmp_path / result["games"][0]["record"]).header
    assert header["seats"][0] == {"seat": 0, "bot": "go", "version": "1.0.0", "language": "go"}
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, f"go-{game}")


@pytest.mark.parametrize("mode, reason", [("panic", "crash"), ("illegal", "illegal")])
def test_a_go_bot_that_panics_or_answers_nonsense_gets_the_usual_failure(mode, reason, tmp_path, misbehaving_go,
                                                                        sample_images):
    bots = [{"name": "bad", "image": misbehaving_go[mode]},
            {"name": "r1", "image": sample_images["random"]}, {"name": "r2", "image": sample_images["random"]}]
    result = match(tmp_path, games=2, match_id=f"go-{mode}", bots=bots, max_restarts=1)
    for game in result["games"]:
        seat = game["bots"].index(0)
        assert game["failures"][seat] == reason
        assert game["ranks"][seat] == 3
        assert not any(f for s, f in enumerate(game["failures"]) if s != seat)
    record = read_record(tmp_path / result["games"][0]["record"])
    log = (tmp_path / "bot0-bad.log").read_text()
    if mode == "panic":  # Go's exit status for a panic, and its message in the bot's log
        assert "exit code 2" in record.failures[0]["detail"]
        assert "panic: misbehave: a bug in the bot" in log
    else:
        assert "'flip:99'" in record.failures[0]["detail"]
        assert 'arenabot: "flip:99" is not among the legal actions' in log
        assert result["totals"][0]["restarts"] == 0  # its stream is sound: it plays its next game as it is
    check_records_replay(tmp_path, result)


def test_a_go_bot_says_why_with_debugf_beside_each_decision(tmp_path, misbehaving_go, sample_images):
    """arenabot.Debugf goes with the reply: kept with its decision, escaped, a byte that is not
    UTF-8 sent as U+FFFD (Go's protobuf refuses to send a string that is not UTF-8), cut past 1 KiB
    by the referee."""
    bots = [{"name": "go", "image": misbehaving_go["debug"]},
            {"name": "r1", "image": sample_images["random"]}, {"name": "r2", "image": sample_images["random"]}]
    result = match(tmp_path, games=1, match_id="go-debug", bots=bots)
    assert result["games"][0]["failures"] == ["", "", ""]
    check_debug_texts(read_record(tmp_path / "game-000.jsonl"), 0, "go")


# -- the stdio sample bot ---------------------------------------------------------------------
def _line(message: dict) -> str:
    """One line of the stdio protocol: compact JSON as Python's json.dumps writes it."""
    return json.dumps(message) + "\n"


def test_the_go_stdio_bot_plays_prohis_from_lines_alone_and_beats_random(go_images):
    """The stdio protocol's lines, written by hand (no adapter): the bot in its container plays
    seat 0 of 12 three-player games against the kit's random strategy, answers every decision
    line with one legal action, exits at the match's end, and ranks better than random."""
    from arenabot.strategies import RandomStrategy

    game, num_players, games = get_game("prohis"), 3, 12
    proc = subprocess.Popen(["docker", "run", "-i", "--rm", "--network", "none", "--read-only",
                             go_images["prohis_greedy"].tag], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        settings = game.validate(num_players).to_dict()
        proc.stdin.write(_line({"type": "match_start", "match_id": "m", "game": "prohis", "num_players": num_players,
                                "num_games": games, "settings": {k: str(v) for k, v in settings.items()},
                                "time_control": {"startup_ms": 10000, "decision_ms": 1000, "bank_ms": 10000},
                                "engine_version": game.version}))
        ranks, decisions = [], 0
        for g in range(games):
            state = game.new_game(num_players, seed=1000 + g)
            rivals = {s: RandomStrategy(seed=g * 10 + s) for s in (1, 2)}
            proc.stdin.write(_line({"type": "game_start", "game_index": g, "seat": 0, "num_players": num_players,
                                    "players": [{"name": n, "version": "1"} for n in ("me", "r1", "r2")],
                                    "seed": 7 + g}))
            while not state.is_terminal():
                seat, legal = state.current_player(), list(state.legal_actions())
                if seat in rivals:
                    state.apply(rivals[seat].decide(state.view(seat), legal))
                    continue
                decisions += 1
                proc.stdin.write(_line({"type": "decision", "legal": " ".join(legal), "decision_id": decisions,
                                        "view": state.view(0), "legal_actions": legal, "time_left_ms": 1000,
                                        "bank_left_ms": 10000}))
                proc.stdin.flush()
                state.apply(proc.stdout.readline().strip())  # an action that is not legal raises
            ranks.append(state.ranks()[0])
            proc.stdin.write(_line({"type": "game_end", "game_index": g, "results": [
                {"seat": s, "score": state.scores()[s], "rank": state.ranks()[s], "failure": "",
                 "player": {"name": "me", "version": "1"}} for s in range(num_players)], "events": []}))
        proc.stdin.write(_line({"type": "match_end", "match_id": "m"}))
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
        assert proc.stdout.read() == ""  # one line per decision, and nothing else
        assert decisions > 100
    finally:
        proc.kill()  # on a failure: stdin closes, and the bot exits
    assert sum(ranks) / games < 1.5, ranks  # random players average 2


def test_the_go_stdio_bot_plays_a_containerised_match(tmp_path, docker_client, go_images, sample_images):
    bots = [{"name": "greedy", "image": go_images["prohis_greedy"].tag},
            {"name": "h", "image": sample_images["prohis_heuristic"]}, {"name": "r", "image": sample_images["random"]}]
    result = match(tmp_path, games=3, match_id="go-stdio", bots=bots)
    assert all(not any(g["failures"]) for g in result["games"])
    assert result["totals"][0]["version"] == "1.0.0"
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, "go-stdio")
