"""The path parameters that name stored rows, one type for every route: a number outside the
store's integer range (SQLite's and PostgreSQL's BIGINT: up to 2^63 - 1) is "not found" like any
unknown id, never an OverflowError when it is bound to a query. The app answers a path parameter
that fails these with 404 (``app.py``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

MAX_ID = 2**63 - 1

Id = Annotated[int, Path(ge=1, le=MAX_ID, description="a stored row's id")]
Number = Annotated[int, Path(ge=0, le=MAX_ID, description="a round, a game's index, a bot's place in its match")]
