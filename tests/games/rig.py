"""Setting up exact game situations for rules tests, without breaking card conservation.

Cards are fetched by face from wherever the test does not care about (the pile, then
the removed cards) and displaced cards go to the bottom of the pile, so every card
stays in exactly one place.
"""

from __future__ import annotations

from arena_games import State


def take_face(state: State, face: str, cards, sources: list[list[int]]) -> int:
    for source in sources:
        for i, c in enumerate(source):
            if cards.name(c) == face:
                del source[i]
                return c
    raise AssertionError(f"no spare {face} card left to rig with")


def fill(state: State, cards, place: list[int], faces: list[str], spare: list[list[int]]) -> None:
    """Makes ``place`` hold exactly ``faces`` (in order); its old cards go to ``spare[0]``'s bottom."""
    old = list(place)
    place.clear()
    spare[0][:0] = old
    for face in faces:
        place.append(take_face(state, face, cards, spare))


def all_cards(state: State) -> list[int]:
    out: list[int] = []
    for cards in state.card_places().values():
        out += cards
    return out


def snapshot(state: State) -> tuple:
    """Everything observable about a state, to check that a refused action changed nothing."""
    import json

    return (
        state.current_player(),
        tuple(state.legal_actions()),
        tuple(json.dumps(state.view(s), sort_keys=True) for s in range(state.num_players)),
        tuple((k, tuple(v)) for k, v in sorted(state.card_places().items())),
        tuple(state.scores()),
    )
