"""The ladder: whole duplicate cycles, incremental ratings equal to a rebuild, joins and
retirements while it runs, resuming after kill -9, and the refusals of the two runners."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime

from click.testing import CliRunner
from sqlalchemy import func, select

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league
from arena.league.ladder import LadderStatus, run_ladder
from arena.league.ratings import ENV, RatedGame, rate
from arena.league.schedule import ScheduleOptions
from arena.league.standings import rated_games
from arena.store import Bot, League, Match, Rating, RatingHistory

from ..docker_fixtures import LABEL, ROOT
from .helpers import SECRET

# The Boss, two a table, 4 deals: a match is 8 games (two containers started, ~0.1 s a game), so
# every bot that has played one is past matchmaking's few games of a new entrant.
PER_MATCH = 8


def boss_ladder(store, sample_images, client, name: str) -> dict[str, int]:
    """A ladder of four: the random, first-legal and boss-heuristic samples, and a second
    version of first-legal (same image); random@2 is registered, not entered. Bot ids by label."""
    create_league(store, name, "boss", 2, {}, ScheduleOptions(deals=4, format="ladder"), secret=SECRET)
    ids = {}
    for folder, version, league in [("random", "1.0.0", name), ("first_legal", "1.0.0", name),
                                    ("boss_heuristic", "1.0.0", name), ("first_legal", "2", name),
                                    ("random", "2", None)]:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        bot = register_bot(store, name=config.name, version=version, image=sample_images[folder],
                           image_digest=client.images.get(sample_images[folder]).id, language="python",
                           author="tests", games=[], league=league)
        ids[bot.label] = bot.id
    return ids


def containers_of(client, league: str) -> list:
    """The containers of this league's matches still there (the engine is shared: only ours)."""
    return [c for c in client.containers.list(all=True, filters={"label": LABEL})
            if c.labels.get("arena.match", "").startswith(f"{league}-r")]


@dataclass
class Cycles:
    complete: set[tuple[int, str]]  # (cycle, table) with all k matches stored
    open: set[tuple[int, str]]
    games: int


def check_ladder(store, name: str) -> Cycles:
    """What holds after any run of a ladder, killed or not: every stored match has all its games,
    each with a deal of its own; a cycle is one table, each of its deals played in every rotation
    once the cycle is complete; the stored ratings and their history are exactly a rebuild's from
    the games in (match id, game index) order, with ``seq`` counting every game once."""
    with store() as session:
        league = session.scalar(select(League).where(League.name == name))
        k = league.players
        per_match = k * ScheduleOptions.from_dict(league.schedule).deals
        matches = session.scalars(select(Match).where(Match.league_id == league.id).order_by(Match.id)).all()
        assert len({(m.round, m.table) for m in matches}) == len(matches)
        cycles = defaultdict(list)
        for m in matches:
            assert [g.index for g in m.games] == list(range(per_match)), f"match {m.id} lost games"
            assert len({g.seed for g in m.games}) == per_match, f"match {m.id} repeats a deal"
            cycles[m.round // k].append(m)
        complete: set[tuple[int, str]] = set()
        open_: set[tuple[int, str]] = set()
        for c, ms in cycles.items():
            assert len({m.table for m in ms}) == 1, f"cycle {c} has several tables"
            (complete if len(ms) == k else open_).add((c, ms[0].table))
            rotations = defaultdict(list)  # (deal, seed) -> rotations it was played in
            for m in ms:
                for g in m.games:
                    rotations[g.deal, g.seed].append(m.bots.index(g.seats[0]))
            assert len({deal for deal, _ in rotations}) == per_match  # the same deals in each match of a cycle
            if len(ms) == k:
                assert all(sorted(r) == list(range(k)) for r in rotations.values()), (c, dict(rotations))
        games = rated_games(session, league.id)
        assert [g.id for g in games] == [g.id for m in matches for g in m.games]
        history: list[tuple] = []
        expected = rate((RatedGame(g.id, g.seats, g.ranks, g.failures) for g in games), "last", history)
        prior = (ENV.mu, ENV.sigma, 0)
        stored = {r.bot_id: (r.mu, r.sigma, r.games) for r in session.scalars(
            select(Rating).where(Rating.league_id == league.id))}
        assert set(expected) <= set(stored)
        for bot, row in stored.items():
            want = expected.get(bot)
            assert row == ((want.mu, want.sigma, want.games) if want else prior), bot
        assert sum(games for _, _, games in stored.values()) == k * len(games)
        rows = sorted((h.seq, h.game_id, h.bot_id, h.mu, h.sigma) for h in session.scalars(
            select(RatingHistory).where(RatingHistory.league_id == league.id)))
        assert rows == sorted(history)
        assert sorted({seq for seq, *_ in rows}) == list(range(len(games)))  # contiguous, each game once
    return Cycles(complete, open_, len(games))


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def test_a_ladder_plays_whole_cycles_and_takes_joins_and_retirements_while_it_runs(
        store, db_url, sample_images, docker_client, tmp_path):
    """Four bots, two a table: once each has played, a fifth enters from another process while
    the ladder runs, and plays in one of the first two cycles picked after; three matches later
    first-legal@1.0.0 is retired (another process) and plays no match started after. Every cycle
    is complete but those its retirement cut short, and the ratings, added match by match, are
    exactly what `arena ratings rebuild` computes."""
    ids = boss_ladder(store, sample_images, docker_client, "ladj")
    retiring, newcomer = ids["first-legal@1.0.0"], ids["random@2"]
    moments: dict[str, datetime] = {}
    joined_after: list[int] = []

    def progress(status: LadderStatus) -> None:  # in the runner's thread: no match starts meanwhile
        if "join" not in moments:
            with store() as session:
                played = session.scalar(select(func.count(Rating.id)).where(Rating.games > 0))
            if played == 4:
                moments["join"] = datetime.now(UTC)
                joined_after.append(status.matches_run)
                done = subprocess.run([sys.executable, "-m", "arena.cli", "league", "join", "ladj", "random@2",
                                       "--db", db_url], cwd=ROOT, capture_output=True, text=True)
                assert done.returncode == 0, done.stderr
        elif "retire" not in moments and status.matches_run >= joined_after[0] + 3:
            retire = ("import sys; from arena.accounts import Account; from arena.bots.registry import retire_bot; "
                      "from arena.store import open_store; "
                      "retire_bot(open_store(sys.argv[1]), int(sys.argv[2]), Account(0, 'admin', True))")
            done = subprocess.run([sys.executable, "-c", retire, db_url, str(retiring)], cwd=ROOT,
                                  capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            moments["retire"] = datetime.now(UTC)

    status = run_ladder(store, "ladj", jobs=2, runs_dir=tmp_path / "runs", until=12 * PER_MATCH, progress=progress)
    assert status.stopped == "until" and status.games >= 12 * PER_MATCH and "retire" in moments
    cycles = check_ladder(store, "ladj")
    assert cycles.games == status.games == status.games_run == PER_MATCH * status.matches_run
    with store() as session:
        retired_at = _utc(session.get(Bot, retiring).retired_at)
        matches = session.scalars(select(Match).order_by(Match.id)).all()
    # only cycles of the retired bot are left incomplete, and the run says how many
    assert all(str(retiring) in table.split(",") for _, table in cycles.open)
    assert len(cycles.open) == status.abandoned and len(cycles.complete) == status.cycles
    # retired: it played before, and no match started after its retirement has it
    assert moments["join"] < retired_at <= moments["retire"]
    assert any(retiring in m.bots for m in matches)
    after = [m for m in matches if _utc(m.started_at) > retired_at]
    assert after and not [m.id for m in after if retiring in m.bots]
    # joined: it plays in one of the first two cycles picked after it joined
    before = {m.round // 2 for m in matches if _utc(m.started_at) < moments["join"]}
    new_cycles = sorted({m.round // 2 for m in matches} - before)
    first = min(m.round // 2 for m in matches if newcomer in m.bots)
    assert first in new_cycles[:2], (first, new_cycles)
    # a rebuild (the CLI's) gives exactly the ratings the runner stored match by match
    with store() as session:
        incremental = sorted((r.bot_id, r.mu, r.sigma, r.exposure, r.games) for r in session.scalars(select(Rating)))
    rebuilt = CliRunner().invoke(arena, ["ratings", "rebuild", "ladj", "--db", db_url])
    assert rebuilt.exit_code == 0, rebuilt.output
    with store() as session:
        assert sorted((r.bot_id, r.mu, r.sigma, r.exposure, r.games)
                      for r in session.scalars(select(Rating))) == incremental
    assert not containers_of(docker_client, "ladj")


def test_a_ladder_resumes_after_kill_9_at_random_moments(store, db_url, sample_images, docker_client, tmp_path):
    """`arena ladder run --until 48` killed with -9 three times (moments drawn from
    random.Random(20261201)), then run to the end: after each kill and at the end no game is
    lost or counted twice and the ratings are a rebuild's; the cycles the kills left
    incomplete were completed."""
    boss_ladder(store, sample_images, docker_client, "ladk")
    command = [sys.executable, "-m", "arena.cli", "ladder", "run", "ladk", "--until", str(6 * PER_MATCH), "--jobs",
               "2", "--db", db_url, "--runs-dir", str(tmp_path / "runs")]
    rng = random.Random(20261201)
    left_open: set[tuple[int, str]] = set()
    for _ in range(3):
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(2.0, 6.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        left_open |= check_ladder(store, "ladk").open
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    assert f"stopped: the ladder has {6 * PER_MATCH} game(s)" in finished.stdout, finished.stdout
    cycles = check_ladder(store, "ladk")
    assert not cycles.open and cycles.games == 2 * PER_MATCH * len(cycles.complete) == 6 * PER_MATCH
    assert left_open <= cycles.complete
    # the killed runs' referees died with them and cleaned up after themselves
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and containers_of(docker_client, "ladk"):
        time.sleep(0.5)
    assert not containers_of(docker_client, "ladk")


def test_league_run_and_ladder_run_refuse_each_others_leagues(store, db_url, tmp_path):
    runner = CliRunner()
    db = ["--db", db_url]
    made = runner.invoke(arena, ["ladder", "create", "lad", "--game", "prohis", "--players", "3", "--deals", "2", *db])
    assert made.exit_code == 0 and made.output.startswith("ladder lad: prohis, 3 per table, 6 games per match")
    assert runner.invoke(arena, ["league", "create", "rr", "--game", "prohis", "--players", "3", *db]).exit_code == 0
    with store() as session:
        schedules = {lg.name: ScheduleOptions.from_dict(lg.schedule) for lg in session.scalars(select(League))}
    assert (schedules["lad"].format, schedules["lad"].deals, schedules["rr"].format) == ("ladder", 2, "round-robin")
    for i in range(3):
        register_bot(store, name=f"b{i}", version="1", image="arena-test/none:1", image_digest="", language="python",
                     author="tests", games=[], league="rr")
        joined = runner.invoke(arena, ["league", "join", "lad", f"b{i}@1", *db])
        assert joined.exit_code == 0 and f"b{i}@1 joined lad" in joined.output
    listed = json.loads(runner.invoke(arena, ["league", "list", "--json", *db]).output)
    assert [(lg["name"], lg["format"], lg["players"], [f"{e['bot']}@{e['version']}" for e in lg["entrants"]])
            for lg in listed] == [("lad", "ladder", 3, ["b0@1", "b1@1", "b2@1"]),
                                  ("rr", "round-robin", 3, ["b0@1", "b1@1", "b2@1"])]
    table = runner.invoke(arena, ["league", "list", *db]).output.splitlines()
    assert table[1].split() == ["lad", "ladder", "prohis", "3", "b0@1,", "b1@1,", "b2@1"], table

    refused = runner.invoke(arena, ["league", "run", "lad", *db])
    assert refused.exit_code == 1 and "Error: lad is a ladder: run it with `arena ladder run lad`" in refused.output
    refused = runner.invoke(arena, ["ladder", "run", "rr", "--until", "10", *db])
    assert refused.exit_code == 1 and "Error: rr is a round robin: run it with `arena league run rr`" in \
        refused.output
    both = runner.invoke(arena, ["ladder", "run", "lad", "--until", "10", "--for", "1m", *db])
    assert both.exit_code == 2 and "give --until or --for, not both" in both.output
    bad = runner.invoke(arena, ["ladder", "run", "lad", "--for", "10 minutes", *db])
    assert bad.exit_code == 2 and "not a duration such as 90s, 10m, 2h or 1h30m" in bad.output
    with store() as session:
        for bot in session.scalars(select(Bot).where(Bot.name != "b0")):
            bot.retired_at = datetime.now(UTC)
        session.commit()
    few = runner.invoke(arena, ["ladder", "run", "lad", *db])
    assert few.exit_code == 1 and "league lad has 1 entrant(s) not retired (2 retired); prohis needs 3" in few.output
    assert runner.invoke(arena, ["ladder", "run", "nope", *db]).output.strip().endswith("leagues: lad, rr")
