from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BossCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_CARD_UNKNOWN: _ClassVar[BossCard]
    BOSS_CARD_NONE: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK: _ClassVar[BossCard]
    BOSS_CARD_BOSTON: _ClassVar[BossCard]
    BOSS_CARD_DETROIT: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA: _ClassVar[BossCard]
    BOSS_CARD_GOLD: _ClassVar[BossCard]
    BOSS_CARD_SILVER: _ClassVar[BossCard]
    BOSS_CARD_DOUBLE: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_1: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_2: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_3: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_4: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_5: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_PRISON: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_NEW_YORK_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_1: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_2: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_3: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_4: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_5: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_PRISON: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_BOSTON_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_1: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_2: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_3: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_4: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_5: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_PRISON: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_DETROIT_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_1: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_2: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_3: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_4: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_5: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_PRISON: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_KANSAS_CITY_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_1: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_2: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_3: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_4: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_5: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_PRISON: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_CINCINNATI_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_1: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_2: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_3: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_4: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_5: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_PRISON: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_MEMPHIS_BANISHED: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_1: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_2: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_3: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_4: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_5: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_REVOLVER: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_PRISON: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_HOSPITAL: _ClassVar[BossCard]
    BOSS_CARD_PHILADELPHIA_BANISHED: _ClassVar[BossCard]

class BossCity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_CITY_UNSPECIFIED: _ClassVar[BossCity]
    BOSS_CITY_NEW_YORK: _ClassVar[BossCity]
    BOSS_CITY_BOSTON: _ClassVar[BossCity]
    BOSS_CITY_DETROIT: _ClassVar[BossCity]
    BOSS_CITY_KANSAS_CITY: _ClassVar[BossCity]
    BOSS_CITY_CINCINNATI: _ClassVar[BossCity]
    BOSS_CITY_MEMPHIS: _ClassVar[BossCity]
    BOSS_CITY_PHILADELPHIA: _ClassVar[BossCity]
    BOSS_CITY_CHICAGO: _ClassVar[BossCity]

class BossPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_PHASE_UNSPECIFIED: _ClassVar[BossPhase]
    BOSS_PHASE_TURN: _ClassVar[BossPhase]
    BOSS_PHASE_CUBES: _ClassVar[BossPhase]
    BOSS_PHASE_REVEAL: _ClassVar[BossPhase]
    BOSS_PHASE_PLACE: _ClassVar[BossPhase]
    BOSS_PHASE_OVER: _ClassVar[BossPhase]

class BossEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_EVENT_TYPE_UNSPECIFIED: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_ROUND: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_DEAL: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_TURN: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_PLACE: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_REVEAL: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_POLICE: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_LAST_TURNS: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_RESOLVE: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_ROUND_END: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_OVERTIME: _ClassVar[BossEventType]
    BOSS_EVENT_TYPE_GAME_OVER: _ClassVar[BossEventType]

class BossEffect(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_EFFECT_UNSPECIFIED: _ClassVar[BossEffect]
    BOSS_EFFECT_POINTS: _ClassVar[BossEffect]
    BOSS_EFFECT_DIES: _ClassVar[BossEffect]
    BOSS_EFFECT_PRISON: _ClassVar[BossEffect]
    BOSS_EFFECT_HOSPITAL: _ClassVar[BossEffect]
    BOSS_EFFECT_BANISHED: _ClassVar[BossEffect]
    BOSS_EFFECT_NO_CUBE: _ClassVar[BossEffect]

class BossActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOSS_ACTION_KIND_UNSPECIFIED: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_REVEAL: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_PLACE: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_BIG: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_SMALL: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_DONE: _ClassVar[BossActionKind]
    BOSS_ACTION_KIND_PASS: _ClassVar[BossActionKind]
BOSS_CARD_UNKNOWN: BossCard
BOSS_CARD_NONE: BossCard
BOSS_CARD_NEW_YORK: BossCard
BOSS_CARD_BOSTON: BossCard
BOSS_CARD_DETROIT: BossCard
BOSS_CARD_KANSAS_CITY: BossCard
BOSS_CARD_CINCINNATI: BossCard
BOSS_CARD_MEMPHIS: BossCard
BOSS_CARD_PHILADELPHIA: BossCard
BOSS_CARD_GOLD: BossCard
BOSS_CARD_SILVER: BossCard
BOSS_CARD_DOUBLE: BossCard
BOSS_CARD_NEW_YORK_1: BossCard
BOSS_CARD_NEW_YORK_2: BossCard
BOSS_CARD_NEW_YORK_3: BossCard
BOSS_CARD_NEW_YORK_4: BossCard
BOSS_CARD_NEW_YORK_5: BossCard
BOSS_CARD_NEW_YORK_REVOLVER: BossCard
BOSS_CARD_NEW_YORK_PRISON: BossCard
BOSS_CARD_NEW_YORK_HOSPITAL: BossCard
BOSS_CARD_NEW_YORK_BANISHED: BossCard
BOSS_CARD_BOSTON_1: BossCard
BOSS_CARD_BOSTON_2: BossCard
BOSS_CARD_BOSTON_3: BossCard
BOSS_CARD_BOSTON_4: BossCard
BOSS_CARD_BOSTON_5: BossCard
BOSS_CARD_BOSTON_REVOLVER: BossCard
BOSS_CARD_BOSTON_PRISON: BossCard
BOSS_CARD_BOSTON_HOSPITAL: BossCard
BOSS_CARD_BOSTON_BANISHED: BossCard
BOSS_CARD_DETROIT_1: BossCard
BOSS_CARD_DETROIT_2: BossCard
BOSS_CARD_DETROIT_3: BossCard
BOSS_CARD_DETROIT_4: BossCard
BOSS_CARD_DETROIT_5: BossCard
BOSS_CARD_DETROIT_REVOLVER: BossCard
BOSS_CARD_DETROIT_PRISON: BossCard
BOSS_CARD_DETROIT_HOSPITAL: BossCard
BOSS_CARD_DETROIT_BANISHED: BossCard
BOSS_CARD_KANSAS_CITY_1: BossCard
BOSS_CARD_KANSAS_CITY_2: BossCard
BOSS_CARD_KANSAS_CITY_3: BossCard
BOSS_CARD_KANSAS_CITY_4: BossCard
BOSS_CARD_KANSAS_CITY_5: BossCard
BOSS_CARD_KANSAS_CITY_REVOLVER: BossCard
BOSS_CARD_KANSAS_CITY_PRISON: BossCard
BOSS_CARD_KANSAS_CITY_HOSPITAL: BossCard
BOSS_CARD_KANSAS_CITY_BANISHED: BossCard
BOSS_CARD_CINCINNATI_1: BossCard
BOSS_CARD_CINCINNATI_2: BossCard
BOSS_CARD_CINCINNATI_3: BossCard
BOSS_CARD_CINCINNATI_4: BossCard
BOSS_CARD_CINCINNATI_5: BossCard
BOSS_CARD_CINCINNATI_REVOLVER: BossCard
BOSS_CARD_CINCINNATI_PRISON: BossCard
BOSS_CARD_CINCINNATI_HOSPITAL: BossCard
BOSS_CARD_CINCINNATI_BANISHED: BossCard
BOSS_CARD_MEMPHIS_1: BossCard
BOSS_CARD_MEMPHIS_2: BossCard
BOSS_CARD_MEMPHIS_3: BossCard
BOSS_CARD_MEMPHIS_4: BossCard
BOSS_CARD_MEMPHIS_5: BossCard
BOSS_CARD_MEMPHIS_REVOLVER: BossCard
BOSS_CARD_MEMPHIS_PRISON: BossCard
BOSS_CARD_MEMPHIS_HOSPITAL: BossCard
BOSS_CARD_MEMPHIS_BANISHED: BossCard
BOSS_CARD_PHILADELPHIA_1: BossCard
BOSS_CARD_PHILADELPHIA_2: BossCard
BOSS_CARD_PHILADELPHIA_3: BossCard
BOSS_CARD_PHILADELPHIA_4: BossCard
BOSS_CARD_PHILADELPHIA_5: BossCard
BOSS_CARD_PHILADELPHIA_REVOLVER: BossCard
BOSS_CARD_PHILADELPHIA_PRISON: BossCard
BOSS_CARD_PHILADELPHIA_HOSPITAL: BossCard
BOSS_CARD_PHILADELPHIA_BANISHED: BossCard
BOSS_CITY_UNSPECIFIED: BossCity
BOSS_CITY_NEW_YORK: BossCity
BOSS_CITY_BOSTON: BossCity
BOSS_CITY_DETROIT: BossCity
BOSS_CITY_KANSAS_CITY: BossCity
BOSS_CITY_CINCINNATI: BossCity
BOSS_CITY_MEMPHIS: BossCity
BOSS_CITY_PHILADELPHIA: BossCity
BOSS_CITY_CHICAGO: BossCity
BOSS_PHASE_UNSPECIFIED: BossPhase
BOSS_PHASE_TURN: BossPhase
BOSS_PHASE_CUBES: BossPhase
BOSS_PHASE_REVEAL: BossPhase
BOSS_PHASE_PLACE: BossPhase
BOSS_PHASE_OVER: BossPhase
BOSS_EVENT_TYPE_UNSPECIFIED: BossEventType
BOSS_EVENT_TYPE_ROUND: BossEventType
BOSS_EVENT_TYPE_DEAL: BossEventType
BOSS_EVENT_TYPE_TURN: BossEventType
BOSS_EVENT_TYPE_PLACE: BossEventType
BOSS_EVENT_TYPE_REVEAL: BossEventType
BOSS_EVENT_TYPE_POLICE: BossEventType
BOSS_EVENT_TYPE_LAST_TURNS: BossEventType
BOSS_EVENT_TYPE_RESOLVE: BossEventType
BOSS_EVENT_TYPE_ROUND_END: BossEventType
BOSS_EVENT_TYPE_OVERTIME: BossEventType
BOSS_EVENT_TYPE_GAME_OVER: BossEventType
BOSS_EFFECT_UNSPECIFIED: BossEffect
BOSS_EFFECT_POINTS: BossEffect
BOSS_EFFECT_DIES: BossEffect
BOSS_EFFECT_PRISON: BossEffect
BOSS_EFFECT_HOSPITAL: BossEffect
BOSS_EFFECT_BANISHED: BossEffect
BOSS_EFFECT_NO_CUBE: BossEffect
BOSS_ACTION_KIND_UNSPECIFIED: BossActionKind
BOSS_ACTION_KIND_REVEAL: BossActionKind
BOSS_ACTION_KIND_PLACE: BossActionKind
BOSS_ACTION_KIND_BIG: BossActionKind
BOSS_ACTION_KIND_SMALL: BossActionKind
BOSS_ACTION_KIND_DONE: BossActionKind
BOSS_ACTION_KIND_PASS: BossActionKind

class BossPlayer(_message.Message):
    __slots__ = ("hand", "big", "small", "dead", "prison", "hospital", "banished", "points", "last_round_points")
    HAND_FIELD_NUMBER: _ClassVar[int]
    BIG_FIELD_NUMBER: _ClassVar[int]
    SMALL_FIELD_NUMBER: _ClassVar[int]
    DEAD_FIELD_NUMBER: _ClassVar[int]
    PRISON_FIELD_NUMBER: _ClassVar[int]
    HOSPITAL_FIELD_NUMBER: _ClassVar[int]
    BANISHED_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    LAST_ROUND_POINTS_FIELD_NUMBER: _ClassVar[int]
    hand: _containers.RepeatedScalarFieldContainer[BossCard]
    big: int
    small: int
    dead: int
    prison: _containers.RepeatedScalarFieldContainer[int]
    hospital: int
    banished: bool
    points: int
    last_round_points: int
    def __init__(self, hand: _Optional[_Iterable[_Union[BossCard, str]]] = ..., big: _Optional[int] = ..., small: _Optional[int] = ..., dead: _Optional[int] = ..., prison: _Optional[_Iterable[int]] = ..., hospital: _Optional[int] = ..., banished: _Optional[bool] = ..., points: _Optional[int] = ..., last_round_points: _Optional[int] = ...) -> None: ...

class BossBoss(_message.Message):
    __slots__ = ("boss", "big", "small", "revealed", "reward", "cards")
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BIG_FIELD_NUMBER: _ClassVar[int]
    SMALL_FIELD_NUMBER: _ClassVar[int]
    REVEALED_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    boss: BossCity
    big: _containers.RepeatedScalarFieldContainer[int]
    small: _containers.RepeatedScalarFieldContainer[int]
    revealed: _containers.RepeatedScalarFieldContainer[BossCard]
    reward: BossCard
    cards: _containers.RepeatedScalarFieldContainer[BossCard]
    def __init__(self, boss: _Optional[_Union[BossCity, str]] = ..., big: _Optional[_Iterable[int]] = ..., small: _Optional[_Iterable[int]] = ..., revealed: _Optional[_Iterable[_Union[BossCard, str]]] = ..., reward: _Optional[_Union[BossCard, str]] = ..., cards: _Optional[_Iterable[_Union[BossCard, str]]] = ...) -> None: ...

class BossView(_message.Message):
    __slots__ = ("seat", "num_players", "phase", "to_act", "round", "overtime", "dealer", "active", "hand", "players", "bosses", "chicago", "police", "police_left", "last_turn", "last_turns", "turn_revealed", "placing", "added_big", "added_small")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    OVERTIME_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    BOSSES_FIELD_NUMBER: _ClassVar[int]
    CHICAGO_FIELD_NUMBER: _ClassVar[int]
    POLICE_FIELD_NUMBER: _ClassVar[int]
    POLICE_LEFT_FIELD_NUMBER: _ClassVar[int]
    LAST_TURN_FIELD_NUMBER: _ClassVar[int]
    LAST_TURNS_FIELD_NUMBER: _ClassVar[int]
    TURN_REVEALED_FIELD_NUMBER: _ClassVar[int]
    PLACING_FIELD_NUMBER: _ClassVar[int]
    ADDED_BIG_FIELD_NUMBER: _ClassVar[int]
    ADDED_SMALL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    phase: BossPhase
    to_act: int
    round: int
    overtime: bool
    dealer: int
    active: int
    hand: _containers.RepeatedScalarFieldContainer[BossCard]
    players: _containers.RepeatedCompositeFieldContainer[BossPlayer]
    bosses: _containers.RepeatedCompositeFieldContainer[BossBoss]
    chicago: int
    police: _containers.RepeatedScalarFieldContainer[BossCard]
    police_left: int
    last_turn: bool
    last_turns: _containers.RepeatedScalarFieldContainer[int]
    turn_revealed: bool
    placing: int
    added_big: int
    added_small: int
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., phase: _Optional[_Union[BossPhase, str]] = ..., to_act: _Optional[int] = ..., round: _Optional[int] = ..., overtime: _Optional[bool] = ..., dealer: _Optional[int] = ..., active: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[BossCard, str]]] = ..., players: _Optional[_Iterable[_Union[BossPlayer, _Mapping]]] = ..., bosses: _Optional[_Iterable[_Union[BossBoss, _Mapping]]] = ..., chicago: _Optional[int] = ..., police: _Optional[_Iterable[_Union[BossCard, str]]] = ..., police_left: _Optional[int] = ..., last_turn: _Optional[bool] = ..., last_turns: _Optional[_Iterable[int]] = ..., turn_revealed: _Optional[bool] = ..., placing: _Optional[int] = ..., added_big: _Optional[int] = ..., added_small: _Optional[int] = ...) -> None: ...

class BossEvent(_message.Message):
    __slots__ = ("type", "seat", "round", "position", "overtime", "cards", "last", "boss", "big", "small", "card", "seats", "effect", "points", "scores")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    OVERTIME_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BIG_FIELD_NUMBER: _ClassVar[int]
    SMALL_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    EFFECT_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    type: BossEventType
    seat: int
    round: int
    position: int
    overtime: bool
    cards: _containers.RepeatedScalarFieldContainer[BossCard]
    last: bool
    boss: BossCity
    big: int
    small: int
    card: BossCard
    seats: _containers.RepeatedScalarFieldContainer[int]
    effect: BossEffect
    points: int
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, type: _Optional[_Union[BossEventType, str]] = ..., seat: _Optional[int] = ..., round: _Optional[int] = ..., position: _Optional[int] = ..., overtime: _Optional[bool] = ..., cards: _Optional[_Iterable[_Union[BossCard, str]]] = ..., last: _Optional[bool] = ..., boss: _Optional[_Union[BossCity, str]] = ..., big: _Optional[int] = ..., small: _Optional[int] = ..., card: _Optional[_Union[BossCard, str]] = ..., seats: _Optional[_Iterable[int]] = ..., effect: _Optional[_Union[BossEffect, str]] = ..., points: _Optional[int] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class BossAction(_message.Message):
    __slots__ = ("kind", "card", "boss")
    KIND_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    kind: BossActionKind
    card: BossCard
    boss: BossCity
    def __init__(self, kind: _Optional[_Union[BossActionKind, str]] = ..., card: _Optional[_Union[BossCard, str]] = ..., boss: _Optional[_Union[BossCity, str]] = ...) -> None: ...
