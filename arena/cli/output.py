"""One output convention for every command.

- Colour and redrawn lines only on a terminal, never when ``NO_COLOR`` is set (rich's
  ``Console`` decides the terminal from its file and the environment; with ``NO_COLOR`` we
  give it no colour system at all, so not even bold is written).
- Tables fit the terminal's width (``COLUMNS`` when set, on a pipe too); rich measures each
  cell as the terminal draws it, so wide and combining characters in a name keep the columns
  aligned. Numbers never fold; a bot's or an author's text is cut with an ellipsis when the
  table would not fit (a row stays one line: a fold would let a name forge a row); our own
  text folds.
- Every listing command has ``--json``: one JSON document on stdout, ASCII only (a control
  character in a name arrives as ``\\u001b``, never raw), described by its pydantic model in
  ``arena/schemas`` (:data:`arena.schemas.docs.LISTINGS`; its table is in docs/cli.md). The
  commands build plain dicts, held to the models by tests/cli/test_output.py, so that no
  command imports pydantic: pydantic and one module of models add about 0.13 s (a fifth) to
  a command's start-up.
- Anything a bot or an author wrote is passed through :func:`referee.textlog.printable` before
  it is shown, and rich markup is never read from text (``markup=False``): a bot named
  ``[red]x`` is shown as such.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import click
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from referee.textlog import printable

PIPE_WIDTH = 1000  # not a terminal and no COLUMNS: a table is as wide as its cells, one row a line
GAP = 2  # spaces between columns; 1 when a table does not fit otherwise
FOLD_FIRST = 20  # text wider than this folds before an optional column is left out
MIN_FOLD = 8  # a text column folds to no fewer cells than this while the numbers can make room
UNCUT = 10_000  # a cell of our own text is escaped like the others, but not cut
Hostile = Mapping[int, int] | Iterable[int]  # columns of hostile text, or columns mapped to their limits


def console(stderr: bool = False) -> Console:
    """A console on the current stdout (or stderr): CliRunner's in tests, the terminal else."""
    stream = sys.stderr if stderr else sys.stdout  # looked up now: CliRunner swaps them
    no_color = os.environ.get("NO_COLOR", "") != ""  # no-color.org: set and not empty
    out = Console(file=stream, markup=False, emoji=False, highlight=False, soft_wrap=False,
                  color_system=None if no_color else "auto")
    if not out.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        out.width = PIPE_WIDTH
    return out


def json_option(command):
    """``--json``: the listing as one JSON document (passed on as ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document instead (its schema: docs/cli.md).")(command)


def echo_json(data: Any) -> None:
    """``data`` as indented JSON, ASCII only: escapes of every control character included."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=True))


def iso(moment: datetime | None) -> str | None:
    """A stored time for JSON: ISO 8601 in UTC (SQLite gives naive UTC, PostgreSQL aware times)."""
    if moment is None:
        return None
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)).isoformat()


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], right: Iterable[int] = (),
                hostile: Hostile = (), limit: int = 64, optional: Sequence[int] = ()) -> None:
    """A table whose columns ``right`` (numbers) are right-aligned and never fold, and whose
    columns ``hostile`` (a bot's or an author's text) are cut to ``limit`` characters (or to
    their own, when ``hostile`` maps columns to limits). Every cell is escaped with
    :func:`printable`: a table is only as safe as its least careful caller.

    Columns ``optional`` are left out, in that order, while the table does not fit otherwise
    (a line after it names them); text columns fold only once none is left to leave out."""
    click.echo(table_text(headers, rows, right, hostile, limit, optional))


def table_text(headers: Sequence[str], rows: Iterable[Sequence[Any]], right: Iterable[int] = (),
               hostile: Hostile = (), limit: int = 64, optional: Sequence[int] = ()) -> str:
    """:func:`print_table`'s table as text (styled only for a terminal), without its final newline."""
    right = set(right)
    limits = dict(hostile) if isinstance(hostile, Mapping) else dict.fromkeys(hostile, limit)
    cells = [[printable(str(cell), limits.get(i, UNCUT)) for i, cell in enumerate(row)] for row in rows]
    out = console()
    shown, widths, gap = _layout(headers, cells, right, optional, out.width)
    table = Table(box=None, pad_edge=False, show_edge=False, padding=(0, gap, 0, 0),
                  header_style="bold" if out.is_terminal else None)
    for i, width in zip(shown, widths, strict=True):
        # a bot's or an author's text is cut (an ellipsis), never folded: a fold is a line break
        # where the text says, and a name padded to the fold could forge a row of its own
        cut = i in limits
        table.add_column(headers[i], justify="right" if i in right else "left", width=width,
                         overflow="ellipsis" if cut else "fold", no_wrap=cut)
    for row in cells:
        table.add_row(*(row[i] for i in shown))
    needed = sum(widths) + gap * (len(widths) - 1)
    if needed > out.width:  # cannot fit even folded: let the terminal wrap lines rather than cut numbers
        out.width = needed
    with out.capture() as captured:
        out.print(table)
    lines = [line.rstrip(" ") for line in captured.get().rstrip("\n").split("\n")]
    hidden = [headers[i] for i in optional if i not in shown]
    if hidden:
        lines.append(f"(left out to fit: {', '.join(hidden)}; --json has every column)")
    return "\n".join(lines)


def _layout(headers: Sequence[str], cells: list[list[str]], right: set[int], optional: Sequence[int],
            width: int) -> tuple[list[int], list[int], int]:
    """The columns shown, their widths and the gap between them, for a table at most ``width``
    cells wide if it can be: first the headers of numbers wrap at their spaces, then the gap
    narrows, then text folds (to no fewer than :data:`FOLD_FIRST` cells), then optional columns
    are left out, then text folds further (to :data:`MIN_FOLD`). Folding takes from the widest
    text columns first."""
    natural = [max([cell_len(header), *(cell_len(row[i]) for row in cells)]) for i, header in enumerate(headers)]
    least = [max([*map(cell_len, header.split() or [""]), *(cell_len(row[i]) for row in cells)])
             if i in right else natural[i] for i, header in enumerate(headers)]

    def folded(shown: list[int], floor: int) -> list[int] | None:
        """Text columns as wide as fits, each at least ``floor`` (or its natural width): None if
        even that does not fit."""
        def at(cap: int) -> list[int]:
            return [least[i] if i in right else max(min(natural[i], floor), min(natural[i], cap)) for i in shown]

        if sum(at(0)) + len(shown) - 1 > width:
            return None
        cap = 0
        while cap < max(natural) and sum(at(cap + 1)) + len(shown) - 1 <= width:
            cap += 1
        return at(cap)

    shown = list(range(len(headers)))
    for leave_out in [None, *optional]:
        if leave_out is not None:
            shown.remove(leave_out)
        for gap, widths in ((GAP, natural), (GAP, least), (1, natural), (1, least)):
            if sum(widths[i] for i in shown) + gap * (len(shown) - 1) <= width:
                return shown, [widths[i] for i in shown], gap
        if fit := folded(shown, FOLD_FIRST):
            return shown, fit, 1
    # 2 at the very least: a wide character still fits
    return shown, folded(shown, MIN_FOLD) or folded(shown, 2) or [least[i] if i in right else 2 for i in shown], 1
