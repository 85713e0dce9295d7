"""``arena serve``: the web leaderboard, bot pages, replays and submissions, on the league store.

One ASGI app (FastAPI, server-rendered Jinja2 pages, a little JavaScript); every page has a
JSON twin under ``/api/v1/`` (``docs/api.md``). The app is made by :func:`create_app`; each
area is one module with its pages and its API side by side:

- ``auth.py``: who is asking (session cookie or API token), sign in and out, CSRF;
- ``leagues.py``: leagues, leaderboards, and the admin's league commands;
- ``bots.py``: bot pages (rating history, head to head, failures), retiring a bot;
- ``games.py``: matches, games, the replay viewer, live games, captured output;
- ``submissions.py`` (and ``uploads.py``): bot uploads, built and checked in the background.

Who may see what (hidden cards, a bot's output) is decided in one place: ``access.py``.
"""

from .app import WebSettings, create_app

__all__ = ["WebSettings", "create_app"]
