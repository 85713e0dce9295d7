"""The stdio adapter: plays a match for a program that speaks JSON lines instead of gRPC.

    python3 -m arenabot.stdio --name NAME [--version VERSION] [--games GAME,...] [--] CMD [ARG...]

Every Arena base image has it as ``arena-stdio``; a bot whose bot.toml says ``protocol =
"stdio"`` runs under it, its image's ENTRYPOINT and CMD as ``CMD``, its bot.toml's name,
version and games as the options. The adapter runs ``CMD`` as a child, says hello to the
referee for it (the kit's client loop, :func:`arenabot.client.serve`), writes each of the
referee's messages to the child's stdin as one line of JSON, and sends back the line the
child writes on its stdout for each decision; the child's stderr is the bot's log.
docs/protocol.md gives the lines ("The stdio protocol") and how a child's failings reach the
referee as the usual failure reasons ("Failures through the adapter": :data:`SHOWN`,
:data:`LINE_CAP`, :data:`LATE_S`). While a decision is pending the adapter waits on the child
alone, one write then a blocking read: cheaper than any event loop round.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

import grpc

from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb

from .client import Player, serve
from .debugtext import debug

# The longest answer line kept, in bytes: the referee's cap on a bot's message
# (referee/limits.py MAX_BOT_MESSAGE; a test holds the two together).
LINE_CAP = 64 * 1024
SHOWN = 100  # characters of an answer that is not a legal action, sent on for the referee to judge
EXIT_WAIT_S = 5.0  # after the match end (its stdin closed), the time the child has to exit
GONE_WAIT_S = 1.0  # after it closed its stdout or stdin, the time the child has to exit
LATE_S = 1.0  # past the decision's time, when the referee has given up on it: the child is stopped
PREFIX = "arena-stdio: "  # on every line the adapter itself writes to stderr


def _say(text: str) -> None:
    print(PREFIX + text, file=sys.stderr, flush=True)


class StdioPlayer(Player):
    """A child process, told every referee message as a JSON line and asked for each decision."""

    def __init__(self, command: Sequence[str]) -> None:
        env = {k: v for k, v in os.environ.items() if k != "ARENA_SOCKET"}  # the adapter's, not the child's
        # stderr is inherited: the child's log goes where the adapter's goes, unbuffered and unparsed
        self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._stdin_pipe = self.proc.stdin  # closed by end()
        self._stdin = self.proc.stdin.fileno()
        self._stdout = self.proc.stdout.fileno()
        self._read = bytearray()  # what the child wrote past its last answer

    # -- the referee's messages, as lines ----------------------------------------------------
    def match_start(self, msg: pb.MatchStart) -> None:
        tc = msg.time_control
        self._send({"type": "match_start", "match_id": msg.match_id, "game": msg.game,
                    "num_players": msg.num_players, "num_games": msg.num_games, "settings": dict(msg.settings),
                    "time_control": {"startup_ms": tc.startup_ms, "decision_ms": tc.decision_ms,
                                     "bank_ms": tc.bank_ms, "increment_ms": tc.increment_ms,
                                     "match_bank_ms": tc.match_bank_ms},
                    "engine_version": msg.engine_version})

    def game_start(self, msg: pb.GameStart) -> None:
        self._send({"type": "game_start", "game_index": msg.game_index, "seat": msg.seat,
                    "num_players": msg.num_players, "players": [_player(p) for p in msg.players],
                    "seed": msg.seed})

    def decide(self, request: pb.DecisionRequest) -> pb.Action:
        actions = request.legal_actions
        legal = [a.text for a in actions]
        self._send({"type": "decision", "legal": " ".join(legal), "decision_id": request.decision_id,
                    "view": codec.decode_view(request.view, request.events), "legal_actions": legal,
                    "time_left_ms": request.time_left_ms, "bank_left_ms": request.bank_left_ms,
                    "match_bank_left_ms": request.match_bank_left_ms})
        line, whole = self._answer(request.decision_id, request.time_left_ms)
        answer, said = _read_answer(line, whole)
        if said:
            debug(said)  # sent with the reply, as a kit bot's
        try:
            return actions[legal.index(answer)]
        except ValueError:  # sent on as it is: the referee judges it
            _say(f"the answer to decision {request.decision_id}, {answer!r}, is not among the legal actions")
            return pb.Action(text=answer)

    def game_end(self, msg: pb.GameEnd) -> None:
        self._send({"type": "game_end", "game_index": msg.game_index,
                    "results": [{"seat": r.seat, "score": r.score, "rank": r.rank, "failure": r.failure,
                                 "player": _player(r.player)} for r in msg.results],
                    "events": codec.decode_events(msg.events)})

    def match_end(self, msg: pb.MatchEnd) -> None:
        self._send({"type": "match_end", "match_id": msg.match_id})  # then end() closes its stdin

    # -- the pipes ----------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        data = memoryview((json.dumps(message) + "\n").encode())
        try:
            while data:  # a pipe takes a whole write unless a signal cuts it short
                data = data[os.write(self._stdin, data):]
        except OSError:  # the child closed its stdin, most likely by exiting
            self.end("closed its standard input", GONE_WAIT_S)

    def _answer(self, decision_id: int, time_left_ms: int) -> tuple[bytes, bool]:
        """The child's next line, and whether it is whole. A line over :data:`LINE_CAP` bytes is
        not kept but read to its end: only its first :data:`LINE_CAP` bytes are returned. A child
        that has not answered well after the referee gave up on it is stopped."""
        deadline = time.monotonic() + time_left_ms / 1000 + LATE_S
        buffer, head = self._read, None  # head: the start of an over-long line
        while True:
            end = buffer.find(b"\n")
            if head is not None or end > LINE_CAP or (end < 0 and len(buffer) > LINE_CAP):
                if head is None:
                    head = bytes(buffer[:LINE_CAP])
                if end >= 0:
                    del buffer[:end + 1]
                    return head, False
                buffer.clear()
            elif end >= 0:
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                return line, True
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([self._stdout], [], [], wait)[0]:
                _say(f"the bot did not answer decision {decision_id} within its {time_left_ms} ms: stopped")
                self.proc.kill()
                self.end(wait=GONE_WAIT_S)
            chunk = os.read(self._stdout, 65536)
            if not chunk:
                self.end("closed its standard output", GONE_WAIT_S)
            buffer += chunk

    def end(self, why: str = "", wait: float = EXIT_WAIT_S) -> NoReturn:
        """Waits up to ``wait`` seconds for the child to exit (killing it after that), then exits
        the adapter as the child did. ``why``: what the child did that ends the match for it."""
        with contextlib.suppress(OSError):
            self._stdin_pipe.close()  # the bot's signal to exit, if not given yet
        try:
            code = self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            _say(f"the bot {why or 'was told the match is over'} but still runs {wait:g} s later: killed")
            self.proc.kill()
            code = self.proc.wait()
        _exit_as(code)


def _player(p: pb.Player) -> dict[str, str]:
    return {"name": p.name, "version": p.version}


# In the kept start of an over-long answer object: its action (action texts hold no quote or
# backslash), and as much of its debug string as is there, escapes whole.
_ACTION = re.compile(r'"action"\s*:\s*"([^"\\]{0,' + str(SHOWN) + '})"')
_DEBUG = re.compile(r'"debug"\s*:\s*"((?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)')


def _read_answer(line: bytes, whole: bool) -> tuple[str, str]:
    """The action and the debug text (``""``: none) of an answer line: an action's text, or a
    JSON object ``{"action": ..., "debug": ...}``. An over-long object (a debug text of
    megabytes) still gives its action, if it is in the kept start, and that start of its debug
    text: a long debug text is cut, never a failure. Anything else is the line itself, shown
    as :func:`_shown` shows it, for the referee to judge."""
    if line.lstrip().startswith(b"{"):
        text = line.decode("utf-8", "replace")
        if whole:
            try:
                data = json.loads(text, strict=False)  # a raw tab or ESC inside a string too: the referee escapes it
            except ValueError:
                data = None
            if isinstance(data, dict) and isinstance(data.get("action"), str):
                said = data.get("debug")
                return data["action"].strip(), said if isinstance(said, str) else ""
        else:
            action, said = _ACTION.search(text), _DEBUG.search(text)
            if action is not None:
                return action.group(1).strip(), json.loads(f'"{said.group(1)}"', strict=False) if said else ""
    shown = _shown(line)
    return (shown if whole else f"{shown} (a line of more than {LINE_CAP} bytes)"), ""


def _shown(line: bytes) -> str:
    text = line.decode("utf-8", "replace").strip()
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


def _exit_as(code: int) -> NoReturn:
    """Exits with status ``code`` as :class:`subprocess.Popen` reports it (a negative number: that
    signal), so that whoever watches the adapter sees the child's own ending."""
    sys.stderr.flush()
    if code < 0:
        with contextlib.suppress(OSError):  # SIGKILL has no handler to reset
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code  # a signal that does not end a process
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> NoReturn:
    parser = argparse.ArgumentParser(
        prog="arena-stdio", description="Plays an Arena match for a program that speaks JSON lines on "
        "stdin and stdout (docs/protocol.md, \"The stdio protocol\"). The referee's socket: $ARENA_SOCKET.")
    parser.add_argument("--name", required=True, help="the bot's name, for the hello")
    parser.add_argument("--version", default="0", help="the bot's version, for the hello")
    parser.add_argument("--games", default="", help="the games it plays, comma-separated (default: any)")
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="[--] CMD [ARG...]",
                        help="the bot's program and its arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command: give the bot's program and its arguments after the options")
    try:
        player = StdioPlayer(command)
    except OSError as exc:
        _say(f"cannot run {command[0]!r}: {exc.strerror}")
        _exit_as(127 if isinstance(exc, FileNotFoundError) else 126)  # as a shell says it
    try:
        serve(player, args.name, args.version, [g for g in args.games.split(",") if g])
    except (grpc.RpcError, asyncio.InvalidStateError) as exc:  # the referee is gone, or cut this seat off
        _say(f"the referee's stream broke: {exc.code().name if isinstance(exc, grpc.RpcError) else exc}")
        player.proc.kill()
        player.proc.wait()
        _exit_as(1)
    player.end()


if __name__ == "__main__":
    main()
