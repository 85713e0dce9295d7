"""A submission: a bot folder built, checked by playing it (``arena bot check``, see
``check.py``), and registered as a new bot version (``registry.py``).

A bot that fails to build or fails a check is refused, and nothing is registered.

Two ways in: :func:`submit_bot` (``arena bot submit`` on the league's machine: the operator's,
so the bot has no owner) and :func:`run_submission`, which the web server's worker calls for
each upload (``arena/web/submissions.py``): the same steps, for an author's account, with its
progress written to the submission's row as it comes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import docker
import docker.errors
from sqlalchemy import select

from referee import limits
from referee.sandbox import docker_client
from referee.textlog import printable

from .. import access, notifications
from ..accounts import Account, account_of
from ..league import LeagueError, NotAllowed, check_open, get_league
from ..store import Bot, Store, Submission, Team, User, rows_changed
from ..store.models import SubmissionStatus, now
from .build import BUILD_TIMEOUT, BuildResult, BuildUnavailable, build_bot
from .cache import remove_bot_image
from .check import CheckReport, check_bot
from .config import IMAGE_REPOSITORY, BotConfig, BotError, load_bot_config
from .registry import check_new_version, register_bot, registered

Say = Callable[[str], None]
log = logging.getLogger("arena.submissions")

FINISHED: tuple[SubmissionStatus, ...] = ("entered", "refused")
LINE_CHARS = 2000  # of one stored line of a build's output or of a report
FLUSH_S = 0.25  # a submission's row is written at most this often while it is built and checked


class SubmissionRefused(Exception):
    """A bot that did not build, pass the check or register; the message says why, and quotes
    the bot or its build (the check's lines come escaped; escape the rest before printing it)."""

    def __init__(self, message: str, report: CheckReport | None = None) -> None:
        super().__init__(message)
        self.report = report
        """When the bot failed the check: the whole report, and the bot's output."""


class Stopping(BotError):
    """The server is stopping: the submission in hand goes back to the queue. A BotError, so that
    a build it interrupts (raised from the build's ``say``) removes the images it made."""


def submit_bot(store: Store, folder: Path, league: str | Sequence[str] | None = None, root: Path | None = None,
               say: Say = lambda line: None, build_say: Say = lambda line: None,
               check_say: Say = lambda line: None) -> Bot:
    """Builds the bot folder (the build may read ``root``, see :func:`~arena.bots.config.load_bot_config`),
    checks its image (:func:`~arena.bots.check.check_bot`), registers it and enters it in
    ``league`` (a name, or several: as a submission to a server does); returns the registered bot.

    ``say`` gets our own progress lines, ``build_say`` each line of the build's output, and
    ``check_say`` the check's progress and report, line by line (escaped). A bad folder raises
    :class:`~arena.bots.config.BotError`, an unknown league or a version registered already
    :class:`~arena.league.LeagueError`, both before any build.
    """
    config = load_bot_config(folder, root)
    leagues = [league] if isinstance(league, str) else list(dict.fromkeys(league or ()))
    check_leagues(store, config, leagues)
    check_new_version(store, config.name, config.version)
    client = docker_client(timeout=120)
    try:
        built = _build(client, config, build_say)
        say(f"built {built.tag} ({built.size_mb:.0f} MiB); checking it ...")
        report = _check(built, check_say)
        registered_bot = _register(store, client, config, built, report, leagues)
    finally:
        client.close()
    say(f"registered {registered_bot.label}" + (f" in {'league' if len(leagues) == 1 else 'leagues'} "
                                                f"{', '.join(leagues)}" if leagues else ""))
    return registered_bot


def check_leagues(store: Store, config: BotConfig, leagues: Sequence[str]) -> None:
    """Each league exists, and plays a game that bot.toml says the bot plays (the hello may
    narrow that later: registering checks again)."""
    with store() as session:
        for name in leagues:
            league = get_league(session, name)  # an unknown league is refused before any build
            check_open(league)  # and a closed one
            if config.games and league.game not in config.games:
                raise LeagueError(f"league {name} plays {league.game}, and {config.name}'s bot.toml says it plays "
                                  f"only {', '.join(config.games)}")


def check_may_submit(store: Store, account: Account, name: str, team: int | None = None) -> None:
    """Raises :class:`~arena.league.NotAllowed` unless ``account`` may submit a version of the
    bot name ``name`` for ``team`` (a team's id; None: for itself) (:func:`arena.access.may_submit`:
    a new name, or one whose every version is its own, or that team's and it is in the team; a
    command-line bot's, the operator's, only an admin's)."""
    with store() as session:
        versions = session.execute(select(Bot.owner_id, Bot.team_id).where(Bot.name == name).distinct()).all()
        team_name = session.scalar(select(Team.name).where(Team.id == team)) if team is not None else None
        holders = {v.team_id for v in versions if v.team_id is not None}
        holder = session.scalar(select(Team.name).where(Team.id == min(holders))) if holders else None
        disqualified = session.scalars(select(Bot.version).where(Bot.name == name,
                                                                 Bot.disqualified_at.is_not(None))).all()
    if not access.may_enter_name(bool(v) for v in disqualified):
        which = printable(", ".join(disqualified), 200)
        raise NotAllowed(f"the bot name {name!r} has a disqualified version ({which}): "
                         "no new version of it is entered until an admin undoes that")
    if access.may_submit(account, versions, team):
        return
    if holder is not None and (team not in holders or team not in account.teams):
        raise NotAllowed(f"the bot name {name!r} belongs to team {holder}: only its members submit versions of it, "
                         f"for the team (the field team, or --team {holder}); pick another name")
    if team is not None and team not in account.teams:
        raise NotAllowed(f"you are not in team {team_name}: only its members submit its bots")
    refused = [v for v in versions if not access.may_submit(account, [v])]
    if team is not None and not refused:
        raise NotAllowed(f"the bot name {name!r} is yours and does not belong to team {team_name}: submit it without "
                         "a team, or pick another name for the team's bot")
    operators = any(v.owner_id is None for v in refused)
    whose = "the operator's (registered on the league's machine)" if operators else "another author's"
    raise NotAllowed(f"the bot name {name!r} is {whose}: only its owner submits versions of it; "
                     "pick another name")


def _build(client: docker.DockerClient, config: BotConfig, build_say: Say,
           seconds: float = BUILD_TIMEOUT) -> BuildResult:
    try:
        return build_bot(client, config, timeout=seconds, say=build_say)
    except (Stopping, BuildUnavailable):
        raise
    except BotError as exc:
        raise SubmissionRefused(str(exc)) from exc


def _check(built: BuildResult, check_say: Say) -> CheckReport:
    report = check_bot(image=built.tag, say=check_say)
    for line in report.text():
        check_say(line)
    if not report.ok:
        raise SubmissionRefused(f"{built.tag} failed {len(report.failed)} check(s):\n"
                                + "\n".join(f"  {line}" for line in report.failed), report)
    return report


def _register(store: Store, client: docker.DockerClient, config: BotConfig, built: BuildResult,
              report: CheckReport, leagues: Sequence[str], owner_id: int | None = None,
              retire_previous: bool = False, team_id: int | None = None) -> Bot:
    claimed = report.hello.get("games") or list(config.games)
    try:
        return register_bot(store, name=config.name, version=config.version, image=built.tag,
                            image_digest=client.api.inspect_image(built.tag)["Id"], language=config.language,
                            author=config.author, games=claimed, league=None, leagues=leagues, owner_id=owner_id,
                            retire_previous=retire_previous, team_id=team_id)
    except LeagueError as exc:
        raise SubmissionRefused(str(exc)) from exc


# -- submissions over HTTP: run by the web server's workers ----------------------------------------
RUNNING = ("building", "checking")


def next_queued(store: Store, most_per_author: int | None = None) -> int | None:
    """Claims the next queued submission (it becomes "building") and returns its id; None when
    none is queued, or when every author with one queued runs ``most_per_author`` already.

    Fair across authors, not oldest first: the next is the oldest queued submission of the
    author who runs the fewest now, and among those, who was served least recently (whose last
    submission that left the queue changed longest ago; never served: first), so one author's
    queue, or one long build, does not hold another's. A claim is one conditional UPDATE, so two
    workers never take the same one."""
    from sqlalchemy import func, update

    for _ in range(5):  # another worker claimed the one picked: look again
        with store() as session:
            queued = session.execute(select(Submission.id, Submission.user_id).where(Submission.status == "queued")
                                     .order_by(Submission.id)).all()
            if not queued:
                return None
            first: dict[int, int] = {}  # author -> their oldest queued
            for submission_id, user_id in queued:
                first.setdefault(user_id, submission_id)
            authors = list(first)
            running = dict(session.execute(
                select(Submission.user_id, func.count()).where(Submission.status.in_(RUNNING),
                                                               Submission.user_id.in_(authors))
                .group_by(Submission.user_id)).all())
            served = dict(session.execute(
                select(Submission.user_id, func.max(Submission.updated_at)).where(Submission.status != "queued",
                                                                                 Submission.user_id.in_(authors))
                .group_by(Submission.user_id)).all())
            order = sorted((a for a in authors if most_per_author is None or running.get(a, 0) < most_per_author),
                           key=lambda a: (running.get(a, 0), a in served, served.get(a) or 0, first[a]))
            if not order:
                return None
            for author in order:
                claimed = rows_changed(session, update(Submission).where(Submission.id == first[author],
                                                                         Submission.status == "queued")
                                       .values(status="building", updated_at=now()))
                session.commit()
                if claimed == 1:
                    return first[author]
    return None


def requeue_unfinished(store: Store) -> tuple[int, list[int]]:
    """After a server stopped: puts back in the queue what it was building (its folder is still
    there; its log starts again), and returns how many, and the ids of those it was checking
    (their folder is gone, their image built: :func:`run_submission` with ``resume``)."""
    from sqlalchemy import update

    with store() as session, session.begin():
        requeued = rows_changed(session, update(Submission).where(Submission.status == "building")
                                .values(status="queued", log="", report="", updated_at=now()))
        checking = list(session.scalars(select(Submission.id).where(Submission.status == "checking")
                                        .order_by(Submission.id)))
        session.execute(update(Submission).where(Submission.id.in_(checking)).values(report="", updated_at=now()))
        return requeued, checking


def run_submission(store: Store, submission_id: int, stopping: Callable[[], bool] = lambda: False,
                   resume: bool = False, build_seconds: float = BUILD_TIMEOUT) -> str:
    """Builds, checks and registers a claimed submission (see :func:`next_queued`) for its
    author, entering it in its leagues and retiring the name's earlier versions if it asked to;
    returns the status it ends in: "entered", "refused", or "queued" again when ``stopping()``
    turned true during the build (the server is stopping; its folder stays for the next run).
    With ``resume``, a submission whose check a stopped server did not finish: its image, built
    then, is checked again. A build that takes longer than ``build_seconds`` is stopped and refused.

    The build's output goes to the row's ``log``, the check's to its ``report``, a few times a
    second; the unpacked folder is removed once built (or refused), and the image of a bot that
    is refused after its build is removed too.
    """
    with store() as session:
        row = session.get(Submission, submission_id)
        if row is None:
            raise LeagueError(f"no submission {submission_id}")
        user = session.get(User, row.user_id)
        assert user is not None
        disabled = user.disabled_at is not None
        folder, leagues, retire_previous = Path(row.folder), list(row.leagues), row.retire_previous
        team = row.team_id
        label = (row.bot_name, row.bot_version)
    account = _account(store, row.user_id)  # its teams as they are now, not at upload
    progress = _Progress(store, submission_id)
    status = "refused"
    built: BuildResult | None = None
    client: docker.DockerClient | None = None
    config: BotConfig | None = None
    try:
        with progress:
            try:
                client = docker_client(timeout=120)
                if resume:
                    config, built = _built_before(client, *label)
                else:
                    if not folder.is_dir():
                        raise SubmissionRefused("the uploaded folder is gone from the server: submit the bot again")
                    config = load_bot_config(folder)
                    progress.update(bot_name=config.name, bot_version=config.version)
                if disabled:  # its queued submissions are not built: the account may not act any more
                    raise SubmissionRefused(f"the account {account.name} was disabled by an admin")
                check_may_submit(store, account, config.name, team)
                check_leagues(store, config, leagues)
                check_new_version(store, config.name, config.version)
                if not resume:

                    def build_say(line: str) -> None:
                        if stopping():
                            raise Stopping("the server is stopping")
                        progress.log(line)

                    built = _build(client, config, build_say, build_seconds)
                    _remove_folder(folder)  # built: the image is all that is needed now
                    progress.log(f"built {built.tag} ({built.size_mb:.0f} MiB, {built.seconds:.1f} s)")
                    progress.update(status="checking")
                assert built is not None
                report = _check(built, progress.report)
                # asked again, with the account's teams as they are now: a member may have left during the build
                check_may_submit(store, _account(store, account.id), config.name, team)
                bot = _register(store, client, config, built, report, leagues, owner_id=account.id,
                                retire_previous=retire_previous, team_id=team)
                progress.finish("entered", bot_id=bot.id)
                status = "entered"
            except Stopping:
                progress.reset()
                progress.update(status="queued")
                status = "queued"
            except SubmissionRefused as exc:
                if exc.report is not None and exc.report.log.strip():
                    progress.report("the bot's output (last lines):")
                    for line in exc.report.log.strip().splitlines()[-20:]:
                        progress.report(f"  | {line}")
                progress.finish("refused", error=_escaped(in_folder(str(exc), folder)))
            except BuildUnavailable as exc:  # the operator's to fix, not the author's: the log says what
                log.error("submission %d: %s", submission_id, exc)
                progress.finish("refused", error="the server cannot build bots right now (a problem of the "
                                                        "server's, not of your bot): submit it again later; an admin "
                                                        "can tell more from the server's log")
            except (BotError, LeagueError) as exc:
                progress.finish("refused", error=_escaped(in_folder(str(exc), folder)))
            except Exception as exc:  # the server's fault: say so, and keep serving
                log.exception("submission %d failed", submission_id)
                progress.finish("refused", error=f"the server failed while handling it ({type(exc).__name__}); "
                                                        "an admin can tell more from the server's log")
    finally:
        if status != "queued":
            _remove_folder(folder)
        if status == "refused" and built is not None and client is not None and config is not None \
                and not registered(store, config.name, config.version):
            remove_bot_image(client, built.tag)  # and its build cache, with the layers only they used
        if client is not None:
            client.close()
    return status


def _account(store: Store, user_id: int) -> Account:
    with store() as session:
        user = session.get(User, user_id)
        assert user is not None
        return account_of(session, user)


def _built_before(client: docker.DockerClient, name: str, version: str) -> tuple[BotConfig, BuildResult]:
    """The config and build of a submission checked when the server stopped, from its image (the
    build tags it only once it passes, and put bot.toml on it as labels)."""
    tag = f"{IMAGE_REPOSITORY}/{name}:{version}"
    try:
        image = client.api.inspect_image(tag)
    except docker.errors.APIError:
        raise SubmissionRefused("the server stopped while checking this bot, and its image is gone: submit the bot "
                                "again") from None
    labels = (image.get("Config") or {}).get("Labels") or {}
    if (labels.get("arena.bot.name"), labels.get("arena.bot.version")) != (name, version):
        raise SubmissionRefused(f"the image {tag} is not this submission's: submit the bot again")
    config = BotConfig(folder=Path(), root=Path(), name=name, version=version,
                       language=labels.get("arena.bot.language", ""), author=labels.get("arena.bot.author", ""),
                       games=tuple(g for g in labels.get("arena.bot.games", "").split(",") if g),
                       protocol=labels.get("arena.bot.protocol", "grpc"))
    return config, BuildResult(tag, image.get("Size", 0) / 2**20, 0.0, [])


def in_folder(message: str, folder: Path) -> str:
    """``message`` (a refusal an author reads) with the bot folder's paths relative to it: where
    the server keeps it means nothing to its author, and is not theirs to know."""
    forms = {str(folder), str(folder.absolute()), os.path.realpath(folder)}
    for form in sorted(forms, key=len, reverse=True):  # the longest first: the others are its tails
        message = message.replace(form + "/", "").replace(form, "the bot folder")
    return message


def _remove_folder(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def _escaped(message: str) -> str:
    return "\n".join(printable(line, LINE_CHARS) for line in message.split("\n"))


class _Progress:
    """A submission's log and report, and its status, written to its row: changes of status at
    once, lines of output every ``FLUSH_S`` by a thread of its own (a long build step prints
    nothing for minutes, and the page shows the last line all the same). Each kept to
    ``SUBMISSION_LOG_KB``: past that, one line says so and the rest is dropped."""

    def __init__(self, store: Store, submission_id: int) -> None:
        self.store, self.id = store, submission_id
        self.lock = threading.Lock()
        self.texts: dict[str, list[str]] = {"log": [], "report": []}
        self.sizes = {"log": 0, "report": 0}
        self.dirty = False
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._flusher, name=f"submission-{submission_id}", daemon=True)

    def __enter__(self) -> _Progress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()
        self.flush()

    def log(self, line: str) -> None:
        self._add("log", line)

    def report(self, line: str) -> None:
        self._add("report", line)

    def _add(self, kind: str, line: str) -> None:
        cap = limits.SUBMISSION_LOG_KB * 1024
        with self.lock:
            if self.sizes[kind] > cap:
                return
            line = printable(line, LINE_CHARS)
            self.sizes[kind] += len(line) + 1
            self.texts[kind].append(line if self.sizes[kind] <= cap else
                                    f"[cut: over {limits.SUBMISSION_LOG_KB} KiB of output; the rest is not kept]")
            self.dirty = True

    def reset(self) -> None:
        with self.lock:
            self.texts = {"log": [], "report": []}
            self.sizes = {"log": 0, "report": 0}
            self.dirty = True

    def update(self, **values: object) -> None:
        self.flush(**values)

    def finish(self, status: str, **values: object) -> None:
        """The submission's last status, written with its author's notification: in one transaction,
        so a submission never ends without its news."""
        self._write({"status": status, **values}, notify=True)

    def flush(self, **values: object) -> None:
        self._write(values)

    def _write(self, values: dict[str, object], notify: bool = False) -> None:
        with self.lock:
            if self.dirty:
                values.update({kind: "\n".join(lines) for kind, lines in self.texts.items()})
                self.dirty = False
            if not values:
                return
            with self.store() as session, session.begin():
                row = session.get(Submission, self.id)
                if row is None:
                    return
                for key, value in values.items():
                    setattr(row, key, value)
                row.updated_at = now()
                if notify:
                    label = f"{row.bot_name}@{row.bot_version}" if row.bot_name else ""
                    notifications.submission_finished(session, row.user_id, row.id, row.status, label,
                                                      list(row.leagues), row.error)

    def _flusher(self) -> None:
        while not self.done.wait(FLUSH_S):
            with contextlib.suppress(Exception):  # a busy store: the next flush writes it all
                self.flush()
