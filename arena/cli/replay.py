"""``arena replay FILE``: a game record, printed readably."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from arena_games import get_game
from referee.records import Record, RecordError, read_record
from referee.textlog import event_lines, printable, result_lines

DEBUG_LINE_CHARS = 1000  # of one line of a debug text, as printed (the referee keeps 1 KiB a decision)


def debug_lines(decisions: list[dict[str, Any]], names: list[str], seat: int | None) -> Iterator[str]:
    """The debug texts of the decisions (of ``seat``'s only, unless None), each line escaped
    again: the referee escaped them when it wrote the record, but a record file is as hostile
    as what it holds."""
    first = True
    for k, d in enumerate(decisions):
        text = d.get("debug")
        if not isinstance(text, str) or not text or (seat is not None and d.get("seat") != seat):
            continue
        if first:
            yield "Debug output (each bot's, by decision):"
            first = False
        s = d.get("seat")
        who = names[s] if isinstance(s, int) and 0 <= s < len(names) else printable(str(s))
        yield f"  decision {k}, {who} plays {printable(str(d.get('action')))}:"
        for line in text.split("\n"):
            yield "    | " + printable(line, DEBUG_LINE_CHARS)


@click.command()
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", type=int, default=None,
              help="Show the game as this seat saw it (default: everything).")
@click.option("--step", type=int, default=None,
              help="Print the table at this step (0 is the first decision; -1 the end), drawn in text as "
                   "--seat saw it (default: the full table, once the game is over).")
@click.option("--debug/--no-debug", "show_debug", default=True, show_default=True,
              help="Print the bots' debug texts, by decision (with --seat, that seat's only).")
@click.option("--check/--no-check", default=True, show_default=True,
              help="Replay through the engine and check the recorded result; a record without its result "
                   "line (cut short, or of a game that did not finish) fails the check.")
def replay(record_file: Path, seat: int | None, check: bool, show_debug: bool = True,
           step: int | None = None) -> None:
    """Print a game record: the game replayed from its seed and actions, and what each bot
    said about its decisions (its debug texts: the operator sees every seat's; on `arena serve`
    each is its owner's alone). With --step, the table at that step instead, as on the replay page.

    The exit status is 1 when the record cannot be read, or, with --check (the default), when
    the engine does not reproduce it or it ends before its game did."""
    try:
        record = read_record(record_file)
        spec = get_game(record.header["game"])
        state = record.replay()
    except (RecordError, ValueError, KeyError) as exc:
        raise click.ClickException(f"{record_file}: {exc}") from exc
    if step is not None:
        print_step(record_file, record, seat, step, show_debug)
        return
    h = record.header
    names = [printable(str(s["bot"])) for s in h["seats"]]
    if seat is not None and not 0 <= seat < len(names):
        raise click.BadParameter(f"seat must be 0..{len(names) - 1}", param_hint="--seat")
    deal = f"deal {printable(str(h['deal']))}, " if "deal" in h else ""  # older records have no deal label
    click.echo(f"{spec.title} (engine {h['engine_version']}), match {printable(str(h['match_id']))} "
               f"game {h['game_index']}, {deal}seed {h['seed']}")
    click.echo("seats: " + ", ".join(f"{i}={n}" for i, n in enumerate(names)))
    for f in record.failures:
        click.echo(f"!! {names[f['seat']]} failed: {f['reason']} ({printable(f['detail'], 300)})")
    for line in event_lines(spec, state.history(seat), names):
        click.echo(line)
    if show_debug:
        for line in debug_lines(record.decisions, names, seat):
            click.echo(line)
    result = record.result
    decisions = len(record.decisions)
    if result is None:
        click.echo("(the record ends before the game did)")
        if check:  # a record's last line is its result: without it, it was cut, or its game never ended
            over = "the actions end the game, but " if state.is_terminal() else ""
            raise click.ClickException(
                f"{record_file}: {over}the record ends after {decisions} decision(s) without its result line: it "
                "was cut short (a copy, or a disk that filled), or its game was being played or was stopped; "
                "there is no result to check (--no-check prints it without checking)")
        return
    for line in result_lines(spec, result["scores"], result["ranks"], names, result["failures"]):
        click.echo(line)
    if check:
        if not state.is_terminal():
            raise click.ClickException(
                f"{record_file}: the record has its result after {decisions} decision(s), but replaying them does "
                "not end the game: decisions are missing")
        if state.scores() != result["scores"]:
            raise click.ClickException(
                f"replaying the actions gives scores {state.scores()}, the record says {result['scores']}")
        click.echo("replay check: the engine reproduces the recorded scores")


def print_step(record_file: Path, record: Record, seat: int | None, k: int, show_debug: bool) -> None:
    """The table at step ``k`` (from the end when negative) as ``seat`` saw it, in text; with
    ``show_debug``, the deciding bot's debug text for it (with a seat, only when it is its own)."""
    from arena.replays import rebuild  # the drawn table's imports, only for --step
    from arena.tables import frame_of, scene_of
    from arena.tables.text import text

    try:
        n = len(record.header.get("seats", []))
        rebuilt = rebuild(record, seat, debug=(range(n) if seat is None else (seat,)) if show_debug else ())
    except RecordError as exc:
        raise click.ClickException(f"{record_file}: {exc}") from exc
    except ValueError as exc:  # a seat out of range; the full table of a game not over
        raise click.BadParameter(str(exc), param_hint="--seat") from exc
    last = len(rebuilt.steps) - 1
    if not -last - 1 <= k <= last:
        raise click.BadParameter(f"this record's steps are 0 to {last} (or -1 to {-last - 1} from the end)",
                                 param_hint="--step")
    k %= last + 1
    try:
        drawn = scene_of(rebuilt, k)
    except ValueError as exc:  # a game with no drawn table yet
        raise click.ClickException(str(exc)) from exc
    width = max(60, min(shutil.get_terminal_size((100, 24)).columns, 140))
    click.echo(text(drawn, rebuilt.names, frame_of(rebuilt, k), width=width), nl=False)
    said = rebuilt.steps[k].get("debug")
    if isinstance(said, str) and said:
        click.echo("\nDebug output of this decision:")
        for line in said.split("\n"):
            click.echo("    | " + printable(line, DEBUG_LINE_CHARS))
