"""The time control's options on `arena match` reach the referee's spec."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli import main as arena


def test_arena_match_plays_at_the_increment_and_match_bank_given(tmp_path):
    played = CliRunner().invoke(arena, ["match", "--game", "sobek", "--games", "2", "--json", "--out", str(tmp_path),
                                        "--bot", "a=builtin:random", "--bot", "b=builtin:random",
                                        "--increment-ms", "150", "--match-bank-ms", "20000"])
    assert played.exit_code == 0, played.output
    time = json.loads(played.output)["spec"]["time"]
    assert (time["increment_ms"], time["match_bank_ms"]) == (150, 20_000)
    refused = CliRunner().invoke(arena, ["match", "--game", "sobek", "--bot", "a=builtin:random", "--bot",
                                         "b=builtin:random", "--match-bank-ms", str(2**32)])
    assert refused.exit_code == 2 and "--match-bank-ms" in refused.output
