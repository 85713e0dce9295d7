"""A bot run as a local command (development: ``arena match --bot NAME=CMD``, ``arena bot check
--command CMD``): the stdio adapter's command line for a program that speaks JSON lines, and the
hint for a program run as a gRPC bot that never spoke gRPC.

A program that never opened the referee's socket is not retried under the adapter: the check
and the match report what the author asked to run, and say how to run it under the adapter.
A gRPC bot that dies at start (a missing module, a typo) fails the same way, and feeding it JSON
lines would only bury its own error under the adapter's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.seats import CRASH

from .config import BotError, _read_toml, name_problem, version_problem

# The referee's failure detail for a local bot that exited without ever opening its socket
# (referee/seats.py: a bot that opened it and then died "closed the stream before saying hello").
NEVER_CONNECTED = "exited before saying hello"
STDIO_HINT = "this looks like a stdio program: {fix} to run it under the stdio adapter (docs/protocol.md)"


@dataclass(frozen=True)
class LocalHello:
    """What the adapter says hello with for a local stdio program: bot.toml's, when the
    current folder has one (the version a match's results show), else the seat's name."""

    name: str
    version: str = ""
    games: tuple[str, ...] = ()
    source: str = ""  # the bot.toml it came from, or ""


def local_hello(name: str, folder: Path = Path("."), toml_name: bool = False) -> LocalHello:
    """The hello for a local stdio program named ``name`` (or, with ``toml_name``, bot.toml's
    name): the version and games of the bot.toml in ``folder`` (the author's bot folder, where
    they run the command), if there is one. A bot.toml that cannot be read raises BotError:
    its author would rather know."""
    path = folder / "bot.toml"
    if not path.is_file():
        return LocalHello(name)
    data = _read_toml(path)
    version, games = data.get("version", ""), data.get("games", [])
    if not isinstance(version, str) or version_problem(version):
        raise BotError(f"{path}: 'version' must be a version string")
    if toml_name and isinstance(data.get("name"), str) and not name_problem(data["name"]):
        name = data["name"]
    if not isinstance(games, list) or not all(isinstance(g, str) and not name_problem(g) for g in games):
        raise BotError(f"{path}: games must be a list of game names")
    return LocalHello(name, version, tuple(games), str(path))


def stdio_command(program: Sequence[str], hello: LocalHello) -> list[str]:
    """The command line that runs ``program`` under the stdio adapter (``arenabot.stdio``, of the
    Python kit that Arena installs), saying ``hello`` for it. ``=``: a value may start with '-'."""
    return [sys.executable, "-m", "arenabot.stdio", f"--name={hello.name}", f"--version={hello.version}",
            f"--games={','.join(hello.games)}", "--", *program]


def under_adapter(command: Sequence[str]) -> bool:
    """Whether ``command`` already runs a program under the stdio adapter."""
    return "arenabot.stdio" in command[:3] or bool(command) and Path(command[0]).name == "arena-stdio"


def never_spoke_grpc(reason: str, detail: str, connected: bool | None = None) -> bool:
    """Whether a bot's failure before its hello says it never spoke gRPC: it exited with code 0
    (a stdio program does, at the end of its input: its stdin is empty) without ever opening the
    referee's socket. A gRPC bot that dies at start exits with an error; one that hangs is no
    stdio program either. ``connected``: whether it opened the socket, where the caller saw
    (None: only the failure is known, as in a match's records, where such an exit says so)."""
    exited = reason == CRASH and detail.startswith(NEVER_CONNECTED) and "(exit code 0)" in detail
    return exited and not connected
