"""One output convention for every command.

- Colour and redrawn lines only on a terminal, never when ``NO_COLOR`` is set (rich's
  ``Console`` decides both from its file and the environment).
- Tables fit the terminal's width; rich measures each cell as the terminal draws it, so wide
  and combining characters in a name keep the columns aligned.
- Every listing command has ``--json``: one JSON document on stdout, ASCII only (a control
  character in a name arrives as ``\\u001b``, never raw); docs/cli.md gives each schema.
- Anything a bot or an author wrote is passed through :func:`referee.textlog.printable` before
  it is shown, and rich markup is never read from text (``markup=False``): a bot named
  ``[red]x`` is shown as such.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import click
from rich.console import Console
from rich.table import Table

from referee.textlog import printable

PIPE_WIDTH = 1000  # not a terminal: a table is as wide as its cells, not cut at 80 columns


def console(stderr: bool = False) -> Console:
    """A console on click's current stdout (or stderr): CliRunner's in tests, the terminal else."""
    stream = click.get_text_stream("stderr" if stderr else "stdout")
    terminal = stream.isatty()
    return Console(file=stream, markup=False, emoji=False, highlight=False, soft_wrap=False,
                   width=None if terminal else PIPE_WIDTH)


def json_option(command):
    """``--json``: the listing as one JSON document (passed on as ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True,
                        help="Print one JSON document instead (its schema: docs/cli.md).")(command)


def echo_json(data: Any) -> None:
    """``data`` as indented JSON, ASCII only: escapes of every control character included."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=True))


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], right: Iterable[int] = (),
                hostile: Iterable[int] = (), limit: int = 64) -> None:
    """A table whose columns ``right`` are right-aligned and whose columns ``hostile`` (a bot's
    or an author's text) are escaped with :func:`printable` (at most ``limit`` characters)."""
    right, hostile = set(right), set(hostile)
    out = console()
    table = Table(box=None, pad_edge=False, header_style="bold" if out.is_terminal else None, show_edge=False)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if i in right else "left", overflow="fold")
    for row in rows:
        table.add_row(*(printable(str(cell), limit) if i in hostile else str(cell) for i, cell in enumerate(row)))
    out.print(table)
