"""The league's schedule: duplicate cycles of k rounds, deals from the league's secret."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena.league import LeagueError, create_league, runner
from arena.league.schedule import ScheduleOptions, Slot, schedule
from arena.store import Bot, League
from arena_games import get_game
from referee.spec import MatchSpec, parse_spec

SECRET = "00" * 32


def match_spec(slot: Slot, deals: int, league_secret: str = SECRET) -> MatchSpec:
    """The match a slot plays, as the league hands it to the referee, which reads it back unchanged."""
    entrants = {b: Bot(name=f"bot{b}", version="1", image=f"img{b}") for b in slot.table}
    settings = get_game("prohis").validate(len(slot.table)).to_dict()  # a league stores them complete
    spec = runner.match_spec("l", "prohis", settings, league_secret, slot, entrants, ScheduleOptions(deals=deals))
    assert parse_spec(spec.to_dict()) == spec
    return spec


@pytest.mark.parametrize("players, deals", [(3, 1), (3, 2), (4, 2), (5, 1)])
def test_every_match_has_distinct_deals_and_every_cycle_plays_each_deal_in_every_rotation(players, deals):
    bots = list(range(1, players + 2))  # k + 1 entrants: k + 1 tables
    rounds = 2 * players  # two whole cycles
    slots = schedule(bots, players, rounds)
    assert len(slots) == (players + 1) * rounds
    assert slots == sorted(slots, key=lambda s: (s.round, s.table))  # the order in which results are rated
    rotations_of = defaultdict(list)  # (table, game seed) -> rotations it was played in
    for slot in slots:
        spec = match_spec(slot, deals)
        seeds = [spec.game_seed(g) for g in range(spec.games)]
        assert spec.games == players * deals
        assert len(set(seeds)) == spec.games, f"round {slot.round}, table {slot.key}: a deal repeats"
        # every bot sits in every seat `deals` times in each match
        for b in range(players):
            assert Counter(s for g in range(spec.games) for s in range(players) if spec.bot_at(g, s) == b) == \
                Counter(dict.fromkeys(range(players), deals))
        for g, seed in enumerate(seeds):
            rotations_of[slot.key, seed].append((slot.cycle, spec.rotation(g)))
    for (table, _), played in rotations_of.items():
        cycles = {c for c, _ in played}
        assert len(cycles) == 1, f"table {table}: a deal is played in more than one cycle"
        assert sorted(r for _, r in played) == list(range(players)), f"table {table}: rotations {played}"
    # every deal of every table and cycle: G deals x k rotations
    assert len(rotations_of) == (players + 1) * 2 * players * deals


def test_tables_cycles_and_leagues_deal_differently():
    slots = {(s.round, s.key): s for s in schedule([1, 2, 3, 4], 3, 6)}
    seeds = {key: match_spec(slot, 2).game_seed(0) for key, slot in slots.items()}
    assert seeds[0, "1,2,3"] == seeds[1, "1,2,3"] == seeds[2, "1,2,3"]  # one cycle: the same deals
    assert seeds[0, "1,2,3"] != seeds[3, "1,2,3"]  # the next cycle: new deals
    assert seeds[0, "1,2,3"] != seeds[0, "1,2,4"]  # another table: other deals
    assert match_spec(slots[0, "1,2,3"], 2, "11" * 32).game_seed(0) != seeds[0, "1,2,3"]  # another league
    # bots' seeds are the match's own: no two matches hand out the same ones
    bot_seeds = [match_spec(slot, 2).bot_seed(0, 0) for slot in slots.values()]
    assert len(set(bot_seeds)) == len(bot_seeds)


def test_the_plan_and_the_match_secrets_are_pinned():
    """A league's secret fixes every match's deals forever: these values must never change."""
    slot = Slot(round=4, table=(1, 2, 3))
    assert slot.cycle == 1
    assert slot.plan(2) == [("c1d0", 1), ("c1d1", 2), ("c1d2", 0), ("c1d3", 1), ("c1d4", 2), ("c1d5", 0)]
    assert slot.secrets(SECRET) == ("03f5f4520900467a2e8b166e6b62f8a4f7fdfccca38e7fe3afb9c760859bd802",
                                    "fb8f0a76886004c539a6c21cd5ea5ebbff3ed2bd959b9f91f31ebe855b3eb4ff")


def test_a_league_gets_a_fresh_secret_unless_one_is_given(store):
    runner = CliRunner()
    db = ["--db", str(store.engine.url)]
    created = runner.invoke(arena, ["league", "create", "a", "--game", "prohis", "--players", "3", *db])
    assert created.exit_code == 0 and "3 games per match" in created.output, created.output
    assert "over each cycle of 3 rounds" in created.output
    guessable = runner.invoke(arena, ["league", "create", "z", "--game", "prohis", "--players", "3", "--seed", "1",
                                      *db])
    assert guessable.exit_code == 2 and "No such option '--seed'" in guessable.output
    create_league(store, "b", "prohis", 3, {}, ScheduleOptions())
    create_league(store, "c", "prohis", 3, {}, ScheduleOptions(), secret="AB" * 16)
    with store() as session:
        secrets = {lg.name: lg.secret for lg in session.query(League)}
    assert len(secrets["a"]) == len(secrets["b"]) == 64 and secrets["a"] != secrets["b"]
    assert secrets["c"] == "ab" * 16
    for bad, message in (("ab" * 8, "the league's secret must have at least 128 bits (32 hex digits), got 64"),
                         ("not hex!" * 8, "the league's secret must be a hex string")):
        with pytest.raises(LeagueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            create_league(store, "d", "prohis", 3, {}, ScheduleOptions(), secret=bad)


@pytest.mark.parametrize("command", [["league", "create"], ["ladder", "create"]])
def test_the_time_control_s_options_reach_every_match_of_the_league(store, command):
    """--increment-ms and --match-bank-ms are kept in the league's schedule and given to the
    referee in each match's spec (runner.match_spec: the local runner's, the workers', the ladder's)."""
    created = CliRunner().invoke(arena, [*command, "t", "--game", "sobek", "--players", "2", "--decision-ms", "500",
                                         "--increment-ms", "250", "--match-bank-ms", "30000",
                                         "--db", str(store.engine.url)])
    assert created.exit_code == 0, created.output
    with store() as session:
        options = ScheduleOptions.from_dict(session.query(League).one().schedule)
    assert (options.decision_ms, options.increment_ms, options.match_bank_ms) == (500, 250, 30_000)
    slot = Slot(0, (1, 2))
    spec = runner.match_spec("t", "sobek", get_game("sobek").validate(2).to_dict(), SECRET, slot,
                             {b: Bot(name=f"bot{b}", version="1", image=f"img{b}") for b in slot.table}, options)
    assert (spec.time.decision_ms, spec.time.increment_ms, spec.time.match_bank_ms) == (500, 250, 30_000)
    assert parse_spec(spec.to_dict()) == spec
    refused = CliRunner().invoke(arena, [*command, "u", "--game", "sobek", "--players", "2", "--increment-ms", "-1",
                                         "--db", str(store.engine.url)])
    assert refused.exit_code == 2 and "--increment-ms" in refused.output
