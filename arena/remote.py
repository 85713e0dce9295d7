"""The HTTP client of a remote Arena server, for its submissions (``arena bot submit --server``):
pack a bot folder as the server would accept it, upload it, and follow the submission until it
is entered or refused, passing on its build log and check report as they come. (Not the bot
kit's ``arenabot.client``, which is a bot's side of the gRPC protocol.)"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from referee.textlog import printable

from .bots.config import load_bot_config

Say = Callable[[str], None]
LINE = 300  # characters of one printed line
POLL_S = 1.0
PATIENCE_S = 60.0  # how long following a submission survives a server that does not answer


class ServerError(Exception):
    """The server could not be reached, or refused the request; the message is one sentence."""


class Unreachable(ServerError):
    """No answer from the server (down, restarting, or the network)."""


@dataclass(frozen=True)
class Followed:
    entered: bool
    submission: dict[str, Any]


def submit_to_server(server: str, token: str, folder: Path, leagues: Sequence[str] = (), retire_previous: bool = True,
                     say: Say = print, log_say: Say = print, report_say: Say = print,
                     timeout: float = 120.0, team: str | None = None) -> Followed:
    """Packs ``folder`` (refusing here what the server would refuse: ``UploadRefused``, or
    ``BotError`` for a bad bot.toml), uploads it to ``server`` with ``token``, then follows the
    submission (for ``team``, if given: a team the token's account is in): ``say`` gets our lines
    (status changes), ``log_say`` each new line of the build
    log and ``report_say`` of the check report, all escaped. Raises :class:`ServerError`."""
    from .bots.upload import pack_folder

    base = _base_url(server)
    if not token:
        raise ServerError("no API token: give --token or set $ARENA_TOKEN (an admin makes one with "
                          "`arena user add NAME` or `arena user token NAME`)")
    config = load_bot_config(folder)
    archive = pack_folder(folder)
    say(f"uploading {printable(config.name)} {printable(config.version)} ({len(archive) / 1024:.1f} KiB) to {base} ...")
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as client:
        reply = _request(client, "POST", "/api/v1/submissions", base,
                         files={"archive": (f"{config.name}.tar.gz", archive, "application/gzip")},
                         data={"leagues": list(leagues), "retire_previous": "true" if retire_previous else "false",
                               **({"team": team} if team else {})})
        submission = reply.json()
        say(f"submission {submission['id']}: {base}{submission['url']}")
        return _follow(client, base, submission, say, log_say, report_say)


def _base_url(server: str) -> str:
    base = server.strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ServerError(f"--server {server!r} is not a URL: give one such as http://arena.example.org:8000")
    return base


def _request(client: httpx.Client, method: str, path: str, base: str, **kwargs: Any) -> httpx.Response:
    try:
        reply = client.request(method, path, **kwargs)
    except httpx.ConnectError as exc:
        raise Unreachable(f"cannot reach the Arena server at {base}: {_reason(exc)}") from None
    except httpx.TimeoutException:
        raise Unreachable(f"the Arena server at {base} did not answer in time") from None
    except httpx.HTTPError as exc:
        raise Unreachable(f"the connection to the Arena server at {base} failed: {_reason(exc)}") from None
    if reply.is_success:
        return reply
    try:
        detail = str(reply.json().get("detail", ""))
    except ValueError:
        detail = reply.text[:200]
    detail = printable(detail, 2000)
    if reply.status_code == 401:
        raise ServerError(f"the server refused the API token (401): {detail}")
    if reply.status_code == 413:
        raise ServerError(f"the server refused the upload as too large (413): {detail}")
    raise ServerError(f"the server refused it ({reply.status_code}): {detail}")


def _reason(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return printable(text.split("] ")[-1], 200)  # "[Errno 111] Connection refused" -> "Connection refused"


def _follow(client: httpx.Client, base: str, submission: dict[str, Any], say: Say, log_say: Say,
            report_say: Say) -> Followed:
    printed = {"log": 0, "report": 0}
    announced: list[str] = []
    last_answer = time.monotonic()

    def announce(status: str) -> None:
        if status not in announced:
            announced.append(status)
            say(f"status: {status}")

    def new_lines(key: str, out: Say) -> None:
        lines = submission[key].split("\n") if submission.get(key) else []
        for line in lines[printed[key]:]:
            out(printable(line, LINE))
        printed[key] = len(lines)

    while True:
        # in the order things happen, however many steps one poll missed
        status = submission["status"]
        announce("queued")
        if status != "queued" and (status != "refused" or submission["log"]):
            announce("building")
        new_lines("log", log_say)
        if status in ("checking", "entered") or (status == "refused" and submission["report"]):
            announce("checking")
        new_lines("report", report_say)
        if submission["finished"]:
            announce(status)
            return Followed(status == "entered", submission)
        submission, last_answer = _poll(client, base, submission, last_answer, "submission")


def _poll(client: httpx.Client, base: str, thing: dict[str, Any], last_answer: float,
          what: str) -> tuple[dict[str, Any], float]:
    """After :data:`POLL_S`, ``thing``'s next answer and when the server last answered; a server
    gone for longer than :data:`PATIENCE_S` is an error (the work goes on there without us)."""
    time.sleep(POLL_S)
    try:
        return _request(client, "GET", thing["api_url"], base).json(), time.monotonic()
    except Unreachable as exc:
        if time.monotonic() - last_answer > PATIENCE_S:
            raise ServerError(f"{exc}; the {what} goes on without you: {base}{thing['url']}") from None
        return thing, last_answer



SCRIMMAGE_PATIENCE_S = 3600.0  # how long `arena scrimmage` waits for its scrimmage to end


def scrimmage_on_server(server: str, token: str, bot: str, opponents: Sequence[str], game: str | None = None,
                        games: int | None = None, say: Say = print, wait: float = SCRIMMAGE_PATIENCE_S,
                        timeout: float = 60.0) -> dict[str, Any]:
    """Asks ``server`` for a scrimmage of ``bot`` against ``opponents`` and follows it until it is
    done or failed (``say`` gets each change of its state and progress, escaped); returns its last
    answer (``ScrimmageOut``). Raises :class:`ServerError` (refused, unreachable, or not done within
    ``wait`` seconds: it goes on without us)."""
    base = _base_url(server)
    if not token:
        raise ServerError("no API token: give --token or set $ARENA_TOKEN")
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    body: dict[str, Any] = {"bot": bot, "opponents": list(opponents)}
    if game:
        body["game"] = game
    if games is not None:
        body["games"] = games
    with httpx.Client(base_url=base, headers=headers, timeout=timeout) as client:
        scrimmage = _request(client, "POST", "/api/v1/scrimmages", base, json=body).json()
        say(f"scrimmage {scrimmage['id']}: {base}{scrimmage['url']}")
        shown = ("", -1)
        start = last_answer = time.monotonic()
        while True:
            state = (scrimmage["status"], scrimmage["played"])
            if state != shown:
                say(f"{printable(state[0])}: {state[1]} of {scrimmage['games']} games played")
                shown = state
            if scrimmage["status"] in ("done", "failed"):
                return scrimmage
            if time.monotonic() - start > wait:
                raise ServerError(f"not over after {wait:g} s; it goes on without you: {base}{scrimmage['url']}")
            scrimmage, last_answer = _poll(client, base, scrimmage, last_answer, "scrimmage")
