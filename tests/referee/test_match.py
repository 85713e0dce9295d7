"""Real matches of every game: bots as local processes over gRPC on Unix sockets, in process, and both.

Each test runs over every game of the registry, the first over every player count too; what is
particular to a game is in the tables below, or a small assert of its own.
"""

from __future__ import annotations

import json

import pytest

from arena_games import GAMES
from referee.match import log_name, ranks_with_failures
from referee.records import read_record
from referee.spec import SpecError, parse_spec

from .helpers import MISBEHAVE, PY, RANDOM_BOT, ROOT, bot, check_records_replay, play_match

EVERY_GAME = sorted(GAMES)
EVERY_PLAYER_COUNT = [pytest.param(game, n, id=f"{game}-{n}") for game in EVERY_GAME
                      for n in range(GAMES[game].min_players, GAMES[game].max_players + 1)]

# A default of each game's settings, as its rules file (docs/games/<game>.md) documents it.
DOCUMENTED_DEFAULT = {"prohis": ("max_bribe_offers", 3), "sobek": ("start_tie_break", "seat_order"),
                      "boss": ("overtime", True), "bandits": ("max_rounds", 8)}

# Settings that are not the defaults.
SETTINGS = {
    "prohis": {"max_bribe_offers": 1, "tie_break": "most_illegal"},
    "sobek": {"start_tie_break": "random", "track_symbols": "lotus,scarab,eye,ankh"},
    "boss": {"first_dealer": 2, "chicago_needs_other_boss": False},
    "bandits": {"max_rounds": 1, "backfire": False},
}

# The games whose ranks break ties of scores (with these settings), and a match seed whose games
# have such a tie: there, ranking by score alone would rank differently from the game.
TIE_BREAKS = {"prohis": ({"tie_break": "most_illegal"}, 21), "boss": ({}, 18)}


def heuristic_bot(game: str) -> list[str]:
    """The game's heuristic sample bot, as a local process."""
    return [PY, str(ROOT / f"sample_bots/python/{game}_heuristic/bot.py")]


def by_score(scores: list[int]) -> list[int]:
    """Ranks by score alone, ties sharing a place."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


@pytest.mark.parametrize(("game", "n"), EVERY_PLAYER_COUNT)
def test_a_match_at_every_player_count(tmp_path, game, n):
    bots = [bot(f"b{i}", heuristic_bot(game) if i % 2 else RANDOM_BOT) for i in range(n)]
    result = play_match(tmp_path, bots, games=n, seed=n, game=game)
    assert len(result["games"]) == n
    for g in result["games"]:
        assert g["failures"] == [""] * n
        assert sorted(g["bots"]) == list(range(n))
        assert min(g["ranks"]) == 1
    # seats rotate: every bot sits in every seat once over n games
    for b in range(n):
        assert sorted(g["bots"].index(b) for g in result["games"]) == list(range(n))
    # duplicate deals: one seed for the n rotations
    assert len({g["seed"] for g in result["games"]}) == 1
    check_records_replay(tmp_path, result)
    assert json.loads((tmp_path / "result.json").read_text()) == result

    record = read_record(tmp_path / "game-000.jsonl")
    header = record.header
    assert (header["game"], header["num_players"], header["engine_version"]) == (game, n, GAMES[game].version)
    assert header["seed"] == result["games"][0]["seed"]
    assert header["settings"] == GAMES[game].settings().to_dict()  # every setting, with its default
    key, value = DOCUMENTED_DEFAULT[game]
    assert header["settings"][key] == value
    assert [s["bot"] for s in header["seats"]] == [f"b{b}" for b in result["games"][0]["bots"]]
    assert [s["version"] for s in header["seats"]] == ["1.0.0"] * n  # from each bot's hello
    assert record.decisions and all({"seat", "action", "ms"} <= set(d) for d in record.decisions)
    assert all(d["ms"] >= 0 for d in record.decisions)


@pytest.mark.parametrize("game", EVERY_GAME)
def test_builtin_and_process_bots_play_identical_games(tmp_path, game):
    """The same strategies in process and over gRPC make the same decisions: the wire carries
    exactly the engine's view, and every bot is seeded by the referee. Over the wire, the
    heuristic wins every game. (Every game has a deal of its own, so no process is renewed.)"""
    n = GAMES[game].min_players + 1
    kinds = ["heuristic" if i in (0, n - 1) else "random" for i in range(n)]
    match = {"games": n, "seed": 12, "game": game, "duplicate": False}
    procs = play_match(tmp_path / "p", [bot(f"{k}{i}", heuristic_bot(game) if k == "heuristic" else RANDOM_BOT)
                                        for i, k in enumerate(kinds)], **match)
    builtins = play_match(tmp_path / "b", [{"name": f"{k}{i}", "builtin": k} for i, k in enumerate(kinds)], **match)
    for g in range(n):
        assert read_record(tmp_path / "p" / f"game-{g:03d}.jsonl").actions == \
            read_record(tmp_path / "b" / f"game-{g:03d}.jsonl").actions
    assert [g["scores"] for g in procs["games"]] == [g["scores"] for g in builtins["games"]]
    totals = {kind: [t for t in procs["totals"] if t["bot"].startswith(kind)] for kind in ("heuristic", "random")}
    assert sum(t["wins"] for t in totals["random"]) == 0, procs["totals"]
    assert min(t["mean_score"] for t in totals["heuristic"]) > max(t["mean_score"] for t in totals["random"]), \
        procs["totals"]


@pytest.mark.parametrize("game", EVERY_GAME)
def test_settings_reach_the_engine_and_the_record(tmp_path, game):
    settings = SETTINGS[game]
    bots = [bot("h", heuristic_bot(game)), {"name": "r", "builtin": "random"}, {"name": "bh", "builtin": "heuristic"}]
    result = play_match(tmp_path, bots, seed=7, game=game, settings=settings)
    check_records_replay(tmp_path, result)
    for g in result["games"]:
        assert g["failures"] == [""] * 3
        record = read_record(tmp_path / g["record"])
        assert settings.items() <= record.header["settings"].items()
        state = record.replay()
        assert settings.items() <= state.settings.to_dict().items()
        assert g["ranks"] == state.ranks()
        if game == "boss":
            first = state.log.history()[0]
            assert (first["type"], first["seat"]) == ("round", 2)  # the first round's dealer
        if game == "bandits":
            assert state.round == 1


@pytest.mark.parametrize("game", sorted(TIE_BREAKS))
def test_match_ranks_keep_the_games_tie_breaks(tmp_path, game):
    """The referee ranks by the engine's ranks, so a game's tie-break holds in matches too."""
    settings, seed = TIE_BREAKS[game]
    n = GAMES[game].min_players
    bots = [{"name": f"h{i}", "builtin": "heuristic"} for i in range(n)]
    result = play_match(tmp_path, bots, games=4 * n, seed=seed, game=game, settings=settings)
    broken = 0
    for g in result["games"]:
        state = read_record(tmp_path / g["record"]).replay()
        assert g["ranks"] == state.ranks()
        broken += g["ranks"] != by_score(g["scores"])
    assert broken, f"no game of this match broke a tie: choose a seed whose games do ({TIE_BREAKS[game]})"


@pytest.mark.parametrize("game", EVERY_GAME)
def test_a_failing_seat_gets_the_fallback_and_the_game_finishes(tmp_path, game):
    bots = [bot("r0", RANDOM_BOT), bot("bad", [*MISBEHAVE, "illegal", "5"]), bot("r2", RANDOM_BOT)]
    result = play_match(tmp_path, bots, seed=5, game=game)
    game_result = result["games"][0]
    seat = game_result["bots"].index(1)
    assert game_result["failures"][seat] == "illegal" and game_result["ranks"][seat] == 3
    record = read_record(tmp_path / game_result["record"])
    assert any(d.get("fallback") for d in record.decisions if d["seat"] == seat)
    check_records_replay(tmp_path, result)


def test_ranks_with_failures():
    assert ranks_with_failures([4, 2, 2, 1], ["", "", "", ""]) == [4, 2, 2, 1]
    assert ranks_with_failures([4, 2, 2, 1], ["", "", "", "timeout"]) == [3, 1, 1, 4]
    assert ranks_with_failures([4, 2, 2, 1], ["crash", "", "", "timeout"]) == [3, 1, 1, 3]
    assert ranks_with_failures([1, 2, 3], ["crash", "", ""]) == [3, 1, 2]


def test_any_bot_name_gets_a_safe_log_file(tmp_path):
    names = ["../up", "a/b", "nul\x00byte", "x" * 300, "ok@1.0"]
    result = play_match(tmp_path, [bot(n, RANDOM_BOT) for n in names[:3]], games=1)
    assert not any(f for f in result["games"][0]["failures"])
    logs = sorted(p.name for p in tmp_path.glob("bot*.log"))
    assert logs == ["bot0-.._up.log", "bot1-a_b.log", "bot2-nul_byte.log"]
    assert log_name(3, names[3]) == f"bot3-{'x' * 64}.log" and log_name(4, names[4]) == "bot4-ok@1.0.log"


def test_boss_settings_that_do_not_fit_the_player_count_are_refused_before_the_match():
    bots = [{"name": f"r{i}", "builtin": "random"} for i in range(3)]
    with pytest.raises(SpecError, match="'detroit,philadelphia,boston' does not fit 3 players"):
        parse_spec({"game": "boss", "settings": {"cities": "detroit,philadelphia,boston"}, "bots": bots})
    assert parse_spec({"game": "boss", "settings": {"cities": "detroit,philadelphia,boston"},
                       "bots": bots[:2]}).settings["cities"] == "detroit,philadelphia,boston"
