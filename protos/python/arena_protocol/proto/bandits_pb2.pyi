from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class BanditsCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BANDITS_CARD_UNKNOWN: _ClassVar[BanditsCard]
    BANDITS_CARD_GOLD_2: _ClassVar[BanditsCard]
    BANDITS_CARD_GOLD_3: _ClassVar[BanditsCard]
    BANDITS_CARD_GOLD_4: _ClassVar[BanditsCard]
    BANDITS_CARD_GOLD_5: _ClassVar[BanditsCard]
    BANDITS_CARD_GOLD_6: _ClassVar[BanditsCard]
    BANDITS_CARD_BAG_1: _ClassVar[BanditsCard]
    BANDITS_CARD_BAG_2: _ClassVar[BanditsCard]
    BANDITS_CARD_BAG_3: _ClassVar[BanditsCard]
    BANDITS_CARD_BAG_4: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_1: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_2: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_3: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_4: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_5: _ClassVar[BanditsCard]
    BANDITS_CARD_OUTLAW_6: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_1: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_2: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_3: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_4: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_5: _ClassVar[BanditsCard]
    BANDITS_CARD_LAWMAN_6: _ClassVar[BanditsCard]
    BANDITS_CARD_TWO_FACED_1: _ClassVar[BanditsCard]
    BANDITS_CARD_TWO_FACED_2: _ClassVar[BanditsCard]
    BANDITS_CARD_TWO_FACED_3: _ClassVar[BanditsCard]
    BANDITS_CARD_TRACKER: _ClassVar[BanditsCard]
    BANDITS_CARD_BACKFIRE: _ClassVar[BanditsCard]
    BANDITS_CARD_BOOBY_TRAP: _ClassVar[BanditsCard]

class BanditsPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BANDITS_PHASE_UNSPECIFIED: _ClassVar[BanditsPhase]
    BANDITS_PHASE_TURN: _ClassVar[BanditsPhase]
    BANDITS_PHASE_ATTACK: _ClassVar[BanditsPhase]
    BANDITS_PHASE_DEFEND: _ClassVar[BanditsPhase]
    BANDITS_PHASE_BACKFIRE: _ClassVar[BanditsPhase]
    BANDITS_PHASE_STASH: _ClassVar[BanditsPhase]
    BANDITS_PHASE_OVER: _ClassVar[BanditsPhase]

class BanditsEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BANDITS_EVENT_TYPE_UNSPECIFIED: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_NEW_ROUND: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_TURN: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_DRAW: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_ATTACK: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_RAID: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_GUN: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_GUNS: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_STAR: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_BACKFIRE: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_DEFENDED: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_BEATEN: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_TAKE_HAND: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_TAKE_HIDEOUT: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_TRAP: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_STASH: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_REFILL: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_ROUND_OVER: _ClassVar[BanditsEventType]
    BANDITS_EVENT_TYPE_GAME_OVER: _ClassVar[BanditsEventType]

class BanditsActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BANDITS_ACTION_KIND_UNSPECIFIED: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_DRAW: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_ATTACK: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_RAID: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_STASH: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_GUN: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_STAR: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_BACKFIRE: _ClassVar[BanditsActionKind]
    BANDITS_ACTION_KIND_DONE: _ClassVar[BanditsActionKind]
BANDITS_CARD_UNKNOWN: BanditsCard
BANDITS_CARD_GOLD_2: BanditsCard
BANDITS_CARD_GOLD_3: BanditsCard
BANDITS_CARD_GOLD_4: BanditsCard
BANDITS_CARD_GOLD_5: BanditsCard
BANDITS_CARD_GOLD_6: BanditsCard
BANDITS_CARD_BAG_1: BanditsCard
BANDITS_CARD_BAG_2: BanditsCard
BANDITS_CARD_BAG_3: BanditsCard
BANDITS_CARD_BAG_4: BanditsCard
BANDITS_CARD_OUTLAW_1: BanditsCard
BANDITS_CARD_OUTLAW_2: BanditsCard
BANDITS_CARD_OUTLAW_3: BanditsCard
BANDITS_CARD_OUTLAW_4: BanditsCard
BANDITS_CARD_OUTLAW_5: BanditsCard
BANDITS_CARD_OUTLAW_6: BanditsCard
BANDITS_CARD_LAWMAN_1: BanditsCard
BANDITS_CARD_LAWMAN_2: BanditsCard
BANDITS_CARD_LAWMAN_3: BanditsCard
BANDITS_CARD_LAWMAN_4: BanditsCard
BANDITS_CARD_LAWMAN_5: BanditsCard
BANDITS_CARD_LAWMAN_6: BanditsCard
BANDITS_CARD_TWO_FACED_1: BanditsCard
BANDITS_CARD_TWO_FACED_2: BanditsCard
BANDITS_CARD_TWO_FACED_3: BanditsCard
BANDITS_CARD_TRACKER: BanditsCard
BANDITS_CARD_BACKFIRE: BanditsCard
BANDITS_CARD_BOOBY_TRAP: BanditsCard
BANDITS_PHASE_UNSPECIFIED: BanditsPhase
BANDITS_PHASE_TURN: BanditsPhase
BANDITS_PHASE_ATTACK: BanditsPhase
BANDITS_PHASE_DEFEND: BanditsPhase
BANDITS_PHASE_BACKFIRE: BanditsPhase
BANDITS_PHASE_STASH: BanditsPhase
BANDITS_PHASE_OVER: BanditsPhase
BANDITS_EVENT_TYPE_UNSPECIFIED: BanditsEventType
BANDITS_EVENT_TYPE_NEW_ROUND: BanditsEventType
BANDITS_EVENT_TYPE_TURN: BanditsEventType
BANDITS_EVENT_TYPE_DRAW: BanditsEventType
BANDITS_EVENT_TYPE_ATTACK: BanditsEventType
BANDITS_EVENT_TYPE_RAID: BanditsEventType
BANDITS_EVENT_TYPE_GUN: BanditsEventType
BANDITS_EVENT_TYPE_GUNS: BanditsEventType
BANDITS_EVENT_TYPE_STAR: BanditsEventType
BANDITS_EVENT_TYPE_BACKFIRE: BanditsEventType
BANDITS_EVENT_TYPE_DEFENDED: BanditsEventType
BANDITS_EVENT_TYPE_BEATEN: BanditsEventType
BANDITS_EVENT_TYPE_TAKE_HAND: BanditsEventType
BANDITS_EVENT_TYPE_TAKE_HIDEOUT: BanditsEventType
BANDITS_EVENT_TYPE_TRAP: BanditsEventType
BANDITS_EVENT_TYPE_STASH: BanditsEventType
BANDITS_EVENT_TYPE_REFILL: BanditsEventType
BANDITS_EVENT_TYPE_ROUND_OVER: BanditsEventType
BANDITS_EVENT_TYPE_GAME_OVER: BanditsEventType
BANDITS_ACTION_KIND_UNSPECIFIED: BanditsActionKind
BANDITS_ACTION_KIND_DRAW: BanditsActionKind
BANDITS_ACTION_KIND_ATTACK: BanditsActionKind
BANDITS_ACTION_KIND_RAID: BanditsActionKind
BANDITS_ACTION_KIND_STASH: BanditsActionKind
BANDITS_ACTION_KIND_GUN: BanditsActionKind
BANDITS_ACTION_KIND_STAR: BanditsActionKind
BANDITS_ACTION_KIND_BACKFIRE: BanditsActionKind
BANDITS_ACTION_KIND_DONE: BanditsActionKind

class BanditsPlayer(_message.Message):
    __slots__ = ("hand_size", "hideout_size", "total")
    HAND_SIZE_FIELD_NUMBER: _ClassVar[int]
    HIDEOUT_SIZE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    hand_size: int
    hideout_size: int
    total: int
    def __init__(self, hand_size: _Optional[int] = ..., hideout_size: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class BanditsView(_message.Message):
    __slots__ = ("seat", "num_players", "phase", "to_act", "active", "round", "hand", "hideout", "players", "pile_size", "boneyard", "removed", "attacker", "defender", "raid", "attack", "guns", "defence", "stars", "counter", "counter_stars", "stash", "winning_total", "max_rounds")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HIDEOUT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    BONEYARD_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    ATTACKER_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_FIELD_NUMBER: _ClassVar[int]
    RAID_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FIELD_NUMBER: _ClassVar[int]
    GUNS_FIELD_NUMBER: _ClassVar[int]
    DEFENCE_FIELD_NUMBER: _ClassVar[int]
    STARS_FIELD_NUMBER: _ClassVar[int]
    COUNTER_FIELD_NUMBER: _ClassVar[int]
    COUNTER_STARS_FIELD_NUMBER: _ClassVar[int]
    STASH_FIELD_NUMBER: _ClassVar[int]
    WINNING_TOTAL_FIELD_NUMBER: _ClassVar[int]
    MAX_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    num_players: int
    phase: BanditsPhase
    to_act: int
    active: int
    round: int
    hand: _containers.RepeatedScalarFieldContainer[BanditsCard]
    hideout: _containers.RepeatedScalarFieldContainer[BanditsCard]
    players: _containers.RepeatedCompositeFieldContainer[BanditsPlayer]
    pile_size: int
    boneyard: _containers.RepeatedScalarFieldContainer[BanditsCard]
    removed: _containers.RepeatedScalarFieldContainer[BanditsCard]
    attacker: int
    defender: int
    raid: bool
    attack: _containers.RepeatedScalarFieldContainer[BanditsCard]
    guns: int
    defence: _containers.RepeatedScalarFieldContainer[BanditsCard]
    stars: int
    counter: _containers.RepeatedScalarFieldContainer[BanditsCard]
    counter_stars: int
    stash: _containers.RepeatedScalarFieldContainer[BanditsCard]
    winning_total: int
    max_rounds: int
    def __init__(self, seat: _Optional[int] = ..., num_players: _Optional[int] = ..., phase: _Optional[_Union[BanditsPhase, str]] = ..., to_act: _Optional[int] = ..., active: _Optional[int] = ..., round: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., hideout: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., players: _Optional[_Iterable[_Union[BanditsPlayer, _Mapping]]] = ..., pile_size: _Optional[int] = ..., boneyard: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., removed: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., attacker: _Optional[int] = ..., defender: _Optional[int] = ..., raid: _Optional[bool] = ..., attack: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., guns: _Optional[int] = ..., defence: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., stars: _Optional[int] = ..., counter: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., counter_stars: _Optional[int] = ..., stash: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., winning_total: _Optional[int] = ..., max_rounds: _Optional[int] = ...) -> None: ...

class BanditsEvent(_message.Message):
    __slots__ = ("type", "seat", "target", "card", "count", "cards", "guns", "stars", "round", "pile_size", "round_scores", "totals", "scores")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    GUNS_FIELD_NUMBER: _ClassVar[int]
    STARS_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PILE_SIZE_FIELD_NUMBER: _ClassVar[int]
    ROUND_SCORES_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    type: BanditsEventType
    seat: int
    target: int
    card: BanditsCard
    count: int
    cards: _containers.RepeatedScalarFieldContainer[BanditsCard]
    guns: int
    stars: int
    round: int
    pile_size: int
    round_scores: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, type: _Optional[_Union[BanditsEventType, str]] = ..., seat: _Optional[int] = ..., target: _Optional[int] = ..., card: _Optional[_Union[BanditsCard, str]] = ..., count: _Optional[int] = ..., cards: _Optional[_Iterable[_Union[BanditsCard, str]]] = ..., guns: _Optional[int] = ..., stars: _Optional[int] = ..., round: _Optional[int] = ..., pile_size: _Optional[int] = ..., round_scores: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., scores: _Optional[_Iterable[int]] = ...) -> None: ...

class BanditsAction(_message.Message):
    __slots__ = ("kind", "target", "card")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    kind: BanditsActionKind
    target: int
    card: BanditsCard
    def __init__(self, kind: _Optional[_Union[BanditsActionKind, str]] = ..., target: _Optional[int] = ..., card: _Optional[_Union[BanditsCard, str]] = ...) -> None: ...
