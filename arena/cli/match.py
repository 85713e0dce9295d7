"""``arena match``: one match between local bots, run by its own referee process."""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import click

from referee import launch, limits
from referee.records import read_record
from referee.seats import CRASH
from referee.spec import SpecError, new_secret, parse_spec
from referee.textlog import printable

from ..bots.config import BotError
from ..bots.local import STDIO_HINT, local_hello, never_spoke_grpc, stdio_command, under_adapter
from .options import GAME, parse_settings, time_options, user_errors
from .output import echo_json, table_text


def parse_bot(value: str) -> dict:
    """``NAME=COMMAND`` (a local process), ``NAME=stdio:COMMAND`` (a local process that speaks
    JSON lines, run by the stdio adapter, with the version and games of ./bot.toml if any),
    ``NAME=builtin:random|heuristic|search`` (in process) or
    ``NAME=image:IMAGE`` (a container)."""
    name, sep, how = value.partition("=")
    if not sep or not name or not how:
        raise click.BadParameter(f"expected NAME=COMMAND, got {value!r}", param_hint="--bot")
    if how.startswith("builtin:"):
        return {"name": name, "builtin": how.removeprefix("builtin:")}
    if how.startswith("image:"):
        return {"name": name, "image": how.removeprefix("image:")}
    if how.startswith("stdio:"):
        program = shlex.split(how.removeprefix("stdio:"))
        if not program:
            raise click.BadParameter(f"expected NAME=stdio:COMMAND, got {value!r}", param_hint="--bot")
        try:  # the version and games of ./bot.toml, if any: what the results show
            hello = local_hello(name)
        except BotError as exc:
            raise click.BadParameter(str(exc), param_hint="--bot") from exc
        return {"name": name, "command": stdio_command(program, hello)}
    return {"name": name, "command": how}


def stdio_hints(bots: list[dict], result: dict, out: Path) -> list[str]:
    """A line for each local command seat that never spoke gRPC (it exited before its hello
    without opening the referee's socket): most likely a stdio program run without ``stdio:``."""
    hinted: list[str] = []
    for game in result["games"]:
        for seat, reason in enumerate(game["failures"]):
            bot = bots[game["bots"][seat]]
            command = bot.get("command")
            if reason != CRASH or not command or bot["name"] in hinted:
                continue
            argv = shlex.split(command) if isinstance(command, str) else command
            if under_adapter(argv):
                continue
            record = read_record(out / game["record"])
            if any(never_spoke_grpc(f["reason"], f.get("detail", ""))
                   for f in record.failures if f["seat"] == seat and f.get("at") == "start"):
                hinted.append(bot["name"])
    return [f"{printable(name)}: " + STDIO_HINT.format(fix=f"write --bot '{printable(name)}=stdio:COMMAND'")
            for name in hinted]


@click.command()
@click.option("--game", required=True, type=GAME)
@click.option("--bot", "bots", multiple=True, required=True, metavar="NAME=COMMAND",
              help="A seat, in order: NAME=COMMAND (a local process), NAME=stdio:COMMAND (a local process "
                   "that speaks JSON lines: docs/protocol.md), NAME=builtin:random|heuristic|search, "
                   "or NAME=image:IMAGE (a container). Repeat for each player.")
@click.option("--games", "num_games", default=4, show_default=True, help="Games in the match.")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Development only: deal from this public seed, reproducibly, and so guessably by any bot. "
                   "Default: a fresh secret (kept in the records).")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE", help="A [house] setting.")
@time_options(startup_ms=limits.STARTUP_MS)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Where records go (default: runs/match-<time>).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@user_errors
def match(game: str, bots: tuple[str, ...], num_games: int, seed: int | None, overrides: tuple[str, ...],
          decision_ms: int, bank_ms: int, increment_ms: int, match_bank_ms: int, startup_ms: int, out: Path | None,
          as_json: bool) -> None:
    """Run a match between bots and print the results table.

    Seats rotate between games, and each deal is replayed in every rotation
    (duplicate deals, rotation by rotation), so a multiple of the player count is fairest.
    The deals come from a fresh secret that no bot receives; result.json keeps it, so
    the records replay every game.
    """
    match_id = f"match-{time.strftime('%Y%m%d-%H%M%S')}"
    spec_bots = [parse_bot(b) for b in bots]
    try:
        spec = parse_spec({
            "match_id": match_id, "game": game, "games": num_games,
            **({"secret": new_secret()} if seed is None else {"seed": seed}),
            "settings": parse_settings(overrides), "bots": spec_bots,
            "time": {"startup_ms": startup_ms, "decision_ms": decision_ms, "bank_ms": bank_ms,
                     "increment_ms": increment_ms, "match_bank_ms": match_bank_ms},
        })
    except SpecError as exc:
        raise click.UsageError(str(exc)) from exc
    out = out or Path("runs") / match_id
    result = launch(spec, out, echo=not as_json).data
    if as_json:
        echo_json(result)
        return
    click.echo()
    click.echo(results_table(result))
    for line in stdio_hints(spec_bots, result, out):
        click.echo(line)
    click.echo(f"\nrecords: {out}  (arena replay {out / 'game-000.jsonl'})")


def results_table(result: dict) -> str:
    """The totals by bot, best first; then the failures by reason, each bot whose hello was
    refused, with the reason, and each bot the fairness guard caught computing on another
    seat's time. Names and versions come from bots: they are printed escaped."""
    rows = sorted(result["totals"], key=lambda t: (t["mean_rank"], -t["mean_score"]))
    names = [printable(t["bot"]) for t in rows]
    # the language is the image's label: only a container seat has one
    lines = [table_text(["bot", "version", "language", "games", "wins", "mean rank", "mean score", "failures"],
                        [[t["bot"], t["version"] or "-", t["language"] or "-", t["games"], t["wins"],
                          f"{t['mean_rank']:.2f}", f"{t['mean_score']:.1f}", t["failures"]] for t in rows],
                        right=range(3, 8), hostile={0: 64, 1: 24, 2: 16})]
    reasons: dict[str, int] = {}
    for g in result["games"]:
        for f in g["failures"]:
            if f:
                reasons[f] = reasons.get(f, 0) + 1
    if reasons:
        lines.append("failures: " + ", ".join(f"{k} x{v}" for k, v in sorted(reasons.items())))
    for name, t in zip(names, rows, strict=True):
        if t.get("refused"):
            lines.append(f"{name} played no game: its hello was refused ({printable(t['refused'], 200)})")
        if t.get("caught"):
            lines.append(f"{name} computed while other seats were asked ({t['caught']}): it was frozen "
                         "between its turns from then on")
    return "\n".join(lines)
