"""What a bot's build may read, checked before the engine sees it: the build context (no symlink
leading out of the root, nothing but files, folders and symlinks) and the Dockerfile (FROM and
COPY --from name one of Arena's bases or an earlier stage, nothing else; no ADD of a URL), read
by a parser of its own that splits lines as the engine's does."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors

from .config import BotConfig, BotError
from .images import BASE_IMAGES

REMOTE_SOURCE = re.compile(r"://|^git@|\$")  # a URL, a git repository, or a variable that may hold one


def check_context(config: BotConfig) -> None:
    """Refuses what would bring something of the host into the build: a symlink leading out of
    the root (Docker would copy the link, but an author's folder has no use for one), or anything
    but files, folders and symlinks (docker-py would read a FIFO named .dockerignore forever)."""
    for folder, dirs, files in os.walk(config.context):
        for name in dirs + files:
            path = Path(folder, name)
            mode = path.lstat().st_mode
            shown = str(path.relative_to(config.root))
            if stat.S_ISLNK(mode) and not Path(os.path.realpath(path)).is_relative_to(config.root):
                raise BotError(f"{shown!r} is a symlink leading out of the bot folder (to {os.readlink(path)!r}); "
                               f"a build may read only what is inside {config.root}")
            if not (stat.S_ISLNK(mode) or stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise BotError(f"{shown!r} is not a file, a folder or a symlink; a bot folder holds nothing else")


def check_dockerfile(client: docker.DockerClient, config: BotConfig) -> None:
    """Refuses what would bring into the build anything but the bot folder and Arena's base
    images: a ``FROM`` of any other image, a ``COPY --from`` of anything but an earlier stage (a
    bot's image, or any step of its build, by id or by a prefix of its id: a RUN step would print
    its files into the build log, which goes back to the author; or an image not on this engine,
    which the engine would pull), the same in an ``ONBUILD`` trigger (which runs in a later
    stage), and an ADD of a URL (the engine downloads it itself, with the host's own network).
    The Dockerfile is read as the engine's own parser reads it (:func:`instructions`), and what
    is not plainly allowed is refused: no variable but ``${BASE}`` in a FROM."""
    stages: list[str] = []  # the names of the stages so far ("" for one without a name)
    for number, keyword, flags, args in instructions(config.dockerfile.read_bytes(), config.dockerfile.name):
        where = f"{config.dockerfile.name}, line {number}"
        if keyword == "onbuild":  # its trigger runs where a later stage starts FROM this one: as late a check
            trigger, flags, args = _split_command(args, where)
            if trigger in ("from", "onbuild"):
                raise BotError(f"{where}: ONBUILD {trigger.upper()} is refused: a trigger may not start a stage")
            _check_instruction(where, trigger, flags, args, stages)
        elif keyword == "from":
            stages.append(_check_from(client, where, flags, args, stages))
        else:
            _check_instruction(where, keyword, flags, args, stages)


def _check_instruction(where: str, keyword: str, flags: list[str], args: str, stages: list[str]) -> None:
    """The checks of an instruction other than FROM and ONBUILD."""
    if keyword in ("copy", "add"):
        for flag in flags:
            name, _, value = flag.removeprefix("--").partition("=")
            if name.lower() == "from":
                _check_copy_from(where, keyword.upper(), value, stages)
        if keyword == "add":
            for source in _add_sources(args):
                if REMOTE_SOURCE.search(source):
                    raise BotError(f"{where}: ADD {source!r} is refused: ADD downloads a URL (which a variable "
                                   "may hold) with the Docker engine's own network. Bot builds are offline: "
                                   "put the file in the bot folder and COPY it")
    elif keyword == "run" and flags:
        raise BotError(f"{where}: RUN {flags[0]!r} is refused: RUN takes no flags in a bot's build")


FROM_ALLOWED = ("start from Arena's base image (FROM ${BASE}; or another of Arena's bases by its exact tag or "
                "id), from an earlier stage of this Dockerfile by its name, or from scratch")


def _check_from(client: docker.DockerClient, where: str, flags: list[str], args: str, stages: list[str]) -> str:
    """Checks a FROM; returns the name of the stage it starts (or "")."""
    if flags:
        raise BotError(f"{where}: FROM {flags[0]!r} is refused: FROM takes no flags in a bot's build (the image is "
                       "built for this host's platform)")
    words = ASCII_BLANKS.split(args) if args else []
    if len(words) not in (1, 3) or (len(words) == 3 and words[1].lower() != "as"):
        raise BotError(f"{where}: FROM takes an image and, optionally, AS and a stage name")
    image = words[0]
    # Only literals: the engine expands the meta ARGs in a FROM, and Arena sets BASE itself.
    # A stage is found by its name, lower-cased; anything else, an id's prefix too, is an image.
    if not (image in ("${BASE}", "$BASE", "scratch") or (image.isascii() and image.lower() in stages)
            or image in _arena_bases(client)):
        raise BotError(f"{where}: FROM {image!r} is refused: a bot's build may {FROM_ALLOWED}; it reads no other "
                       "image (another bot's holds its author's code) and pulls nothing")
    if len(words) < 3:
        return ""
    name = words[2]
    if not (name.isascii() and STAGE_NAME.fullmatch(name.lower())):
        raise BotError(f"{where}: {name!r} cannot name a stage: a letter, then letters, digits, '-', '_' or '.'")
    return name.lower()


def _check_copy_from(where: str, keyword: str, value: str, stages: list[str]) -> None:
    """A ``--from`` names an earlier stage, by its name or its number; the engine takes anything
    else for an image (a stage's number is an image's id prefix once out of range)."""
    earlier = stages[:-1]  # the stage this instruction is in is not finished
    if value.isascii() and (value.lower() in [s for s in earlier if s]
                            or (re.fullmatch(r"[+-]?[0-9]{1,9}", value) and 0 <= int(value) < len(earlier))):
        return
    raise BotError(f"{where}: {keyword} --from={value!r} is refused: --from names an earlier stage of this Dockerfile, "
                   "by its name or its number; a build reads no other image (another bot's holds its author's code)")


def _arena_bases(client: docker.DockerClient) -> dict[str, str]:
    """Every reference to one of Arena's base images that a FROM may give, to its image id: its
    content tag, its ``:latest`` while that is the same image, and its id."""
    bases: dict[str, str] = {}
    for base in BASE_IMAGES:
        with contextlib.suppress(docker.errors.APIError):
            image_id = client.api.inspect_image(base.tag)["Id"]
            bases.update({base.tag: image_id, image_id: image_id})
            with contextlib.suppress(docker.errors.APIError):
                if client.api.inspect_image(f"{base.name}:latest")["Id"] == image_id:
                    bases[f"{base.name}:latest"] = image_id
    return bases


def _add_sources(args: str) -> list[str]:
    """ADD's sources, in its JSON form (the engine decodes the first JSON value and ignores what
    follows it) and in its shell form: each is checked, whichever the engine takes."""
    words = ASCII_BLANKS.split(args) if args else []
    sources = words[:-1]
    with contextlib.suppress(ValueError):
        value, _ = json.JSONDecoder().raw_decode(args)
        if isinstance(value, list):
            sources += [str(word) for word in value[:-1]]
    return sources


# -- the engine's Dockerfile parser, as the classic builder of Docker 20.10 vendors it (moby/buildkit
# frontend/dockerfile/parser): lines split at \n only, a BOM dropped, parser directives only until
# the first line that is none, the escape character's own continuation rule, comments dropped inside
# a continuation, Go's notion of white space. Read differently, a line could hide a FROM from this
# check that the engine then runs.
GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
           "\u2028\u2029\u202f\u205f\u3000"  # unicode.IsSpace
GO_SPACE_BYTES = b"\t\n\v\f\r \x85\xa0"  # unicode.IsSpace of a byte taken as a rune
ASCII_BLANKS = re.compile(r"[\t\v\f\r ]+")  # the parser's reWhitespace
DIRECTIVE = re.compile(r"#[\t\n\f\r ]*([a-zA-Z][a-zA-Z0-9]*)[\t\n\f\r ]*=[\t\n\f\r ]*(.+?)[\t\n\f\r ]*\Z")
STAGE_NAME = re.compile(r"[a-z][a-z0-9_.-]*")
MAX_LINE = 64 * 1024 - 1  # bufio.Scanner's: the engine refuses a longer line


def instructions(data: bytes, name: str = "Dockerfile") -> Iterator[tuple[int, str, list[str], str]]:
    """A Dockerfile's instructions as the engine's parser splits them: (first line, keyword in
    lower case, flags, arguments). A keyword that is not ASCII is refused (the engine lower-cases
    it by Unicode's rules, which could make one of its keywords)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
    if lines:
        lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
    for number, size in enumerate(map(len, lines), 1):
        if size > MAX_LINE:
            raise BotError(f"{name}, line {number}: a line is longer than {MAX_LINE} bytes")
    escape, done, seen = "\\", False, set()

    where = name

    def directive(line: str, number: int) -> None:
        nonlocal escape, done
        if done:
            return
        match = DIRECTIVE.match(line)
        found = match[1].lower() if match else ""
        if match is None or found not in ("escape", "syntax"):
            done = True
            return
        if found in seen:
            raise BotError(f"{where}, line {number}: only one {found} parser directive can be used")
        seen.add(found)
        if found == "escape":
            if match[2] not in ("`", "\\"):
                raise BotError(f"{where}, line {number}: the escape character must be ` or \\")
            escape = match[2]

    def continued(line: str) -> tuple[str, bool]:
        e = re.escape(escape)
        joined, found = re.subn(rf"([^{e}]){e}[ \t]*\Z|^{e}[ \t]*\Z", lambda m: m[1] or "", line, count=1)
        return joined, found == 1

    text = [line.decode("utf-8", "surrogateescape") for line in lines]
    index = 0
    while index < len(text):
        raw, index = text[index], index + 1
        first = index
        token = raw.lstrip(GO_SPACE)
        directive(token, index)
        line, more = continued("" if token.startswith("#") else token)
        if not more and line == "":
            continue
        while more and index < len(text):
            raw, index = text[index], index + 1
            directive(raw, index)
            if raw.lstrip(GO_SPACE).startswith("#"):
                continue  # a comment inside an instruction
            part = "" if raw.startswith("#") else raw
            if part.lstrip(GO_SPACE) == "":
                continue  # an empty continuation line
            part, more = continued(part)
            line += part
        yield first, *_split_command(line, f"{where}, line {first}")


def _split_command(line: str, where: str) -> tuple[str, list[str], str]:
    """The parser's splitCommand: the keyword, the flags (``--name=value`` words before the
    arguments, quotes and backslashes as its extractBuilderFlags reads them) and the rest."""
    keyword, *rest = ASCII_BLANKS.split(line.strip(GO_SPACE), maxsplit=1)
    if not keyword.isascii():
        raise BotError(f"{where}: the instruction {keyword!r} is not one: an instruction is ASCII")
    flags: list[str] = []
    args = ""
    if rest:
        args, flags = _extract_flags(rest[0].encode("utf-8", "surrogateescape"))
        for flag in flags:
            if not flag.isascii():
                raise BotError(f"{where}: the flag {flag!r} is not ASCII")
    return keyword.lower(), flags, args.strip(GO_SPACE)


def _extract_flags(line: bytes) -> tuple[str, list[str]]:
    """extractBuilderFlags, byte for byte as the engine runs it (a byte taken as a rune: a
    non-ASCII byte in a flag comes out as another character, so such a flag is refused)."""
    words: list[str] = []
    word, quote, blank_ok, phase = "", 0, False, "spaces"
    pos = 0
    while pos <= len(line):
        ch = line[pos] if pos < len(line) else 0
        if phase == "spaces":
            if pos == len(line):
                break
            if ch in GO_SPACE_BYTES:
                pos += 1
                continue
            if ch != ord("-") or pos + 1 == len(line) or line[pos + 1] != ord("-"):
                return line[pos:].decode("utf-8", "surrogateescape"), words
            phase = "word"
        if phase in ("word", "quote") and pos == len(line):
            if word != "--" and (blank_ok or word):
                words.append(word)
            break
        if phase == "word":
            if ch in GO_SPACE_BYTES:
                phase = "spaces"
                if word == "--":
                    return line[pos:].decode("utf-8", "surrogateescape"), words
                if blank_ok or word:
                    words.append(word)
                word, blank_ok = "", False
                pos += 1
                continue
            if ch in b"'\"":
                quote, blank_ok, phase = ch, True, "quote"
                pos += 1
                continue
            if ch == ord("\\"):
                if pos + 1 == len(line):
                    pos += 1
                    continue
                pos += 1
                ch = line[pos]
            word += chr(ch)
            pos += 1
            continue
        if phase == "quote":
            if ch == quote:
                phase = "word"
                pos += 1
                continue
            if ch == ord("\\"):
                if pos + 1 == len(line):
                    phase = "word"
                    pos += 1
                    continue
                pos += 1
                ch = line[pos]
            word += chr(ch)
            pos += 1
    return "", words
