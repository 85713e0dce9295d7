"""Match bundles: written from a stored league, rerun to identical results, and every tampering
or escape from the folder refused with a message that names it."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from arena import bundle as bundles
from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions, Slot
from arena.store import Match, open_store
from referee.records import read_record

from ..docker_fixtures import ROOT
from .helpers import SECRET


@pytest.fixture(scope="module")
def made(tmp_path_factory, docker_client, sample_images) -> SimpleNamespace:
    """A Sobek league of random and first-legal (2 players, 1 deal: 2 games a match). Round 0
    alone: its bundle is refused, since round 1 replays its deals; then round 1, and match 1's
    bundle, through the command line."""
    tmp = tmp_path_factory.mktemp("bundle")
    store = open_store(f"sqlite:///{tmp}/arena.db")
    create_league(store, "b", "sobek", 2, {}, ScheduleOptions(deals=1), secret=SECRET)
    for folder in ("random", "first_legal"):
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        register_bot(store, name=config.name, version=config.version, image=sample_images[folder],
                     image_digest=docker_client.images.get(sample_images[folder]).id, language=config.language,
                     author=config.author, games=list(config.games), league="b")
    db = ["--db", str(store.engine.url)]
    run_league(store, "b", rounds=1, jobs=1, runs_dir=tmp / "runs")
    refused = CliRunner().invoke(arena, ["bundle", "match", "1", "--out", str(tmp / "early"), *db])
    run_league(store, "b", rounds=2, jobs=1, runs_dir=tmp / "runs")
    written = CliRunner().invoke(arena, ["bundle", "match", "1", "--out", str(tmp / "bundle-1"), *db])
    assert written.exit_code == 0, written.output
    again = CliRunner().invoke(arena, ["bundle", "match", "1", "--out", str(tmp / "bundle-1"), *db])
    with store() as session:
        match = session.get_one(Match, 1)
        secrets = Slot(match.round, tuple(match.bots)).secrets(SECRET)
    return SimpleNamespace(tmp=tmp, path=tmp / "bundle-1", refused=refused, written=written, again=again,
                           secrets=secrets, db=db)


def test_a_match_is_bundled_only_once_its_duplicate_cycle_is_stored(made):
    assert made.refused.exit_code == 1 and not (made.tmp / "early").exists()
    assert "round 1 of that cycle is not stored yet" in made.refused.output
    assert "would reveal deals still to be played" in made.refused.output
    assert "match 1 of league b, 2 games, 9 files" in made.written.output
    assert made.again.exit_code == 1 and "exists already" in made.again.output
    assert [p.name for p in made.tmp.iterdir() if p.name.startswith(".")] == []  # no half-written bundle left


def test_a_bundle_holds_the_match_and_never_the_league_secret(made):
    manifest = json.loads((made.path / "manifest.json").read_text())
    assert manifest["format"] == bundles.FORMAT and manifest["match"] == {
        "id": 1, "league": "b", "format": "round-robin", "round": 0, "cycle": 0}
    assert manifest["engine"]["game"] == "sobek" and manifest["engine"]["code_sha256"] == bundles.engine_digest("sobek")
    spec = manifest["spec"]
    assert (spec["secret"], spec["bot_secret"]) == made.secrets and spec["plan"] == [["c0d0", 0], ["c0d1", 1]]
    assert [b["name"] for b in manifest["bots"]] == ["random", "first-legal"]
    assert all(b["image_digest"].startswith("sha256:") for b in manifest["bots"])
    files = sorted(str(p.relative_to(made.path)) for p in made.path.rglob("*") if p.is_file())
    assert files == sorted([*manifest["files"], "manifest.json"]) and len(files) == 9
    for game in manifest["games"]:
        record = read_record(made.path / game["record"])
        assert record.result["scores"] == game["scores"] and str(record.header["seed"]) == game["seed"]
        views = [json.loads(gzip.decompress((made.path / v).read_bytes())) for v in game["views"]]
        assert [v["seat"] for v in views] == [0, 1] and all(v["result"]["scores"] == game["scores"] for v in views)
    run = made.path / "run"
    assert os.access(run, os.X_OK) and 'exec arena bundle run "$(dirname "$0")" "$@"' in run.read_text()
    assert "random@1.0.0" in (made.path / "README.txt").read_text()
    for path in made.path.rglob("*"):  # the match's derived secrets only: never the league's
        if path.is_file():
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            assert SECRET.encode() not in data.lower(), path


def test_a_bundle_leaves_the_bots_debug_texts_out(made, tmp_path):
    """A bundle is for publishing, and a bot's debug texts are its owner's: match 1's records, with a
    debug text written into each of its decision lines as the referee writes one, bundle to the
    records without them, byte for byte, and the bundle loads (every digest and view agrees)."""
    from referee.records import RecordWriter

    with open_store(made.db[1])() as session:
        records = sorted(Path(session.get_one(Match, 1).record_dir).glob("game-*.jsonl"))
    originals = {path: path.read_bytes() for path in records}
    try:
        for path in records:
            lines = path.read_text().splitlines()
            with_debug = []
            for line in lines:
                data = json.loads(line)
                if data["type"] == "decision" and not data.get("fallback"):
                    writer = RecordWriter.__new__(RecordWriter)  # its decision line, into a list
                    writer.file = SimpleNamespace(write=with_debug.append)
                    writer.decision(data["seat"], data["action"], data["ms"], f"SECRET PLAN of seat {data['seat']}")
                else:
                    with_debug.append(line + "\n")
            path.write_text("".join(with_debug))
            assert path.read_text().count("SECRET PLAN") > 5
        written = CliRunner().invoke(arena, ["bundle", "match", "1", "--out", str(tmp_path / "b"), *made.db])
        assert written.exit_code == 0, written.output
        for path in records:
            bundled = tmp_path / "b" / "records" / path.name
            assert bundled.read_bytes() == originals[path]
        assert not any(b"SECRET PLAN" in p.read_bytes() for p in (tmp_path / "b").rglob("*") if p.is_file())
        bundles.load_bundle(tmp_path / "b")
    finally:
        for path, data in originals.items():
            path.write_bytes(data)


def test_a_bundle_reruns_to_identical_results(made):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run([made.path / "run", "--out", made.tmp / "rerun"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checked: 8 files" in proc.stdout and "image: random@1.0.0: arena-bot/random:1.0.0 sha256:" in proc.stdout
    assert proc.stdout.strip().endswith("identical: 2 games") and "note:" not in proc.stdout
    assert len(list((made.tmp / "rerun").glob("game-*.jsonl"))) == 2


def _copy(made, tmp_path) -> Path:
    copy = tmp_path / "copy"
    shutil.copytree(made.path, copy, symlinks=True)
    return copy


def _edit_manifest(folder: Path, change) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    change(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


def _rehash(folder: Path, rel: str) -> None:
    _edit_manifest(folder, lambda m: m["files"].__setitem__(rel, hashlib.sha256((folder / rel).read_bytes())
                                                            .hexdigest()))


def _edit_record(folder: Path, rel: str, decision: int, action: str) -> None:
    lines = (folder / rel).read_text().splitlines(keepends=True)
    index = [i for i, line in enumerate(lines) if '"type":"decision"' in line][decision]
    data = json.loads(lines[index])
    data["action"] = action
    lines[index] = json.dumps(data, separators=(",", ":")) + "\n"
    (folder / rel).write_text("".join(lines))


def _forge_record(f: Path) -> None:
    """An action in a record changed, and its digest in the manifest with it."""
    _edit_record(f, "records/game-001.jsonl", 0, "nonsense")
    _rehash(f, "records/game-001.jsonl")


def _forge_view(f: Path) -> None:
    """Seat 1's view swapped for seat 0's, and its digest in the manifest with it."""
    (f / "views/game-000-seat-1.json.gz").write_bytes((f / "views/game-000-seat-0.json.gz").read_bytes())
    _rehash(f, "views/game-000-seat-1.json.gz")


def _set_secret(m: dict) -> None:
    m["spec"]["secret"] = "ab" * 32


def _spec_command(m: dict) -> None:
    m["spec"]["bots"][0] = {"name": "random@1.0.0", "command": "touch /tmp/arena-bundle-pwned"}


TAMPERINGS = {
    "an action in a record": (lambda f: _edit_record(f, "records/game-000.jsonl", 3, "pass"),
                              "records/game-000.jsonl has been changed: its SHA-256 is not the one in manifest.json"),
    "an action in a record, digest updated": (_forge_record, "records/game-001.jsonl does not replay: decision 0"),
    "a score in the manifest": (lambda f: _edit_manifest(f, lambda m: m["games"][1]["scores"].__setitem__(0, 999)),
                                "manifest.json: game 1: its scores are [999,"),
    "a view": (lambda f: (f / "views/game-000-seat-1.json.gz").write_bytes(gzip.compress(b"{}")),
               "views/game-000-seat-1.json.gz has been changed"),
    "a view, digest updated": (
        _forge_view, "views/game-000-seat-1.json.gz is not seat 1's view of its record records/game-000.jsonl"),
    "the spec's secret": (lambda f: _edit_manifest(f, _set_secret),
                          "manifest.json: game 0: the spec's secret does not deal the recorded seed"),
    "a command instead of an image": (lambda f: _edit_manifest(f, _spec_command),
                                      "is not an image: a bundle plays bots in their sandboxed containers"),
    "an image that is not here": (
        lambda f: _edit_manifest(f, lambda m: [b.__setitem__("image", "arena-test-bundle/nowhere:1")
                                               for b in (m["bots"][1], m["spec"]["bots"][1])]),
        "first-legal@1.0.0: there is no image arena-test-bundle/nowhere:1 here"),
    "an image of another id": (
        lambda f: _edit_manifest(f, lambda m: m["bots"][0].__setitem__("image_digest", "sha256:" + "0" * 64)),
        "the match was played with sha256:000000000000"),
}


@pytest.mark.parametrize("tampering", list(TAMPERINGS))
def test_a_tampered_bundle_is_refused_naming_what_changed(made, tmp_path, tampering):
    change, message = TAMPERINGS[tampering]
    folder = _copy(made, tmp_path)
    change(folder)
    result = CliRunner().invoke(arena, ["bundle", "run", str(folder)])
    assert result.exit_code == 1 and message in result.output, result.output
    assert "playing the match again" not in result.output
    assert not Path("/tmp/arena-bundle-pwned").exists()
    if tampering.startswith("an image"):
        assert "docker load -i bots.tar.gz" in result.output and "arena bot build DIR" in result.output


def test_paths_outside_the_bundle_are_refused(made, tmp_path):
    folder = _copy(made, tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("not the bundle's")
    digest = hashlib.sha256(outside.read_bytes()).hexdigest()
    for i, name in enumerate(("../outside.txt", str(outside), "records/../../outside.txt", "records/./x", "a/b/c",
                              ".hidden")):
        copy = tmp_path / f"c{i}"
        shutil.copytree(folder, copy)
        _edit_manifest(copy, lambda m, name=name: m["files"].__setitem__(name, digest))
        with pytest.raises(bundles.BundleError, match=r"no '\.\.', no absolute path"):
            bundles.load_bundle(copy)
    # a symlink, to a file or a folder, even to the very bytes the manifest expects
    record = folder / "records/game-000.jsonl"
    shutil.copy(record, tmp_path / "same.jsonl")
    record.unlink()
    record.symlink_to(tmp_path / "same.jsonl")
    with pytest.raises(bundles.BundleError, match="records/game-000.jsonl is a symlink"):
        bundles.load_bundle(folder)
    shutil.rmtree(folder / "records")
    shutil.copytree(made.path / "records", tmp_path / "records")
    (folder / "records").symlink_to(tmp_path / "records")
    with pytest.raises(bundles.BundleError, match="records/game-000.jsonl is a symlink"):
        bundles.load_bundle(folder)
    (folder / "records").unlink()
    shutil.copytree(made.path / "records", folder / "records")
    (folder / "records/game-001.jsonl").unlink()
    os.mkfifo(folder / "records/game-001.jsonl")  # would block a plain open()
    with pytest.raises(bundles.BundleError, match="records/game-001.jsonl is not a regular file"):
        bundles.load_bundle(folder)


def test_sizes_read_are_capped(made, monkeypatch):
    monkeypatch.setattr(bundles, "MAX_FILE_BYTES", 10_000)  # the records are about 12 kB
    with pytest.raises(bundles.BundleError, match="records/game-000.jsonl is larger than"):
        bundles.load_bundle(made.path)
    monkeypatch.setattr(bundles, "MAX_MANIFEST_BYTES", 1000)
    with pytest.raises(bundles.BundleError, match="manifest.json is larger than"):
        bundles.load_bundle(made.path)


def test_a_changed_engine_is_noticed(made, tmp_path):
    folder = _copy(made, tmp_path)
    _edit_manifest(folder, lambda m: m["engine"].__setitem__("code_sha256", "1" * 64))
    assert bundles.load_bundle(made.path).notes == []
    assert bundles.load_bundle(folder).notes == [
        "the sobek engine's code here (version 1.0.0) is not the code the match was played with (version 1.0.0): "
        "a difference may come from it"]


def test_a_rerun_that_differs_is_told_by_its_first_difference(made, tmp_path):
    """The comparison itself, on a rerun's records made by hand: an action, then a seat's
    timeout, differ from the bundle's."""
    loaded = bundles.load_bundle(made.path)
    rerun = tmp_path / "rerun"
    shutil.copytree(made.path / "records", rerun)
    games = [{"index": g["index"], "seed": int(g["seed"]), "bots": g["seats"], "scores": g["scores"],
              "ranks": g["ranks"], "failures": g["failures"], "record": Path(g["record"]).name}
             for g in loaded.games]
    assert bundles.first_difference(loaded, games, rerun) is None
    record = read_record(rerun / "game-001.jsonl")
    seat, action = record.decisions[2]["seat"], record.decisions[2]["action"]
    name = ["random@1.0.0", "first-legal@1.0.0"][loaded.games[1]["seats"][seat]]
    _edit_record(rerun, "game-001.jsonl", 2, "other")
    assert bundles.first_difference(loaded, games, rerun) == (
        f"game 1 (deal c0d1), at decision 2: in the bundle seat {seat} ({name}) played {action!r}, "
        f"in the rerun seat {seat} ({name}) played 'other'")
    shutil.copy(made.path / "records/game-001.jsonl", rerun / "game-001.jsonl")
    lines = (rerun / "game-001.jsonl").read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if '"type":"decision"' in line)
    failure = {"type": "failure", "seat": seat, "reason": "timeout", "detail": "", "at": "decision"}
    lines.insert(first + 2, json.dumps(failure) + "\n")
    (rerun / "game-001.jsonl").write_text("".join(lines))
    assert bundles.first_difference(loaded, games, rerun) == (
        f"game 1 (deal c0d1), at decision 2: in the bundle seat {seat} ({name}) played {action!r}, in the rerun "
        f"seat {seat} ({name}) failed (timeout) (time limits depend on the machine's speed and load)")
    games[0]["scores"] = [0, 0]
    assert bundles.first_difference(loaded, games, rerun).startswith("game 0: scores")
