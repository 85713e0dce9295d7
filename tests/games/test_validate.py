"""``GameSpec.validate``: the one check of a player count and settings, before any game.

A match spec, a league and ``arena play`` all ask it, so each refuses the same input with
the same sentence.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena.league import LeagueError, create_league
from arena.league.schedule import ScheduleOptions
from arena.store import open_store
from arena_games import GAMES, BadPlayerCount, BadSettings, get_game
from referee.spec import SpecError, parse_spec

# (game, players, settings, the sentence that refuses them)
REFUSED = [
    ("prohis", 2, {}, "Prohis is played by 3 to 6 players, not 2"),
    ("sobek", 5, {}, "Sobek is played by 2 to 4 players, not 5"),
    ("boss", 1, {}, "The Boss is played by 2 to 4 players, not 1"),
    ("bandits", 7, {}, "Bandits is played by 2 to 6 players, not 7"),
    ("prohis", 3, {"bribes": "2"}, "unknown setting(s) bribes for ProhisSettings; known: max_bribe_offers, "),
    ("prohis", 3, {"max_bribe_offers": "lots"}, "setting max_bribe_offers: expected an integer, got 'lots'"),
    ("prohis", 3, {"max_bribe_offers": "0"}, "setting max_bribe_offers: must be at least 1, got 0"),
    ("prohis", 3, {"tie_break": "coin"}, "setting tie_break: 'coin' is not one of none, most_illegal"),
    ("boss", 3, {"overtime": "perhaps"}, "setting overtime: expected true or false, got 'perhaps'"),
    # settings that are fine for one player count and not for another
    ("boss", 3, {"cities": "detroit,philadelphia,boston"}, "'detroit,philadelphia,boston' does not fit 3 players"),
    ("boss", 2, {"first_dealer": "2"}, "seat 2 does not exist with 2 players"),
    ("bandits", 2, {"gold_bars": "1x2", "money_bags": "10x1", "outlaws": "1x1", "lawmen": "", "two_faced": "",
                    "trackers": "0", "backfires": "0", "booby_traps": "0"},
     "12 cards in play; 2 players need more than 12"),
]


@pytest.mark.parametrize("game, players, settings, message", REFUSED)
def test_bad_player_counts_and_settings_are_refused_with_a_sentence(game, players, settings, message):
    error = BadPlayerCount if not settings else BadSettings
    with pytest.raises(error) as info:
        get_game(game).validate(players, settings)
    assert message in str(info.value)


@pytest.mark.parametrize("game, players, settings, message", REFUSED)
def test_a_spec_a_league_and_arena_play_refuse_alike(game, players, settings, message, tmp_path):
    bots = [{"name": f"b{i}", "builtin": "random"} for i in range(players)]
    with pytest.raises(SpecError) as spec_error:
        parse_spec({"game": game, "bots": bots, "settings": settings})
    store = open_store(f"sqlite:///{tmp_path}/arena.db")
    with pytest.raises(LeagueError) as league_error:
        create_league(store, "l", game, players, settings, ScheduleOptions())
    played = CliRunner().invoke(arena, ["play", "--game", game, "--players", str(players), "--quiet",
                                        *(f"--set={k}={v}" for k, v in settings.items())])
    assert played.exit_code == 2
    for refused in (str(spec_error.value), str(league_error.value), played.output):
        assert message in refused, refused


@pytest.mark.parametrize("game", sorted(GAMES))
def test_validate_gives_every_setting_from_strings_or_values(game):
    spec = get_game(game)
    defaults = spec.validate(spec.min_players)
    assert defaults == spec.settings() and spec.validate(spec.min_players, {}) == defaults
    assert spec.validate(spec.max_players, defaults) is defaults  # a Settings object is checked, not rebuilt
    as_text = {k: "none" if v is None else str(v) for k, v in defaults.to_dict().items()}  # as the CLI gives them
    assert spec.validate(spec.min_players, as_text) == defaults
