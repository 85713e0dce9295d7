"""``arena bot check``: the conformance suite a bot author runs before submitting, and that every
submission runs (``submit.py``). One bot, an image or a local command, is played the
way a league plays it and held to what a league needs of it, one line of the report per check:

- **image settings** (an image): it declares nothing Arena's sandbox refuses (VOLUME, HEALTHCHECK, ...);
- **hello**: it says hello within the startup limit, with the name and version of its bot.toml
  (``arena bot build`` puts them on the image as the labels ``arena.bot.name`` and
  ``arena.bot.version``); **protocol**: its protocol version is the referee's; **games**: the
  games it claims exist;
- **GAME, N players**: one game against random built-in players at every player count of every
  game it claims, without a failure. At the smallest player count the game is played **under
  load**: at the time control itself (its increment and match bank too: the match is that one
  game, so its match bank only adds to the game's), with a CPU hog spinning on the match's core all along (the
  bot gets half its core), so a bot that keeps to its time only on an idle machine times out
  there. The others get ``CHECK_SLACK`` times the decision time: they judge what the bot does,
  not how fast, even on a busy machine;
- **memory**: the most its container held (its memory cgroup's peak: what the limit counts), or
  for a local command its processes' resident peaks, stays under the container's limit;
- **shutdown**: at MatchEnd it exits by itself with code 0 within ``CHECK_SHUTDOWN_MS``;

then the p50 and p99 of its think time in each game, from the referee's own timing of each
decision (the ``ms`` of each decision in the game records).

Each game is a match of its own in a referee process (:func:`referee.launch`), pinned to a core,
one match per core at a time (the games under load first): a game under load has its core to
itself and its hog, while the other games run on the other cores.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import docker.errors

from arena_games import GAMES
from arena_protocol import PROTOCOL_VERSION
from referee import cpu, launch, limits
from referee.match import log_name, run_async
from referee.records import read_record
from referee.sandbox import LABEL, OWNER_LABEL, PROFILE, ContainerSeat, client
from referee.seats import PROTOCOL_VERSION_MISMATCH, Failure, GrpcSeat, ProcessSeat
from referee.sockets import owner_id
from referee.spec import MAX_MS, BotSpec, MatchSpec, TimeControl
from referee.textlog import printable

from .build import image_file_refusal, image_refusal
from .images import PYTHON_BASE
from .local import STDIO_HINT, never_spoke_grpc, under_adapter

PASS, FAIL, SKIP = "pass", "FAIL", "skip"
CANDIDATE = "candidate"  # the bot's name in the check's matches: not the one it says hello with
TIME_CONTROL = TimeControl(startup_ms=limits.CHECK_STARTUP_MS, decision_ms=limits.DECISION_MS,
                           bank_ms=limits.BANK_MS)  # a league's, with the check's time to start
LINE_CHARS = 300  # of one printed line
LOG_CHARS = 64 * 1024  # of the bot's output kept in a report
# A CPU hog beside a local bot: spins until killed, and dies with the process that started it.
HOG = ("import ctypes, os, sys\nctypes.CDLL(None).prctl(1, 9)\n"
       "if os.getppid() == int(sys.argv[1]):\n    while True: pass\n")


@dataclass(frozen=True)
class Line:
    """One check: what was checked, pass, FAIL or skip, and what was seen."""

    check: str
    status: str
    seen: str  # quotes the bot: str(line) escapes it

    def __str__(self) -> str:
        first, *more = f"{self.status:<4}  {self.check}: {self.seen}".split("\n")
        return "\n".join([printable(first, LINE_CHARS), *(f"      {printable(m, LINE_CHARS)}" for m in more)])


@dataclass(frozen=True)
class ThinkTime:
    """The bot's think time in one game (its games not under load), from the game records."""

    game: str
    decisions: int
    p50_ms: float
    p99_ms: float


@dataclass
class CheckReport:
    target: str  # the image, or the command
    lines: list[Line] = field(default_factory=list)
    hello: dict[str, Any] = field(default_factory=dict)  # name, version, protocol_version, games; {} if none
    think: list[ThinkTime] = field(default_factory=list)
    log: str = ""  # the bot's output where it first failed (escape it before printing)

    @property
    def failed(self) -> list[Line]:
        return [line for line in self.lines if line.status == FAIL]

    @property
    def ok(self) -> bool:
        return bool(self.lines) and not self.failed

    def text(self) -> list[str]:
        """The report as lines to print (escaped): every check, the think times, and the verdict."""
        out = [part for line in self.lines for part in str(line).split("\n")]
        if self.think:
            out.append("think time per decision, as the referee timed it (games not under load):")
            out += [f"  {t.game:<8} p50 {t.p50_ms:8.2f} ms   p99 {t.p99_ms:8.2f} ms   ({t.decisions} decisions)"
                    for t in self.think]
        verdict = "passes every check" if self.ok else f"FAILED {len(self.failed)} of {len(self.lines)} checks"
        return [*out, f"{printable(self.target, 200)}: {verdict}"]


@dataclass(frozen=True)
class _Game:
    """One game the check plays: a match of its own."""

    game: str
    players: int
    load: bool = False  # at the time control itself, with a CPU hog on its core

    @property
    def check(self) -> str:
        return f"{self.game}, {self.players} players" + (", under load" if self.load else "")

    @property
    def match_id(self) -> str:
        return f"check-{self.game}-{self.players}" + ("-load" if self.load else "")


@dataclass(frozen=True)
class _Played:
    """What the bot did in one of the check's games."""

    game: _Game
    failure: str  # the reason, or ""
    detail: str
    rank: int
    think_ms: list[float]  # each decision it made, as the referee timed it
    peak_mb: float | None
    shutdown: dict[str, Any] | None  # how it ended after MatchEnd, if it was alive then
    log: str


def check_bot(image: str = "", command: Sequence[str] = (), time_control: TimeControl = TIME_CONTROL,
              say: Callable[[str], None] = lambda line: None,
              planned: Callable[[list[str]], None] | None = None,
              game_started: Callable[[str], None] | None = None,
              game_ended: Callable[[str, str], None] | None = None,
              stdio_fix: str = "run it under the stdio adapter") -> CheckReport:
    """Checks the bot in ``image`` (a container, as a league runs it) or run by ``command`` (a
    local process, for development); ``say`` gets progress lines. The games under load are held
    to ``time_control``; the others get ``CHECK_SLACK`` times its decision time.

    For a progress display: ``planned(checks)`` gets the games to play (one check line each, as
    "sobek, 2 players"), then ``game_started(check)`` and ``game_ended(check, failure)`` (the
    bot's failure reason, or "") are called as each game starts and ends, from the thread that
    plays it. ``stdio_fix``: what the report tells the author of a command that never opened the
    referee's socket (a stdio program, most likely) to do."""
    if bool(image) == bool(command):
        raise ValueError("check_bot takes an image or a command")
    bot = BotSpec(CANDIDATE, image=image, command=tuple(command))
    report = CheckReport(image or shlex.join(command))
    labels: dict[str, str] = {}
    if image:
        labels, line = _image(image)
        report.lines.append(line)
        if line.status == FAIL:
            return report
    with tempfile.TemporaryDirectory(prefix="arena-check-") as tmp:
        say(f"starting {printable(report.target, 200)} for its hello ...")
        hello, failure, log, connected = run_async(_say_hello(bot, Path(tmp), time_control.startup_ms))
        report.hello = hello
        if failure is not None:
            check = "protocol" if failure.reason == PROTOCOL_VERSION_MISMATCH else "hello"
            hint = ""
            if never_spoke_grpc(failure.reason, failure.detail, connected) and not under_adapter(command):
                fix = "add protocol = \"stdio\" to its bot.toml" if image else stdio_fix
                hint = f"\n{STDIO_HINT.format(fix=fix)}"
            report.lines.append(Line(check, FAIL, str(failure) + hint))
            report.log = log[-LOG_CHARS:]
            return report
        claimed = _claimed(hello, labels)
        report.lines += _hello_lines(hello, labels, bool(image), claimed)
        if any(g not in GAMES for g in claimed):
            return report
        plan = [_Game(g, n, load=n == GAMES[g].min_players)
                for g in claimed for n in range(GAMES[g].min_players, GAMES[g].max_players + 1)]
        say(f"playing {len(plan)} games on {len(cpu.allowed())} core(s) ...")
        if planned:
            planned([game.check for game in plan])
        played = _play_all(bot, plan, time_control, Path(tmp), cpu.allowed(), game_started, game_ended)
    plain = [p for p in played if not p.game.load]
    report.lines += [_game_line(p, time_control) for p in played]
    report.lines += [_memory_line(played, bool(image)), _shutdown_line(played)]
    report.think = [_think_time(g, [ms for p in plain if p.game.game == g for ms in p.think_ms]) for g in claimed]
    report.log = next((p.log for p in played if p.failure or _bad_shutdown(p)), "")[-LOG_CHARS:]
    return report


def _image(image: str) -> tuple[dict[str, str], Line]:
    """The image's labels, and the line on its settings."""
    try:
        attrs = client().api.inspect_image(image)
    except docker.errors.ImageNotFound:
        return {}, Line("image", FAIL, f"no image {image!r} on this Docker engine (build it with `arena bot build`)")
    config = attrs["Config"] or {}
    refusal = image_refusal(config) or image_file_refusal(attrs)
    if refusal:
        return {}, Line("image settings", FAIL, f"refused: {refusal}")
    return config.get("Labels") or {}, Line("image settings", PASS, "nothing Arena's sandbox refuses")


async def _say_hello(bot: BotSpec, folder: Path,
                     startup_ms: int) -> tuple[dict[str, Any], Failure | None, str, bool]:
    """Starts the bot and waits for its hello, then stops it. Returns the hello as a dict (or
    {}), the failure (or None), the bot's output, and whether it opened the referee's socket."""
    log_path = folder / "hello.log"
    seat: GrpcSeat
    if bot.image:
        seat = ContainerSeat(bot.name, "", bot.image, folder / "hello", log_path, match_id="check-hello")
    else:
        seat = ProcessSeat(bot.name, "", bot.command, folder / "hello", log_path)
    hello: dict[str, Any] = {}
    failure: Failure | None = None
    connected = False
    try:
        msg = await seat.connect(startup_ms)
        hello = {"name": msg.name, "version": msg.version, "protocol_version": msg.protocol_version,
                 "games": list(msg.games)}
    except Failure as exc:
        failure = exc
    finally:
        connected = seat.conn is not None  # before close(), which forgets it
        await seat.close()
    return hello, failure, log_path.read_text(errors="replace") if log_path.exists() else "", connected


def _claimed(hello: dict[str, Any], labels: dict[str, str]) -> list[str]:
    """The games the bot plays, as a submission registers them: those its hello claims, else
    those its bot.toml lists (the image's ``arena.bot.games``), else every game."""
    return list(hello["games"]) or _toml_games(labels) or sorted(GAMES)


def _toml_games(labels: dict[str, str]) -> list[str]:
    return [game for game in labels.get("arena.bot.games", "").split(",") if game]


def _hello_lines(hello: dict[str, Any], labels: dict[str, str], image: bool, claimed: list[str]) -> list[Line]:
    """The lines on the hello: name and version against bot.toml's, the protocol, the games."""
    said = f"{hello['name']!r} {hello['version']!r}"
    toml = (labels.get("arena.bot.name"), labels.get("arena.bot.version"))
    if not image:
        hello_line = Line("hello", PASS, f"{said} (a command has no bot.toml to compare them with)")
    elif toml[0] is None:
        hello_line = Line("hello", PASS, f"{said} (not compared: the image has no arena.bot.name label, which "
                                         "`arena bot build` sets from bot.toml)")
    elif (hello["name"], hello["version"]) == toml:
        hello_line = Line("hello", PASS, f"{said}, as its bot.toml says")
    else:
        hello_line = Line("hello", FAIL, f"says it is {said}, but its bot.toml says {toml[0]!r} {toml[1]!r}: "
                                         "the name and version in the hello must be bot.toml's")
    lines = [hello_line, Line("protocol", PASS, f"version {PROTOCOL_VERSION}")]
    unknown = [g for g in claimed if g not in GAMES]
    if unknown:
        lines.append(Line("games", FAIL, f"claims unknown game(s) {', '.join(map(repr, unknown))}; the games are "
                                         f"{', '.join(sorted(GAMES))} (an empty list claims them all)"))
    elif hello["games"]:
        lines.append(Line("games", PASS, ", ".join(claimed)))
    elif _toml_games(labels):
        lines.append(Line("games", PASS, f"{', '.join(claimed)}, as its bot.toml says (its hello claims every game)"))
    else:
        lines.append(Line("games", PASS, f"every game: {', '.join(claimed)}"))
    return lines


def _play_all(bot: BotSpec, plan: list[_Game], time_control: TimeControl, folder: Path, cores: list[int],
              started: Callable[[str], None] | None = None,
              ended: Callable[[str, str], None] | None = None) -> list[_Played]:
    """Plays every game of ``plan``, one match per core at a time (two would share it, and the
    bot's think times with it); returns them in plan order."""
    free: queue.SimpleQueue[int] = queue.SimpleQueue()
    for core in cores:
        free.put(core)

    def play(game: _Game) -> _Played:
        core = free.get()
        try:
            if started:
                started(game.check)
            played = _play(bot, game, time_control, folder, core)
        finally:
            free.put(core)
        if ended:
            ended(game.check, played.failure)
        return played

    first = sorted(plan, key=lambda game: not game.load)  # the games under load take longest: start them first
    with ThreadPoolExecutor(max_workers=len(cores), thread_name_prefix="check") as pool:
        done = dict(zip(first, pool.map(play, first), strict=True))
    return [done[game] for game in plan]


def _play(bot: BotSpec, game: _Game, time_control: TimeControl, folder: Path, core: int) -> _Played:
    """One game of the check: a match of the bot and random built-in players on ``core``."""
    time = game_time(time_control, game.load)
    spec = MatchSpec(game=game.game, match_id=game.match_id, time=time, max_restarts=limits.CHECK_RESTARTS,
                     shutdown_ms=limits.CHECK_SHUTDOWN_MS,
                     bots=(bot, *(BotSpec(f"random-{i}", builtin="random") for i in range(1, game.players))))
    out = folder / game.match_id
    with cpu_hog(core, container=bool(bot.image)) if game.load else contextlib.nullcontext():
        result = launch(spec, out, cpu=str(core))
    outcome = result.games[0]
    seat = outcome["bots"].index(0)
    record = read_record(out / outcome["record"])
    log = out / log_name(0, CANDIDATE)
    return _Played(
        game, outcome["failures"][seat], next((f["detail"] for f in record.failures if f["seat"] == seat), ""),
        outcome["ranks"][seat], [d["ms"] for d in record.decisions if d["seat"] == seat and not d.get("fallback")],
        result.totals[0]["peak_memory_mb"], result.totals[0]["shutdown"],
        log.read_text(errors="replace") if log.exists() else "")


def game_time(time_control: TimeControl, load: bool) -> TimeControl:
    """A check game's clock: the time control itself under load; otherwise CHECK_SLACK times its
    decision time, its banks and increment as they are."""
    return time_control if load else replace(
        time_control, decision_ms=min(MAX_MS, time_control.decision_ms * limits.CHECK_SLACK))


@contextlib.contextmanager
def cpu_hog(core: int, container: bool) -> Iterator[None]:
    """Something spinning on ``core`` while the block runs, beside the bot: a container with
    Arena's profile (a neighbour in Docker's cgroup, as bot containers are) or, for a local
    bot, a local process. Each ends with this process (the container by the next sweep)."""
    if not container:
        hog = subprocess.Popen([sys.executable, "-c", HOG, str(os.getpid())], stdin=subprocess.DEVNULL)
        try:
            os.sched_setaffinity(hog.pid, {core})
            yield
        finally:
            hog.kill()
            hog.wait()
        return
    spinner = client().containers.run(
        f"{PYTHON_BASE.name}:latest", ["sh", "-c", "while :; do :; done"], detach=True, cpuset_cpus=str(core),
        labels={LABEL: "1", OWNER_LABEL: owner_id(), "arena.match": "check-hog"}, **PROFILE.container_options())
    try:
        yield
    finally:
        spinner.remove(force=True, v=True)


def _game_line(p: _Played, time_control: TimeControl) -> Line:
    load = f" (with a CPU hog on its core; the time control: {_clock(time_control)})" if p.game.load else ""
    if p.failure:
        return Line(p.game.check, FAIL, f"{p.failure}: {p.detail}{load}")
    decisions = len(p.think_ms)
    seen = f"rank {p.rank} of {p.game.players}, {decisions} decision" + ("" if decisions == 1 else "s")
    if p.game.load:
        times = sorted(p.think_ms)
        bank = sum(max(0.0, ms - time_control.decision_ms) for ms in times)
        seen += (f"; p50 {_percentile(times, 0.5):.1f} ms, p99 {_percentile(times, 0.99):.1f} ms, slowest "
                 f"{times[-1] if times else 0:.1f} ms, bank used {bank:.0f} ms{load}")
    return Line(p.game.check, PASS, seen)


def _clock(time_control: TimeControl) -> str:
    """The time control in words: its increment and match bank only when it has them."""
    t = time_control
    more = ([f"an increment of {t.increment_ms} ms"] if t.increment_ms else []) + (
        [f"a match bank of {t.match_bank_ms} ms"] if t.match_bank_ms else [])
    said = [f"{t.decision_ms} ms a decision", f"a bank of {t.bank_ms} ms", *more]
    return ", ".join(said[:-1]) + " and " + said[-1]


def _memory_line(played: list[_Played], image: bool) -> Line:
    limit = limits.MEMORY_MB
    killed = next((p for p in played if "out of memory" in p.detail), None)
    if killed is not None:
        return Line("memory", FAIL, f"killed for using more than its limit of {limit} MiB ({killed.game.check})")
    peaks = [p.peak_mb for p in played if p.peak_mb is not None]
    if not peaks:
        return Line("memory", SKIP, "not measured here")
    peak = max(peaks)
    what = "" if image else (" (a local command: its processes' resident peaks, summed; its container will "
                             "hold it to the limit)")
    if peak >= limit:
        return Line("memory", FAIL, f"peak {peak:.0f} MiB: at or over the limit of {limit} MiB{what}")
    return Line("memory", PASS, f"peak {peak:.0f} MiB of {limit} MiB{what}")


def _bad_shutdown(p: _Played) -> bool:
    return p.shutdown is not None and p.shutdown["status"] != "exit code 0"


def _shutdown_line(played: list[_Played]) -> Line:
    ended = [p for p in played if p.shutdown is not None]
    if not ended:
        return Line("shutdown", SKIP, "not seen: the bot had failed before the end of every game")
    bad = next((p for p in ended if _bad_shutdown(p)), None)
    if bad is not None:
        assert bad.shutdown is not None
        return Line("shutdown", FAIL, f"{bad.shutdown['status']} {bad.shutdown['ms']} ms after MatchEnd "
                                      f"({bad.game.check}); a bot must exit by itself with code 0 within "
                                      f"{limits.CHECK_SHUTDOWN_MS} ms")
    slowest = max(p.shutdown["ms"] for p in ended if p.shutdown is not None)
    return Line("shutdown", PASS, f"exit code 0 at most {slowest} ms after MatchEnd, in all {len(ended)} games")


def _think_time(game: str, times: list[float]) -> ThinkTime:
    times = sorted(times)
    return ThinkTime(game, len(times), _percentile(times, 0.5), _percentile(times, 0.99))


def _percentile(ordered: list[float], q: float) -> float:
    """The nearest-rank percentile of a sorted list (0 for an empty one)."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else 0.0
