"""Who may see which card, written from each rules file's "Who knows what" table.

This is the tests' own statement of the rules, independent of the engines' view code:
``slots(state, seat)`` returns ``(hidden, visible)``, lists of ``(place, index)`` naming
single cards in ``state.card_places()`` that ``seat`` may not / may see.
"""

from __future__ import annotations

from collections.abc import Callable

from referee.games import State

Slot = tuple[str, int]


def _all(places: dict[str, list[int]], name: str) -> list[Slot]:
    return [(name, i) for i in range(len(places[name]))]


def prohis(state: State, seat: int) -> tuple[list[Slot], list[Slot]]:
    places = state.card_places()
    hidden = _all(places, "pile") + _all(places, "removed")
    visible = _all(places, "market") + _all(places, f"hand{seat}") + _all(places, f"warehouse{seat}")
    for s in range(state.num_players):
        if s != seat:
            hidden += _all(places, f"hand{s}") + _all(places, f"warehouse{s}")
    smuggler = state.active
    for i, up in enumerate(state.revealed):
        (visible if up or seat == smuggler else hidden).append(("convoy", i))
    sees_bribe = seat == smuggler or (seat == state.inspector and state.phase_name() == "respond")
    (visible if sees_bribe else hidden).extend(_all(places, "bribe"))
    return hidden, visible


def bandits(state: State, seat: int) -> tuple[list[Slot], list[Slot]]:
    places = state.card_places()
    # Nobody sees the pile; cards played in fights, the Boneyard and the cards set aside are public.
    hidden = _all(places, "pile")
    visible = (_all(places, "boneyard") + _all(places, "removed") + _all(places, "attack")
               + _all(places, "defence") + _all(places, "counter"))
    # Own hand and hideout only; of the others', only their sizes.
    visible += _all(places, f"hand{seat}") + _all(places, f"hideout{seat}")
    for s in range(state.num_players):
        if s != seat:
            hidden += _all(places, f"hand{s}") + _all(places, f"hideout{s}")
    # A stash goes face down: its maker sees it, the others only how many cards went in.
    (visible if seat == state.active else hidden).extend(_all(places, "stash"))
    return hidden, visible


SLOTS: dict[str, Callable[[State, int], tuple[list[Slot], list[Slot]]]] = {
    "prohis": prohis, "bandits": bandits,
}
