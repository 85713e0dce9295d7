"""A knockout of containerised bots, played to its end, and the same bracket killed with -9 at a
random moment and run again: the same games, the same bracket, the same champion. Sobek, 2 a
table, one deal: 2 games a match, 2 matches (one duplicate cycle) a bracket match, 6 matches in
all (about 15 s on two busy cores). Double elimination's own rules (its losers' bracket, the
grand final's reset, a rematch on other deals) are test_knockout.py's; here a double elimination of
two bots is played to its end in containers (its grand final a rematch on new deals), not killed:
the runner resumes both formats the same way."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.config import load_bot_config
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.league import create_league, get_league
from arena.league.formats import standings_of
from arena.league.formats.base import cycle_order, read_played
from arena.league.runner import run_league
from arena.league.schedule import ScheduleOptions
from arena.store import Store, open_store

from ..docker_fixtures import ROOT, left_behind
from .helpers import SECRET, stored_games

# four entrants, two of them the random bot under other names: what matters is a full bracket
ENTRANTS = (("random", "random"), ("first_legal", "first-legal"), ("sobek_heuristic", "sobek-heuristic"),
            ("random", "random-b"))


def bracket_league(store: Store, client, sample_images: dict[str, str]) -> None:
    create_league(store, "ko", "sobek", 2, {}, ScheduleOptions(deals=1, format="knockout"), secret=SECRET)
    for folder, name in ENTRANTS:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        image = sample_images[folder]
        register_bot(store, name=name, version=config.version, image=image, image_digest=client.images.get(image).id,
                     language=config.language, author=config.author, games=["sobek"], league="ko")


@pytest.fixture(scope="module")
def played(tmp_path_factory, docker_client, sample_images):
    """The bracket run once without a stop: its store."""
    tmp = tmp_path_factory.mktemp("bracket")
    store = open_store(f"sqlite:///{tmp}/arena.db")
    bracket_league(store, docker_client, sample_images)
    run_league(store, "ko", rounds=1, jobs=2, runs_dir=tmp / "runs")
    return store


def test_the_bracket_is_played_to_its_end_each_table_won_by_the_winner_of_its_cycle(played):
    board = standings_of(played, "ko")["board"]
    assert board["drawn"] and board["champion"] is not None
    with played() as session:
        league_id = get_league(session, "ko").id
    games = read_played(played, league_id)
    stages = board["stages"]
    assert [(s["name"], s["cycle"], len(s["tables"])) for s in stages] == [("Round 1", 0, 2), ("Final", 1, 1)]
    for stage in stages:
        for table in stage["tables"]:
            assert table["status"] == "played", (stage["name"], table)
            bots = tuple(sorted(p["bot"] for p in table["bots"]))
            order = cycle_order(games.cycle_games(bots, stage["cycle"]))
            assert len(games.cycle_games(bots, stage["cycle"])) == 4  # 2 matches of 2 games
            best = [c for c in order if (c.mean_rank, c.minus_score) == (order[0].mean_rank, order[0].minus_score)]
            seeds = {p["bot"]: p["seed"] for p in table["bots"]}
            assert table["winner"] == min((c.bot_id for c in best), key=seeds.__getitem__)  # a tie: the better seed
    final = stages[-1]["tables"][0]
    assert sorted(p["bot"] for p in final["bots"]) == sorted(t["winner"] for t in stages[0]["tables"])
    assert board["champion"] == final["winner"]
    out = CliRunner().invoke(arena, ["league", "standings", "ko", "--db", str(played.engine.url)])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0].startswith("knockout, 2 per table; champion: ")


def test_a_bracket_killed_with_9_and_run_again_ends_as_one_never_stopped(played, tmp_path, docker_client,
                                                                          sample_images):
    expected, expected_board = stored_games(played), standings_of(played, "ko")["board"]
    url = f"sqlite:///{tmp_path}/killed.db"
    store = open_store(url)
    bracket_league(store, docker_client, sample_images)
    command = [sys.executable, "-m", "arena.cli", "league", "run", "ko", "--jobs", "2", "--db", url,
               "--runs-dir", str(Path(tmp_path) / "runs")]
    proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(random.Random(20261207).uniform(1.0, 6.0))  # the whole run takes 8 to 15 s
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = stored_games(store)
    assert set(partial) <= set(expected)
    run_league(store, "ko", rounds=1, jobs=2, runs_dir=tmp_path / "runs")  # in process: no second start-up
    assert stored_games(store) == expected, f"{len(partial)} games stored before the kill"
    assert standings_of(store, "ko")["board"] == expected_board
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and left_behind(docker_client, "ko"):
        time.sleep(0.5)
    assert not left_behind(docker_client, "ko")


def test_a_double_elimination_in_containers_ends_with_the_grand_final_each_meeting_on_new_deals(
        tmp_path, docker_client, sample_images):
    """Two bots: the winners' final, then the grand final against the same bot (and its reset if
    the loser of the first wins it), each a cycle of its own: other deals every time."""
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    create_league(store, "de", "sobek", 2, {}, ScheduleOptions(deals=1, format="double-elimination"), secret=SECRET)
    for folder, name in ENTRANTS[1:3]:
        config = load_bot_config(ROOT / "sample_bots" / "python" / folder)
        image = sample_images[folder]
        register_bot(store, name=name, version=config.version, image=image,
                     image_digest=docker_client.images.get(image).id, language=config.language,
                     author=config.author, games=["sobek"], league="de")
    run_league(store, "de", rounds=1, jobs=2, runs_dir=tmp_path / "runs")
    board = standings_of(store, "de")["board"]
    assert board["champion"] is not None
    games = stored_games(store)
    cycles = sorted({r // 2 for r, *_ in games})
    assert len(cycles) in (2, 3)  # the winners' final and the grand final, and its reset if it came to that
    seeds_by_cycle = {c: {seed for r, _, _, seed, *_ in games if r // 2 == c} for c in cycles}
    for a in cycles:  # a deal's seed is its cards: no meeting of the same two bots replays one
        for b in cycles:
            assert a == b or not seeds_by_cycle[a] & seeds_by_cycle[b]
    with store() as session:
        league_id = get_league(session, "de").id
    played_ = read_played(store, league_id)
    last = cycle_order(played_.cycle_games(tuple(sorted(s["bot"] for s in board["seeds"])), cycles[-1]))
    assert board["champion"] == last[0].bot_id or (last[0].mean_rank, last[0].minus_score) == (
        last[1].mean_rank, last[1].minus_score)  # the last cycle's winner (a tie: the better seed)
