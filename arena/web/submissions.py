"""Submissions over HTTP: an author uploads a bot folder (``uploads.py`` receives and unpacks it),
and a worker thread of the server builds it, checks it and enters it in the leagues the author
picked (:func:`arena.submissions.run_submission`), one submission at a time, oldest first.

A submission and its log are its author's: anyone else gets 404, as for one that does not exist.
"""

from __future__ import annotations

import logging
import shutil
import threading
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from pydantic import BaseModel
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from ..accounts import Account
from ..bots import BotError, load_bot_config
from ..league import LeagueError, NotAllowed, check_new_version
from ..store import League, Store, Submission
from ..submissions import (
    FINISHED,
    check_leagues,
    check_may_submit,
    next_queued,
    requeue_unfinished,
    run_submission,
)
from .auth import SignedIn, Uploader, check_csrf
from .ids import Id
from .uploads import LIMITS, MiB, Received, UploadRefused, receive_upload, unpack

router = APIRouter()
log = logging.getLogger("arena.web.submissions")
API = "/api/v1/submissions"
IDLE_S = 1.0  # how often an idle worker looks for a queued submission (a new upload wakes it at once)

Status = Literal["queued", "building", "checking", "entered", "refused"]


class SubmissionSummary(BaseModel):
    id: int
    status: Status
    finished: bool  # entered or refused: it changes no more
    bot_name: str  # from its bot.toml
    bot_version: str
    bot_id: int | None  # the registered bot, once entered
    leagues: list[str]
    retire_previous: bool
    error: str  # why it was refused
    created_at: datetime
    updated_at: datetime
    url: str  # its page
    api_url: str
    bot_url: str | None


class SubmissionOut(SubmissionSummary):
    log: str  # the build's output (the author's bot's words: escaped when stored, shown as text)
    report: str  # the check's report


def _summary(row: Submission, cls: type[SubmissionSummary] = SubmissionSummary, **more: Any) -> Any:
    return cls(id=row.id, status=row.status, finished=row.status in FINISHED, bot_name=row.bot_name,  # type: ignore[arg-type]
               bot_version=row.bot_version, bot_id=row.bot_id, leagues=list(row.leagues),
               retire_previous=row.retire_previous, error=row.error, created_at=row.created_at,
               updated_at=row.updated_at, url=f"/submissions/{row.id}", api_url=f"{API}/{row.id}",
               bot_url=f"/bots/{row.bot_id}" if row.bot_id else None, **more)


def _full(row: Submission) -> SubmissionOut:
    return _summary(row, SubmissionOut, log=row.log, report=row.report)


def _own(store: Store, account: Account, submission_id: int) -> Submission:
    """The account's submission; 404 for another's, as for none (its log is its author's)."""
    with store() as session:
        row = session.get(Submission, submission_id)
    if row is None or row.user_id != account.id:
        raise HTTPException(404, f"no submission {submission_id} of yours")
    return row


def _mine(store: Store, account: Account) -> list[Submission]:
    with store() as session:
        return list(session.scalars(select(Submission).where(Submission.user_id == account.id)
                                    .order_by(Submission.id.desc()).limit(200)))


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
    }}}}}}


def _flag(value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "1", "on", "yes"):
        return True
    if lowered in ("false", "0", "off", "no"):
        return False
    raise HTTPException(422, f"retire_previous: {value[:20]!r} is not true or false")


def _queue(app: FastAPI, account: Account, received: Received) -> Submission:
    """Checks what can be checked at once and queues the upload; returns its row as queued. Runs
    in the thread pool: the unpacking reads and writes up to 200 MB."""
    store: Store = app.state.store
    check_csrf(account, received.last("csrf") or None)
    leagues = list(dict.fromkeys(v.strip() for v in received.fields.get("leagues", []) if v.strip()))
    retire_previous = _flag(received.last("retire_previous", "true"))
    assert received.archive is not None
    unpacked = unpack(received.archive, app.state.settings.uploads_dir)
    try:
        try:
            config = load_bot_config(unpacked.folder)
        except BotError as exc:  # our folder's name means nothing to its author
            raise UploadRefused(str(exc).replace(f"{unpacked.folder}/", "").replace(str(unpacked.folder),
                                                                                  "the bot folder")) from None
        check_may_submit(store, account, config.name)
        check_leagues(store, config, leagues)
        try:
            check_new_version(store, config.name, config.version)
        except LeagueError as exc:
            raise HTTPException(409, str(exc)) from None
        with store() as session, session.begin():
            pending = session.scalar(select(Submission.id).where(
                Submission.bot_name == config.name, Submission.bot_version == config.version,
                Submission.status.not_in(FINISHED)))
            if pending is not None:
                raise HTTPException(409, f"{config.name} version {config.version} is submitted already "
                                         f"(submission {pending}); give this one a new version")
            row = Submission(user_id=account.id, leagues=leagues, retire_previous=retire_previous,
                             folder=str(unpacked.folder), bot_name=config.name, bot_version=config.version)
            session.add(row)
    except BaseException:
        shutil.rmtree(unpacked.folder, ignore_errors=True)
        raise
    worker = getattr(app.state, "submission_worker", None)
    if worker is not None:
        worker.wake.set()
    return row


async def _upload(request: Request, account: Account) -> Submission:
    """Receives, checks and queues an upload; returns the submission as queued. A refused upload
    is an HTTPException with its status, and leaves nothing on disk."""
    try:
        received = await receive_upload(request, request.app.state.settings.uploads_dir)
        try:
            return await run_in_threadpool(_queue, request.app, account, received)
        finally:
            received.discard()
    except UploadRefused as exc:
        raise HTTPException(exc.status, str(exc)) from None


@router.post(API, tags=["submissions"], status_code=201, response_model=SubmissionOut, openapi_extra=UPLOAD_BODY,
             responses={400: {"description": "a refused archive or bot.toml"}, 403: {"description": "the bot name "
                        "is another's"}, 409: {"description": "that version exists"},
                        413: {"description": "too large"}})
async def submit(request: Request, account: Uploader) -> Response:
    """Upload a bot folder (multipart: ``archive``, ``leagues`` repeated, ``retire_previous``) to
    be built, checked and entered in the leagues; answers the submission, queued."""
    # async, unlike the other endpoints: it reads the body itself, counting the bytes as they come
    row = await _upload(request, account)
    return JSONResponse(_full(row).model_dump(mode="json"), status_code=201, headers={"location": f"{API}/{row.id}"})


@router.get(API, tags=["submissions"])
def my_submissions(request: Request, account: SignedIn) -> list[SubmissionSummary]:
    """Your submissions, newest first (the last 200)."""
    return [_summary(row) for row in _mine(request.app.state.store, account)]


@router.get(API + "/{submission_id}", tags=["submissions"])
def one_submission(request: Request, submission_id: Id, account: SignedIn) -> SubmissionOut:
    """One of your submissions, with its build log and check report so far."""
    return _full(_own(request.app.state.store, account, submission_id))


# -- pages --------------------------------------------------------------------------------------
def _submit_page(request: Request, error: str = "", status_code: int = 200) -> Response:
    from .app import render

    return render(request, "submit.html", {"leagues": _leagues(request.app.state.store), "error": error,
                                           "max_mb": LIMITS.packed // MiB, "max_bytes": LIMITS.packed,
                                           "unpacked_mb": LIMITS.unpacked // MiB, "max_files": LIMITS.files},
                  status_code=status_code)


@router.get("/submit", include_in_schema=False)
def submit_page(request: Request, account: SignedIn) -> Response:
    return _submit_page(request)


@router.post("/submit", include_in_schema=False)
async def submit_form(request: Request, account: Uploader) -> Response:
    try:
        row = await _upload(request, account)
    except HTTPException as exc:
        if exc.status_code == 403 and "form is stale" in str(exc.detail):
            raise
        return await run_in_threadpool(_submit_page, request, str(exc.detail), exc.status_code)
    except LeagueError as exc:
        status = 403 if isinstance(exc, NotAllowed) else 404 if str(exc).startswith("unknown") else 400
        return await run_in_threadpool(_submit_page, request, str(exc), status)
    return RedirectResponse(f"/submissions/{row.id}", status_code=303)


@router.get("/submissions", include_in_schema=False)
def submissions_page(request: Request, account: SignedIn) -> Response:
    from .app import render

    return render(request, "submissions.html", {"submissions": [_summary(r) for r in
                                                                _mine(request.app.state.store, account)]})


@router.get("/submissions/{submission_id}", include_in_schema=False)
def submission_page(request: Request, submission_id: Id, account: SignedIn) -> Response:
    from .app import render

    return render(request, "submission.html", {"s": _full(_own(request.app.state.store, account, submission_id))})


# -- the worker ---------------------------------------------------------------------------------
class _Worker:
    """Takes queued submissions, oldest first, and runs each (``run_submission``). On start it
    re-queues what a stopped server was building and checks again what it was checking."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.stop = threading.Event()
        self.wake = threading.Event()
        self.thread = threading.Thread(target=self.run, name="arena-submissions", daemon=True)

    def run(self) -> None:
        try:
            requeued, checking = requeue_unfinished(self.store)
            if requeued or checking:
                log.info("re-queued %d submission(s), re-checking %d", requeued, len(checking))
            for submission_id in checking:
                if self.stop.is_set():
                    return
                run_submission(self.store, submission_id, self.stop.is_set, resume=True)
        except Exception:
            log.exception("resuming submissions failed")
        while not self.stop.is_set():
            try:
                submission_id = next_queued(self.store)
                if submission_id is None:
                    self.wake.wait(IDLE_S)
                    self.wake.clear()
                    continue
                run_submission(self.store, submission_id, self.stop.is_set)
            except Exception:  # a store that is briefly away: try again, do not die
                log.exception("the submission worker failed; trying again")
                self.stop.wait(IDLE_S)


def start_worker(app: FastAPI) -> None:
    """Starts the thread that builds and checks queued submissions."""
    worker = _Worker(app.state.store)
    app.state.submission_worker = worker
    worker.thread.start()


def stop_worker(app: FastAPI, wait: float = 10.0) -> None:
    """Stops it, letting the submission in hand finish or be re-queued: a build stops at its next
    line of output and goes back to the queue; a check is waited for up to ``wait`` seconds, and
    if the process ends first, the next start checks it again."""
    worker: _Worker | None = getattr(app.state, "submission_worker", None)
    if worker is None:
        return
    worker.stop.set()
    worker.wake.set()
    worker.thread.join(wait)
    app.state.submission_worker = None
