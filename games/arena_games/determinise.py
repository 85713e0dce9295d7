"""States drawn from a seat's view: what a search bot simulates with.

A hidden-information game cannot be searched from a view alone: the other hands, the pile and
the face-down cards are unknown. *Determinisation* (as in OpenSpiel's ``ResampleFromInfostate``
and the ISMCTS literature) draws a full state that the seat could be in, given everything it
has seen, and searches that; drawing afresh each simulation averages over what is hidden.

    from arena_games.determinise import determinise

    state = determinise(view, rng, history=history, settings=settings)
    state.apply(state.legal_actions()[0])  # simulate from there

A drawn state ``s`` of a view ``v`` of seat ``k`` satisfies, and ``tests/games/test_determinise.py``
checks over random positions of every game:

* ``s.view(k) == v``: the seat's own cards, every public card and count, and the events since
  its last decision are exactly what it sees;
* ``s.history(k) == history`` (the view's events when no history is given);
* every card is in exactly one place, and the deck is the game's;
* the hidden cards are placed consistently with the public events of ``history`` (each game's
  page, ``docs/games/<game>.md``, says which facts it draws from them, under "Sampling a state");
* ``s`` plays on: its legal actions, ``apply`` and ``clone`` work to the end of the game, its
  future chance (the order of a pile, a random steal) comes from ``rng``.

Only the seat's own knowledge goes in, so a bot may call this freely: it learns nothing it did
not know. ``history`` is every event of the game as the seat saw it, in order (the events of
each of its views, concatenated: :class:`arenabot.search.ISMCTS` keeps it); without it only the
view's snapshot constrains the draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from . import get_game
from .core import Settings, State, View

Sampler = Callable[[random.Random], State]


def sampler(view: View, *, history: list[dict[str, Any]] | None = None,
            settings: Settings | Mapping[str, Any] | None = None) -> Sampler:
    """A function that draws a state consistent with ``view`` from a ``random.Random`` each call.

    What does not change between draws (the known cards, the pool of unknown ones) is worked out
    here once, so a search can draw a state per simulation cheaply. ``settings`` are the game's
    (a Settings object, or the mapping of strings a match start gives a bot); default: the game's
    defaults.
    """
    spec = get_game(view["game"])
    if spec.sampler is None:
        raise NotImplementedError(f"{spec.title} cannot draw a state from a view")
    return spec.sampler(spec, view, list(view["events"]) if history is None else history,
                        spec.settings_from(settings))


def determinise(view: View, rng: random.Random, *, history: list[dict[str, Any]] | None = None,
                settings: Settings | Mapping[str, Any] | None = None) -> State:
    """One state consistent with ``view`` (and ``history``), drawn with ``rng``: see the module."""
    return sampler(view, history=history, settings=settings)(rng)
