"""Submissions over HTTP: an author uploads a bot folder (``receiving.py`` receives it and
``arena/bots/upload.py`` unpacks it, within the server's quotas: ``quotas.py``), and the server's
workers build it, check it and enter it in the leagues the author picked
(:func:`arena.bots.submit.run_submission`): ``builds_at_once`` submissions at a time, taken
fairly across authors (:func:`arena.bots.submit.next_queued`), an author's at most all but one
of them at once.

A submission and its log are its author's: anyone else gets 404, as for one that does not exist.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from typing import Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from .. import access, audit
from ..accounts import Account
from ..bots.build import BUILD_TIMEOUT
from ..bots.config import BotError, load_bot_config
from ..bots.registry import check_new_version
from ..bots.submit import (
    FINISHED,
    check_leagues,
    check_may_submit,
    in_folder,
    next_queued,
    requeue_unfinished,
    run_submission,
)
from ..bots.upload import LIMITS, MiB, UploadRefused, unpack
from ..league import LeagueError, NotAllowed
from ..schemas.accounts import SubmissionOut, SubmissionSummary
from ..store import League, Store, Submission, Team, User
from ..teams import team_for_submission, teams_of
from .answers import API, render
from .auth import SignedIn, Uploader, check_csrf
from .ids import Id
from .quotas import quotas_of
from .receiving import Received, drain, receive_upload

router = APIRouter()
log = logging.getLogger("arena.web.submissions")
SUBMISSIONS = API + "/submissions"
IDLE_S = 1.0  # how often an idle worker looks for a queued submission (a new upload wakes it at once)

Named = tuple[Submission, str, str | None]  # a submission, its author's name, its team's


def _summary(named: Named, cls: type[SubmissionSummary] = SubmissionSummary, **more: Any) -> Any:
    row, author, team = named
    return cls(id=row.id, author=author, team=team, status=row.status, finished=row.status in FINISHED,
               bot_name=row.bot_name,
               bot_version=row.bot_version, bot_id=row.bot_id, leagues=list(row.leagues),
               retire_previous=row.retire_previous, error=row.error, created_at=row.created_at,
               updated_at=row.updated_at, url=f"/submissions/{row.id}", api_url=f"{SUBMISSIONS}/{row.id}",
               bot_url=f"/bots/{row.bot_id}" if row.bot_id else None, **more)


def _full(named: Named) -> SubmissionOut:
    return _summary(named, SubmissionOut, log=named[0].log, report=named[0].report)


_NAMED = (select(Submission, User.name, Team.name).join(User, User.id == Submission.user_id)
          .outerjoin(Team, Team.id == Submission.team_id))


def _own(store: Store, account: Account, submission_id: int) -> Named:
    """The account's submission (or its team's); 404 for another's, as for none (its log is its author's)."""
    with store() as session:
        found = session.execute(_NAMED.where(Submission.id == submission_id)).one_or_none()
    if found is None or not access.may_see_submission(account, found[0]):
        raise HTTPException(404, f"no submission {submission_id} of yours")
    return found[0], found[1], found[2]


def _mine(store: Store, account: Account) -> list[Named]:
    """The account's submissions and those for its teams (as the membership rows say now)."""
    mine = Submission.user_id == account.id
    if account.teams:
        mine = mine | Submission.team_id.in_(account.teams)
    with store() as session:
        return [(row, author, team) for row, author, team in
                session.execute(_NAMED.where(mine).order_by(Submission.id.desc()).limit(200))]


def _leagues(store: Store) -> list[League]:
    with store() as session:
        return list(session.scalars(select(League).order_by(League.name)))


# -- uploading ----------------------------------------------------------------------------------
UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["archive"],
    "properties": {
        "archive": {"type": "string", "format": "binary",
                    "description": f"the bot folder as a .tar.gz or .zip, at most {LIMITS.packed // MiB} MB"},
        "leagues": {"type": "array", "items": {"type": "string"},
                    "description": "names of the leagues to enter it in (the field repeated)"},
        "retire_previous": {"type": "boolean", "default": True,
                            "description": "retire the name's earlier versions once this one is entered"},
        "team": {"type": "string", "description": "the team it is for (you must be in it); without it, a name a "
                                                  "team holds stays that team's, any other is yours"},
    }}}}}}


def _flag(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "on", "yes"):
        return True
    if lowered in ("false", "0", "off", "no"):
        return False
    raise HTTPException(422, f"retire_previous: {value[:20]!r} is not true or false")


def _queue(app: FastAPI, account: Account, received: Received) -> Named:
    """Checks what can be checked at once and queues the upload; returns its row as queued. Runs
    in the thread pool: the unpacking reads and writes up to 200 MB, in one of the server's
    unpack slots, each byte charged to the bytes in flight (``quotas.py``)."""
    store: Store = app.state.store
    check_csrf(account, received.last("csrf") or None)
    leagues = list(dict.fromkeys(v.strip() for v in received.fields.get("leagues", []) if v.strip()))
    retire_previous = _flag(received.last("retire_previous", "true"))
    team_name = received.last("team").strip() or None
    assert received.archive is not None
    quotas = quotas_of(app)
    room = quotas.room()
    try:
        with quotas.unpack_slot():
            unpacked = unpack(received.archive, app.state.settings.uploads_dir, room=room)
    except BaseException:
        room.release()
        raise
    try:
        try:
            config = load_bot_config(unpacked.folder)
        except BotError as exc:  # our folder's name means nothing to its author
            raise UploadRefused(in_folder(str(exc), unpacked.folder)) from None
        team = team_for_submission(store, account, team_name, config.name)
        check_may_submit(store, account, config.name, team)
        check_leagues(store, config, leagues)
        try:
            check_new_version(store, config.name, config.version)
        except LeagueError as exc:
            raise HTTPException(409, str(exc)) from None
        with store() as session, session.begin():
            _check_pending(session, account, config.name, config.version, team)
            row = Submission(user_id=account.id, team_id=team, leagues=leagues, retire_previous=retire_previous,
                             folder=str(unpacked.folder), bot_name=config.name, bot_version=config.version)
            session.add(row)
            shown_team = session.scalar(select(Team.name).where(Team.id == team)) if team is not None else None
            session.flush()
            audit.record(session, account.id, "submission.create",
                         f"submission {row.id} ({config.name}@{config.version})",
                         {"leagues": leagues, "team": shown_team})
    except BaseException:
        shutil.rmtree(unpacked.folder, ignore_errors=True)
        room.release()
        raise
    room.keep(unpacked.folder)
    worker = getattr(app.state, "submission_worker", None)
    if worker is not None:
        worker.wake.set()
    return row, account.name, shown_team


def _check_pending(session: Any, account: Account, name: str, version: str, team: int | None) -> None:
    """409 for a name with a submission not finished yet: the author's own (or, for a team, its
    members') of that version is named; another author's is not (which submission, whose, of what
    version: theirs to know)."""
    pending = session.execute(select(Submission.id, Submission.user_id, Submission.team_id, Submission.bot_version,
                                     Submission.status)
                              .where(Submission.bot_name == name, Submission.status.not_in(FINISHED))
                              .order_by(Submission.id)).all()

    def ours(user_id: int, team_id: int | None) -> bool:
        return team_id == team and (user_id == account.id or team is not None)

    for submission_id, user_id, team_id, pending_version, status in pending:
        if ours(user_id, team_id) and pending_version == version:
            who = "you" if user_id == account.id else "your team"
            raise HTTPException(409, f"{who} submitted {name} version {version} already (submission {submission_id}, "
                                     f"{status}): give this one a new version")
    if any(not ours(user_id, team_id) for _, user_id, team_id, _, _ in pending):
        raise HTTPException(409, f"the bot name {name!r} is being submitted by another author: pick another name")


def _refusal(exc: UploadRefused) -> HTTPException:
    retry_after = getattr(exc, "retry_after", None)
    return HTTPException(exc.status, str(exc), headers={"Retry-After": str(retry_after)} if retry_after else None)


async def _upload(request: Request, account: Account) -> Named:
    """Receives, checks and queues an upload; returns the submission as queued. A refused upload
    is an HTTPException with its status, and leaves nothing on disk. An author over a quota of
    their own is refused before anything is stored (the body is read and dropped)."""
    quotas = quotas_of(request.app)
    try:
        await run_in_threadpool(quotas.enter, request.app.state.store, account)
    except UploadRefused as exc:
        await drain(request)
        raise _refusal(exc) from None
    try:
        received = await receive_upload(request, request.app.state.settings.uploads_dir)
        try:
            return await run_in_threadpool(_queue, request.app, account, received)
        finally:
            received.discard()
    except UploadRefused as exc:
        raise _refusal(exc) from None
    finally:
        quotas.leave(account)


@router.post(SUBMISSIONS, tags=["submissions"], status_code=201, response_model=SubmissionOut,
             openapi_extra=UPLOAD_BODY,
             responses={400: {"description": "a refused archive or bot.toml"}, 403: {"description": "the bot name "
                        "is another's"}, 409: {"description": "that version exists"},
                        413: {"description": "too large"}})
async def submit(request: Request, account: Uploader) -> Response:
    """Upload a bot folder (multipart: ``archive``, ``leagues`` repeated, ``retire_previous``,
    ``team``) to be built, checked and entered in the leagues; answers the submission, queued."""
    # async, unlike the other endpoints: it reads the body itself, counting the bytes as they come
    named = await _upload(request, account)
    return JSONResponse(_full(named).model_dump(mode="json"), status_code=201,
                        headers={"location": f"{SUBMISSIONS}/{named[0].id}"})


@router.get(SUBMISSIONS, tags=["submissions"])
def my_submissions(request: Request, account: SignedIn) -> list[SubmissionSummary]:
    """Your submissions and your teams', newest first (the last 200)."""
    return [_summary(row) for row in _mine(request.app.state.store, account)]


@router.get(SUBMISSIONS + "/{submission_id}", tags=["submissions"])
def one_submission(request: Request, submission_id: Id, account: SignedIn) -> SubmissionOut:
    """One of your submissions (or your team's), with its build log and check report so far."""
    return _full(_own(request.app.state.store, account, submission_id))


# -- pages --------------------------------------------------------------------------------------
def _submit_page(request: Request, account: Account, error: str = "", status_code: int = 200) -> Response:
    settings = request.app.state.settings
    store = request.app.state.store
    teams = [team.name for team, _ in teams_of(store, account.id)]
    return render(request, "submit.html", {"leagues": _leagues(store), "error": error, "teams": teams,
                                           "max_mb": LIMITS.packed // MiB, "max_bytes": LIMITS.packed,
                                           "unpacked_mb": LIMITS.unpacked // MiB, "max_files": LIMITS.files,
                                           "queued": settings.queued_per_author,
                                           "per_day": settings.submissions_per_day,
                                           "build_minutes": settings.build_seconds / 60},
                  status_code=status_code)


@router.get("/submit", include_in_schema=False)
def submit_page(request: Request, account: SignedIn) -> Response:
    return _submit_page(request, account)


@router.post("/submit", include_in_schema=False)
async def submit_form(request: Request, account: Uploader) -> Response:
    try:
        row = (await _upload(request, account))[0]
    except HTTPException as exc:
        if exc.status_code == 403 and "form is stale" in str(exc.detail):
            raise
        return await run_in_threadpool(_submit_page, request, account, str(exc.detail), exc.status_code)
    except LeagueError as exc:
        status = 403 if isinstance(exc, NotAllowed) else 404 if str(exc).startswith("unknown") else 400
        return await run_in_threadpool(_submit_page, request, account, str(exc), status)
    return RedirectResponse(f"/submissions/{row.id}", status_code=303)


@router.get("/submissions", include_in_schema=False)
def submissions_page(request: Request, account: SignedIn) -> Response:
    return render(request, "submissions.html", {"submissions": [_summary(r) for r in
                                                                _mine(request.app.state.store, account)]})


@router.get("/submissions/{submission_id}", include_in_schema=False)
def submission_page(request: Request, submission_id: Id, account: SignedIn) -> Response:
    return render(request, "submission.html", {"s": _full(_own(request.app.state.store, account, submission_id))})


# -- the workers --------------------------------------------------------------------------------
class _Worker:
    """``builds_at_once`` threads, each taking the next queued submission (fairly across
    authors: ``next_queued``; an author's at most all but one of the threads at once, so another
    author's always finds one) and running it (``run_submission``, its build stopped at
    ``build_seconds``). On start, one re-queues what a stopped server was building and checks
    again what it was checking."""

    def __init__(self, store: Store, builds: int = 1, build_seconds: float = BUILD_TIMEOUT) -> None:
        self.store, self.build_seconds = store, build_seconds
        self.most_per_author = max(1, builds - 1)
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i == 0,), name=f"arena-submissions-{i}", daemon=True)
                        for i in range(max(1, builds))]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def run(self, first: bool) -> None:
        if first:
            self.resume()
        while not self.stop.is_set():
            try:
                submission_id = next_queued(self.store, self.most_per_author)
                if submission_id is None:
                    self.wake.wait(IDLE_S)
                    self.wake.clear()
                    continue
                run_submission(self.store, submission_id, self.stop.is_set, build_seconds=self.build_seconds)
                self.wake.set()  # a slot is free: another thread may take what this author could not
            except Exception:  # a store that is briefly away: try again, do not die
                log.exception("a submission worker failed; trying again")
                self.stop.wait(IDLE_S)

    def resume(self) -> None:
        try:
            requeued, checking = requeue_unfinished(self.store)
            if requeued or checking:
                log.info("re-queued %d submission(s), re-checking %d", requeued, len(checking))
            self.wake.set()
            for submission_id in checking:
                if self.stop.is_set():
                    return
                run_submission(self.store, submission_id, self.stop.is_set, resume=True)
        except Exception:
            log.exception("resuming submissions failed")


def start_worker(app: FastAPI) -> None:
    """Starts the threads that build and check queued submissions."""
    settings = app.state.settings
    worker = _Worker(app.state.store, settings.builds_at_once, settings.build_seconds)
    app.state.submission_worker = worker
    worker.start()


def stop_worker(app: FastAPI, wait: float = 10.0) -> None:
    """Stops them, letting the submissions in hand finish or be re-queued: a build stops at its
    next line of output and goes back to the queue; a check is waited for up to ``wait`` seconds,
    and if the process ends first, the next start checks it again."""
    worker: _Worker | None = getattr(app.state, "submission_worker", None)
    if worker is None:
        return
    worker.stop.set()
    worker.wake.set()
    deadline = time.monotonic() + wait
    for thread in worker.threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    app.state.submission_worker = None
