"""``arena serve``: the web leaderboard, bot pages, replays and submissions, on the league store.

One ASGI app (FastAPI, server-rendered Jinja2 pages, a little JavaScript); every page has a
JSON twin under ``/api/v1/`` (``docs/api.md``). The app is made by :func:`create_app`
(``app.py``, the only module that imports the areas); each area is one module with its pages and
its API side by side:

- ``signin.py``: signing in and out;
- ``leagues.py``: leagues, leaderboards, and the admin's league commands;
- ``bots.py``: bot pages (rating history, head to head, failures), retiring a bot;
- ``games.py``: matches, games, the replay viewer, live games, captured output;
- ``submissions.py`` (and ``receiving.py``): bot uploads, built and checked in the background;
- ``teams.py``: teams, their members and roles.

Beneath them: ``answers.py`` (pages, the API's prefix, times in answers), ``auth.py`` (who is
asking: session cookie or API token; CSRF and Origin), ``throttle.py`` (the sign-in and token
throttles, the cap on password checks), ``quotas.py``, ``charts.py``, ``ids.py``;
``settings.py``: the server's settings; ``server.py``: uvicorn, with its limits on requests.

Who may see and do what (hidden cards, a bot's output, retiring) is the platform's rule, decided
in one place beneath the web: ``arena/access.py``. Nothing outside this package imports it but
``arena serve`` (``arena/cli/serve.py``), which starts it.
"""

from __future__ import annotations

from typing import Any

from .settings import WebSettings

__all__ = ["WebSettings", "create_app"]


def __getattr__(name: str) -> Any:
    # the app (FastAPI and the rest) loads on first use: `arena serve`'s options need only the settings
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
