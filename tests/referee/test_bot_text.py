"""Names, versions and failure details come from bots: wherever they are printed, control
characters are escaped and length is capped, so a hello cannot clear the screen, move the
cursor, retitle the terminal or forge a row of a table."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena.cli.match import results_table
from arena.cli.ratings import print_leaderboard
from referee.textlog import printable

from .helpers import MISBEHAVE, ROOT

EVIL = ("\x1b[2J\x1b[H\x1b]0;pwned\x07evil\r\nforged-row  1.0  99  99  1.00\x00\x08\x7f\x9b2J\x85\u202e\u2028"
        + "x" * 5000)  # ESC sequences, CR/LF, NUL, BS, BEL, DEL, C1 (CSI, NEL), bidi override, line separator


def safe(output: str, longest: int = 400) -> None:
    """Every printed line holds only printable characters, none starts a forged row, none is long."""
    for line in output.splitlines():
        assert line.isprintable(), repr(line)
        assert not line.startswith("forged-row"), repr(line)
        assert len(line) <= longest, f"a line of {len(line)} characters: {line[:80]!r}..."


@pytest.mark.parametrize("char", [chr(c) for c in [*range(0x20), 0x7f, *range(0x80, 0xa0)]]
                         + ["\u202e", "\u2028", "\u200b", "\ufeff"])
def test_every_control_character_is_escaped(char):
    shown = printable(f"a{char}b")
    assert shown.isprintable() and shown.startswith("a\\") and shown.endswith("b"), repr(shown)


def test_printable_text_is_kept_and_long_text_is_cut():
    assert printable("prohis-heuristic 1.0.0") == "prohis-heuristic 1.0.0"
    assert printable("bot-é-名前") == "bot-é-名前"
    assert printable("\x1b[2J") == "\\x1b[2J"
    assert printable("a\r\nb") == "a\\r\\nb"
    cut = printable("y" * 5000)
    assert len(cut) == 64 and cut.endswith("...")
    assert len(printable(EVIL, 300)) == 300


def test_the_results_table_and_the_leaderboard_escape_what_bots_chose():
    totals = {"bot": EVIL, "version": EVIL, "language": EVIL, "games": 3, "wins": 1, "mean_rank": 1.5,
              "mean_score": 2.0, "failures": 1, "restarts": 0,
              "refused": f"protocol_version: bot plays {EVIL}, not prohis"}
    table = results_table({"totals": [totals, {**totals, "bot": "plain", "refused": ""}],
                           "games": [{"failures": ["protocol_version", ""]}]})
    safe(table)
    assert len(table.splitlines()) == 5  # header, 2 rows, failures, the refused bot: no forged row
    assert "played no game: its hello was refused (protocol_version: bot plays \\x1b[2J" in table

    runner = CliRunner()
    with runner.isolation() as (out, _, _):
        print_leaderboard([{"rank": 1, "bot": EVIL, "version": EVIL, "language": EVIL, "exposure": 1.0,
                            "mu": 25.0, "sigma": 8.0, "games": 3, "wins": 1, "average_score": 1.0,
                            "failure_rate": 0.0, "p_first": 1.0, "p_top": 1.0, "top_k": 1,
                            "rank_low": 1, "rank_high": 1, "settled": True}])
        printed = out.getvalue().decode()
    safe(printed)
    assert len(printed.splitlines()) == 2


def test_arena_match_the_referee_and_replay_print_hostile_hellos_escaped(tmp_path):
    """`arena match`'s table shows the version from a bot's hello, and why a hello was refused
    (quoting its games list); the referee's progress lines and `arena replay` show the names
    and the failure details."""
    name = "\x1b[2J\x1b[Hevil\r\nforged-row\x07\x9b2J"  # a name the user typed: it names a log file too
    result = CliRunner().invoke(arena, [
        "match", "--game", "prohis", "--games", "3", "--out", str(tmp_path),
        "--bot", f"{name}={' '.join(MISBEHAVE)} evilname", "--bot", f"g={' '.join(MISBEHAVE)} evilgames",
        "--bot", "b=builtin:random"])
    assert result.exit_code == 0, result.output
    safe(result.output)
    assert "1.0\\x1b]0;pwned\\x07" in result.output  # the evilname bot's version
    table = result.output.split("\n\nrecords:")[0].strip().splitlines()[1:]
    assert len(table) == 5, table  # 3 bots, the failures, the refused bot: no forged row
    assert table[-1].startswith("g played no game: its hello was refused (protocol_version: bot plays \\x1b[2J")

    proc = subprocess.run([sys.executable, "-m", "referee", str(tmp_path / "spec.json"), "--out",
                           str(tmp_path / "again")], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.count("game ") == 3, proc.stderr
    safe(proc.stdout)
    assert "\\x1b[2J\\x1b[H" in proc.stdout

    replay = CliRunner().invoke(arena, ["replay", str(tmp_path / "game-000.jsonl")])
    assert replay.exit_code == 0, replay.output
    safe(replay.output)
    assert "failed: protocol_version (bot plays \\x1b[2J" in replay.output
