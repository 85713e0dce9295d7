"""referee/limits.py is where every limit a bot is held to is written: the code that enforces
them takes its numbers from there, and the page bot authors read says the same numbers.

Every default is written once: the time control and the limits in referee/limits.py, a league's
other options (failure policies, formats) in arena/league/schedule.py. The command line's options,
the web's forms and models and the schedule are built from those names, never from a copy of the
number: :func:`literal_copies` walks the code for one."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TypeGuard

import pytest

from arena.bots.build import BUILD_LIMITS, BUILD_TIMEOUT, MAX_IMAGE_MB
from arena.bots.config import AUTHOR_CHARS, TOML_DEPTH
from arena.league.schedule import DEFAULT_SCHEDULE, FAILURE_POLICIES, FORMATS
from referee import limits
from referee.sandbox import PROFILE
from referee.spec import TimeControl, parse_spec

ROOT = Path(__file__).resolve().parents[1]


def test_the_enforcing_code_takes_its_numbers_from_limits():
    assert (PROFILE.memory_mb, PROFILE.pids, PROFILE.cpus, PROFILE.tmpfs_mb, PROFILE.file_size_mb,
            PROFILE.open_files) == (limits.MEMORY_MB, limits.PIDS, limits.CPUS, limits.TMPFS_MB,
                                    limits.FILE_SIZE_MB, limits.OPEN_FILES)
    assert (BUILD_LIMITS.memory_mb, BUILD_LIMITS.pids, BUILD_TIMEOUT, BUILD_LIMITS.seconds, MAX_IMAGE_MB) == (
        limits.BUILD_MEMORY_MB, limits.BUILD_PIDS, limits.BUILD_TIMEOUT_S, limits.BUILD_TIMEOUT_S, limits.MAX_IMAGE_MB)
    spec = parse_spec({"game": "prohis", "bots": [{"name": f"b{i}", "builtin": "random"} for i in range(3)]})
    assert (spec.time.startup_ms, spec.time.decision_ms, spec.time.bank_ms, spec.time.increment_ms,
            spec.time.match_bank_ms, spec.max_restarts) == (
        limits.STARTUP_MS, limits.DECISION_MS, limits.BANK_MS, limits.INCREMENT_MS, limits.MATCH_BANK_MS,
        limits.MAX_RESTARTS)


def test_the_bot_authors_page_says_the_same_numbers():
    page = (ROOT / "docs" / "writing-a-bot.md").read_text()
    for row in (f"| memory | {limits.MEMORY_MB} MiB, no swap", f"| processes | {limits.PIDS} (",
                f"`/tmp` is a {limits.TMPFS_MB} MiB tmpfs", f"| file size | {limits.FILE_SIZE_MB} MiB",
                f"{limits.OPEN_FILES} open files", f"the first {limits.LOG_CAP // 2**20} MiB of the match",
                f"read at {limits.LOG_RATE // 2**20} MiB a second",
                f"| memory | {limits.BUILD_MEMORY_MB // 1024} GiB per step", f"| processes | {limits.BUILD_PIDS} for",
                f"| time | {limits.BUILD_TIMEOUT_S // 60} minutes", f"| image | {limits.MAX_IMAGE_MB // 1024} GiB",
                f"says hello within {limits.CHECK_STARTUP_MS // 1000} s",
                f"with {limits.CHECK_SLACK} times the decision",
                f"with code 0 within {limits.CHECK_SHUTDOWN_MS // 1000} s", f"the container's {limits.MEMORY_MB} MiB",
                f"({limits.DECISION_MS // 1000} s a decision, a {limits.BANK_MS // 1000} s bank",
                f"the file is at most {limits.BOT_TOML_KB} KiB", f"at most {TOML_DEPTH} deep",
                f"`author` is at most {AUTHOR_CHARS} characters", f"at most {limits.BUILD_ARGS} build arguments",
                f"and at most {limits.BUILD_ARG_CHARS} characters", f"at most {limits.UPLOAD_PATH_CHARS} characters"):
        assert row in page, f"docs/writing-a-bot.md does not say {row!r}"


def test_uploads_take_their_numbers_from_limits_and_the_page_says_them():
    from arena.bots.upload import LIMITS

    assert (LIMITS.packed, LIMITS.unpacked, LIMITS.files, LIMITS.depth, LIMITS.path_chars) == (
        limits.UPLOAD_MB * 2**20, limits.UNPACKED_MB * 2**20, limits.UPLOAD_FILES, limits.UPLOAD_PATH_DEPTH,
        limits.UPLOAD_PATH_CHARS)
    page = (ROOT / "docs" / "writing-a-bot.md").read_text()
    for row in (f"| packed | {limits.UPLOAD_MB} MB", f"| unpacked | {limits.UNPACKED_MB} MB",
                f"| files | {limits.UPLOAD_FILES:,} entries", f"at most {limits.UPLOAD_PATH_DEPTH} folders deep and "
                f"{limits.UPLOAD_PATH_CHARS} characters", f"up to {limits.SUBMISSION_LOG_KB} KiB"):
        assert row in page, f"docs/writing-a-bot.md does not say {row!r}"


# -- one source for every default ----------------------------------------------------------------
# Names that hold a limit or a default wherever they appear: as a keyword argument, a parameter's
# default, a field (a dataclass's, a pydantic model's Field(...) and its bounds), a click option's
# default, a dict's key. Numbers: the time control, the build, uploads, quotas (and every constant
# of limits.py, by its own name); words: a league's failure policy and format.
NUMBERS = {"startup_ms", "decision_ms", "bank_ms", "increment_ms", "match_bank_ms", "max_restarts", "memory_mb", "cpus",
           "pids", "tmpfs_mb", "shm_mb",
           "file_size_mb", "open_files",
           "build_timeout_s", "build_seconds", "max_image_mb", "max_size_mb", "build_memory_mb", "build_pids",
           "build_cpus", "build_cpu_shares", "bot_toml_kb", "build_arg_chars",
           "upload_mb", "unpacked_mb", "upload_files", "upload_path_depth", "upload_path_chars", "submission_log_kb",
           "author_chars", "unpacks_at_once", "unpack_wait_s", "uploads_in_flight_mb", "queued_per_author",
           "submissions_per_day", "builds_at_once"}
CONSTANTS = {name for name in vars(limits) if name.isupper() and not name.startswith("_")}
WORDS: dict[str, tuple[str, ...]] = {"failures": FAILURE_POLICIES, "failure_policy": FAILURE_POLICIES,
                                     "format": FORMATS}
# bench/ picks other time controls and caps on purpose; a copy there is a literal equal to a default
BENCH_DEFAULTS: dict[str, set[object]] = {"startup_ms": {limits.STARTUP_MS, limits.LEAGUE_STARTUP_MS},
                  "build_seconds": {limits.BUILD_TIMEOUT_S}, "max_size_mb": {limits.MAX_IMAGE_MB},
                  "failures": {DEFAULT_SCHEDULE.failures}, "format": {DEFAULT_SCHEDULE.format}}
FIELDS = {"Field", "Form", "Query", "Body"}  # pydantic's and FastAPI's: a default, then bounds
TIME_CONTROL = [f.name for f in dataclasses.fields(TimeControl)]  # its positional arguments
# where the defaults are written: the numbers (limits.py), the words of a league (schedule.py)
HOMES = {Path("referee/limits.py"): "all", Path("arena/league/schedule.py"): "words"}


def _literal(node: ast.AST) -> bool:
    """A number or a string written out (``1000``, ``-1``, ``64 * 1024``, ``"last"``), not a name."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, int | float | str) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) and _literal(node.right)
    return False


def _value(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return eval(compile(ast.Expression(node), "<literal>", "eval"), {})  # 64 * 1024: literals only


def _copy(name: str, node: ast.expr, bench: bool, home: str | None) -> bool:
    """Whether ``node``, the value given to ``name``, is a literal copy of a default or a limit."""
    if home == "all" or not _literal(node):
        return False
    value, key = _value(node), name.lower()
    if isinstance(value, str):
        if key not in WORDS or value not in WORDS[key] or home == "words":
            return False
        return not bench or value in BENCH_DEFAULTS[key]
    if not (key in NUMBERS or name in CONSTANTS):
        return False
    if bench:
        return value in BENCH_DEFAULTS.get(key, {getattr(limits, key.upper(), None)})
    return True


def _option_name(call: ast.Call) -> str | None:
    """The parameter a click option passes: its plain name, else its first long flag."""
    decls = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    plain = [d for d in decls if not d.startswith("-")]
    flags = [d[2:].replace("-", "_") for d in decls if d.startswith("--")]
    return next(iter(plain + flags), None)


def _given(name: str, node: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    """``(name, value)`` for a value given to ``name``: itself, or a Field(...)'s default and bounds
    (ge=0 and ge=1 say only "not negative", "positive")."""
    func = node.func if isinstance(node, ast.Call) else None
    if func is not None and (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")) in FIELDS:
        assert isinstance(node, ast.Call)
        yield from ((name, v) for v in node.args[:1])
        for kw in node.keywords:
            floor = kw.arg in ("ge", "gt") and isinstance(kw.value, ast.Constant) and kw.value.value in (0, 1)
            if kw.arg in ("default", "le", "lt", "ge", "gt") and not floor:
                yield name, kw.value
    else:
        yield name, node


def _given_values(tree: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    """Every ``(name, value)`` the code gives a watched name, or a name at all."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            for kw in node.keywords:
                if kw.arg:
                    yield from _given(kw.arg, kw.value)
            if func == "TimeControl":
                yield from zip(TIME_CONTROL, node.args, strict=False)
            if func == "option" and (option := _option_name(node)):
                yield from ((option, kw.value) for kw in node.keywords if kw.arg == "default")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults, strict=True),
                     *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
            for arg, default in pairs:
                if default is not None:
                    yield from _given(arg.arg, default)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    yield from _given(target.id, node.value)
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value, value


def _lists_every(node: ast.AST, words: tuple[str, ...]) -> TypeGuard[ast.Tuple | ast.List | ast.Set]:
    """A tuple, list, set or Literal[...] that spells out every one of ``words``."""
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set(words) <= {e.value for e in node.elts if isinstance(e, ast.Constant)}
    return False


def literal_copies(root: Path, folders: tuple[str, ...] = ("arena", "referee", "bench")) -> list[str]:
    """``path:line: name = value`` for each literal copy of a default or a limit under ``folders``."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            relative = path.relative_to(root)
            home, bench = HOMES.get(relative), relative.parts[0] == "bench"
            tree = ast.parse(path.read_text(), str(path))
            here = [(value.lineno, f"{name} = {ast.unparse(value)}") for name, value in _given_values(tree)
                    if _copy(name, value, bench, home)]
            if home is None and not bench:
                here += [(node.lineno, f"{ast.unparse(node)} (arena/league/schedule.py has them)")
                         for node in ast.walk(tree) for words in (FAILURE_POLICIES, FORMATS)
                         if _lists_every(node, words)]
            found += [f"{relative}:{line}: {what}" for line, what in sorted(here)]
    return found


def test_no_default_or_limit_is_written_twice():
    copies = literal_copies(ROOT)
    assert copies == [], ("a literal where referee/limits.py or arena/league/schedule.py has the name:\n"
                          + "\n".join(copies))


@pytest.mark.parametrize("code", [
    'click.option("--decision-ms", default=1000)', 'click.option("--builds", "builds_at_once", default=2)',
    "ScheduleOptions(bank_ms=10_000)", "TimeControl(15_000, 1000, 10_000)", "def f(startup_ms: int = 15_000): pass",
    "class M(BaseModel):\n    decision_ms: int = Field(1000, ge=1)",
    "class M(BaseModel):\n    bank_ms: int = Field(limits.BANK_MS, ge=0, le=3_600_000)",
    "def f(failures: Annotated[str, Form()] = 'last'): pass", "class M:\n    failures: Literal['last', 'exclude']",
    'spec = {"time": {"decision_ms": 1000}}', "MAX_RESTARTS = 2", "class S:\n    upload_mb: int = 20",
])
def test_a_copy_is_found(tmp_path, code):
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "copy.py").write_text(code + "\n")
    assert literal_copies(tmp_path, ("arena",)), code


def test_what_is_not_a_copy_is_not_found(tmp_path):
    (tmp_path / "arena").mkdir()
    (tmp_path / "arena" / "fine.py").write_text(
        "ScheduleOptions(decision_ms=limits.DECISION_MS, failures=DEFAULT_SCHEDULE.failures)\n"
        "def f(failures: list[str] | None = None, budget_s: float = 30.0, format: str = 'json'): pass\n"
        "class M(BaseModel):\n    bank_ms: int = Field(DEFAULT_SCHEDULE.bank_ms, ge=0, le=limits.MAX_BANK_MS)\n"
        "spec = {'time': {'decision_ms': decision_ms}, 'failures': []}\n")
    assert literal_copies(tmp_path, ("arena",)) == []
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "chosen.py").write_text('spec = {"time": {"decision_ms": 2000}}\n')
    assert literal_copies(tmp_path, ("bench",)) == []
    (tmp_path / "bench" / "chosen.py").write_text('spec = {"time": {"decision_ms": 1000}}\n')
    assert len(literal_copies(tmp_path, ("bench",))) == 1


def test_the_time_options_and_the_forms_take_the_defaults():
    from arena.cli import main as arena
    from arena.web.leagues import CreateLeague

    commands = {"match": arena.get_command(None, "match"), "compare": arena.get_command(None, "compare"),
                "league create": arena.get_command(None, "league").commands["create"],
                "ladder create": arena.get_command(None, "ladder").commands["create"]}
    for label, command in commands.items():
        defaults = {p.name: p.default for p in command.params}
        assert (defaults["decision_ms"], defaults["bank_ms"], defaults["increment_ms"], defaults["match_bank_ms"]) == (
            limits.DECISION_MS, limits.BANK_MS, limits.INCREMENT_MS, limits.MATCH_BANK_MS), label
    assert {p.name: p.default for p in commands["match"].params}["startup_ms"] == limits.STARTUP_MS
    assert {p.name: p.default for p in commands["league create"].params}["failures"] == DEFAULT_SCHEDULE.failures
    assert (DEFAULT_SCHEDULE.decision_ms, DEFAULT_SCHEDULE.bank_ms, DEFAULT_SCHEDULE.startup_ms,
            DEFAULT_SCHEDULE.max_restarts) == (limits.DECISION_MS, limits.BANK_MS, limits.LEAGUE_STARTUP_MS,
                                               limits.MAX_RESTARTS)
    page = (ROOT / "arena" / "web" / "templates" / "leagues.html").read_text()  # the admin's form
    for name in ("deals", "decision_ms", "bank_ms", "increment_ms", "match_bank_ms"):
        assert re.search(rf'name="{name}"[^>]* value="{{{{ defaults.{name} }}}}"', page), name
    body = CreateLeague(name="x", game="prohis", players=3)
    assert (body.deals, body.decision_ms, body.bank_ms, body.increment_ms, body.match_bank_ms, body.failures,
            body.format) == (
        DEFAULT_SCHEDULE.deals, DEFAULT_SCHEDULE.decision_ms, DEFAULT_SCHEDULE.bank_ms, DEFAULT_SCHEDULE.increment_ms,
        DEFAULT_SCHEDULE.match_bank_ms, DEFAULT_SCHEDULE.failures, DEFAULT_SCHEDULE.format)
    assert (DEFAULT_SCHEDULE.increment_ms, DEFAULT_SCHEDULE.match_bank_ms) == (limits.INCREMENT_MS,
                                                                               limits.MATCH_BANK_MS)


def test_the_docs_say_the_time_control_s_defaults():
    def text(name: str) -> str:
        return " ".join((ROOT / name).read_text().split())  # a sentence may break anywhere

    d = DEFAULT_SCHEDULE
    leagues, api = text("docs/leagues.md"), text("docs/api.md")
    for row in (f"[--decision-ms {d.decision_ms}] [--bank-ms {d.bank_ms}] [--increment-ms {d.increment_ms}] "
                f"[--match-bank-ms {d.match_bank_ms}] [--failures {'|'.join(FAILURE_POLICIES)}]",
                f"| `--decision-ms` | {d.decision_ms} |", f"| `--bank-ms` | {d.bank_ms} |",
                f"| `--increment-ms` | {d.increment_ms} |", f"| `--match-bank-ms` | {d.match_bank_ms} (none) |",
                f"| `{d.failures}` (default) |"):
        assert row in leagues, f"docs/leagues.md does not say {row!r}"
    row = (f"`deals` ({d.deals}), `decision_ms` ({d.decision_ms}, at most {limits.MAX_DECISION_MS}), `bank_ms` "
           f"({d.bank_ms}, at most {limits.MAX_BANK_MS}), `increment_ms` ({d.increment_ms}, at most "
           f"{limits.MAX_INCREMENT_MS}), `match_bank_ms` ({d.match_bank_ms}, at most {limits.MAX_BANK_MS}; the time "
           f"control: [leagues](leagues.md#time-controls)), `failures` "
           f"({' or '.join(f'`{p}`' for p in FAILURE_POLICIES)}), `format` (`{d.format}`")
    assert row in api, f"docs/api.md does not say {row!r}"
    shown = json.loads(re.search(r'"schedule": (\{[^}]*\})', api)[1])  # a league, as the API shows it
    assert shown == {key: value for key, value in d.to_dict().items() if key in shown}, "docs/api.md's league"
    protocol = text("docs/protocol.md")
    for row in (f"| `decision_ms` | {limits.DECISION_MS} |", f"| `bank_ms` | {limits.BANK_MS} |",
                f"| `increment_ms` | {limits.INCREMENT_MS} |", f"| `match_bank_ms` | {limits.MATCH_BANK_MS} (none) |"):
        assert row in protocol, f"docs/protocol.md does not say {row!r}"
    for row in (f"startup limit (default {limits.STARTUP_MS // 1000} s; {limits.LEAGUE_STARTUP_MS // 1000} s in a "
                "league's matches)", f"(default: at most {limits.MAX_RESTARTS} restarts a match;"):
        assert row in protocol, f"docs/protocol.md does not say {row!r}"
    examples = [json.loads(e) for e in re.findall(r'"time_control": (\{[^}]*\})', protocol)]  # a MatchStart, as JSON
    defaults = dataclasses.asdict(TimeControl())  # protobuf's JSON leaves out a field at 0
    assert examples and all(e == {k: v for k, v in defaults.items() if v or k in e} for e in examples)
    spec = text("referee/spec.py")  # its example spec
    assert (f'"time": {{"startup_ms": {limits.STARTUP_MS}, "decision_ms": {limits.DECISION_MS}, "bank_ms": '
            f'{limits.BANK_MS}, "increment_ms": {limits.INCREMENT_MS}, "match_bank_ms": {limits.MATCH_BANK_MS}}}, '
            f'"max_restarts": {limits.MAX_RESTARTS},') in spec


def test_the_other_pages_that_state_an_upload_or_build_cap_say_the_constant():
    def text(name: str) -> str:
        return " ".join((ROOT / name).read_text().split())

    minutes, gib = limits.BUILD_TIMEOUT_S // 60, limits.MAX_IMAGE_MB // 1024
    pages = {
        "docs/api.md": [f"over {limits.UPLOAD_MB} MB packed", f"over {limits.UNPACKED_MB} MB unpacked, or over "
                        f"{limits.UPLOAD_FILES:,} files"],
        "docs/deploy.md": [f"`--queued-per-author` × {limits.UNPACKED_MB} MB of unpacked uploads",
                           f"packed archives of {limits.UPLOAD_MB} MB", f"an upload unpacks to {limits.UNPACKED_MB} MB",
                           f"client_max_body_size {limits.UPLOAD_MB + 1}m; # uploads are at most {limits.UPLOAD_MB} MB",
                           f"{limits.BUILD_CPUS:.0f} CPU and {limits.BUILD_MEMORY_MB // 1024} GiB of memory"],
        "docs/writing-a-bot.md": [f"by default {limits.QUEUED_PER_AUTHOR} of your submissions at a time",
                                  f"{limits.SUBMISSIONS_PER_DAY} in any 24 hours, and a build of at most {minutes} "
                                  "minutes", f"stops a build after {minutes} minutes (`--timeout`) and refuses an "
                                  f"image over {gib} GiB", f"({limits.BUILD_MEMORY_MB // 1024} GiB of memory per step, "
                                  f"one core, {minutes} minutes)"],
    }
    for page, rows in pages.items():
        for row in rows:
            assert row in text(page), f"{page} does not say {row!r}"


def test_the_kits_send_at_most_what_the_referee_takes_of_a_debug_text_and_the_pages_say_it():
    """Each kit cuts a decision's debug text to DEBUG_SEND_BYTES before sending (the referee keeps
    DEBUG_BYTES of it, and says it cut the rest); the pages say the referee's numbers."""
    from arenabot import debugtext

    kib = limits.DEBUG_SEND_BYTES // 1024
    assert debugtext.SEND_BYTES == limits.DEBUG_SEND_BYTES == kib * 1024
    for path, line in (("kits/javascript/lib/client.js", f"const DEBUG_SEND_BYTES = {kib} * 1024;"),
                       ("kits/go/arenabot/debug.go", f"const DebugSendBytes = {kib} * 1024"),
                       ("kits/cpp/include/arenabot/arenabot.h", f"constexpr size_t kDebugSendBytes = {kib} * 1024;")):
        assert line in (ROOT / path).read_text(), f"{path} does not say {line!r}"
    writing = (ROOT / "docs" / "writing-a-bot.md").read_text()
    for words in (f"keeps {limits.DEBUG_BYTES // 1024} KiB (of UTF-8) a decision and "
                  f"{limits.DEBUG_GAME_BYTES // 1024} KiB a game",
                  f"`[arena: debug text cut at {limits.DEBUG_BYTES} bytes]`", f"at most {kib} KiB a decision"):
        assert words in " ".join(writing.split()), f"docs/writing-a-bot.md does not say {words!r}"
    protocol = " ".join((ROOT / "docs" / "protocol.md").read_text().split())
    for words in (f"past {limits.DEBUG_BYTES:,} bytes of UTF-8", f"{limits.DEBUG_GAME_BYTES:,} bytes (256 KiB)"):
        assert words in protocol, f"docs/protocol.md does not say {words!r}"
