"""(stub: filled by its issue-15 branch)"""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
