"""`arena league create` and `arena ladder create` take a league name only if the API would:
one check (``arena.league.league_name_problem``) for both. A name with a `/` made a page no URL
reaches and a records folder nested in another's."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena.league import LeagueError, create_league, league_name_problem
from arena.league.schedule import ScheduleOptions
from arena.store import League
from arena.web.leagues import CreateLeague

BAD = ["a/b", "../up", "/abs", ".hidden", "-flag", "two words", "new\nline", "trailing\n", "tab\t", "x" * 65,
       "caf\u00e9", "a\x1b[2J", "semi;colon", "q'uote", "", "a%2fb", "a\\b"]
GOOD = ["spring", "Spring-2026", "a.b_c", "x" * 64, "0"]


@pytest.mark.parametrize("command", ["league", "ladder"])
def test_the_command_line_refuses_what_the_api_refuses(command, db_url, store, tmp_path):
    for name in BAD:
        result = CliRunner().invoke(arena, [command, "create", "--game", "prohis", "--players", "3",
                                            "--db", db_url, "--", name])
        assert result.exit_code == 1, (name, result.output)
        assert "league name" in result.output and "letters, digits" in result.output, result.output
        assert "Traceback" not in result.output
    with store() as session:
        assert session.query(League).count() == 0
    for name in GOOD:
        result = CliRunner().invoke(arena, [command, "create", "--game", "prohis", "--players", "3",
                                            "--db", db_url, "--", name])
        assert result.exit_code == 0, (name, result.output)


def test_one_check_for_the_domain_the_command_line_and_the_api(store):
    for name in BAD:
        assert league_name_problem(name), name
        with pytest.raises(LeagueError, match="league name"):
            create_league(store, name, "prohis", 3, {}, ScheduleOptions())
        with pytest.raises(ValueError, match="league name"):
            CreateLeague(name=name, game="prohis", players=3)
    for name in GOOD:
        assert league_name_problem(name) is None
        assert CreateLeague(name=name, game="prohis", players=3).name == name
