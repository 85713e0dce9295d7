"""The interface every game engine implements, and the types it speaks in.

Modelled on OpenSpiel's ``State``: a game is a small spec (name, player counts,
settings, how to start) and a mutable state that says whose decision it is, what
the legal actions are, applies one, and renders the view of one seat.

Engines are pure: no I/O, no wall clock, no global state. All randomness comes
from ``random.Random(seed)`` owned by the state, so ``(seed, actions)`` replays a
game exactly.

Actions are short strings such as ``"take:2"``, ``"convoy:illegal"`` or ``"done"``.
Strings are hashable, cheap to compare, readable in logs and game records, and
map one-to-one onto the typed protocol messages. A choice of several cards is
built one card at a time and closed with ``"done"``, so no list of legal actions
grows with the number of subsets of a hand.
"""

from __future__ import annotations

import dataclasses
import random
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from .cards import CardSet
from .scene import Scene
from .views import MUTED, EventLog

Action = str
View = dict[str, Any]

TERMINAL = -1
"""``current_player()`` of a finished game."""

DONE: Action = "done"
"""Closes a multi-card choice (a convoy, a bribe, a set) or ends an optional second pick."""


def action_table(*families: Sequence[Action]) -> dict[Action, tuple[str, int]]:
    """``{action: (verb, index)}`` for families of actions ``verb:<argument>``.

    A family lists one verb's actions by argument (a market slot, a face, a seat), so the
    index is the argument as the engine counts it: no action string is split during play.
    """
    table = {action: (action.partition(":")[0], i) for family in families for i, action in enumerate(family)}
    if len(table) != sum(map(len, families)):
        raise ValueError("an action is listed twice")
    return table


class GameError(Exception):
    """Base class of every error an engine raises on bad input."""


class UnknownGame(GameError, KeyError):
    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class BadSettings(GameError, ValueError):
    """A setting that does not exist or has a value of the wrong kind."""


class BadPlayerCount(GameError, ValueError):
    """The game does not allow that many players."""


class ActionError(GameError, ValueError):
    """An action was refused; the state is unchanged."""


class MalformedAction(ActionError):
    """The action is not an action string at all."""


class IllegalAction(ActionError):
    """A well-formed action that is not in the current list of legal actions."""


@dataclasses.dataclass(frozen=True)
class Settings:
    """Base of each game's settings: one field per [house] rule, with its default.

    Subclasses are frozen dataclasses; each field's docstring-like comment in the
    game module says which rule it names.
    """

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Settings:
        """Builds settings from a mapping, accepting strings as the CLI gives them.

        Unknown names and values of the wrong kind raise :class:`BadSettings`
        naming the setting, so a typo in a league config is caught before any game.
        """
        values = dict(values or {})
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise BadSettings(
                f"unknown setting(s) {', '.join(unknown)} for {cls.__name__}; "
                f"known: {', '.join(sorted(fields)) or 'none'}"
            )
        hints = typing.get_type_hints(cls)
        parsed = {name: _coerce(name, hints[name], raw) for name, raw in values.items()}
        return cls(**parsed)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _coerce(name: str, kind: Any, raw: Any) -> Any:
    """Converts ``raw`` to ``kind`` (bool, int, str, a Literal or ``X | None``)."""
    origin = typing.get_origin(kind)
    if origin is typing.Literal:
        allowed = typing.get_args(kind)
        for option in allowed:
            if raw == option or (isinstance(raw, str) and str(option) == raw):
                return option
        raise BadSettings(f"setting {name}: {raw!r} is not one of {', '.join(map(str, allowed))}")
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(kind)
        is_none = raw is None or (isinstance(raw, str) and raw.lower() in ("none", ""))
        if is_none and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _coerce(name, inner[0], raw)
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
            return raw.lower() in ("true", "yes", "on", "1")
        raise BadSettings(f"setting {name}: expected true or false, got {raw!r}")
    if kind is int:
        if isinstance(raw, bool):
            raise BadSettings(f"setting {name}: expected an integer, got {raw!r}")
        if isinstance(raw, int):
            return raw
        if isinstance(raw, str):
            try:
                return int(raw)
            except ValueError:
                pass
        raise BadSettings(f"setting {name}: expected an integer, got {raw!r}")
    if kind is str:
        if isinstance(raw, str):
            return raw
        raise BadSettings(f"setting {name}: expected a string, got {raw!r}")
    raise BadSettings(f"setting {name}: unsupported type {kind!r}")  # pragma: no cover


class State(ABC):
    """One game in progress. Subclasses implement the rules of one game.

    The referee's loop is::

        while not state.is_terminal():
            seat = state.current_player()
            action = bot[seat].decide(state.view(seat), state.legal_actions())
            state.apply(action)
        state.scores(), state.ranks()

    ``state.game`` is the :class:`GameSpec` that started it (:meth:`GameSpec.new_game`).
    """

    def __init__(self, game: GameSpec, num_players: int, seed: int, settings: Settings) -> None:
        self.game = game
        self.num_players = num_players
        self.seed = seed
        self.settings = settings
        self.rng = random.Random(seed)
        self.log = EventLog(num_players)
        self._legal: list[Action] | None = None

    # -- whose decision, and what may be done -------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat that must decide now, or :data:`TERMINAL`.

        It may differ from the seat whose turn it is (a claim, a defence, a discard).
        """

    def legal_actions(self) -> list[Action]:
        """Every legal action of :meth:`current_player`, in a fixed order.

        The list is cached until the next :meth:`apply`; treat it as read-only.
        """
        if self._legal is None:
            self._legal = self._legal_actions()
        return self._legal

    @abstractmethod
    def _legal_actions(self) -> list[Action]:
        """The legal actions of :meth:`current_player`; none once the game is over."""

    def invalidate_caches(self) -> None:
        """Forgets what the state caches: its legal actions (and whatever else an engine keeps).

        :meth:`apply` keeps the caches right; call this only after changing the state's fields
        directly, as tests do to set up a position.
        """
        self._legal = None

    def apply(self, action: Action) -> None:
        """Applies ``action`` for :meth:`current_player`.

        A malformed or illegal action raises :class:`ActionError` and leaves the
        state exactly as it was.
        """
        if not isinstance(action, str):
            raise MalformedAction(
                f"an action must be a string such as 'done', got {type(action).__name__} {action!r}"
            )
        legal = self._legal or self.legal_actions()  # the cached list, without a call
        if action not in legal:
            if self.is_terminal():
                raise IllegalAction(f"the game is over; no action is legal (got {action!r})")
            raise IllegalAction(
                f"{action!r} is not legal for seat {self.current_player()} in phase "
                f"{self.phase_name()!r}; legal: {', '.join(legal)}"
            )
        self._legal = None
        self._apply(action)

    @abstractmethod
    def _apply(self, action: Action) -> None:
        """Applies an action already known to be legal."""

    @abstractmethod
    def phase_name(self) -> str:
        """A short name of the kind of decision pending, for messages and views."""

    # -- the end ----------------------------------------------------------------------------
    @abstractmethod
    def is_terminal(self) -> bool: ...

    @abstractmethod
    def scores(self) -> list[int]:
        """Each seat's score in the game's own unit (final once terminal)."""

    def ranks(self) -> list[int]:
        """1 is best; equal scores share a place (standard competition ranking)."""
        return ranks_from_scores(self.scores())

    # -- information ----------------------------------------------------------------------
    @abstractmethod
    def view(self, seat: int) -> View:
        """Everything ``seat`` may know now, as plain JSON-able data.

        Built only from what "Who knows what" in ``docs/games/<game>.md`` grants that seat, and
        including the events since that seat's last decision.
        """

    @abstractmethod
    def card_places(self) -> dict[str, list[int]]:
        """Every card id, by place. Each card is in exactly one place at all times.

        The lists are the state's own: tests use them to check conservation and to
        perturb hidden information.
        """

    def history(self, seat: int | None = None) -> list[dict[str, Any]]:
        """Every event so far as ``seat`` may see it; everything when ``seat`` is None."""
        return self.log.history(seat)

    def clone(self) -> State:
        """An independent copy: applying actions to one never changes the other.

        Search calls it once per simulated game, so each engine copies its own fields by hand
        (lists of card ids, counters) and shares what never changes (the spec, the settings,
        the logged events, which are read-only); this deep copy is the slow, always-right
        default.
        """
        import copy

        return copy.deepcopy(self)

    def mute(self) -> None:
        """Stops recording events: for a simulation, whose events nobody reads.

        A muted state's views carry no events and its history is empty; everything else
        (legal actions, scores, views) is as before. Its clones are muted too.
        """
        self.log = MUTED


class PhasedState(State):
    """A state whose pending decision is one of a few named phases, each with its own methods.

    ``self.phase`` indexes the subclass's ``PHASES``, whose last entry is ``"over"``, and
    ``self.to_act`` is the seat that must decide. That is all :meth:`current_player`,
    :meth:`is_terminal` and :meth:`phase_name` need, so every engine shares them.

    Each phase ``p`` has its methods, found by name once per class (as OpenSpiel's games
    have one function per phase):

    * ``_legal_<p>(self) -> list[Action]``: the legal actions of :meth:`current_player`
      (this class has the ``over`` phase's: none);
    * ``_apply_<p>(self, seat, verb, arg)``, for every phase but ``over``: applies a legal
      action of ``seat``, parsed by the class's ``PARSED`` table (:func:`action_table`):
      ``take:2`` comes as ``("take", 2)``, an action without an argument as its own verb
      with ``arg`` -1.
    """

    PHASES: ClassVar[tuple[str, ...]]
    PARSED: ClassVar[Mapping[Action, tuple[str, int]]] = {}
    _OVER: ClassVar[int]
    _LEGAL: ClassVar[tuple[Callable[[Any], list[Action]], ...]]
    _APPLY: ClassVar[tuple[Callable[[Any, int, str, int], None], ...]]
    phase: int
    to_act: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not hasattr(cls, "PHASES"):
            return
        if cls.PHASES[-1] != "over":
            raise TypeError(f"{cls.__name__}.PHASES must end with 'over'")
        cls._OVER = len(cls.PHASES) - 1
        # Every subclass gets its own tables, so that one overriding a phase's method is heard.
        names = [f"_legal_{phase}" for phase in cls.PHASES] + [f"_apply_{phase}" for phase in cls.PHASES[:-1]]
        missing = [name for name in names if not hasattr(cls, name)]
        if missing:
            raise TypeError(f"{cls.__name__} has a phase without its method: {', '.join(missing)}")
        cls._LEGAL = tuple(getattr(cls, f"_legal_{phase}") for phase in cls.PHASES)
        cls._APPLY = tuple(getattr(cls, f"_apply_{phase}") for phase in cls.PHASES[:-1])

    def current_player(self) -> int:
        return TERMINAL if self.phase == self._OVER else self.to_act

    def is_terminal(self) -> bool:
        return self.phase == self._OVER

    def phase_name(self) -> str:
        return self.PHASES[self.phase]

    def _legal_actions(self) -> list[Action]:
        return self._LEGAL[self.phase](self)

    def _legal_over(self) -> list[Action]:
        return []

    def _apply(self, action: Action) -> None:
        seat = self.to_act
        self.log.mark(seat)  # the seat decides: its next view's events start after this
        self._act(seat, action)

    def _act(self, seat: int, action: Action) -> None:
        """Applies a legal action of ``seat`` through its phase's method; an engine plays a
        forced action through this too, which is not a decision of the seat's."""
        verb, arg = self.PARSED.get(action, (action, -1))
        self._APPLY[self.phase](self, seat, verb, arg)

    def _game_over(self) -> None:
        """Ends the game: nobody decides any more, and the log says the final scores."""
        self.phase, self.to_act = self._OVER, TERMINAL
        self.log.add({"type": "game_over", "scores": self.scores()})


def ranks_from_scores(scores: Sequence[Any]) -> list[int]:
    """Standard competition ranking: ``[10, 30, 30, 5] -> [3, 1, 1, 4]``.

    A score may be a tuple of the score and its tie-breaks, compared in that order.
    """
    return [1 + sum(1 for other in scores if other > s) for s in scores]


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """The declarative description of one game (cf. kaggle-environments' specs).

    Beside the engine, it says what the layers above need to know of the game: the action verbs
    and their arguments (the protocol's Action message of the game), and how a view reads (the
    fields shown first, the fields that name a seat). ``tests/test_game_specs.py`` holds the
    codec, the web, the kit and the docs to it.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    settings: type[Settings]
    state: type[State]
    version: str
    cards: CardSet
    score_unit: str = "points"
    actions: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict, hash=False)  # a dict: unhashable
    """Every action verb, with the names of its arguments in order (``{"take": ("position",),
    "done": ()}``): the fields of the game's Action message in ``protos/arena/v1/<game>.proto``
    that carry them."""
    view_first: tuple[str, ...] = ()
    """The view fields a reader looks at first (a seat's own cards, then the table's): the replay
    viewer shows them in this order, then the others as they come."""
    seat_fields: tuple[str, ...] = ("seat", "to_act")
    """The view fields whose number is a seat (in a list or a mapping of the view too): the replay
    viewer shows them as the seat's name."""
    describe_event: Callable[[dict[str, Any], Callable[[int], str]], str | None] = (
        lambda event, name: None
    )
    """Renders one event as a line of a readable log (None: no line)."""
    describe_action: Callable[[str, bool], str] = lambda action, secret: action
    """Renders an action in the docs' words; with ``secret`` False, only what every seat may
    know of it (a convoy's size, not its cards)."""
    table: Callable[[Sequence[View]], Scene] | None = None
    """Lays out a step's table from one seat's view, or from every seat's in seat order (the full
    table, once the game is over): ``<game>/table.py``, drawn by ``arena/tables``."""
    fallback_preference: tuple[str, ...] = ()
    """The referee plays for a failed seat the first of these that is legal, else the first
    legal action: the most passive play the rules allow."""
    sampler: Callable[[GameSpec, View, list[dict[str, Any]], Settings], Callable[[random.Random], State]] | None = None
    """``sampler(game, view, history, settings)`` prepares, once per decision, what
    :func:`arena_games.determinise.sampler` needs; the callable it returns draws one state from
    a ``random.Random`` each call (see that module for what a drawn state must satisfy)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> GameSpec:
        return self  # immutable: a copy of a state shares the spec of its game

    def fallback(self, legal: list[Action]) -> Action:
        """The action played for a seat whose bot has failed (see ``fallback_preference``)."""
        for action in self.fallback_preference:
            if action in legal:
                return action
        return legal[0]

    def check_players(self, num_players: int) -> None:
        if not isinstance(num_players, int) or not (
            self.min_players <= num_players <= self.max_players
        ):
            raise BadPlayerCount(
                f"{self.title} is played by {self.min_players} to {self.max_players} players, "
                f"not {num_players}"
            )

    def validate(self, num_players: int, settings: Settings | Mapping[str, Any] | None = None) -> Settings:
        """The complete settings of a game of ``num_players`` with ``settings`` (a Settings object,
        or a mapping of overrides whose values may be strings, as the CLI gives them).

        Raises :class:`BadPlayerCount` or :class:`BadSettings` naming the problem, before any game:
        some settings must also fit the player count, which only starting a game checks.
        """
        self.check_players(num_players)
        settings = self.settings_from(settings)
        self.new_game(num_players, 0, settings)
        return settings

    def new_game(
        self,
        num_players: int,
        seed: int,
        settings: Settings | Mapping[str, Any] | None = None,
    ) -> State:
        """Starts a game. ``settings`` may be a Settings object or a mapping of overrides."""
        self.check_players(num_players)
        return self.state(self, num_players, seed, self.settings_from(settings))

    def settings_from(self, settings: Settings | Mapping[str, Any] | None) -> Settings:
        """``settings`` if they are this game's, else this game's built from a mapping of overrides
        (whose values may be strings, as the CLI gives them; None: the defaults)."""
        if isinstance(settings, self.settings):
            return settings
        # Another game's Settings object is no mapping: from_mapping refuses it (a TypeError).
        return self.settings.from_mapping(typing.cast("Mapping[str, Any] | None", settings))
