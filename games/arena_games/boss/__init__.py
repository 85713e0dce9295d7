"""The Boss: gangsters, hidden rewards and deduction, 2 to 4 players.

The rules are those of ``docs/games/boss.md``; :mod:`.state` follows them in their order,
each kind of decision by its pair ``_legal_<phase>`` and ``_apply_<phase>``.
Names follow the rulebook: a row of *boss cards* (seven cities and Chicago) gathers
*cubes* (gangsters: *big* regulars that come back every round, *small* irregulars
used once); under each city lies a face-down *reward*, one of that city's cards;
players *reveal* their other city cards one per turn, and the *police* cards say
when the game ends.

Decisions are fine-grained; each lists every legal action:

=======  =================  =====================================================
phase    who decides        actions
=======  =================  =====================================================
turn     the active player  ``reveal:<card>`` (a card of the hand) or
                            ``place:<boss>`` (start adding cubes to that boss)
cubes    the active player  ``big``, ``small`` (add one cube), ``done``
reveal   the active player  ``reveal:<card>``: the mandatory reveal, after placing
place    the active player  ``place:<boss>``: the optional placement, after
                            revealing; or ``pass``
=======  =================  =====================================================

``<card>`` is a face such as ``detroit_3`` or ``memphis_hospital``; ``<boss>`` a city
such as ``new_york``, or ``chicago``.

Where the rulebook is silent, this engine decides (the page lists these too):

* ``place:<boss>`` is offered only where the placement can be completed: the cubes
  at hand can reach a strict majority there. Cubes are then added one at a time and
  ``done`` is legal once the placement has a big cube and the majority.
* A decision with a single legal action is played at once, without asking. Every
  decision depends only on public information and the decider's own hand, so this
  reveals nothing.
* A penalty falls on the player's pool of big cubes (in reserve or on the board),
  never on the cubes of a particular boss, so it cannot change a majority later in
  the same resolution. Every placement brings a big cube, so a controller always has
  one to lose: the rules' "no big cube left" case is handled but cannot arise in play.
* A cube jailed at the end of round r misses rounds r+1 and r+2; one hospitalised
  misses round r+1.
* Every reward card is turned face up at resolution, also under a boss nobody
  controls.
* The last-turn order is fixed when the police card is flipped.
* The reserve that breaks ties counts big cubes back from prison or hospital at the
  end of the last round, and not those the last round's penalties took.
* Overtime (a setting): when the first place is still tied after every tie-break,
  everyone plays one more complete round, whose points count like any other; it
  flips a police card only if one is left. Then the same ranking applies, and
  players still tied share their place.

The package: ``components`` (the bosses and cards, the settings, the phases and actions),
``state`` (the rules in play and the view of a seat), ``sampling`` (states drawn from a seat's
view, for search), ``describe`` (the readable log and actions in words) and ``table`` (the drawn
table, :mod:`arena_games.scene`); this module is the game's header,
:data:`GAME`.
"""

from __future__ import annotations

from ..core import DONE, GameSpec
from .components import (
    BACK,
    BADGES_TO_END,
    BANISHED,
    BIG,
    BIG_CUBES,
    CARDS,
    CHICAGO,
    CINCINNATI,
    CITIES,
    CITY_OF,
    CUBES,
    DOUBLE,
    FACE,
    GOLD,
    HOSPITAL,
    KIND_OF,
    PARSED,
    PASS,
    PLACE,
    POLICE,
    PRISON,
    REVEAL,
    REVOLVER,
    SILVER,
    TURN,
    VALUE_OF,
    VALUES,
    BossSettings,
    city_combinations,
    parse_city_cards,
)
from .describe import describe_action, describe_event
from .sampling import sampler
from .state import BossState
from .table import table

GAME = GameSpec(
    name="boss",
    title="The Boss",
    min_players=2,
    max_players=4,
    settings=BossSettings,
    state=BossState,
    version="1.0.0",
    cards=CARDS,
    score_unit="points",
    actions={"reveal": ("card",), "place": ("boss",), "big": (), "small": (), "done": (), "pass": ()},
    view_first=("hand", "police", "bosses", "active", "dealer", "round"),
    seat_fields=("seat", "to_act", "active", "dealer"),
    describe_event=describe_event,
    describe_action=describe_action,
    table=table,
    # A failed seat places no cubes: it reveals its first card (reveals come first in
    # the list), passes the optional placement, and closes a placement as soon as it may.
    fallback_preference=(PASS, DONE, BIG),
    sampler=sampler,
)

__all__ = [
    "BACK", "BADGES_TO_END", "BANISHED", "BIG_CUBES", "CARDS", "CHICAGO", "CINCINNATI", "CITIES", "CITY_OF", "CUBES",
    "DOUBLE", "FACE", "GAME", "GOLD", "HOSPITAL", "KIND_OF", "PARSED", "PASS", "PLACE", "POLICE", "PRISON", "REVEAL",
    "REVOLVER", "SILVER", "TURN", "VALUES", "VALUE_OF", "BossSettings", "BossState", "city_combinations",
    "describe_event", "parse_city_cards",
]
