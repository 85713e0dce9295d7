"""Card identities, seeded decks and shuffles, shared by every engine.

Every physical card has an integer id, and each id has a *face*: what a player
sees when the card is face up. Engines move ids between places (piles, hands,
warehouses), which lets tests check that every card is in exactly one place;
views show faces only, never ids, so two cards with the same face are
indistinguishable to the bots, as they are at the table.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence


class CardSet:
    """The cards of one game: ``face_of[id]`` is the face index of card ``id``.

    ``names[face]`` is the face's name as views and actions spell it.
    """

    __slots__ = ("names", "face_of", "index", "_ids")

    def __init__(self, composition: Sequence[tuple[str, int]]) -> None:
        names: list[str] = []
        face_of: list[int] = []
        for name, count in composition:
            if name in names:
                raise ValueError(f"face {name!r} listed twice")
            names.append(name)
            face_of.extend([len(names) - 1] * count)
        self.names: tuple[str, ...] = tuple(names)
        self.face_of: tuple[int, ...] = tuple(face_of)
        self.index: dict[str, int] = {n: i for i, n in enumerate(names)}
        self._ids: tuple[tuple[int, ...], ...] = tuple(
            tuple(i for i, f in enumerate(face_of) if f == face) for face in range(len(names))
        )

    def __len__(self) -> int:
        return len(self.face_of)

    def ids(self, name: str) -> list[int]:
        """The ids of every card with face ``name``, in increasing order."""
        return list(self._ids[self.index[name]])

    def name(self, card: int) -> str:
        return self.names[self.face_of[card]]

    def sorted_names(self, cards: Iterable[int]) -> list[str]:
        """Face names of ``cards`` in face order: a canonical, id-free rendering."""
        face_of, names = self.face_of, self.names
        return [names[f] for f in sorted(face_of[c] for c in cards)]

    def faces_in(self, cards: Iterable[int]) -> list[int]:
        """The distinct faces among ``cards``, in face order."""
        face_of = self.face_of
        return sorted({face_of[c] for c in cards})

    def take_face(self, cards: list[int], face: int) -> int:
        """Removes and returns the first card of ``face`` in ``cards``, which must hold one."""
        face_of = self.face_of
        for i, c in enumerate(cards):
            if face_of[c] == face:
                del cards[i]
                return c
        raise AssertionError(f"no {self.names[face]} card to take")  # legal actions prevent this

    def counts(self, cards: Iterable[int]) -> list[int]:
        out = [0] * len(self.names)
        face_of = self.face_of
        for c in cards:
            out[face_of[c]] += 1
        return out


def shuffled(rng: random.Random, cards: Iterable[int]) -> list[int]:
    """A new list of ``cards`` in an order drawn from ``rng`` (the game's seeded source)."""
    out = list(cards)
    rng.shuffle(out)
    return out


def deal(pile: list[int], count: int) -> list[int]:
    """Takes up to ``count`` cards from the top of ``pile`` (its end), top card first."""
    if count <= 0:
        return []
    taken = pile[-count:]
    del pile[-count:]
    taken.reverse()
    return taken
