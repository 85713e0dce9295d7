"""A bot folder's ``bot.toml``, read as hostile input: bounded in size, nesting and each value's
length, each refusal a :class:`BotError` naming the key.

``bot.toml``::

    name = "prohis-heuristic"     # lower case letters, digits, ., _ and -
    version = "1.0.0"
    language = "python"            # the bot's language, shown wherever the bot is listed; one of
                                   # arena.bots.images.LANGUAGES picks its base image
    base = "shell"                 # optional: the base image (a key of LANGUAGES) when language names
                                   # another language ("rust"): default "shell" for a stdio bot
    protocol = "grpc"              # optional: "grpc" (the default) or "stdio" (JSON lines, see arenabot.stdio)
    author = "Ada"
    games = ["prohis"]             # optional: the games it plays (empty or absent: all)

    [build]                        # optional
    context = "."                  # the build context, relative to the folder
    dockerfile = "Dockerfile"      # relative to the folder, inside the context
    args = { KEY = "value" }       # build arguments

A build reads nothing outside the bot folder, or the wider ``root`` that whoever runs the build
(never bot.toml) may give, for bots that share files: every path here is confined to it.
"""

from __future__ import annotations

import os
import re
import sys
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from arena_games import GAMES
from referee import limits

from .images import LANGUAGES

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,62}$")
VERSION = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
IMAGE_REPOSITORY = "arena-bot"
AUTHOR_CHARS = limits.AUTHOR_CHARS  # bot.toml's author: free text, shown as the bot's subtitle
LANGUAGE = re.compile(r"[a-z][a-z0-9+#._-]{0,15}")  # a language of no base: a label on pages ("rust", "c#")
STDIO_BASE = "shell"  # the base of a stdio bot in a language of no base: the smallest
BotProtocol = Literal["grpc", "stdio"]  # how a bot talks: gRPC itself, or JSON lines through the stdio adapter
PROTOCOLS: tuple[BotProtocol, ...] = get_args(BotProtocol)


class BotError(Exception):
    """A bot folder that cannot be built; the message says why."""



@dataclass(frozen=True)
class BotConfig:
    folder: Path
    root: Path  # what the build may read: the bot folder, or a folder around it
    name: str
    version: str
    language: str
    author: str
    games: tuple[str, ...] = ()
    protocol: str = "grpc"
    base: str = ""  # the key of LANGUAGES that picks the base image: language's own, or bot.toml's base
    context: Path = field(default=Path("."))
    dockerfile: Path = field(default=Path("Dockerfile"))
    args: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.base:
            object.__setattr__(self, "base", self.language)

    @property
    def tag(self) -> str:
        return f"{IMAGE_REPOSITORY}/{self.name}:{self.version}"

def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a bot's name (it goes into an image tag and onto pages), or None.
    fullmatch: ``$`` would let a trailing newline through."""
    if NAME.fullmatch(name):
        return None
    return f"name {name!r} must be lower case letters, digits, '.', '_' or '-' (a letter or digit first, at most 63)"


def version_problem(version: str) -> str | None:
    """Why ``version`` cannot be a bot's version, or None."""
    if VERSION.fullmatch(version):
        return None
    return f"version {version!r} may hold only letters, digits, '.', '_' and '-' (not '.' or '-' first, at most 128)"


def load_bot_config(folder: str | Path, root: str | Path | None = None) -> BotConfig:
    """Reads and checks a bot folder's bot.toml, as hostile input: bounded in size, nesting and
    each value's length, no control character in a name, a path or a build argument, and each
    refusal a BotError naming the key. The build may read only what is inside ``root``
    (default: the bot folder itself); bot.toml cannot widen that, only the caller can."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BotError(f"{folder} is not a folder (a bot is a folder with a Dockerfile and a bot.toml)")
    root = Path(root if root is not None else folder).resolve()
    if not folder.resolve().is_relative_to(root):
        raise BotError(f"the bot folder {folder} is not inside the root {root}")
    path = folder / "bot.toml"
    if not path.is_file():
        raise BotError(f"no bot.toml in {folder}: it must give name, version, language and author")
    if not Path(os.path.realpath(path)).is_relative_to(root):
        raise BotError(f"{path} is a symlink leading out of the bot folder; a build may read only what is "
                       f"inside {root}")
    data = _read_toml(path)
    unknown = [key for key in data if key not in ("name", "version", "language", "base", "protocol", "author",
                                                  "games", "build")]
    if unknown:
        raise BotError(f"{path}: unknown key(s) {_listed(unknown)}")
    for key in ("name", "version", "language", "author"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise BotError(f"{path}: {key!r} is missing or not a non-empty string")
    for problem in (name_problem(data["name"]), version_problem(data["version"]),
                    _text_problem("'author'", data["author"], AUTHOR_CHARS)):
        if problem:
            raise BotError(f"{path}: {problem}")
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise BotError(f"{path}: protocol {_shown(protocol)} must be one of {', '.join(map(repr, PROTOCOLS))}")
    base = _base(path, data["language"], data.get("base"), protocol)
    games = data.get("games", [])
    if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
        raise BotError(f"{path}: games must be a list of game names")
    if len(games) > len(GAMES):
        raise BotError(f"{path}: games lists {len(games)} games, over the {len(GAMES)} there are")
    unknown_games = [g for g in games if g not in GAMES]
    if unknown_games:
        raise BotError(f"{path}: unknown game(s) {_listed(unknown_games)}; known: {', '.join(sorted(GAMES))}")
    build = data.get("build", {})
    if not isinstance(build, dict) or set(build) - {"context", "dockerfile", "args"}:
        raise BotError(f"{path}: [build] takes only context, dockerfile and args")
    args = _build_args(path, build.get("args", {}))
    context = _confined(path, root, "context", build.get("context", "."))
    dockerfile = _confined(path, root, "dockerfile", build.get("dockerfile", "Dockerfile"))
    try:
        if not dockerfile.is_file():
            raise BotError(f"no Dockerfile: {dockerfile} does not exist")
    except OSError as exc:
        raise BotError(f"{path}: [build] dockerfile: {exc.strerror}") from None
    if not dockerfile.is_relative_to(context):
        raise BotError(f"the Dockerfile {dockerfile} must be inside the build context {context}")
    return BotConfig(folder=folder, root=root, name=data["name"], version=data["version"],
                     language=data["language"], author=data["author"], games=tuple(games), protocol=protocol,
                     base=base,
                     context=context, dockerfile=dockerfile, args=args)


def _base(path: Path, language: str, base: Any, protocol: str) -> str:
    """The key of LANGUAGES whose base image the bot is built on: ``base`` if bot.toml gives one,
    else its language's; a language with no base of its own (a Rust bot: its own label, shown
    wherever the bot is) needs ``base``, but for a stdio bot, which runs on the smallest."""
    if base is not None:
        if not isinstance(base, str) or base not in LANGUAGES:
            raise BotError(f"{path}: base {_shown(str(base))} is not one of Arena's base images; known: "
                           f"{', '.join(LANGUAGES)}")
        if not LANGUAGE.fullmatch(language):
            raise BotError(f"{path}: language {_shown(language)} must be a lower-case name of at most 16 "
                           "characters (letters, digits, '+', '#', '.', '_' or '-'; a letter first)")
        return str(base)
    if language in LANGUAGES:
        return language
    if protocol == "stdio" and LANGUAGE.fullmatch(language):
        return STDIO_BASE
    raise BotError(f"{path}: language {_shown(language)} is not one Arena has a base image for "
                   f"({', '.join(LANGUAGES)}): name its base image (base = \"cpp\"), or use protocol = "
                   "\"stdio\" (docs/writing-a-bot.md)")


TOML_DEPTH = 8  # arrays and tables inside each other, table headers counted: bot.toml needs 3
ARG_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
FILE_NAME_BYTES = 255  # of each part of a path, as on Linux


def _read_toml(path: Path) -> dict[str, Any]:
    """bot.toml's table, read within bounds: its size, its nesting (tomllib's parser recurses
    into each array and inline table: deep enough, Python's recursion limit), and its integers
    (Python reads no integer of more than 4,300 digits)."""
    cap = limits.BOT_TOML_KB * 1024
    with open(path, "rb") as file:
        raw = file.read(cap + 1)
    if len(raw) > cap:
        raise BotError(f"{path} is over the {limits.BOT_TOML_KB} KiB a bot.toml may be")
    try:
        text = raw.decode()
    except UnicodeDecodeError as exc:
        raise BotError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if problem := _nesting_problem(text):
        raise BotError(f"{path}: {problem}")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BotError(f"{path} is not valid TOML: {exc}") from None
    except ValueError as exc:  # an integer too long for Python to read
        line, key, digits = _long_integer(text)
        if line:
            raise BotError(f"{path}: line {line} ({key}): an integer of {digits} digits; bot.toml takes "
                           "strings, and lists and tables of them") from None
        raise BotError(f"{path} holds a value that cannot be read: {exc}") from None
    except RecursionError:
        raise BotError(f"{path}: arrays or tables are nested too deep") from None


def _nesting_problem(text: str) -> str:
    """Why ``text`` nests arrays or tables more than TOML_DEPTH deep (naming the key and the
    line where it does), or "". A scan of TOML's brackets outside its strings and comments."""
    depth, line, key, quote, table = 0, 1, "", "", ""
    statement: list[str] = []  # the characters of the line so far, outside brackets: the key of a `key = value`
    i = 0
    while i < len(text):
        char = text[i]
        if quote:  # inside a string: ", ', \"\"\" or '''
            if char == "\\" and quote[0] == '"':
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
            line += char == "\n"
            i += 1
            continue
        if char in "\"'":
            quote = char * 3 if text.startswith(char * 3, i) else char
            i += len(quote)
            continue
        if char == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        if char == "[" and depth == 0 and not "".join(statement).strip():  # a table header: [build]
            end = text.find("\n", i) % (len(text) + 1)  # the line's end, or the text's
            table, i = text[i:end].partition("#")[0].strip(" \t[]"), end
            continue
        if char in "[{":
            if depth == 0:
                key = "".join(statement).partition("=")[0].strip() or key
                key = f"[{table}] {key}" if table else key
            depth += 1
            if depth > TOML_DEPTH:
                return f"line {line} ({key or 'a table header'}): arrays or tables nested more than {TOML_DEPTH} deep"
        elif char in "]}":
            depth = max(0, depth - 1)
        elif char == "\n":
            line += 1
            if depth == 0:
                statement = []
        elif depth == 0:
            statement.append(char)
        i += 1
    return ""


def _long_integer(text: str) -> tuple[int, str, int]:
    """The line, key and length of the first integer of text too long for Python to read."""
    for number, line in enumerate(text.splitlines(), 1):
        if match := re.search(rf"[0-9][0-9_]{{{sys.get_int_max_str_digits() - 1},}}", line):
            return number, line.partition("=")[0].strip(), len(match[0].replace("_", ""))
    return 0, "", 0


def _build_args(path: Path, args: Any) -> dict[str, str]:
    """[build] args: a table of at most BUILD_ARGS strings, each named as a build argument is
    and at most BUILD_ARG_CHARS long. BASE is Arena's: the base image."""
    if not isinstance(args, dict) or not all(isinstance(v, str) for v in args.values()):
        raise BotError(f"{path}: [build] args must be a table of strings")
    if len(args) > limits.BUILD_ARGS:
        raise BotError(f"{path}: [build] args holds {len(args)} build arguments, over {limits.BUILD_ARGS}")
    for name, value in args.items():
        where = f"[build] args {_shown(name)}"
        if not ARG_NAME.fullmatch(name):
            raise BotError(f"{path}: {where}: {_shown(name)} cannot name a build argument (a letter or '_', "
                           "then letters, digits or '_')")
        if name == "BASE":
            raise BotError(f"{path}: {where}: BASE is Arena's: the build gets the base image of its language as "
                           "BASE")
        if problem := _text_problem(where, value, limits.BUILD_ARG_CHARS):
            raise BotError(f"{path}: {problem}")
    return dict(args)


def _text_problem(what: str, value: str, chars: int) -> str:
    """Why ``value`` cannot be a name or a path in bot.toml (``what``: its key), or ""."""
    if len(value) > chars:
        return f"{what} is over {chars} characters"
    if bad := next((c for c in value if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")), None):
        return f"{what} holds a control character (U+{ord(bad):04X}): no control or invisible characters"
    return ""


def _shown(value: str, chars: int = 40) -> str:
    """A hostile string as an error message shows it: quoted and escaped, and cut short."""
    return repr(value[:chars]) + ("..." if len(value) > chars else "")


def _listed(values: list[str], most: int = 8) -> str:
    shown = ", ".join(_shown(v) for v in values[:most])
    return shown + (f" and {len(values) - most} more" if len(values) > most else "")


def _confined(toml: Path, root: Path, key: str, value: Any) -> Path:
    """The resolved path of ``[build] key``, which must lead to a place inside ``root``."""
    if not isinstance(value, str) or not value:
        raise BotError(f"{toml}: [build] {key} must be a path relative to the bot folder")
    if problem := _text_problem(f"[build] {key}", value, limits.UPLOAD_PATH_CHARS):
        raise BotError(f"{toml}: {problem}")
    if long := next((p for p in Path(value).parts if len(p.encode()) > FILE_NAME_BYTES), None):
        raise BotError(f"{toml}: [build] {key}: the name {_shown(long)} is over {FILE_NAME_BYTES} bytes")
    if Path(value).is_absolute():
        raise BotError(f"{toml}: [build] {key} {value!r} is an absolute path; "
                       "give a path relative to the bot folder")
    resolved = Path(os.path.realpath(toml.parent / value))  # through every symlink on the way
    if not resolved.is_relative_to(root):
        raise BotError(f"{toml}: [build] {key} {value!r} leads outside the bot folder; "
                       f"a build may read only what is inside {root}")
    return resolved
