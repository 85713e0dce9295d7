from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProhisCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROHIS_CARD_UNKNOWN: _ClassVar[ProhisCard]
    PROHIS_CARD_LEGAL: _ClassVar[ProhisCard]
    PROHIS_CARD_ILLEGAL: _ClassVar[ProhisCard]
    PROHIS_CARD_LIEUTENANT: _ClassVar[ProhisCard]
    PROHIS_CARD_CAPTAIN: _ClassVar[ProhisCard]
    PROHIS_CARD_MAJOR: _ClassVar[ProhisCard]

class ProhisPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROHIS_PHASE_UNSPECIFIED: _ClassVar[ProhisPhase]
    PROHIS_PHASE_TURN: _ClassVar[ProhisPhase]
    PROHIS_PHASE_DRAW: _ClassVar[ProhisPhase]
    PROHIS_PHASE_CONVOY: _ClassVar[ProhisPhase]
    PROHIS_PHASE_CLAIM: _ClassVar[ProhisPhase]
    PROHIS_PHASE_BRIBE: _ClassVar[ProhisPhase]
    PROHIS_PHASE_RESPOND: _ClassVar[ProhisPhase]
    PROHIS_PHASE_WAIVE: _ClassVar[ProhisPhase]
    PROHIS_PHASE_FLIP: _ClassVar[ProhisPhase]
    PROHIS_PHASE_OVER: _ClassVar[ProhisPhase]

class ProhisEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROHIS_EVENT_TYPE_UNSPECIFIED: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_TURN: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_TAKE: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_REFILL: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_PILE: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_PASS: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_CONVOY: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_CLAIM: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_DECLINE: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_INSPECTOR: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_BRIBE: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_SILENT: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_ACCEPT: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_REJECT: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_WAIVE: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_INSPECT: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_FLIP: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_OUTCOME: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_END_TRIGGERED: _ClassVar[ProhisEventType]
    PROHIS_EVENT_TYPE_GAME_OVER: _ClassVar[ProhisEventType]

class ProhisOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROHIS_OUTCOME_UNSPECIFIED: _ClassVar[ProhisOutcome]
    PROHIS_OUTCOME_UNCHALLENGED: _ClassVar[ProhisOutcome]
    PROHIS_OUTCOME_BRIBED: _ClassVar[ProhisOutcome]
    PROHIS_OUTCOME_WAIVED: _ClassVar[ProhisOutcome]
    PROHIS_OUTCOME_CLEARED: _ClassVar[ProhisOutcome]
    PROHIS_OUTCOME_SEIZED: _ClassVar[ProhisOutcome]

class ProhisActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROHIS_ACTION_KIND_UNSPECIFIED: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_TAKE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_PILE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_DONE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_PASS: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_CONVOY: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_CLAIM: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_DECLINE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_BRIBE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_SILENT: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_ACCEPT: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_REJECT: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_WAIVE: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_INSPECT: _ClassVar[ProhisActionKind]
    PROHIS_ACTION_KIND_FLIP: _ClassVar[ProhisActionKind]
PROHIS_CARD_UNKNOWN: ProhisCard
PROHIS_CARD_LEGAL: ProhisCard
PROHIS_CARD_ILLEGAL: ProhisCard
PROHIS_CARD_LIEUTENANT: ProhisCard
PROHIS_CARD_CAPTAIN: ProhisCard
PROHIS_CARD_MAJOR: ProhisCard
PROHIS_PHASE_UNSPECIFIED: ProhisPhase
PROHIS_PHASE_TURN: ProhisPhase
PROHIS_PHASE_DRAW: ProhisPhase
PROHIS_PHASE_CONVOY: ProhisPhase
PROHIS_PHASE_CLAIM: ProhisPhase
PROHIS_PHASE_BRIBE: ProhisPhase
PROHIS_PHASE_RESPOND: ProhisPhase
PROHIS_PHASE_WAIVE: ProhisPhase
PROHIS_PHASE_FLIP: ProhisPhase
PROHIS_PHASE_OVER: ProhisPhase
PROHIS_EVENT_TYPE_UNSPECIFIED: ProhisEventType
PROHIS_EVENT_TYPE_TURN: ProhisEventType
PROHIS_EVENT_TYPE_TAKE: ProhisEventType
PROHIS_EVENT_TYPE_REFILL: ProhisEventType
PROHIS_EVENT_TYPE_PILE: ProhisEventType
PROHIS_EVENT_TYPE_PASS: ProhisEventType
PROHIS_EVENT_TYPE_CONVOY: ProhisEventType
PROHIS_EVENT_TYPE_CLAIM: ProhisEventType
PROHIS_EVENT_TYPE_DECLINE: ProhisEventType
PROHIS_EVENT_TYPE_INSPECTOR: ProhisEventType
PROHIS_EVENT_TYPE_BRIBE: ProhisEventType
PROHIS_EVENT_TYPE_SILENT: ProhisEventType
PROHIS_EVENT_TYPE_ACCEPT: ProhisEventType
PROHIS_EVENT_TYPE_REJECT: ProhisEventType
PROHIS_EVENT_TYPE_WAIVE: ProhisEventType
PROHIS_EVENT_TYPE_INSPECT: ProhisEventType
PROHIS_EVENT_TYPE_FLIP: ProhisEventType
PROHIS_EVENT_TYPE_OUTCOME: ProhisEventType
PROHIS_EVENT_TYPE_END_TRIGGERED: ProhisEventType
PROHIS_EVENT_TYPE_GAME_OVER: ProhisEventType
PROHIS_OUTCOME_UNSPECIFIED: ProhisOutcome
PROHIS_OUTCOME_UNCHALLENGED: ProhisOutcome
PROHIS_OUTCOME_BRIBED: ProhisOutcome
PROHIS_OUTCOME_WAIVED: ProhisOutcome
PROHIS_OUTCOME_CLEARED: ProhisOutcome
PROHIS_OUTCOME_SEIZED: ProhisOutcome
PROHIS_ACTION_KIND_UNSPECIFIED: ProhisActionKind
PROHIS_ACTION_KIND_TAKE: ProhisActionKind
PROHIS_ACTION_KIND_PILE: ProhisActionKind
PROHIS_ACTION_KIND_DONE: ProhisActionKind
PROHIS_ACTION_KIND_PASS: ProhisActionKind
PROHIS_ACTION_KIND_CONVOY: ProhisActionKind
PROHIS_ACTION_KIND_CLAIM: ProhisActionKind
PROHIS_ACTION_KIND_DECLINE: ProhisActionKind
PROHIS_ACTION_KIND_BRIBE: ProhisActionKind
PROHIS_ACTION_KIND_SILENT: ProhisActionKind
PROHIS_ACTION_KIND_ACCEPT: ProhisActionKind
PROHIS_ACTION_KIND_REJECT: ProhisActionKind
PROHIS_ACTION_KIND_WAIVE: ProhisActionKind
PROHIS_ACTION_KIND_INSPECT: ProhisActionKind
PROHIS_ACTION_KIND_FLIP: ProhisActionKind

class ProhisPlayer(_message.Message):
    __slots__ = ("hand_size", "warehouse_size", "passed")
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    WAREHOUSE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    hand_size: int
    warehouse_size: int
    passed: bool
    def __init__(self, hand_size: _Optional[int] = ..., warehouse_size: _Optional[int] = ..., passed: _Optional[bool] = ...) -> None: ...

class ProhisClaim(_message.Message):
    __slots__ = ("seat", "rank")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    rank: ProhisCard
    def __init__(self, seat: _Optional[int] = ..., rank: _Optional[_Union[ProhisCard, str]] = ...) -> None: ...

class ProhisView(_message.Message):
    __slots__ = ("seat", "num_players", "phase", "to_act", "active", "hand", "warehouse", "players", "market", "pile_size", "convoy", "revealed", "claims", "inspector", "bribe", "bribe_card_count", "offers", "flips_left", "first_pick", "end_triggered", "final_turns")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    WAREHOUSE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MARKET_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    CONVOY_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    INSPECTOR_FIELD_NUMBER: _ClassVar[int]
    BRIBE_FIELD_NUMBER: _ClassVar[int]
    BRIBE_CARD_COUNT_FIELD_NUMBER: _ClassVar[int]
    OFFERS_FIELD_NUMBER: _ClassVar[int]
    FLIPS_LEFT_FIELD_NUMBER: _ClassVar[int]
    FIRST_PICK_FIELD_NUMBER: _ClassVar[int]
    END_TRIGGERED_FIELD_NUMBER: _ClassVar[int]
    FINAL_TURNS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    phase: ProhisPhase
    to_act: int
    active: int
    hand: _containers.RepeatedScalarFieldContainer[ProhisCard]
    warehouse: _containers.RepeatedScalarFieldContainer[ProhisCard]
    players: _containers.RepeatedCompositeFieldContainer[ProhisPlayer]
    market: _containers.RepeatedScalarFieldContainer[ProhisCard]
    pile_size: int
    convoy: _containers.RepeatedScalarFieldContainer[ProhisCard]
    revealed: _containers.RepeatedScalarFieldContainer[bool]
    claims: _containers.RepeatedCompositeFieldContainer[ProhisClaim]
    inspector: int
    bribe: _containers.RepeatedScalarFieldContainer[ProhisCard]
    bribe_card_count: int
    offers: int
    flips_left: int
    first_pick: str
    end_triggered: bool
    final_turns: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., phase: _Optional[_Union[ProhisPhase, str]] = ..., to_act: _Optional[int] = ..., active: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., warehouse: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., players: _Optional[_Iterable[_Union[ProhisPlayer, _Mapping]]] = ..., market: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., pile_size: _Optional[int] = ..., convoy: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., revealed: _Optional[_Iterable[bool]] = ..., claims: _Optional[_Iterable[_Union[ProhisClaim, _Mapping]]] = ..., inspector: _Optional[int] = ..., bribe: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., bribe_card_count: _Optional[int] = ..., offers: _Optional[int] = ..., flips_left: _Optional[int] = ..., first_pick: _Optional[str] = ..., end_triggered: _Optional[bool] = ..., final_turns: _Optional[_Iterable[int]] = ...) -> None: ...

class ProhisEvent(_message.Message):
    __slots__ = ("type", "seat", "position", "card", "count", "rank", "cards", "outcome", "inspector", "scores")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    INSPECTOR_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    type: ProhisEventType
    seat: int
    position: int
    card: ProhisCard
    count: int
    rank: ProhisCard
    cards: _containers.RepeatedScalarFieldContainer[ProhisCard]
    outcome: ProhisOutcome
    inspector: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, type: _Optional[_Union[ProhisEventType, str]] = ..., seat: _Optional[int] = ..., position: _Optional[int] = ..., card: _Optional[_Union[ProhisCard, str]] = ..., count: _Optional[int] = ..., rank: _Optional[_Union[ProhisCard, str]] = ..., cards: _Optional[_Iterable[_Union[ProhisCard, str]]] = ..., outcome: _Optional[_Union[ProhisOutcome, str]] = ..., inspector: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class ProhisAction(_message.Message):
    __slots__ = ("kind", "position", "card")
    KIND_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    kind: ProhisActionKind
    position: int
    card: ProhisCard
    def __init__(self, kind: _Optional[_Union[ProhisActionKind, str]] = ..., position: _Optional[int] = ..., card: _Optional[_Union[ProhisCard, str]] = ...) -> None: ...
