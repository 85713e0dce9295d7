"""The JavaScript kit: the Node base holds it, the sample bots build offline and play against the
Python bots, and a JavaScript bot is handed the very data a Python bot is (arena_protocol.codec)."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
import subprocess
import sys
import time
from hashlib import sha256
from pathlib import Path

import pytest

from arena.bots.build import build_bot
from arena.bots.config import load_bot_config
from arena.bots.images import NODE_BASE, PROTOS, build_base
from arena_games import GAMES, get_game
from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb
from arena_protocol.proto import prohis_pb2
from arenabot.strategies.base import end_info, start_info
from referee.match import default_seat, run_match
from referee.records import read_record
from referee.sandbox import ContainerSeat
from referee.spec import parse_spec

from ..docker_fixtures import ROOT, TEST_IMAGES, arena_containers, docker_client, sample_images  # noqa: F401
from ..referee.helpers import check_debug_texts, check_records_replay
from ..referee.test_same_data import differences

KIT = ROOT / "kits" / "javascript"
HELPERS = Path(__file__).parent / "javascript"  # decode.js and misbehave.js
SAMPLES = tuple(sorted(p.parent for p in (ROOT / "sample_bots" / "javascript").glob("*/bot.toml")))
CAPTURE = ROOT / "tests" / "bots" / "capture.py"


@pytest.fixture(scope="module")
def node_base(docker_client) -> str:  # noqa: F811 - the fixture
    return build_base(docker_client, NODE_BASE, say=lambda line: None)


@pytest.fixture(scope="module")
def js_images(node_base, docker_client) -> dict[str, str]:  # noqa: F811
    """The JavaScript sample bots, built as `arena bot build` builds them (offline), by folder name."""
    return {folder.name: build_bot(docker_client, load_bot_config(folder)).tag for folder in SAMPLES}


@pytest.fixture(scope="module")
def helper_images(node_base, docker_client, tmp_path_factory) -> dict[str, str]:  # noqa: F811
    """The Node base plus tests/kits/javascript ("base"), and one image per way misbehave.js goes wrong."""
    context = tmp_path_factory.mktemp("js-helpers")
    shutil.copytree(HELPERS, context, dirs_exist_ok=True)
    (context / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\nCOPY *.js /bot/\n")
    images = {"base": f"{TEST_IMAGES}/js-helpers:base"}
    docker_client.images.build(path=str(context), tag=images["base"], buildargs={"BASE": node_base},
                               rm=True, forcerm=True)
    for kind in ("throw", "reject", "illegal"):
        images[kind] = f"{TEST_IMAGES}/js-helpers:{kind}"
        dockerfile = f'FROM {images["base"]}\nCMD ["node", "--single-threaded", "/bot/misbehave.js", "{kind}"]\n'
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=images[kind], rm=True, forcerm=True)
    images["debugger"] = f"{TEST_IMAGES}/js-helpers:debugger"
    dockerfile = f'FROM {images["base"]}\nCMD ["node", "--single-threaded", "/bot/debugger.js"]\n'
    docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=images["debugger"], rm=True,
                               forcerm=True)
    return images


def match(out: Path, match_id: str, game: str, bots: list[dict], games: int, seed: int = 3, **extra) -> dict:
    spec = {"match_id": match_id, "game": game, "games": games, "seed": seed, "bots": bots, "max_restarts": 0}
    return run_match(parse_spec({**spec, **extra}), out)


# -- the base --------------------------------------------------------------------------------------
# Run in the base from /tmp: what a bot's `require` finds there, with the hashes of the kit's files.
INSTALLED = r"""
const crypto = require('crypto'), fs = require('fs'), path = require('path');
const kit = path.dirname(require.resolve('arenabot/package.json'));
const files = {};
(function walk(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(file);
    else files[path.relative(kit, file)] = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  }
})(kit);
console.log(JSON.stringify({
  node: process.versions.node, uid: process.getuid(), kit, files, exports: Object.keys(require('arenabot')).sort(),
  grpc: require('@grpc/grpc-js/package.json').version, loader: require('@grpc/proto-loader/package.json').version,
}));
"""


def test_the_node_base_holds_debians_node_the_kit_its_packages_and_the_protos(docker_client, node_base):  # noqa: F811
    out = json.loads(docker_client.containers.run(node_base, ["node", "-e", INSTALLED], working_dir="/tmp",
                                                  network_mode="none", remove=True))
    assert out["node"].startswith("18.")  # bookworm's nodejs, not the host's
    assert out["uid"] == 10001
    assert out["kit"] == "/usr/local/lib/node_modules/arenabot"
    assert out["exports"] == ["Random", "Strategy", "debug", "run"]
    pins = json.loads((KIT / "package.json").read_text())["dependencies"]
    assert (out["grpc"], out["loader"]) == (pins["@grpc/grpc-js"], pins["@grpc/proto-loader"])
    kit_files = [KIT / "index.js", KIT / "package.json", *sorted((KIT / "lib").rglob("*.js"))]
    expected = {str(p.relative_to(KIT)): sha256(p.read_bytes()).hexdigest() for p in kit_files}
    expected |= {str(Path("protos/arena") / p.relative_to(PROTOS)): sha256(p.read_bytes()).hexdigest()
                 for p in PROTOS.rglob("*.proto")}
    assert out["files"] == expected


def test_the_node_base_digest_follows_the_kit_but_not_its_node_modules(tmp_path):
    kit = tmp_path / "javascript"
    shutil.copytree(KIT, kit, ignore=shutil.ignore_patterns("node_modules"))
    base = dataclasses.replace(NODE_BASE, kit=kit)
    first = base.digest()
    (kit / "node_modules" / "left-over").mkdir(parents=True)  # what a host's `npm ci` leaves
    (kit / "node_modules" / "left-over" / "index.js").write_text("")
    assert base.digest() == first
    lock = kit / "package-lock.json"
    lock.write_text(lock.read_text() + "\n")
    assert base.digest() != first


# -- the sample bots -------------------------------------------------------------------------------
CLAIMS = [(folder, game) for folder in SAMPLES for game in (load_bot_config(folder).games or sorted(GAMES))]


@pytest.mark.parametrize("folder, game", CLAIMS, ids=[f"{f.name}-{g}" for f, g in CLAIMS])
def test_each_sample_plays_every_game_it_claims_against_the_python_bots(folder, game, js_images, sample_images,  # noqa: F811
                                                                         docker_client, tmp_path):  # noqa: F811
    config = load_bot_config(folder)
    image = docker_client.images.get(js_images[folder.name])
    assert image.labels["arena.bot.language"] == "javascript"
    players = get_game(game).min_players
    match_id = f"js-{folder.name}-{game}"
    bots = [{"name": config.name, "image": js_images[folder.name]}]
    bots += [{"name": f"random-{i}", "image": sample_images["random"]} for i in range(1, players)]
    result = match(tmp_path, match_id, game, bots, games=players)
    assert [g["failures"] for g in result["games"]] == [[""] * players] * players
    mine = result["totals"][0]
    assert (mine["bot"], mine["version"], mine["games"]) == (config.name, config.version, players)
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, match_id)


def test_the_bandits_heuristic_plays_as_the_python_one_and_beats_random(js_images, sample_images, tmp_path):  # noqa: F811
    """The port makes the Python strategy's every choice (both are deterministic), and wins."""
    def play(image: str, out: Path) -> dict:
        return match(out, f"js-port-{out.name}", "bandits", games=6, seed=8, bots=[
            {"name": "heuristic", "image": image}, {"name": "random", "image": sample_images["random"]}])

    js = play(js_images["bandits_heuristic"], tmp_path / "js")
    py = play(sample_images["bandits_heuristic"], tmp_path / "py")
    for g in range(6):
        name = f"game-{g:03d}.jsonl"
        assert read_record(tmp_path / "js" / name).actions == read_record(tmp_path / "py" / name).actions
    assert [g["scores"] for g in js["games"]] == [g["scores"] for g in py["games"]]
    heuristic, random = js["totals"]
    assert heuristic["wins"] >= 5 and heuristic["mean_score"] > 1.5 * random["mean_score"], js["totals"]
    assert not heuristic["failures"] and not random["failures"]


@pytest.mark.parametrize("kind, failure", [("throw", "crash"), ("reject", "crash"), ("illegal", "illegal")])
def test_a_bot_whose_decide_goes_wrong_fails_as_any_bot_does(kind, failure, helper_images, sample_images,  # noqa: F811
                                                             docker_client, tmp_path):  # noqa: F811
    t0 = time.monotonic()
    result = match(tmp_path, f"js-{kind}", "prohis", games=1, bots=[
        {"name": "wrong", "image": helper_images[kind]},
        *({"name": f"random-{i}", "image": sample_images["random"]} for i in (1, 2))])
    assert result["games"][0]["failures"] == [failure, "", ""]
    assert time.monotonic() - t0 < 30  # no waiting for a timeout
    log = (tmp_path / "bot0-wrong.log").read_text()
    said = {"throw": "Error: decide went wrong", "reject": "Error: decide went wrong, later",
            "illegal": 'arenabot: "no-such-action" is not among the legal actions'}
    assert said[kind] in log
    assert not arena_containers(docker_client, f"js-{kind}")


def test_a_bot_says_why_with_debug_beside_each_decision(helper_images, sample_images, tmp_path):  # noqa: F811
    """debug() goes with the reply: the record keeps it with its decision, escaped, the kit's lone
    surrogate sent as U+FFFD, cut past 1 KiB by the referee; the other seats' lines have none."""
    result = match(tmp_path, "js-debug", "prohis", games=1, bots=[
        {"name": "debugger", "image": helper_images["debugger"]},
        *({"name": f"random-{i}", "image": sample_images["random"]} for i in (1, 2))])
    assert result["games"][0]["failures"] == ["", "", ""]
    check_debug_texts(read_record(tmp_path / "game-000.jsonl"), 0, "js")


def test_a_bot_exits_by_itself_at_the_match_end(js_images, tmp_path):
    """The kit ends its stream and its connection at MatchEnd, so the process exits with status 0
    before the referee stops it (which it does as soon as it has sent MatchEnd: not here)."""
    exits = []

    class PatientSeat(ContainerSeat):
        async def close(self) -> None:
            exits.append(await self.exit_status(10.0))
            await super().close()

    def seat(spec, bot, socket_dir, log):
        if bot.name != "js":
            return default_seat(spec, bot, socket_dir, log)
        return PatientSeat(bot.name, bot.version, bot.image, socket_dir, log, match_id=spec.match_id)

    spec = parse_spec({"match_id": "js-exit", "game": "prohis", "games": 2, "seed": 4, "duplicate": False,
                       "bots": [{"name": "js", "image": js_images["random"]},
                                *({"name": f"random-{i}", "builtin": "random"} for i in (1, 2))]})
    t0 = time.monotonic()
    run_match(spec, tmp_path, seat_factory=seat)
    assert exits == ["exit code 0"]
    assert time.monotonic() - t0 < 20


# -- the data a bot is handed ----------------------------------------------------------------------
def captured(game: str, out: Path) -> list[bytes]:
    """The bytes of every message the referee sent tests/bots/capture.py (which answers with the
    first legal action) in three games of `game` against the built-in heuristic and random players."""
    path = out / "capture.jsonl"
    match(out, f"js-capture-{game}", game, games=3, seed=21, duplicate=False, bots=[
        {"name": "capture", "command": [sys.executable, str(CAPTURE), str(path)]},
        {"name": "heuristic", "builtin": "heuristic"}, {"name": "random", "builtin": "random"}])
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [bytes.fromhex(line["bytes"]) for line in lines if line["kind"] != "process"]


def unknown_values() -> bytes:
    """A request from a newer referee: enum numbers that this version does not know."""
    # Plain numbers where the stubs want this version's enums: the point of the test.
    view = pb.View(prohis=prohis_pb2.ProhisView(hand=[1, 99], phase=42))  # type: ignore[list-item, arg-type]
    event = pb.Event(prohis=prohis_pb2.ProhisEvent(type=77, card=99, seat=0))  # type: ignore[arg-type]
    request = pb.DecisionRequest(decision_id=7, view=view, events=[event], legal_actions=[pb.Action(text="pass")])
    return pb.RefereeMessage(decision=request).SerializeToString()


def python_calls(messages: list[bytes]) -> list[list]:
    """What the Python kit tells its strategy for those messages, and the replies it sends (with
    the first legal action), in the form decode.js prints them."""
    calls: list[list] = []
    match_start = pb.MatchStart()
    for raw in messages:
        msg = pb.RefereeMessage.FromString(raw)
        kind = msg.WhichOneof("message")
        if kind == "match_start":
            match_start = msg.match_start
        elif kind == "game_start":
            info = start_info(match_start, msg.game_start)
            calls.append(["start_game", {**info, "seed": f"{info['seed']}n"}])
        elif kind == "decision":
            request = msg.decision
            calls.append(["decide", codec.decode_view(request.view, request.events),
                          [a.text for a in request.legal_actions]])
            calls.append(["reply", pb.BotMessage(reply=pb.Reply(decision_id=request.decision_id,
                                                                action=request.legal_actions[0]))])
        elif kind == "game_end":
            calls.append(["end_game", end_info(msg.game_end, codec.decode_events(msg.game_end.events))])
    return calls


def test_the_kit_hands_a_bot_what_the_python_codec_gives(helper_images, tmp_path):
    """For every message a bot was sent in real games of every game, and one from a newer
    referee, the kit's strategy is told what the Python kit's is: the same plain data, key for
    key and type for type; and its replies are the Python kit's."""
    messages = [raw for game in sorted(GAMES) for raw in captured(game, tmp_path / game)]
    messages.append(unknown_values())
    js = subprocess.run(["docker", "run", "--rm", "-i", "--network", "none", helper_images["base"],
                         "node", "--single-threaded", "/bot/decode.js"],
                        input="\n".join(raw.hex() for raw in messages), capture_output=True, text=True, timeout=120)
    assert js.returncode == 0, js.stderr
    wire = [json.loads(line) for line in js.stdout.splitlines()]
    expected = python_calls(messages)
    assert [c[0] for c in wire] == [c[0] for c in expected]
    assert sum(c[0] == "decide" for c in expected) > 100 and sum(c[0] == "end_game" for c in expected) >= 8
    found = []
    for i, (mine, theirs) in enumerate(zip(wire, expected, strict=True)):
        if mine[0] == "reply":
            if pb.BotMessage.FromString(bytes.fromhex(mine[1])) != theirs[1]:
                found.append(f"call {i} (reply): {mine[1]} is not {theirs[1]}")
        else:
            found += differences(json.loads(json.dumps(theirs[1:])), mine[1:], f"call {i} ({mine[0]})")
    assert not found, f"{len(found)} difference(s) (Python first, then JavaScript):\n" + "\n".join(found[:20])
    assert wire[-2][1]["hand"] == ["legal", "99"] and wire[-2][1]["phase"] == "42"
