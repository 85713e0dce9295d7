"""The shapes of what Arena answers programs with: pydantic models, one definition each, for the
JSON API (``arena/web``, ``/api/v1/``, its OpenAPI schema) and the command line's ``--json``
(``arena/cli``). Where both describe the same thing in the same shape (a leaderboard row) one
model serves both; where the shapes differ, their shared fields are defined once
(:mod:`.fields`). Every object is exactly its fields: validating a document with a key added or
missing fails (the CLI's tests hold each command's real output to its model).

:mod:`.docs` draws the tables of docs/cli.md and docs/api.md from the models' JSON Schema.
Nothing here imports the web or the command line: they import this.
"""
