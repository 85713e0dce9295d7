"""A bot's life, from its folder to the registry: one module per step, each imported by its own
name (this package imports none of them: importing one step loads only what that step needs).

- ``config.py``: a bot folder's ``bot.toml``, read as hostile input.
- ``images.py``: the offline base image of each language, which every build starts from.
- ``dockerfile.py``: what a build may read: its context and its Dockerfile, checked first.
- ``build.py``: the build in its sandbox, its time and disk watched.
- ``cache.py``: what a build leaves: its image with no parent, and the cache for the next one.
- ``check.py``: ``arena bot check``: the image played as a league plays it, one line per check.
- ``submit.py``: a submission: build, check, register (``arena bot submit``, the web's uploads).
- ``upload.py``: a bot folder packed for a server, and unpacked there as hostile input.
- ``registry.py``: the registered bot versions: register, find, list, retire.
- ``archives.py``: registered images kept in the store, for workers whose engine lacks them.
- ``starters/``: ``arena bot new``'s starter kit of each language (package data).
"""
