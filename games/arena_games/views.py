"""Building a seat's view: the event log with per-seat secrets, and the common view fields.

An event is a plain dict such as ``{"type": "take_pile", "seat": 2}``. When some
seats may know more (the drawer sees the card), the engine records the extra
fields as a *secret* for those seats only. A seat's view carries the events since
that seat's last decision, each rendered for that seat: never a secret it may not
know, so the bytes of a view depend only on what the seat may see.
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]

UNKNOWN = "unknown"
"""The name a view gives a face-down card whose face the seat may not know."""


class EventLog:
    """Append-only log of one game's events, and where each seat last decided."""

    __slots__ = ("entries", "cursor")

    def __init__(self, num_players: int) -> None:
        # Each entry: (public rendering, rendering for the insiders, insider seats).
        self.entries: list[tuple[Event, Event, tuple[int, ...]]] = []
        self.cursor = [0] * num_players

    def add(self, public: Event, secret: Event | None = None, to: tuple[int, ...] = ()) -> None:
        """Records an event. ``secret`` fields are added for the seats in ``to`` only.

        The stored dicts are shared by every view that shows them: treat views as read-only.
        """
        full = {**public, **secret} if secret else public
        self.entries.append((public, full, to))

    def mark(self, seat: int) -> None:
        """``seat`` decides now: its next view starts with the events after this point."""
        self.cursor[seat] = len(self.entries)

    def since(self, seat: int) -> list[Event]:
        """The events since ``seat``'s last decision, as ``seat`` may see them."""
        return [
            full if seat in to else public
            for public, full, to in self.entries[self.cursor[seat] :]
        ]

    def history(self, seat: int | None = None) -> list[Event]:
        """The whole log as ``seat`` may see it, or everything when ``seat`` is None."""
        if seat is None:
            return [full for _, full, _ in self.entries]
        return [full if seat in to else public for public, full, to in self.entries]

    def copy(self) -> EventLog:
        """A log of its own for a clone: the entries and cursors are copied, the events they hold
        shared (they are read-only)."""
        new = EventLog.__new__(EventLog)
        new.entries, new.cursor = self.entries[:], self.cursor[:]
        return new


class MutedLog(EventLog):
    """A log that records nothing, shared by every muted state (:meth:`State.mute`)."""

    __slots__ = ()

    def __init__(self) -> None:
        self.entries = []
        self.cursor = []

    def add(self, public: Event, secret: Event | None = None, to: tuple[int, ...] = ()) -> None:
        pass

    def mark(self, seat: int) -> None:
        pass

    def since(self, seat: int) -> list[Event]:
        return []

    def history(self, seat: int | None = None) -> list[Event]:
        return []

    def copy(self) -> MutedLog:
        return self  # records nothing: every muted state shares it

    def __deepcopy__(self, memo: dict[int, Any]) -> MutedLog:
        return self


MUTED = MutedLog()


def restore_log(seat: int, view: dict[str, Any], history: list[Event] | None, num_players: int) -> EventLog:
    """The log of a state drawn from ``view``: ``seat``'s history (every event of the game as
    the seat saw it, ending with the view's events), or the view's events alone, so that the
    state's view and history for ``seat`` are the seat's own. Every entry is public: a drawn
    state shows nobody's secrets but the seat's, which are its own anyway."""
    events = view["events"]
    entries = list(history) if history is not None else list(events)
    if entries[len(entries) - len(events):] != events:
        raise ValueError("the history does not end with the view's events")
    log = EventLog(num_players)
    log.entries = [(event, event, ()) for event in entries]
    log.cursor = [len(entries)] * num_players
    log.cursor[seat] = len(entries) - len(events)
    return log


def seat_view(state: Any, seat: int, phase: str, to_act: int, events: EventLog) -> dict[str, Any]:
    """The fields every game's view starts with; the engine adds its own after them."""
    return {
        "game": state.game.name,
        "seat": seat,
        "num_players": state.num_players,
        "phase": phase,
        "to_act": to_act,
        "events": events.since(seat),
    }
