"""Seeds no bot can invert: deals come from a secret no bot receives, through keyed hashes.

A hostile bot gets its seeds, the match id, the settings and the names. The tests here
capture every byte real bots receive over gRPC and show that those bytes are the same in
two matches with different deals, and that no secret or game seed is among them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main as arena
from arena_games import get_game
from referee.match import run_match
from referee.records import read_record
from referee.spec import (
    MIN_SECRET_BITS,
    SpecError,
    check_secret,
    derive,
    derive_secret,
    dev_secret,
    new_secret,
    parse_spec,
)

from .helpers import PY, ROOT

CAPTURE = [PY, str(ROOT / "tests/bots/capture.py")]
BOTS = [{"name": n, "builtin": "random"} for n in "abc"]


def spec(**fields):
    return parse_spec({"game": "prohis", "bots": BOTS, **fields})


# -- secrets -----------------------------------------------------------------------------------------
def test_fresh_secrets_have_256_bits_from_the_os_and_differ():
    secrets = {new_secret() for _ in range(100)}
    assert len(secrets) == 100
    assert all(re.fullmatch("[0-9a-f]{64}", s) for s in secrets)
    assert spec().secret != spec().secret  # no secret in the spec: a fresh one each time


@pytest.mark.parametrize("value, message", [
    ("xyz" * 20, "secret must be a hex string (an even number of 0-9a-f digits)"),
    ("a" * 33, "secret must be a hex string (an even number of 0-9a-f digits)"),
    (12345, "secret must be a hex string"),
    ("ab" * 15, "secret must have at least 128 bits (32 hex digits), got 120"),
    ("", "secret must be a hex string"),
])
def test_bad_secrets_are_refused_with_a_clear_message(value, message):
    with pytest.raises(SpecError) as info:
        check_secret(value)
    assert message in str(info.value)
    with pytest.raises(SpecError, match="bot_secret must"):
        spec(secret="ab" * 16, bot_secret=value or "ab")


def test_seed_is_a_public_alias_that_a_secret_given_with_it_must_match():
    with pytest.raises(SpecError, match="'secret' is not the one 'seed' 1 stands for: give either 'secret' or 'seed'"):
        spec(secret="ab" * 16, seed=1)
    assert spec(seed=7, secret=dev_secret(7)) == spec(seed=7)  # both, as result.json keeps them
    assert spec(seed=7).secret == dev_secret(7) == hashlib.sha256(b"arena-dev-seed:7").hexdigest()
    assert spec(secret="AB" * 16).secret == "ab" * 16
    assert len(check_secret("0" * (MIN_SECRET_BITS // 4))) == 32


def test_derivations_are_pinned():
    """A fixed secret gives fixed seeds, on every machine and in every later version: changing
    any of these numbers makes every stored record unreproducible from its spec."""
    s = spec(secret="00" * 32, bot_secret="11" * 16, games=6)
    assert [s.deal(g) for g in range(6)] == ["0", "1", "0", "1", "0", "1"]  # rotation by rotation
    assert [s.rotation(g) for g in range(6)] == [0, 0, 1, 1, 2, 2]
    assert s.game_seed(0) == s.game_seed(2) == s.game_seed(4) == 278008532191472963068050602490138363977
    assert s.game_seed(1) == 166191908268778419046074395341291152294
    assert s.bot_seed(0, 0) == 6924931288536732214
    assert s.bot_seed(5, 2) == 908167034438141956
    # the construction: HMAC-SHA256 keyed with the secret, truncated (128 bits for a deal)
    digest = hmac.new(bytes(32), b"game\x1f0", hashlib.sha256).digest()
    assert s.game_seed(0) == int.from_bytes(digest[:16], "big")
    assert derive_secret("00" * 32, "deals", "1,2,3", 0) == \
        "b7370968d47914977b4bee62778a933f6073eb1979c7321587744e8ae754a88e"
    assert dev_secret(7) == "f904aa47761ae3abb5bc9cc54781614dc1b16e38cdc21cccfdadbc7756720e98"


def test_game_seeds_and_bot_seeds_are_independent():
    a = spec(secret="00" * 32, bot_secret="11" * 16, games=3)
    b = spec(secret="22" * 32, bot_secret="11" * 16, games=3)
    c = spec(secret="00" * 32, bot_secret="33" * 16, games=3)
    seats = [(g, s) for g in range(3) for s in range(3)]
    assert [a.bot_seed(g, s) for g, s in seats] == [b.bot_seed(g, s) for g, s in seats]
    assert a.game_seed(0) != b.game_seed(0)
    assert a.game_seed(0) == c.game_seed(0)
    assert all(a.bot_seed(g, s) != c.bot_seed(g, s) for g, s in seats)
    # without a bot secret, the bots' seeds come from their own derivation of the secret
    d = spec(secret="00" * 32, games=3)
    assert d.bot_seed(0, 0) == derive(derive_secret("00" * 32, "bots"), "bot", 0, 0)
    assert d.bot_seed(0, 0) not in {a.bot_seed(0, 0), derive("00" * 32, "bot", 0, 0)}


# -- what real bots receive ---------------------------------------------------------------------------
def capture_match(out: Path, secret: str, **fields) -> tuple[dict, list[list[dict]]]:
    """A match between three capture bots; returns the result and each bot's capture."""
    bots = [{"name": n, "command": [*CAPTURE, str(out / f"capture-{n}.jsonl")]} for n in "abc"]
    out.mkdir(parents=True)
    result = run_match(parse_spec({"match_id": "same", "game": "prohis", "bots": bots, "secret": secret,
                                   "settings": {"max_bribe_offers": 2}, **fields}), out)
    captures = [[json.loads(line) for line in (out / f"capture-{n}.jsonl").read_text().splitlines()]
                for n in "abc"]
    return result, captures


def before_first_decision(capture: list[dict]) -> list[str]:
    """The bytes of every message a bot process got before it was first asked to decide."""
    out = []
    for line in capture:
        if line["kind"] == "decision":
            break
        if line["kind"] != "process":
            out.append(line["bytes"])
    return out


DEAL_FREE = ("match_start", "game_start")  # all but the game itself (and MatchEnd, which may be cut short)


@pytest.mark.parametrize("how", [
    {"games": 6},  # an ad-hoc duplicate match: 2 deals, rotation by rotation
    {"plan": [["x", 0], ["y", 1], ["z", 2]]},  # as a league plans it: distinct deals, every rotation
], ids=["duplicate", "plan"])
def test_bots_receive_the_same_bytes_from_two_matches_with_different_deals(tmp_path, how):
    bot_secret = new_secret()
    result_a, capture_a = capture_match(tmp_path / "a", new_secret(), bot_secret=bot_secret, **how)
    result_b, capture_b = capture_match(tmp_path / "b", new_secret(), bot_secret=bot_secret, **how)
    for bot in range(3):
        pre_a, pre_b = before_first_decision(capture_a[bot]), before_first_decision(capture_b[bot])
        kinds = [line["kind"] for line in capture_a[bot] if line["kind"] != "process"]
        assert kinds[:2] == ["match_start", "game_start"] and pre_a, kinds[:3]
        assert pre_a == pre_b, f"bot {bot}: what it gets before its first decision differs between the matches"
        # every match start and game start (with the bot's seed) of the whole match
        free_a = [line["bytes"] for line in capture_a[bot] if line["kind"] in DEAL_FREE]
        free_b = [line["bytes"] for line in capture_b[bot] if line["kind"] in DEAL_FREE]
        assert free_a == free_b and len(free_a) >= len(result_a["games"]) + 1
    # ... yet every game was dealt differently
    game = get_game("prohis")
    for g_a, g_b in zip(result_a["games"], result_b["games"], strict=True):
        assert g_a["seed"] != g_b["seed"]
        state_a, state_b = (game.new_game(3, g["seed"], result_a["spec"]["settings"]) for g in (g_a, g_b))
        assert [state_a.view(s) for s in range(3)] != [state_b.view(s) for s in range(3)]
    # and the bots saw that in their views (the capture is not blind to the deal)
    first_a = [line["bytes"] for line in capture_a[0] if line["kind"] == "decision"][0]
    first_b = [line["bytes"] for line in capture_b[0] if line["kind"] == "decision"][0]
    assert first_a != first_b


def forms(value: int | str) -> list[bytes]:
    """The ways a secret or a seed could appear in bytes: hex digits, decimal digits, raw bytes."""
    if isinstance(value, str):
        raw = bytes.fromhex(value)
        return [value.encode(), value.upper().encode(), raw, raw[:16], raw[16:]]
    raw = value.to_bytes(16, "big")
    return [str(value).encode(), raw, raw[::-1], raw[:8], raw[8:], raw[:8][::-1], raw[8:][::-1]]


def test_no_secret_or_game_seed_reaches_a_bot_through_arena_match(tmp_path, capfd):
    """`arena match` draws a fresh secret; the records keep it; the bots get nothing of it:
    not in any message (decisions and game ends included), nor their environment or arguments."""
    out = tmp_path / "out"
    command = f"{PY} {ROOT / 'tests/bots/capture.py'}"
    result = CliRunner().invoke(arena, [
        "match", "--game", "prohis", "--games", "6", "--out", str(out),
        *(arg for n in "abc" for arg in ("--bot", f"{n}={command} {tmp_path / n}.jsonl"))])
    assert result.exit_code == 0, result.output
    spec_file = json.loads((out / "spec.json").read_text())
    kept = json.loads((out / "result.json").read_text())
    secret = spec_file["secret"]
    assert spec_file["seed"] is None and re.fullmatch("[0-9a-f]{64}", secret)
    assert kept["spec"] == spec_file  # result.json keeps the spec as run
    match = parse_spec(kept["spec"])
    assert [g["seed"] for g in kept["games"]] == [match.game_seed(g) for g in range(6)]
    for g in kept["games"]:  # each record names its deal and replays from its seed
        record = read_record(out / g["record"])
        assert (record.header["deal"], record.header["seed"]) == (g["deal"], g["seed"])
        assert record.replay().scores() == g["scores"]
    # the referee's progress lines name deals, not 39-digit seeds
    progress = capfd.readouterr().out
    assert "game 1/6 deal 0:" in progress and "game 6/6 deal 1:" in progress, progress
    assert not re.search(r"\d{12}", progress), progress
    received = b"".join(
        bytes.fromhex(line["bytes"]) if "bytes" in line else json.dumps(line).encode()
        for n in "abc" for line in map(json.loads, (tmp_path / f"{n}.jsonl").read_text().splitlines()))
    kinds = {json.loads(line)["kind"] for line in (tmp_path / "a.jsonl").read_text().splitlines()}
    assert {"process", "match_start", "game_start", "decision", "game_end"} <= kinds
    assert len(received) > 10_000, len(received)
    hidden = [secret, derive_secret(secret, "bots"), *(g["seed"] for g in kept["games"])]
    for value in hidden:
        for form in forms(value):
            assert form not in received, f"{form!r} (from {value}) reached a bot"
