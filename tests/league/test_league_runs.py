"""Leagues of containerised bots: complete, rated, resumable after kill -9."""

from __future__ import annotations

import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import func, select

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.demo import lineup
from arena.league import create_league
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions, Slot
from arena.league.standings import leaderboard, rebuild_ratings
from arena.store import Game, Match, Rating

from ..docker_fixtures import ROOT, left_behind
from ..referee.test_duplicate import dealt
from .helpers import DEMO_FOLDERS, SAMPLE_FOLDERS, SECRET, league_of_samples, stored_games


def prob_better(a: dict, b: dict) -> float:
    """P(a's skill > b's skill) under the two posteriors: Phi((mu_a - mu_b) / sqrt(s_a^2 + s_b^2))."""
    z = (a["mu"] - b["mu"]) / math.sqrt(a["sigma"] ** 2 + b["sigma"] ** 2)
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def test_a_league_of_four_sample_bots_completes_and_is_rated(store, sample_images, docker_client, tmp_path):
    league_of_samples(store, docker_client)
    summary = run_league(store, "l", rounds=2, jobs=2, runs_dir=tmp_path / "runs")
    # C(4,3) = 4 tables a round, each a match of 2 deals x 3 rotations
    assert (summary.matches_run, summary.games_run, summary.failures) == (8, 48, 0)
    with store() as session:
        assert session.scalar(select(func.count(Match.id))) == 8
        assert session.scalar(select(func.count(Game.id))) == 48
    with store() as session:  # no container sees a deal twice: a match's games all deal differently
        for match in session.scalars(select(Match)):
            assert len({g.seed for g in match.games}) == 6, f"match {match.id}: {[g.deal for g in match.games]}"
    board = {row["bot"]: row for row in leaderboard(store, "l")}
    assert all(row["games"] == 36 and row["failure_rate"] == 0 for row in board.values())
    # Stated confidence: the posteriors give the heuristic a better skill than random with
    # probability >= 99.9% (here it is > 1 - 1e-9: z is about 7).
    assert prob_better(board["prohis-heuristic"], board["random"]) >= 0.999
    assert board["prohis-heuristic"]["rank"] < board["random"]["rank"]
    assert [r["rank"] for r in leaderboard(store, "l")] == [1, 2, 3, 4]
    assert all(abs(r["exposure"] - (r["mu"] - 3 * r["sigma"])) < 0.002 for r in board.values())

    # rebuilding from the stored games gives identical numbers
    with store() as session:
        before = sorted((r.bot_id, r.mu, r.sigma) for r in session.scalars(select(Rating)))
    rebuild_ratings(store, "l")
    with store() as session:
        assert sorted((r.bot_id, r.mu, r.sigma) for r in session.scalars(select(Rating))) == before
    runner = CliRunner()
    db = ["--db", str(store.engine.url)]
    rebuilt = runner.invoke(arena, ["ratings", "rebuild", "l", *db])
    assert rebuilt.exit_code == 0 and "rebuilt the ratings of 4 bot(s)" in rebuilt.output
    as_json = json.loads(runner.invoke(arena, ["leaderboard", "l", "--json", *db]).output)
    assert as_json == leaderboard(store, "l")
    assert set(as_json[0]) == {"rank", "bot_id", "bot", "version", "author", "declared_author", "language",
                               "exposure", "mu", "sigma", "games", "wins", "average_score", "failure_rate", "new",
                               "retired", "disqualified", "p_first", "p_top", "top_k", "rank_low", "rank_high",
                               "settled"}
    table = runner.invoke(arena, ["leaderboard", "l", *db]).output
    assert "mu-3s" in table and "prohis-heuristic" in table
    # a rerun has nothing left to play
    again = run_league(store, "l", rounds=2, jobs=2, runs_dir=tmp_path / "runs")
    assert (again.matches_run, again.matches_skipped) == (0, 8)

    # show match / show game
    with store() as session:
        match_id = session.scalar(select(Match.id).order_by(Match.id))
        game_id = session.scalar(select(Game.id).order_by(Game.id))
    shown = runner.invoke(arena, ["show", "match", str(match_id), *db])
    assert shown.exit_code == 0 and "round 0" in shown.output
    match = json.loads(runner.invoke(arena, ["show", "match", str(match_id), "--json", *db]).output)
    assert match["round"] == 0 and len(match["games"]) == 6 and match["games"][0]["id"] == game_id
    table = shown.output.split("\ngame ")[1].splitlines()[1:]  # the games table: id, index, deal, seats
    assert [line.split()[:3] for line in table] == [[str(g["id"]), str(g["index"]), g["deal"]] for g in match["games"]]
    shown = runner.invoke(arena, ["show", "game", str(game_id), "--log", *db])
    assert shown.exit_code == 0 and "\nseat  bot" in shown.output  # the seats table
    assert "replay check: the engine reproduces" in shown.output
    assert runner.invoke(arena, ["show", "game", "99999", *db]).output.strip().endswith("no game 99999")
    assert not left_behind(docker_client, "l")


def test_a_cycle_plays_each_deal_in_every_rotation_and_a_match_never_repeats_one(store, sample_images,
                                                                                  docker_client, tmp_path):
    """One table of three bots, one cycle (3 rounds): each match has 3 distinct deals, one per
    rotation; over the cycle each deal is played in all 3 rotations by the same table."""
    league_of_samples(store, docker_client, name="cycle", deals=1, folders=SAMPLE_FOLDERS[:3])
    summary = run_league(store, "cycle", rounds=3, jobs=2, runs_dir=tmp_path / "runs")
    assert (summary.matches_run, summary.games_run, summary.failures) == (3, 9, 0)
    rotations: dict[tuple[str, str], list[int]] = defaultdict(list)  # (deal, seed) -> rotations played
    with store() as session:
        matches = session.scalars(select(Match).order_by(Match.round)).all()
        assert [m.round for m in matches] == [0, 1, 2] and len({m.table for m in matches}) == 1
        for match in matches:
            # the bots' containers lived for the match (no restarts), and saw 3 different deals
            assert match.restarts == [0, 0, 0]
            assert len({g.seed for g in match.games}) == 3, [g.deal for g in match.games]
            played = [match.bots.index(g.seats[0]) for g in match.games]  # seat 0's bot gives the rotation
            assert sorted(played) == [0, 1, 2], f"round {match.round}: rotations {played}"
            for game, rotation in zip(match.games, played, strict=True):
                rotations[game.deal, game.seed].append(rotation)
    assert sorted(deal for deal, _ in rotations) == ["c0d0", "c0d1", "c0d2"]
    assert all(sorted(r) == [0, 1, 2] for r in rotations.values()), dict(rotations)
    # each match's records keep its own deal secret, derived from the league's secret, which
    # itself stays in the store: no file of the runs holds it
    table = tuple(int(b) for b in matches[1].table.split(","))
    result = json.loads((Path(matches[1].record_dir) / "result.json").read_text())
    assert result["spec"]["secret"] == Slot(1, table).secrets(SECRET)[0]
    files = [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert files and not [p for p in files if SECRET.encode() in p.read_bytes()]
    shown = CliRunner().invoke(arena, ["show", "match", str(matches[2].id), "--db", str(store.engine.url)])
    assert "round 2 (cycle 0)" in shown.output and " c0d2 " in shown.output, shown.output


def test_a_bot_is_never_dealt_a_deal_twice_in_a_league(store, test_bot_images, docker_client, tmp_path):
    """Four recorders, every table of three, a whole cycle: each container (it prints every
    game it is dealt) was dealt distinct deals, though every deal comes round three times."""
    create_league(store, "dealt", "prohis", 3, {}, ScheduleOptions(deals=2), secret=SECRET)
    for i in range(4):
        register_bot(store, name=f"rec{i}", version="1", image=test_bot_images["recorder"], image_digest="",
                     language="python", author="tests", games=[], league="dealt")
    summary = run_league(store, "dealt", rounds=3, jobs=2, runs_dir=tmp_path / "runs")
    assert (summary.matches_run, summary.games_run, summary.failures) == (12, 72, 0)
    containers: dict[str, list[tuple[str, str]]] = {}  # container -> (table, deal) of each game it was dealt
    deals_played: dict[tuple[str, str], int] = defaultdict(int)
    for result_path in (tmp_path / "runs").rglob("result.json"):
        result = json.loads(result_path.read_text())
        table = result["match_id"].split("-", 2)[2]
        for game in result["games"]:
            deals_played[table, game["deal"]] += 1
        for b in range(3):
            for container, deals in dealt(next(result_path.parent.glob(f"bot{b}-*.log")), result).items():
                containers.setdefault(container, []).extend((table, d) for d in deals)
    assert len(containers) == 12 * 3 and all(len(d) == 6 for d in containers.values()), containers
    repeated = {c: d for c, d in containers.items() if len(set(d)) != len(d)}
    assert not repeated, repeated
    assert set(deals_played.values()) == {3}, deals_played  # each deal in all three rotations
    assert not left_behind(docker_client, "dealt")


def test_resume_after_kill_9_at_random_points(db_url, tmp_path, reference_league, docker_client):
    """Three trials (kill points drawn from random.Random(20261130)): a run killed with -9 and
    run again stores exactly the games of an uninterrupted run, none lost, none twice."""
    from arena.store import open_store

    expected = reference_league[0]
    assert len(expected) == 12

    rng = random.Random(20261130)
    for trial in range(3):
        url = f"sqlite:///{tmp_path}/trial{trial}.db"
        store = open_store(url)
        league_of_samples(store, docker_client, deals=1)
        command = [sys.executable, "-m", "arena.cli", "league", "run", "l", "--jobs", "2", "--db", url,
                   "--runs-dir", str(tmp_path / f"runs{trial}")]
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(1.0, 5.0))  # the whole run takes about 8 s
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        partial = stored_games(store)
        assert set(partial) <= set(expected)
        finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert finished.returncode == 0, finished.stderr
        assert stored_games(store) == expected, f"trial {trial}: {len(partial)} games stored before the kill"
    # the killed runs' referees died with their runner and cleaned up after themselves
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and left_behind(docker_client, "l"):
        time.sleep(0.5)
    assert not left_behind(docker_client, "l")


def test_failures_are_ranked_last_and_counted_as_the_league_says(store, tmp_path, docker_client,
                                                                   sample_images, misbehaving_images):
    for policy in ("last", "exclude"):
        name = f"f-{policy}"
        if policy == "last":  # three samples and the crasher: 4 matches of one deal (3 games)
            league_of_samples(store, docker_client, name=name, failures=policy, deals=1,
                              folders=SAMPLE_FOLDERS[:3])
        if policy == "exclude":
            from arena.league import create_league
            from arena.league.entries import join_league
            from arena.league.schedule import ScheduleOptions

            create_league(store, name, "prohis", 3, {}, ScheduleOptions(deals=1, failures="exclude"))
            for label in ("random@1.0.0", "first-legal@1.0.0", "prohis-heuristic@1.0.0"):
                join_league(store, name, label)
        if policy == "last":
            register_bot(store, name="crasher", version="1", image=misbehaving_images["exit"],
                         image_digest="sha256:x", language="python", author="tests", games=[], league=name)
        else:
            from arena.league.entries import join_league

            join_league(store, name, "crasher@1")
        run_league(store, name, rounds=1, jobs=2, runs_dir=tmp_path / name)
        board = {row["bot"]: row for row in leaderboard(store, name)}
        crasher = board["crasher"]
        assert crasher["failure_rate"] == 1.0
        assert crasher["wins"] == 0
        if policy == "last":
            assert crasher["rank"] == len(board)  # ranked last in every game, rated like any loss
            with store() as session:
                rating = session.scalar(select(Rating).join(Rating.bot).where(Rating.bot.has(name="crasher"),
                                                                              Rating.league_id == 1))
                assert rating.games == crasher["games"]
        else:
            with store() as session:
                ratings = {r.bot.name: r.games for r in session.scalars(select(Rating).where(Rating.league_id == 2))}
            assert ratings["crasher"] == 0  # every game it played had a failure: none rated


def test_arena_demo_from_scratch_then_its_reference_league(db_url, tmp_path, sample_images):
    """`make demo`'s command: submits the sample bots (build, check, register), runs, prints.
    Then `arena demo --reference` on the same database: random, first-legal, the heuristic and
    the search bot, in containers at the default time control; only the search bot is new, and
    no seat fails (the search bot keeps its clock)."""
    env = {**os.environ, "ARENA_DB": db_url}
    result = CliRunner(env=env).invoke(arena, ["demo", "--rounds", "1", "--runs-dir", str(tmp_path / "runs")])
    assert result.exit_code == 0, result.output
    assert result.output.count("registered ") == 4
    assert "4 match(es), 24 game(s), 0 seat failure(s)" in result.output
    shown = shown_bots(result.output)
    assert "prohis-heuristic" in shown and "prohis-search" not in shown
    again = CliRunner(env=env).invoke(arena, ["demo", "--rounds", "1", "--runs-dir", str(tmp_path / "runs")])
    assert again.exit_code == 0 and "registered " not in again.output and "4 match(es) were already played" in \
        again.output

    reference = CliRunner(env=env).invoke(arena, ["demo", "--reference", "--rounds", "1", "--runs-dir",
                                                  str(tmp_path / "runs")])
    assert reference.exit_code == 0, reference.output
    assert "created league prohis-reference" in reference.output
    # the demo's bots join without a second check; the search bot is submitted
    assert reference.output.count("registered ") == 1 and "registered prohis-search" in reference.output
    assert "4 match(es), 24 game(s), 0 seat failure(s)" in reference.output
    in_reference = shown_bots(reference.output)
    assert {"random", "first-legal", "prohis-heuristic", "prohis-search"} <= set(in_reference)
    assert "prohis-bold" not in in_reference
    shown |= in_reference
    # every bot the two demos entered (test_sample_bots leaves these to this test) passed its
    # check and shows with bot.toml's version and language
    configs = {folder.name: load_bot_config(folder) for folder in sorted((ROOT / "sample_bots" / "python").iterdir())
               if (folder / "bot.toml").exists()}
    entered = sorted(c.name for c in configs.values() if lineup(c, "prohis", False) or lineup(c, "prohis", True))
    assert entered == sorted(shown)
    assert [name for name, c in configs.items() if c.name in shown] == list(DEMO_FOLDERS)
    for config in configs.values():
        if config.name in shown:
            assert shown[config.name] == (config.version, config.language)


def shown_bots(output: str) -> dict[str, tuple[str, str]]:
    """A printed leaderboard's bots: name -> (version, language)."""
    rows = output.split("mu-3s", 1)[1].splitlines()[1:]
    cells = [row.split() for row in rows if row.strip()]
    return {c[1]: (c[2], c[3]) for c in cells if c[0][0].isdigit()}
