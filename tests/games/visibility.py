"""Who may see which card, written from the "Who knows what" table of each docs/games/<game>.md.

This is the tests' own statement of the rules, independent of the engines' view code.
``SIGHTS[game](state, seat)`` says, for single pieces in :func:`all_places` (named by slots
``(place, index)``), which ``seat`` may not see at all, which it sees face up, and which
it sees only by their back. A piece is a card, or one of Sobek's event tokens.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from arena_games import Action, State
from arena_games.bandits import BanditsState
from arena_games.boss import BACK as BOSS_BACK
from arena_games.boss import POLICE, BossState
from arena_games.prohis import ProhisState
from arena_games.sobek import BACK_OF, BACKS, TOKEN_COPIES, TOKENS, SobekState

Slot = tuple[str, int]
TOKEN = "token_"  # the prefix of Sobek's token places among the pieces' places
POLICE_FACES = {face for face, _ in POLICE}


@dataclasses.dataclass
class Sight:
    """What one seat may see of the pieces where they lie now."""

    hidden: list[Slot]  # nothing at all
    visible: list[Slot]  # the face
    backs: dict[Slot, str]  # only the back, which tells this much (a city, a colour)


def all_places(state: State) -> dict[str, list[int]]:
    """Every card place, and Sobek's token places (``token_<place>``): the state's own lists."""
    out = dict(state.card_places())
    if hasattr(state, "token_places"):
        out.update({TOKEN + name: tokens for name, tokens in state.token_places().items()})
    return out


def face_names(state: State) -> dict[str, list[str]]:
    """The face of every piece, by place: what two states must agree on where a seat looks."""
    name = cards_of(state).name
    return {place: [TOKENS[t // TOKEN_COPIES] for t in pieces] if place.startswith(TOKEN)
            else [name(c) for c in pieces] for place, pieces in all_places(state).items()}


def kind(state: State, place: str, face: str) -> str:
    """Only pieces of one kind may trade places: cards, Sobek's tokens, The Boss's police cards (a
    deck of their own, with their own back)."""
    if place.startswith(TOKEN):
        return "token"
    return "police" if state.game.name == "boss" and face in POLICE_FACES else "card"


def cards_of(state: State):
    """The game's cards: the settings' deck where the settings choose one (Sobek, Bandits)."""
    return getattr(state, "cards", state.game.cards)


def _all(places: dict[str, list[int]], name: str) -> list[Slot]:
    return [(name, i) for i in range(len(places[name]))]


def prohis(state: ProhisState, seat: int) -> Sight:
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
    return Sight(hidden, visible, {})


CHARACTER_ROLES = ("queen_", "high_priest_", "scribe_", "vizier_", "thief_", "courtesan_", "merchant_")


def sobek(state: SobekState, seat: int) -> Sight:
    places = all_places(state)
    backs: dict[Slot, str] = {}
    # Nobody sees the deck, the cards out this round (2 players), or the unused green cards.
    hidden = _all(places, "deck") + _all(places, "removed") + _all(places, "green_out")
    # Sets, played characters and other discards, and cards being laid in a set are face up.
    visible = _all(places, "discard") + _all(places, "selection")
    visible += [(name, i) for name in places if name.startswith("set") for i in range(len(places[name]))]
    visible += _all(places, f"hand{seat}") + _all(places, f"corruption{seat}")
    deciding = state.current_player() == seat
    phase = state.phase_name()
    for s in range(state.num_players):
        if s == seat:
            continue
        # A Thief sees the backs of the victim's hand.
        if deciding and phase == "steal" and s == state.target:
            backs.update({(f"hand{s}", i): BACKS[BACK_OF[state.face[c]]]
                          for i, c in enumerate(places[f"hand{s}"])})
        else:
            hidden += _all(places, f"hand{s}")
        # A Vizier looks through the chosen pile; others only know its size.
        (visible if deciding and phase == "pick" and s == state.target else hidden).extend(
            _all(places, f"corruption{s}"))
    # The market: goods face up; of a character everyone sees only its back.
    for i, c in enumerate(places["market"]):
        if state.cards.name(c).startswith(CHARACTER_ROLES):
            backs[("market", i)] = BACKS[BACK_OF[state.face[c]]]
        else:
            visible.append(("market", i))
    # Tokens: the round's remaining ones are seen by the player choosing one; the chosen one by
    # all; the unused ones by nobody. (A used token's kind is public, and a Curse or a Prosperity
    # token is one by its place: views count them, so a swap there shows in neither list.)
    (visible if deciding and phase == "event" else hidden).extend(_all(places, TOKEN + "tokens"))
    hidden += _all(places, TOKEN + "out")
    visible += _all(places, TOKEN + "held")
    return Sight(hidden, visible, backs)


def boss(state: BossState, seat: int) -> Sight:
    """Hand values are the owner's, the cities of every hand everyone's (a card's back is its city);
    revealed cards, face-up police cards and, from resolution on, the rewards are everyone's (before,
    only a reward's city: the boss it lies under); the police deck is nobody's. Which cards are out
    of the game everyone knows from the table of city cards, though no view lists them."""
    places = state.card_places()
    hidden = _all(places, "deck")
    visible = _all(places, f"hand{seat}") + _all(places, "police")
    backs: dict[Slot, str] = {}
    for name in places:
        if name.startswith("revealed_"):
            visible += _all(places, name)
        elif name.startswith("hand") and name != f"hand{seat}" or name == "rewards" and not state.rewards_up:
            backs.update({(name, i): BOSS_BACK[c] for i, c in enumerate(places[name])})
    if state.rewards_up:
        visible += _all(places, "rewards")
    return Sight(hidden, visible, backs)


def bandits(state: BanditsState, seat: int) -> Sight:
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
    return Sight(hidden, visible, {})


# Any: each takes its own engine's state, and the game's name picks the one that fits
SIGHTS: dict[str, Callable[[Any, int], Sight]] = {
    "prohis": prohis, "sobek": sobek, "boss": boss, "bandits": bandits,
}

LOOKALIKE: dict[str, Callable[[int, int], bool]] = {
    "boss": lambda a, b: BOSS_BACK[a] == BOSS_BACK[b],  # cards of one city, or two police cards
}
"""Where cards show their backs, which two (by id) look alike: a shuffle exchanging them deals
differently only where the backs tell nothing."""

FACE_DOWN_PLAYS: dict[str, tuple[str, ...]] = {
    "prohis": ("convoy", "bribe"),
    "sobek": ("bury", "pick"),  # a Scribe's victim buries; a Vizier takes a card others do not see
    "boss": (),
    "bandits": ("stash",),
}
"""Actions (by verb) that name a card the player moves where the other players cannot see it."""


def exposed(state: State, action: Action) -> list[Slot]:
    """Slots whose card ``action`` turns up for everyone, even if the card then goes face down."""
    if state.game.name == "prohis" and action.startswith("flip:"):  # a seized convoy goes to a warehouse
        return [("convoy", int(action.partition(":")[2]))]
    return []
