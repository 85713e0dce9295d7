"""Progress on long work, one way for every command that plays or builds for long: ``arena league
run``, ``arena ladder run``, ``arena images build``, ``arena bot build``, ``arena bot check`` and
``arena compare`` (docs/cli.md, "Progress on long work").

- On a terminal: a bar redrawn in place (rich): what is done of the total, the rate and the ETA,
  the time so far and the failures; under it the work in flight (the tables being played, the
  build's step), the failures by reason and a status line; lines the work writes scroll above.
- Off a terminal (a pipe, a CI log): plain lines, never an escape code or a carriage return:
  a line per unit stored (a match, a game of a check) and the lines the work writes.
- ``quiet``: nothing at all. The commands still print their errors and their summary line.

Every text this module is given is printed through :func:`printable`, whoever wrote it: names,
versions, build output and failure reasons come from bots and their authors. Nothing is read
as rich markup (``console()`` has it off). Methods may be called from any thread (a build's
images and a check's games run in threads of their own).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from types import TracebackType

import rich.progress
from rich.console import RenderableType
from rich.table import Column
from rich.text import Text

from referee.textlog import printable

from .output import console

NAME = 40  # characters of a bot's name@version in a table's label
LINE = 300  # characters of one line of a build's or a bot's output
TITLE = 100  # characters of the title (it may quote a command line)
TITLE_WIDTH = 30  # columns of the title on the bar's line: the rest is the bar, counts and times
STATUS = 300  # characters of a status line, of a step, of a label


def table(names: Iterable[str]) -> str:
    """The label of a table in flight: its bots' names, each escaped and cut to :data:`NAME`."""
    return " vs ".join(printable(name, NAME) for name in names)


def clock(seconds: float) -> str:
    seconds = int(max(0, seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Progress:
    """The progress of one command's work (a context manager): see the module's docstring.

    ``unit`` names what is counted ("games", "steps", "images"); ``total`` may come later
    (:meth:`update`) or never (a ladder without --until: a bar without end). ``rate`` shows
    units a second and the ETA; ``lines``: off a terminal, a line each time the count moves
    (a command whose own lines already say it, such as compare's per cycle, turns it off);
    ``doing`` heads the line of the work in flight ("playing", "building").
    """

    def __init__(self, title: str, unit: str = "games", total: int | None = None, quiet: bool = False,
                 rate: bool = True, lines: bool = True, doing: str = "playing") -> None:
        self.title, self.unit, self.total, self.doing = printable(title, TITLE), unit, total, doing
        self.quiet, self.rate, self.lines = quiet, rate, lines
        self.console = console()
        self.terminal = self.console.is_terminal
        self.done = 0
        self.base: int | None = None  # the count when this run began (a ladder resumes), for the rate
        self.failures: Counter[str] = Counter()
        self.in_flight: dict[Hashable, str] = {}
        self.step_text = self.status_text = ""
        self.started_at = time.monotonic()
        self._lock = threading.Lock()
        self._closed = False  # a thread's late news draws no second bar
        self._detail: tuple[str, ...] = ()  # the lines under the bar: replaced whole, read by rich's thread
        self._bar: _Bar | None = None
        self._task: rich.progress.TaskID | None = None

    # -- the context ---------------------------------------------------------------------------
    def __enter__(self) -> Progress:
        self.started_at = time.monotonic()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._lock:
            bar, self._bar, self._closed = self._bar, None, True
        if bar is not None:
            bar.stop()  # the last frame stays on the screen, above the summary line

    def _start_bar(self) -> _Bar:
        """The bar, drawn from the work's first news: a command refused before (no such league)
        leaves no empty bar above its error. Called holding the lock."""
        columns: list[rich.progress.ProgressColumn] = [
            rich.progress.SpinnerColumn(finished_text="-"),
            _Column(lambda: self.title, "bold", max_width=TITLE_WIDTH),
            rich.progress.BarColumn(bar_width=20),
            _Column(self.count_text, "progress.download"),
        ]
        if self.rate:
            columns += [_Column(self.rate_text, "progress.data.speed"),
                        _Column(lambda: f"ETA {self.eta_text()}", "progress.remaining")]
        columns.append(_Column(lambda: clock(time.monotonic() - self.started_at), "progress.elapsed"))
        bar = _Bar(self, *columns, console=self.console, refresh_per_second=5)
        self._task = bar.add_task(self.title, total=self.total)
        bar.start()
        return bar

    # -- what the work tells ---------------------------------------------------------------------
    def update(self, done: int | None = None, total: int | None = None, failures: Mapping[str, int] | None = None,
               playing: Iterable[Iterable[str]] | None = None, status: str | None = None) -> None:
        """Sets what is known now, whole: units done (the first value is where this run began),
        the total, the failures by reason, the tables in flight (each its bots' names) and the
        status line. Off a terminal, a line when the count moved."""
        with self._lock:
            moved = done is not None and done != self.done
            if done is not None:
                self.done = done
                if self.base is None:
                    self.base = done
                    moved = False  # where it starts: nothing done by this run yet
            if total is not None:
                self.total = total
            if failures is not None:
                self.failures = Counter({k: v for k, v in failures.items() if v})
            if playing is not None:
                self.in_flight = {i: table(names) for i, names in enumerate(playing)}
            if status is not None:
                self.status_text = printable(status, STATUS)
        self._redraw()
        if moved:
            self._state_line()

    def advance(self, done: int = 1, failures: Iterable[str] = (), note: str = "") -> None:
        """``done`` more units (a stored match's games), with the failure reasons among them;
        off a terminal, a line that ends with ``note`` (what was stored)."""
        with self._lock:
            if self.base is None:
                self.base = 0
            self.done += done
            self.failures.update(f for f in failures if f)
        self._redraw()
        self._state_line(note)

    def started(self, key: Hashable, label: str) -> None:
        """Work in flight under ``key`` (a match: its label from :func:`table`)."""
        with self._lock:
            self.in_flight[key] = printable(label, STATUS)
        self._redraw()

    def ended(self, key: Hashable) -> None:
        with self._lock:
            self.in_flight.pop(key, None)
        self._redraw()

    def step(self, text: str) -> None:
        """The step being done now (a build's): under the bar on a terminal, not printed else."""
        with self._lock:
            self.step_text = printable(text, STATUS)
        self._redraw()

    def output(self, line: str) -> None:
        """A line that the work wrote (a build's or a bot's output): escaped and indented, above
        the bar on a terminal."""
        self._print(f"  {printable(line, LINE)}")

    def message(self, text: str) -> None:
        """A line of the command's own (it escapes what it quotes), above the bar on a terminal."""
        for line in text.split("\n"):
            self._print(printable(line, 1000))

    # -- what is shown ---------------------------------------------------------------------------
    def count_text(self) -> str:
        return f"{self.done}/{self.total} {self.unit}" if self.total is not None else f"{self.done} {self.unit}"

    def speed(self) -> float:
        elapsed = time.monotonic() - self.started_at
        return (self.done - (self.base or 0)) / elapsed if elapsed > 0 else 0.0

    def rate_text(self) -> str:
        return f"{self.speed():.2f} {self.unit}/s"

    def eta_text(self) -> str:
        if self.total is None:
            return "-:--:--"
        left, speed = self.total - self.done, self.speed()
        if left <= 0:
            return clock(0)
        return clock(left / speed) if speed > 0 else "-:--:--"

    def failure_text(self) -> str:
        n = self.failures.total()
        return f"{n} failure{'' if n == 1 else 's'}" if n or self.unit == "games" else ""

    def reasons_text(self) -> str:
        return ", ".join(f"{printable(reason, NAME)} {n}" for reason, n in self.failures.most_common())

    def detail(self) -> tuple[str, ...]:
        """The lines under the bar."""
        lines = []
        if self.in_flight:
            lines.append(f"{self.doing}: {' | '.join(self.in_flight.values())}")
        if self.step_text:
            lines.append(f"now: {self.step_text}")
        if self.failures:
            lines.append(f"{self.failure_text()}: {self.reasons_text()}")
        if self.status_text:
            lines.append(self.status_text)
        return tuple(lines)

    def state_line(self, note: str = "") -> str:
        """Off a terminal: where the work is, in one plain line."""
        parts = [self.count_text()]
        if self.rate:
            parts += [self.rate_text()] + ([f"ETA {self.eta_text()}"] if self.total is not None else [])
        if self.failures or self.unit == "games":
            parts.append(self.failure_text() + (f" ({self.reasons_text()})" if self.failures else ""))
        line = f"{self.title}: {', '.join(parts)}"
        if self.status_text:
            line += f"; {self.status_text}"
        return line + (f"; {printable(note, STATUS)}" if note else "")

    # -- printing --------------------------------------------------------------------------------
    def _state_line(self, note: str = "") -> None:
        if not self.terminal and self.lines:
            with self._lock:
                line = self.state_line(note)
            self._print(line)

    def _print(self, line: str) -> None:
        if self.quiet:
            return
        with self._lock:  # whole lines, in order, from any thread
            self.console.print(Text(line), soft_wrap=True)

    def _redraw(self) -> None:
        """Hands the bar the new state, which rich's thread draws (reading it without the lock:
        plain values, and ``_detail`` replaced whole)."""
        if not self.terminal or self.quiet or self._closed:
            return
        with self._lock:
            self._detail = self.detail()
            if self._bar is None:
                self._bar = self._start_bar()
            assert self._task is not None
            self._bar.update(self._task, completed=self.done, total=self.total)


class _Column(rich.progress.ProgressColumn):
    """A column whose text comes from the :class:`Progress` (the rest of the line is its own)."""

    def __init__(self, text: Callable[[], str], style: str, max_width: int | None = None) -> None:
        # never wrapped: a long title is cut (ellipsis) rather than push the bar onto more lines
        super().__init__(Column(no_wrap=True, overflow="ellipsis", max_width=max_width))
        self.text, self.style = text, style

    def render(self, task: rich.progress.Task) -> Text:
        return Text(self.text(), style=self.style)


class _Bar(rich.progress.Progress):
    """rich's progress display, with the :class:`Progress`'s detail lines under its bar."""

    def __init__(self, owner: Progress, *columns: rich.progress.ProgressColumn, **options) -> None:
        self.owner = owner  # before rich's __init__, which renders once
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterator[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        for line in self.owner._detail:
            yield Text(line, style="dim", no_wrap=True, overflow="ellipsis")
