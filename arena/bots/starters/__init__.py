"""Starter kits: one ready bot folder per language, which ``arena bot new`` writes.

Each ``arena/bots/starters/<language>/`` holds the files of a random bot in that language (a
Dockerfile on the language's offline base image, a ``bot.toml`` and the code), with
placeholders that :func:`render` fills in: ``{{name}}`` and ``{{version}}`` (bare, valid in any
string literal since both are checked against the bot rules first), ``{{author}}`` and
``{{games}}`` (TOML values). They are package data of ``arena``, not read from
``sample_bots/``: an installed Arena has no checkout. ``sample_bots/<language>/random/`` is
this output, which a test keeps so (tests/cli/test_bot_new.py).
"""

from __future__ import annotations

import json
import os
import tempfile
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from arena_games import GAMES

from ..config import BotError, load_bot_config, name_problem, version_problem
from ..images import LANGUAGES

# What each starter builds on, for ``arena bot new --list-languages``; the protocol is its bot.toml's.
KITS = {
    "python": "the Python kit (arenabot)",
    "javascript": "the JavaScript kit (require('arenabot'))",
    "go": "the Go kit (arena/arenabot), compiled in the build",
    "cpp": "the C++ kit (arenabot.h), compiled and linked statically in the build",
    "shell": "awk through the stdio adapter (JSON lines): the way for any other language",
}
MAX_AUTHOR = 128  # the store's column
FILE_MODE, DIR_MODE = 0o644, 0o755  # whatever the umask: the image's bot user (10001) must read what COPY puts in


@dataclass(frozen=True)
class Starter:
    language: str
    protocol: str
    description: str
    base: str  # the base image's name


def starters() -> dict[str, Starter]:
    """Every starter, by language, in the order of :data:`KITS`."""
    out = {}
    for language, description in KITS.items():
        toml = tomllib.loads(render(_files(language)["bot.toml"], "x", "0", "x", ()))
        out[language] = Starter(language, toml.get("protocol", "grpc"), description, LANGUAGES[language].name)
    return out


def _files(language: str) -> dict[str, str]:
    """The template files of a starter, by name (read through importlib: works from a wheel too)."""
    folder = resources.files(__name__).joinpath(language)
    return {entry.name: entry.read_text(encoding="utf-8") for entry in folder.iterdir() if entry.is_file()}


def render(text: str, name: str, version: str, author: str, games: tuple[str, ...]) -> str:
    games_toml = json.dumps(list(games)) if games else "[]  # empty: every game"
    # json.dumps of a printable string is a valid TOML basic string (its escapes are TOML's)
    return (text.replace("{{name}}", name).replace("{{version}}", version)
            .replace("{{author}}", json.dumps(author, ensure_ascii=False)).replace("{{games}}", games_toml))


def new_bot(folder: Path, language: str, name: str, version: str = "0.1.0", author: str = "Arena",
            games: tuple[str, ...] = ()) -> list[str]:
    """Writes the starter of ``language`` as the bot ``name`` into ``folder``, which must not exist
    or be empty; the names of the files written. Raises :class:`BotError` on any bad input, and
    then writes nothing."""
    known = starters()
    if language not in known:
        raise BotError(f"no starter for the language {language!r}; known: {', '.join(known)} "
                       "(any other language: shell, which speaks the stdio protocol: docs/writing-a-bot.md)")
    problems = [name_problem(name), version_problem(version)]
    if not author.strip() or not author.isprintable() or len(author) > MAX_AUTHOR:
        problems.append(f"author {author!r} must be printable text, not empty, at most {MAX_AUTHOR} characters")
    unknown = [game for game in games if game not in GAMES]
    if unknown:
        problems.append(f"unknown game(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(GAMES))}")
    if problem := next((p for p in problems if p), None):
        raise BotError(problem)
    existing = _refuse_existing(folder)
    files = {file: render(text, name, version, author, tuple(dict.fromkeys(games)))
             for file, text in _files(language).items()}
    # Written beside the target and checked as `arena bot build` reads it first: a bad starter
    # leaves nothing half written. A new folder is then renamed into place (rename(2) refuses a
    # target made non-empty meanwhile); an empty one is filled, never overwriting a file.
    scratch: Path | None = None
    try:
        parent = folder.absolute().parent
        parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=parent))
        _write(scratch, files)
        load_bot_config(scratch)
        if existing:
            _write(folder, files)
        else:
            scratch.chmod(DIR_MODE)
            os.rename(scratch, folder)
    except FileExistsError as exc:
        raise BotError(f"{exc.filename} appeared meanwhile: stopped rather than overwrite it") from None
    except OSError as exc:
        raise BotError(f"cannot write {folder}: {exc.strerror or exc}") from None
    finally:
        if scratch is not None and scratch.exists():
            for path in scratch.iterdir():
                path.unlink()
            scratch.rmdir()
    return sorted(files)


def _write(folder: Path, files: dict[str, str]) -> None:
    for file, text in files.items():
        path = folder / file
        with open(path, "x", encoding="utf-8") as out:
            out.write(text)
        path.chmod(FILE_MODE)


def _refuse_existing(folder: Path) -> bool:
    """Whether ``folder`` exists (as an empty folder); refuses anything else that exists."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise BotError(f"{folder} exists and is not a folder; nothing was written (give another NAME or --out)")
    if folder.is_dir() and any(folder.iterdir()):
        raise BotError(f"{folder} exists and is not empty; nothing was written (give another NAME or --out)")
    return folder.is_dir()
