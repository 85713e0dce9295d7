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


CHARACTER_ROLES = ("queen_", "high_priest_", "scribe_", "vizier_", "thief_", "courtesan_", "merchant_")


def sobek(state: State, seat: int) -> tuple[list[Slot], list[Slot]]:
    places = state.card_places()
    # Nobody sees the deck, the cards out this round (2 players), or the unused green cards.
    hidden = _all(places, "deck") + _all(places, "removed") + _all(places, "green_out")
    # Sets, played characters and other discards, and cards being laid in a set are face up.
    visible = _all(places, "discard") + _all(places, "selection")
    visible += [(name, i) for name in places if name.startswith("set") for i in range(len(places[name]))]
    visible += _all(places, f"hand{seat}") + _all(places, f"corruption{seat}")
    deciding = state.current_player() == seat
    thief_looks = deciding and state.phase_name() == "steal"
    vizier_looks = deciding and state.phase_name() == "pick"
    for s in range(state.num_players):
        if s == seat:
            continue
        # A Thief sees the backs of the victim's hand: those cards are neither hidden nor visible.
        if not (thief_looks and s == state.target):
            hidden += _all(places, f"hand{s}")
        # A Vizier looks through the chosen pile; others only know its size.
        (visible if vizier_looks and s == state.target else hidden).extend(_all(places, f"corruption{s}"))
    # The market: goods face up; of a character everyone sees only that it is one (its back).
    names = state.game.cards.name
    visible += [("market", i) for i, c in enumerate(places["market"])
                if not names(c).startswith(CHARACTER_ROLES)]
    return hidden, visible




def boss(state: State, seat: int) -> tuple[list[Slot], list[Slot]]:
    """Hand values are the owner's; revealed cards, face-up police cards and (from resolution on)
    the rewards are everyone's; the police deck and the cards out of the game are nobody's.

    The cities of every hand are public, so another player's hand card is in neither list: a swap
    of two such cards shows when their cities differ. test_boss.py swaps them within a city.
    """
    places = state.card_places()
    hidden = _all(places, "deck") + _all(places, "removed")
    visible = _all(places, f"hand{seat}") + _all(places, "police")
    for name in places:
        if name.startswith("revealed_"):
            visible += _all(places, name)
    (visible if state.rewards_up else hidden).extend(_all(places, "rewards"))
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
    "prohis": prohis, "sobek": sobek, "boss": boss, "bandits": bandits,
}
