"""(stub: filled by its issue-15 branch)"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

router = APIRouter()


def start_worker(app: FastAPI) -> None:
    """Starts the thread that builds and checks queued submissions."""


def stop_worker(app: FastAPI) -> None:
    """Stops it, letting the submission in hand finish or be re-queued."""
