"""C++ bots: the C++ base holds the kit (kits/cpp) built from this checkout's protocol; the sample
bot builds offline into an image of its one binary and plays every game in a container against the
Python sample bots; the kit tells a C++ bot what the Python kit tells a Python one; and a C++ bot
that throws, or answers with an action that is not legal, gets the usual failure."""

from __future__ import annotations

import dataclasses
import shutil

import pytest
from google.protobuf import descriptor_pb2

from arena.bots.images import CPP_BASE
from arena_games import GAMES, get_game
from arena_protocol.proto import arena_pb2 as pb
from referee.records import read_record
from referee.spec import parse_spec

from ..referee.helpers import check_debug_texts, check_records_replay
from .conftest import arena_containers
from .test_containers import match

# Prints the descriptor of each of the protocol's files, as compiled into the kit (hex, a line each).
DESCRIPTORS = r"""
#include <arenabot/arenabot.h>
#include <google/protobuf/descriptor.pb.h>
#include <iostream>
int main() {
  const auto* arena = arena::v1::View::descriptor()->file();
  std::vector<const google::protobuf::FileDescriptor*> files{arena};
  for (int i = 0; i < arena->dependency_count(); ++i) files.push_back(arena->dependency(i));
  for (const auto* file : files) {
    google::protobuf::FileDescriptorProto proto;
    file->CopyTo(&proto);
    const char* hex = "0123456789abcdef";
    for (unsigned char c : proto.SerializeAsString()) std::cout << hex[c >> 4] << hex[c & 15];
    std::cout << '\n';
  }
}
"""


def test_the_cpp_base_digest_follows_its_kit(tmp_path):
    kit = tmp_path / "cpp"
    shutil.copytree(CPP_BASE.kit, kit, ignore=shutil.ignore_patterns("build"))
    base = dataclasses.replace(CPP_BASE, kit=kit)
    first = base.digest()
    (kit / "build").mkdir()
    (kit / "build" / "libarenabot.a").write_bytes(b"\0")  # a local build's leftovers go into no image
    assert base.digest() == first
    source = kit / "src" / "arenabot.cc"
    source.write_text(source.read_text() + "\n")
    assert base.digest() != first


def test_the_cpp_base_holds_the_kit_built_from_this_checkouts_protocol(docker_client, cpp_base):
    """A program built against the kit in the base prints the protocol's descriptors: those of the
    Python package, which tests/referee/test_protocol.py holds to the .proto files."""
    script = (f"cat > /tmp/d.cpp <<'EOF'\n{DESCRIPTORS}\nEOF\n"
              "g++ -o /tmp/d /tmp/d.cpp $(pkg-config --cflags --libs arenabot) && /tmp/d")
    out = docker_client.containers.run(cpp_base, ["sh", "-c", script], network_mode="none", remove=True)
    compiled = [descriptor_pb2.FileDescriptorProto.FromString(bytes.fromhex(line)) for line in out.decode().split()]
    expected = []
    for file in (pb.DESCRIPTOR, *pb.DESCRIPTOR.dependencies):
        expected.append(descriptor_pb2.FileDescriptorProto())
        file.CopyToProto(expected[-1])
    assert sorted(p.name for p in compiled) == sorted(p.name for p in expected) == [
        f"arena/v1/{name}.proto" for name in ("arena", "bandits", "boss", "prohis", "sobek")]
    assert {p.name: p for p in compiled} == {p.name: p for p in expected}


def test_the_cpp_sample_bot_is_one_static_binary_in_an_image_from_scratch(docker_client, cpp_images):
    image = docker_client.api.inspect_image(cpp_images["random"])
    assert image["Size"] < 32 * 2**20
    assert image["Config"]["Cmd"] == ["/bot/bot"]
    assert image["Config"]["Labels"]["arena.bot.language"] == "cpp"
    assert len(image["RootFS"]["Layers"]) == 1  # FROM scratch, then one COPY: nothing of the base


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_cpp_sample_bot_plays_every_game_against_the_python_sample_bots(game, tmp_path, docker_client,
                                                                             sample_images, cpp_images):
    bots = [{"name": "cpp", "image": cpp_images["random"]}, {"name": "py-random", "image": sample_images["random"]},
            {"name": "py-heuristic", "image": sample_images[f"{game}_heuristic"]}]
    result = match(tmp_path, bots, games=3, match_id=f"cpp-{game}", game=game)
    assert all(not any(g["failures"]) for g in result["games"])
    assert [(t["bot"], t["version"], t["games"]) for t in result["totals"]] == [
        ("cpp", "1.0.0", 3), ("py-random", "1.0.0", 3), ("py-heuristic", "1.0.0", 3)]
    check_records_replay(tmp_path, result)
    assert not arena_containers(docker_client, f"cpp-{game}")


def test_the_cpp_sample_bot_replays_its_choices_from_its_seeds(tmp_path, sample_images, cpp_images):
    bots = [{"name": "cpp", "image": cpp_images["random"]}, {"name": "py", "image": sample_images["random"]}]
    records = []
    for run in ("a", "b"):
        result = match(tmp_path / run, bots, games=2, match_id=f"cpp-replay-{run}", game="boss")
        records.append([read_record(tmp_path / run / g["record"]).actions for g in result["games"]])
    assert records[0] == records[1]


def test_the_function_form_plays_what_its_function_returns(tmp_path, sample_images, cpp_images):
    """The first kind is a lambda that returns the first legal action: the record shows that action
    at each of its decisions."""
    bots = [{"name": "cpp", "image": cpp_images["first"]}, {"name": "py", "image": sample_images["random"]}]
    result = match(tmp_path, bots, games=2, match_id="cpp-first", game="sobek")
    for game in result["games"]:
        assert not any(game["failures"])
        seat = game["bots"].index(0)
        record = read_record(tmp_path / game["record"])
        h = record.header
        state = get_game("sobek").new_game(h["num_players"], h["seed"], h["settings"])
        for decision in record.decisions:
            if decision["seat"] == seat:
                assert decision["action"] == state.legal_actions()[0]
            state.apply(decision["action"])
        assert sum(d["seat"] == seat for d in record.decisions) > 5


def test_a_cpp_bot_says_why_with_debug_beside_each_decision(tmp_path, sample_images, cpp_images):
    """arenabot::debug() goes with the reply: kept with its decision, escaped, a byte that is not
    UTF-8 sent as U+FFFD (a protobuf string must be UTF-8), cut past 1 KiB by the referee."""
    bots = [{"name": "cpp", "image": cpp_images["debug"]}, {"name": "r1", "image": sample_images["random"]},
            {"name": "r2", "image": sample_images["random"]}]
    result = match(tmp_path, bots, games=1, match_id="cpp-debug")
    assert result["games"][0]["failures"] == ["", "", ""]
    check_debug_texts(read_record(tmp_path / "game-000.jsonl"), 0, "cpp")


def test_a_cpp_bot_is_told_what_a_python_bot_is_told(tmp_path, sample_images, cpp_images):
    """The record kind prints what its start_game, decide and end_game get, for each game."""
    bots = [{"name": "cpp", "image": cpp_images["record"]}, {"name": "r1", "image": sample_images["random"]},
            {"name": "r2", "image": sample_images["random"]}]
    result = match(tmp_path, bots, games=3, match_id="cpp-told", duplicate=False)  # one process, three games
    spec = parse_spec(result["spec"])
    settings = ",".join(f"{k}={v}" for k, v in sorted(spec.settings.items()))
    lines = (tmp_path / "bot0-cpp.log").read_text().splitlines()
    starts, views, ends = ([line.split(" ", 1)[1] for line in lines if line.startswith(word)]
                           for word in ("START ", "VIEW ", "END "))
    expected_starts, expected_ends = [], []
    for g, game in enumerate(result["games"]):
        seat = game["bots"].index(0)
        players = ",".join(spec.bots[b].name for b in game["bots"])
        expected_starts.append(f"prohis {g} {seat} 3 {players} {spec.bot_seed(g, seat)} {settings}")
        expected_ends.append(f"{','.join(map(str, game['scores']))} {','.join(map(str, game['ranks']))} -,-,-")
    assert starts == expected_starts
    assert [view.split()[0] for view in views] == ["prohis"] * 3
    # the process is stopped once the referee is done with it: the last game's end may not be told
    assert ends in (expected_ends, expected_ends[:-1])


@pytest.mark.parametrize("kind, reason, detail, said", [
    ("throw", "crash", "exit code 1", "arenabot: the bot threw an exception: thrown on purpose"),
    ("illegal", "illegal", "'flip:9' is not one of", 'arenabot: "flip:9" is not among the legal actions'),
])
def test_a_cpp_bot_that_misbehaves_gets_the_usual_failure(kind, reason, detail, said, tmp_path, sample_images,
                                                           cpp_images):
    bots = [{"name": "cpp", "image": cpp_images[kind]}, {"name": "r1", "image": sample_images["random"]},
            {"name": "r2", "image": sample_images["random"]}]
    result = match(tmp_path, bots, games=1, match_id=f"cpp-{kind}")
    game = result["games"][0]
    seat = game["bots"].index(0)
    assert game["failures"][seat] == reason and game["ranks"][seat] == 3
    assert [f for s, f in enumerate(game["failures"]) if s != seat] == ["", ""]
    failures = read_record(tmp_path / game["record"]).failures
    assert [f["reason"] for f in failures] == [reason] and detail in failures[0]["detail"]
    assert said in (tmp_path / "bot0-cpp.log").read_text()
    check_records_replay(tmp_path, result)
