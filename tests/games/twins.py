"""Twin games: a game played beside copies of itself, each with a secret changed before the engine
says a word about it, so that what the engine tells a seat can be checked against what it may know.

A twin differs from the game by a perturbation made before the events about it are logged:

* the first twin deals with one shuffle changed (two of its positions exchanged: another deal,
  another new pile, another raid), so the engine logs its own deal;
* later twins are forks: copies of the game just before a step, with a piece that the step moves
  exchanged for another piece some seat cannot see (another card drawn, stolen, taken);
* now and then a twin plays another card face down (another loot card into a stash, another card
  into a convoy). Otherwise a twin takes the game's decisions.

The engine is trusted only to move pieces: which pieces differ between two games, and whether a seat
may see them, comes from :mod:`visibility`. While the games differ only in pieces a seat cannot see,
every byte that seat is sent, its events included, must be the same in both. So an engine that writes
a secret into the public part of an event is caught, wherever the secret came from.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import itertools
import json
import random
from collections.abc import Callable
from typing import cast

from arena_games import Action, GameSpec, State
from arena_games.views import Event, EventLog
from arena_protocol import codec
from arena_protocol.proto import arena_pb2 as pb
from arenabot.strategies import make_strategy

from .visibility import FACE_DOWN_PLAYS, LOOKALIKE, SIGHTS, Sight, Slot, all_places, exposed, face_names, kind


def render(state: State, seat: int) -> str:
    return json.dumps(state.view(seat), sort_keys=True)


def _view_without_events(state: State, seat: int) -> str:
    """The view of ``seat`` but for its events."""
    return json.dumps({k: v for k, v in state.view(seat).items() if k != "events"}, sort_keys=True)


def _told(state: State, seat: int, start: int) -> list[Event]:
    """The events from the ``start``-th on, as ``seat`` is told them (``state.history(seat)[start:]``)."""
    return [full if seat in to else public for public, full, to in state.log.entries[start:]]


def _same_events(events: list[Event], others: list[Event]) -> bool:
    return json.dumps(events, sort_keys=True) == json.dumps(others, sort_keys=True)


def wire(state: State, seat: int) -> bytes:
    """The bytes the referee would send to ``seat``: its DecisionRequest, serialised."""
    view, events = codec.encode_view(state.view(seat))
    legal = state.legal_actions() if state.current_player() == seat else []
    request = pb.DecisionRequest(view=view, events=events,
                                 legal_actions=[codec.encode_action(state.game.name, a) for a in legal])
    return request.SerializeToString(deterministic=True)


class SwapInShuffle(random.Random):
    """A game's random source, except that its ``call``-th shuffle exchanges two positions of its
    result (drawn by ``pick``, holding pieces that look ``alike``). It draws what the game's own does."""

    def __init__(self, seed: int, call: int, pick: random.Random, alike: Callable[[int, int], bool]) -> None:
        super().__init__(seed)
        self.call, self.pick, self.alike, self.shuffles = call, pick, alike, 0

    def shuffle(self, x: list) -> None:  # type: ignore[override]
        super().shuffle(x)
        if self.shuffles == self.call and len(x) > 1:
            i = self.pick.randrange(len(x))
            others = [j for j in range(len(x)) if j != i and self.alike(x[i], x[j])]
            if others:
                j = self.pick.choice(others)
                x[i], x[j] = x[j], x[i]
        self.shuffles += 1


def with_swapped_shuffle(spec: GameSpec, call: int, pick: random.Random) -> GameSpec:
    """``spec``, its states drawing from a :class:`SwapInShuffle`: the engine deals the perturbed deal itself."""
    alike = LOOKALIKE.get(spec.name, lambda a, b: True)

    class Twin(spec.state):  # type: ignore[name-defined, misc]  # the game's own state class, known at run time
        # State.__init__ assigns self.rng = random.Random(seed) before anything is dealt.
        @property
        def rng(self) -> random.Random:
            return self._rng

        @rng.setter
        def rng(self, _: random.Random) -> None:
            self._rng = SwapInShuffle(self.seed, call, pick, alike)

    return dataclasses.replace(spec, state=Twin)


class LeakyLog(EventLog):
    """An event log that also writes the secret of each event of the given types into its public part:
    the bug the twins must catch."""

    def __init__(self, num_players: int, types: frozenset[str]) -> None:
        super().__init__(num_players)
        self.types = types

    def add(self, public: Event, secret: Event | None = None, to: tuple[int, ...] = ()) -> None:
        if secret and public["type"] in self.types:
            public = {**public, **secret}
        super().add(public, secret, to)


def leaky(spec: GameSpec, types: frozenset[str]) -> GameSpec:
    """``spec`` with a :class:`LeakyLog`: a deliberately leaky engine, for these tests only."""

    class Leaky(spec.state):  # type: ignore[name-defined, misc]  # the game's own state class, known at run time
        @property
        def log(self) -> EventLog:
            return self._log

        @log.setter
        def log(self, log: EventLog) -> None:
            self._log = LeakyLog(len(log.cursor), types)

    return dataclasses.replace(spec, state=Leaky)


@dataclasses.dataclass
class Leak:
    """A seat that was sent different bytes by the twins while the games differed only out of its sight."""

    seat: int
    step: int
    differences: list[Slot]
    told: tuple[list[Event], list[Event]]  # the events it was told since the last check, in each game

    def first_event(self) -> tuple[Event | None, Event | None]:
        """The first event the seat was told differently, in each game (None: no such event)."""
        for a, b in itertools.zip_longest(*self.told):
            if a != b:
                return a, b
        return None, None

    def __str__(self) -> str:
        a, b = self.first_event()
        where = f"event {a} / {b}" if a or b else "the view outside its events"
        return (f"seat {self.seat} after step {self.step} was told apart by {where}, though the games "
                f"differed only in {self.differences}, which it may not see")


@dataclasses.dataclass
class Run:
    """What a game and its twins showed: a leak, or how much was compared."""

    leak: Leak | None = None
    steps: int = 0  # decisions taken in the game
    twins: int = 0  # twins made: the one with the perturbed shuffle, then forks
    compared: int = 0  # seat views compared while a twin differed from the game
    partings: collections.Counter[str] = dataclasses.field(default_factory=collections.Counter)

    def __str__(self) -> str:
        why = ", ".join(f"{count} {reason}" for reason, count in self.partings.most_common())
        return f"{self.steps} decisions, {self.twins} twins, {self.compared} views compared; twins parted: {why}"


def swap(state: State, a: Slot, b: Slot) -> None:
    """Exchanges the pieces in slots ``a`` and ``b`` of ``state``."""
    places = all_places(state)
    pa, pb = places[a[0]], places[b[0]]
    pa[a[1]], pb[b[1]] = pb[b[1]], pa[a[1]]
    state.invalidate_caches()


def _differences(original: dict[str, list[str]], twin: dict[str, list[str]]) -> list[Slot] | None:
    """The slots whose pieces differ; None when the places themselves differ (a public difference)."""
    if original.keys() != twin.keys():
        return None
    out: list[Slot] = []
    for place, faces in original.items():
        other = twin[place]
        if len(faces) != len(other):
            return None
        out += [(place, i) for i, (a, b) in enumerate(zip(faces, other, strict=True)) if a != b]
    return out


def _unseen(slots: list[Slot], original: Sight, twin: Sight) -> bool:
    """Whether a seat, seeing ``original`` in one game and ``twin`` in the other, cannot see ``slots``
    differ: each is hidden in both, or shows the same back in both."""
    hidden, hidden_twin = set(original.hidden), set(twin.hidden)
    return all((s in hidden and s in hidden_twin) or (s in original.backs and original.backs[s] == twin.backs.get(s))
               for s in slots)


def _twin_action(action: Action, legal: list[Action], face_down: tuple[str, ...], rng: random.Random,
                 change: bool) -> Action | None:
    """The twin's decision: ``action``, or, for an action that plays a card face down, when ``change``
    is set or ``action`` is not legal for the twin, the same action with another card. None: neither."""
    verb = action.partition(":")[0]
    if action in legal and not (change and verb in face_down):
        return action
    others = [a for a in legal if a != action and verb in face_down and a.startswith(verb + ":")]
    return rng.choice(others) if others else None


def _fork(state: State) -> State:
    """A copy of ``state`` to perturb. It shares the events logged so far: nothing changes them."""
    return copy.deepcopy(state, {id(entry): entry for entry in state.log.entries})


def _fork_swap(before: State, after: State, seat: int, pick: random.Random) -> tuple[Slot, Slot] | None:
    """Two slots of ``before`` whose exchange ``seat`` cannot see: one holding a piece that the step to
    ``after`` moved, one other, of different faces. None if no such slots turn up."""
    sight = SIGHTS[before.game.name]
    seen = sight(before, seat)
    unseen = seen.hidden + list(seen.backs)
    old, new, faces = all_places(before), all_places(after), face_names(before)
    moved = [(place, i) for place, i in unseen
             if place not in new or i >= len(new[place]) or new[place][i] != old[place][i]]
    for _ in range(10 if moved else 0):
        a, b = pick.choice(moved), pick.choice(unseen)
        face_a, face_b = faces[a[0]][a[1]], faces[b[0]][b[1]]
        if face_a == face_b or kind(before, a[0], face_a) != kind(before, b[0], face_b):
            continue
        swap(before, a, b)
        unchanged = _unseen([a, b], seen, sight(before, seat))  # a back may differ
        swap(before, a, b)
        if unchanged:
            return a, b
    return None


class Twin:
    """A twin of the game, the slots where its pieces differ, and the seats that cannot tell."""

    def __init__(self, state: State, differences: list[Slot], blind: set[int], pending_shuffle: int = -1) -> None:
        self.state, self.differences, self.blind = state, differences, blind
        self.pending_shuffle = pending_shuffle  # the shuffle still to be perturbed, if any
        # Events before this index are the same objects in both logs (a fork shares them), or were
        # compared already.
        self.checked = len(state.log.entries) if pending_shuffle < 0 else 0

    def compare(self, game: State, run: Run) -> Leak | None:
        """Checks what each blind seat is told in both games; drops the seats that can tell them apart.

        A view's events are those since the seat's last decision: the views are compared without
        them, and the events logged since the last check are compared on their own. The message is
        compared whole when the seat is asked to decide (a request is sent).
        """
        if not self.differences:
            return None
        sight, twin = SIGHTS[game.game.name], self.state
        start, self.checked = self.checked, len(game.log.entries)
        for seat in sorted(self.blind):
            if not _unseen(self.differences, sight(game, seat), sight(twin, seat)):
                self.blind.discard(seat)
                continue
            told = _told(game, seat, start), _told(twin, seat, start)
            same = _same_events(*told) and _view_without_events(game, seat) == _view_without_events(twin, seat)
            if same and game.current_player() == seat:
                same = wire(game, seat) == wire(twin, seat)
            if not same:
                return Leak(seat, run.steps, self.differences, told)
            run.compared += 1
        return None

    def follow(self, game: State, action: Action, shown: set[Slot], round_before: int, pick: random.Random,
               change: bool) -> str | None:
        """Takes the twin's counterpart of ``action``, which ``game`` has just taken. Returns why the
        two parted (None: they go on side by side)."""
        twin, name = self.state, game.game.name
        twin_action = _twin_action(action, twin.legal_actions(), FACE_DOWN_PLAYS[name], pick, change)
        if twin_action is None:
            return "the twin could not follow"
        if shown & set(self.differences):
            return "the step shows everyone a piece that differs"
        pending = self._pending()
        twin.apply(twin_action)
        before, differences = self.differences, _differences(face_names(game), face_names(twin))
        if differences is None or (game.current_player(), game.phase_name()) != (twin.current_player(),
                                                                                twin.phase_name()):
            return "the step parted them in public"
        self.differences = differences
        # The end of a round (or of the game) scores or shows what hands, hideouts, warehouses or
        # rewards held, and a piece may pass through one of them within the step (a stash, a raid):
        # whatever differed before the step, or came apart during it, may now be public.
        round_over = game.is_terminal() or getattr(game, "round", 0) != round_before
        if round_over and (before or pending and not self._pending()):
            return "the end of a round shows everyone what differs"
        if not self.differences and not self._pending():
            return "they are the same again"
        return None if self.blind else "every seat told them apart"

    def _pending(self) -> bool:
        """Whether the twin's perturbed shuffle is still to come."""
        # Only the first twin has one, and its state is a with_swapped_shuffle one: its rng a SwapInShuffle.
        return self.pending_shuffle >= 0 and cast(SwapInShuffle, self.state.rng).shuffles <= self.pending_shuffle


def play_twins(spec: GameSpec, num_players: int, seed: int, call: int, pick: random.Random,
               fork_rate: float = 0.5, max_twins: int = 3, change_rate: float = 0.1) -> Run:
    """Plays a game of ``spec`` to its end beside twins (see the module's docstring), and compares
    every seat's view and message with each twin's at each step, while the seat cannot tell them apart.

    The first twin's ``call``-th shuffle is perturbed. While fewer than ``max_twins`` live, each step
    forks a new one with probability ``fork_rate``: a copy of the game before the step, with a piece
    the step moves exchanged for another, both hidden from some seat. A twin plays another card face
    down with probability ``change_rate``. ``pick`` draws all these choices.
    """
    game = spec.new_game(num_players, seed)
    first = with_swapped_shuffle(spec, call, pick).new_game(num_players, seed)
    differences = _differences(face_names(game), face_names(first))
    twins = [] if differences is None else [Twin(first, differences, set(range(num_players)), call)]
    players = [make_strategy("heuristic" if s % 2 else "random", spec.name, seed + s) for s in range(num_players)]
    run = Run(twins=len(twins))
    while True:
        for twin in twins:
            run.leak = twin.compare(game, run)
            if run.leak:
                return run
        if game.is_terminal():
            return run
        seat = game.current_player()
        action = players[seat].decide(game.view(seat), game.legal_actions())
        fork = _fork(game) if len(twins) < max_twins and pick.random() < fork_rate else None
        shown, round_before = set(exposed(game, action)), getattr(game, "round", 0)
        game.apply(action)
        run.steps += 1
        live = []
        for twin in twins:
            parted = twin.follow(game, action, shown, round_before, pick, pick.random() < change_rate)
            if parted:
                run.partings[parted] += 1
            else:
                live.append(twin)
        twins = live
        if fork is not None:
            forked = _forked(fork, game, action, shown, round_before, pick)
            if forked:
                twins.append(forked)
                run.twins += 1


def _forked(fork: State, game: State, action: Action, shown: set[Slot], round_before: int,
            pick: random.Random) -> Twin | None:
    """``fork``, a copy of ``game`` before its last step, with two pieces exchanged (see
    :func:`_fork_swap`), after its counterpart of that step; None if it could not be made or parted."""
    seats = range(game.num_players)
    pair = _fork_swap(fork, game, pick.choice(seats), pick)
    if not pair:
        return None
    sight = SIGHTS[game.game.name]
    sights = [sight(fork, s) for s in seats]
    swap(fork, *pair)
    twin = Twin(fork, list(pair), {s for s in seats if _unseen(list(pair), sights[s], sight(fork, s))})
    return None if twin.follow(game, action, shown, round_before, pick, change=False) else twin
