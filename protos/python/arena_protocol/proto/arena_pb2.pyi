from . import bandits_pb2 as _bandits_pb2
from . import boss_pb2 as _boss_pb2
from . import prohis_pb2 as _prohis_pb2
from . import sobek_pb2 as _sobek_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_1: _ClassVar[ProtocolVersion]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_1: ProtocolVersion

class BotMessage(_message.Message):
    __slots__ = ("hello", "reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    reply: Reply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., reply: _Optional[_Union[Reply, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: int
    games: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., games: _Optional[_Iterable[str]] = ...) -> None: ...

class Reply(_message.Message):
    __slots__ = ("decision_id", "action", "debug")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    DEBUG_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    action: Action
    debug: str
    def __init__(self, decision_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., debug: _Optional[str] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("match_start", "game_start", "decision", "game_end", "match_end")
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    GAME_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    match_start: MatchStart
    game_start: GameStart
    decision: DecisionRequest
    game_end: GameEnd
    match_end: MatchEnd
    def __init__(self, match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., game_start: _Optional[_Union[GameStart, _Mapping]] = ..., decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("startup_ms", "decision_ms", "bank_ms", "increment_ms", "match_bank_ms")
    STARTUP_MS_FIELD_NUMBER: _ClassVar[int]
    DECISION_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    MATCH_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    startup_ms: int
    decision_ms: int
    bank_ms: int
    increment_ms: int
    match_bank_ms: int
    def __init__(self, startup_ms: _Optional[int] = ..., decision_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ..., match_bank_ms: _Optional[int] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "game", "num_players", "num_games", "settings", "time_control", "engine_version")
    class SettingsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    NUM_GAMES_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    game: str
    num_players: int
    num_games: int
    settings: _containers.ScalarMap[str, str]
    time_control: TimeControl
    engine_version: str
    def __init__(self, match_id: _Optional[str] = ..., game: _Optional[str] = ..., num_players: _Optional[int] = ..., num_games: _Optional[int] = ..., settings: _Optional[_Mapping[str, str]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., engine_version: _Optional[str] = ...) -> None: ...

class Player(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class GameStart(_message.Message):
    __slots__ = ("game_index", "seat", "num_players", "players", "seed")
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NUM_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    game_index: int
    seat: int
    num_players: int
    players: _containers.RepeatedCompositeFieldContainer[Player]
    seed: int
    def __init__(self, game_index: _Optional[int] = ..., seat: _Optional[int] = ..., num_players: _Optional[int] = ..., players: _Optional[_Iterable[_Union[Player, _Mapping]]] = ..., seed: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "view", "events", "legal_actions", "time_left_ms", "bank_left_ms", "match_bank_left_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    MATCH_BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    view: View
    events: _containers.RepeatedCompositeFieldContainer[Event]
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    time_left_ms: int
    bank_left_ms: int
    match_bank_left_ms: int
    def __init__(self, decision_id: _Optional[int] = ..., view: _Optional[_Union[View, _Mapping]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., time_left_ms: _Optional[int] = ..., bank_left_ms: _Optional[int] = ..., match_bank_left_ms: _Optional[int] = ...) -> None: ...

class SeatResult(_message.Message):
    __slots__ = ("seat", "score", "rank", "failure", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    FAILURE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    score: int
    rank: int
    failure: str
    player: Player
    def __init__(self, seat: _Optional[int] = ..., score: _Optional[int] = ..., rank: _Optional[int] = ..., failure: _Optional[str] = ..., player: _Optional[_Union[Player, _Mapping]] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game_index", "results", "events")
    GAME_INDEX_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    game_index: int
    results: _containers.RepeatedCompositeFieldContainer[SeatResult]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    def __init__(self, game_index: _Optional[int] = ..., results: _Optional[_Iterable[_Union[SeatResult, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("prohis", "sobek", "boss", "bandits")
    PROHIS_FIELD_NUMBER: _ClassVar[int]
    SOBEK_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BANDITS_FIELD_NUMBER: _ClassVar[int]
    prohis: _prohis_pb2.ProhisView
    sobek: _sobek_pb2.SobekView
    boss: _boss_pb2.BossView
    bandits: _bandits_pb2.BanditsView
    def __init__(self, prohis: _Optional[_Union[_prohis_pb2.ProhisView, _Mapping]] = ..., sobek: _Optional[_Union[_sobek_pb2.SobekView, _Mapping]] = ..., boss: _Optional[_Union[_boss_pb2.BossView, _Mapping]] = ..., bandits: _Optional[_Union[_bandits_pb2.BanditsView, _Mapping]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("prohis", "sobek", "boss", "bandits")
    PROHIS_FIELD_NUMBER: _ClassVar[int]
    SOBEK_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BANDITS_FIELD_NUMBER: _ClassVar[int]
    prohis: _prohis_pb2.ProhisEvent
    sobek: _sobek_pb2.SobekEvent
    boss: _boss_pb2.BossEvent
    bandits: _bandits_pb2.BanditsEvent
    def __init__(self, prohis: _Optional[_Union[_prohis_pb2.ProhisEvent, _Mapping]] = ..., sobek: _Optional[_Union[_sobek_pb2.SobekEvent, _Mapping]] = ..., boss: _Optional[_Union[_boss_pb2.BossEvent, _Mapping]] = ..., bandits: _Optional[_Union[_bandits_pb2.BanditsEvent, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("text", "prohis", "sobek", "boss", "bandits")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PROHIS_FIELD_NUMBER: _ClassVar[int]
    SOBEK_FIELD_NUMBER: _ClassVar[int]
    BOSS_FIELD_NUMBER: _ClassVar[int]
    BANDITS_FIELD_NUMBER: _ClassVar[int]
    text: str
    prohis: _prohis_pb2.ProhisAction
    sobek: _sobek_pb2.SobekAction
    boss: _boss_pb2.BossAction
    bandits: _bandits_pb2.BanditsAction
    def __init__(self, text: _Optional[str] = ..., prohis: _Optional[_Union[_prohis_pb2.ProhisAction, _Mapping]] = ..., sobek: _Optional[_Union[_sobek_pb2.SobekAction, _Mapping]] = ..., boss: _Optional[_Union[_boss_pb2.BossAction, _Mapping]] = ..., bandits: _Optional[_Union[_bandits_pb2.BanditsAction, _Mapping]] = ...) -> None: ...
