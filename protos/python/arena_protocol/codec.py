"""Plain data <-> protocol messages, for every game, by one set of rules.

Engines speak plain data: a view is a dict, an event is a dict, an action is a string
such as ``"convoy:illegal"``. On the wire each game has typed messages
(``ProhisView``, ``ProhisEvent``, ``ProhisAction``) inside a ``oneof``. The mapping is
mechanical, so it is written once here and used by both ends (the referee encodes,
the Python bot kit decodes), which keeps an in-process bot and a bot over gRPC seeing
exactly the same dict:

* a dict key is the proto field of the same name;
* an enum value ``PROHIS_CARD_LEGAL`` is the string ``"legal"`` (the enum's type name,
  in UPPER_SNAKE, is the prefix);
* messages with ``optional`` fields (events) are *sparse*: a field appears in the
  dict only when set, and a repeated field only when non-empty. Other messages
  (views) always carry every field;
* an action ``"verb:arg1:arg2"`` is ``kind=VERB`` plus each argument in the field that
  :data:`ACTION_ARGS` names for that verb, in order (digits are numbers, other
  arguments enum values).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, cast

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from .proto import arena_pb2 as pb

# The argument fields of each action verb that has arguments, per game, in order.
ACTION_ARGS: dict[str, dict[str, tuple[str, ...]]] = {
    "prohis": {"take": ("position",), "flip": ("position",), "convoy": ("card",), "claim": ("card",),
               "bribe": ("card",)},
    "sobek": {"start": ("seat",), "take": ("position",), "play": ("card",), "set": ("family",),
              "extend": ("set_index",), "card": ("card",), "token": ("token",), "target": ("seat",),
              "prosperity": ("set_index",), "family": ("family",), "steal": ("card",), "pick": ("card",),
              "bury": ("card",)},
    "boss": {"reveal": ("card",), "place": ("boss",)},
    "bandits": {"attack": ("target",), "raid": ("target",), "stash": ("card",), "gun": ("card",),
                "star": ("card",)},
}

GAMES = tuple(f.name for f in pb.View.DESCRIPTOR.oneofs_by_name["game"].fields)


class MalformedMessage(ValueError):
    """A message that does not follow the protocol (the text says how)."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


class _Enum:
    __slots__ = ("to_int", "to_str")

    def __init__(self, desc: EnumDescriptor) -> None:
        prefix = _snake(desc.name) + "_"
        self.to_str = {v.number: v.name.removeprefix(prefix).lower() for v in desc.values}
        self.to_int = {s: n for n, s in self.to_str.items()}


_ENUMS: dict[str, _Enum] = {}


def _enum(desc: EnumDescriptor) -> _Enum:
    if desc.full_name not in _ENUMS:
        _ENUMS[desc.full_name] = _Enum(desc)
    return _ENUMS[desc.full_name]


class _Names(dict[int, str]):
    """Enum number -> name; a number this version does not know reads as its digits."""

    def __missing__(self, key: int) -> str:
        return str(key)


class _Plan:
    """How to convert one message type both ways, generated once per type.

    The two converters are plain Python functions written out field by field and
    compiled with ``exec`` (as :mod:`dataclasses` does), because per-field calls of
    generic code cost more than the rest of a decision's round trip. Encoding produces
    keyword arguments, with nested dicts for sub-messages, so a whole message tree is
    built by one constructor call in C.
    """

    __slots__ = ("cls", "kwargs", "decode", "sparse")

    def __init__(self, desc: Descriptor, cls: type[Message]) -> None:
        self.cls = cls
        self.sparse = any(f.has_presence for f in desc.fields)
        env: dict[str, Any] = {"MalformedMessage": MalformedMessage, "ABSENT": _ABSENT}
        encode: list[str] = []  # statements converting present fields of ``d`` in ``out``
        decode: dict[str, str] = {}  # field name -> expression of ``{v}``
        for i, f in enumerate(desc.fields):
            each = "[{} for x in {{v}}]" if f.is_repeated else "{}"
            if f.type == FieldDescriptor.TYPE_ENUM:
                assert f.enum_type is not None  # an enum field has its enum
                e = _enum(f.enum_type)
                env[f"I{i}"], env[f"S{i}"] = e.to_int, _Names(e.to_str)
                enc, dec = f"I{i}[x]", f"S{i}[x]"
            elif f.type == FieldDescriptor.TYPE_MESSAGE:
                assert f.message_type is not None  # a message field has its message
                sub = _plan(f.message_type)
                env[f"K{i}"], env[f"D{i}"] = sub.kwargs, sub.decode
                enc, dec = f"K{i}(x)", f"D{i}(x)"
            else:
                decode[f.name] = "list({v})" if f.is_repeated else "{v}"
                continue
            if f.is_repeated:
                enc_expr, dec_expr = each.format(enc), each.format(dec)
            else:
                enc_expr, dec_expr = enc.replace("x", "{v}"), dec.replace("x", "{v}")
            encode.append(f"v = d.get({f.name!r}, ABSENT)")
            encode.append(f"if v is not ABSENT: out[{f.name!r}] = {enc_expr.format(v='v')}")
            decode[f.name] = dec_expr
        if self.sparse:  # only the fields that are set, as ListFields() would list them
            decoder = ["out = {}"]
            for f in desc.fields:
                if f.has_presence:
                    decoder += [f"if m.HasField({f.name!r}):",
                                f"    out[{f.name!r}] = {decode[f.name].format(v='m.' + f.name)}"]
                else:  # set means not the default: non-zero, non-empty
                    decoder += [f"v = m.{f.name}", "if v:", f"    out[{f.name!r}] = {decode[f.name].format(v='v')}"]
            decoder.append("return out")
        else:  # every field, defaults included
            items = ", ".join(f"{name!r}: {expr.format(v='m.' + name)}" for name, expr in decode.items())
            decoder = ["return {" + items + "}"]
        lines = ["def kwargs(d):", "    out = dict(d)"]
        if encode:
            lines += ["    try:", *(f"        {s}" for s in encode), "    except KeyError as exc:",
                      f"        raise MalformedMessage('{desc.name}: no such value ' + str(exc)) from None"]
        lines += ["    return out", "def decode(m):", *(f"    {s}" for s in decoder)]
        exec(compile("\n".join(lines), f"<arena_protocol.codec {desc.full_name}>", "exec"), env)  # noqa: S102
        self.kwargs: Callable[[dict[str, Any]], dict[str, Any]] = env["kwargs"]
        self.decode: Callable[[Any], dict[str, Any]] = env["decode"]

    def encode(self, data: dict[str, Any]) -> Any:
        try:
            return self.cls(**self.kwargs(data))
        except ValueError as exc:  # an unknown field
            raise MalformedMessage(f"{self.cls.__name__}: {exc}") from None


_ABSENT = object()


_PLANS: dict[str, _Plan] = {}


def _plan(desc: Descriptor) -> _Plan:
    plan = _PLANS.get(desc.full_name)
    if plan is None:
        from google.protobuf import message_factory

        plan = _PLANS[desc.full_name] = _Plan(desc, message_factory.GetMessageClass(desc))
    return plan


_GAME_PLANS: dict[tuple[type[Message], str], _Plan] = {}


def _game_plan(container: type[Message], game: str) -> _Plan:
    plan = _GAME_PLANS.get((container, game))
    if plan is None:
        try:
            field = container.DESCRIPTOR.fields_by_name[game]
        except KeyError:
            raise MalformedMessage(f"unknown game {game!r}; the protocol knows {', '.join(GAMES)}") from None
        # each game's field of a View, Event or Action is that game's message
        plan = _GAME_PLANS[container, game] = _plan(cast(Descriptor, field.message_type))
    return plan


# -- views and events ----------------------------------------------------------------------
def view_kwargs(view: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An engine's view dict -> keyword arguments for a View and for each of its Events."""
    game = view["game"]
    body = dict(view)
    del body["game"], body["events"]
    return {game: _game_plan(pb.View, game).kwargs(body)}, events_kwargs(game, view["events"])


def events_kwargs(game: str, events: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    plan = _game_plan(pb.Event, game)
    return [{game: plan.kwargs(e)} for e in events]


def encode_view(view: dict[str, Any]) -> tuple[pb.View, list[pb.Event]]:
    """An engine's view dict -> the typed View and the Events it carries."""
    body, events = view_kwargs(view)
    try:
        return pb.View(**body), [pb.Event(**e) for e in events]
    except ValueError as exc:
        raise MalformedMessage(str(exc)) from None


def encode_events(game: str, events: Iterable[dict[str, Any]]) -> list[pb.Event]:
    return [pb.Event(**e) for e in events_kwargs(game, events)]


def decode_view(view: pb.View, events: Iterable[pb.Event]) -> dict[str, Any]:
    """The inverse of :func:`encode_view`: the same dict the engine built."""
    game = view.WhichOneof("game")
    if game is None:
        raise MalformedMessage("the view names no game")
    out = {"game": game, **_game_plan(pb.View, game).decode(getattr(view, game))}
    out["events"] = decode_events(events)
    return out


def decode_events(events: Iterable[pb.Event]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        game = e.WhichOneof("game")
        if game is not None:
            out.append(_game_plan(pb.Event, game).decode(getattr(e, game)))
    return out


# -- actions ---------------------------------------------------------------------------------
_ACTION_CACHE: dict[tuple[str, str], pb.Action] = {}


def encode_action(game: str, text: str) -> pb.Action:
    """``"convoy:illegal"`` -> ``Action(text=..., prohis=ProhisAction(kind=CONVOY, card=ILLEGAL))``.

    The returned message is cached and shared: copy it before changing it.
    """
    key = (game, text)
    msg = _ACTION_CACHE.get(key)
    if msg is None:
        verb, *args = text.split(":")
        names = ACTION_ARGS[game].get(verb, ()) if args else ()
        if len(names) != len(args):
            raise MalformedMessage(f"{game} action {text!r}: {verb} takes {len(names)} argument(s)")
        fields: dict[str, Any] = {"kind": verb}
        for name, arg in zip(names, args, strict=True):
            fields[name] = int(arg) if arg.isdigit() else arg
        msg = _ACTION_CACHE[key] = pb.Action(text=text, **{game: _game_plan(pb.Action, game).encode(fields)})
    return msg


def decode_action(game: str, action: pb.Action) -> str:
    """The canonical action string of a reply's Action; MalformedMessage if it is not one.

    A bot may send the text, the typed message, or both (copying a legal action sends
    both); when both are present they must agree.
    """
    known = _ACTION_CACHE.get((game, action.text))
    if known is not None and known == action:  # the usual reply: a legal action copied back
        return action.text
    which = action.WhichOneof("game")
    typed = None
    if which is not None:
        if which != game:
            raise MalformedMessage(f"the action is for {which}, but this match plays {game}")
        fields = _game_plan(pb.Action, game).decode(getattr(action, game))
        verb = fields.pop("kind", "unspecified")
        if verb == "unspecified":
            raise MalformedMessage("the action has no kind")
        parts = [verb]
        for name in ACTION_ARGS[game].get(verb, ()):
            if name not in fields:
                raise MalformedMessage(f"a {verb} action needs its {name}")
            parts.append(str(fields[name]))
        typed = ":".join(parts)
    if action.text and typed is not None and action.text != typed:
        raise MalformedMessage(f"the action's text {action.text!r} and its typed form {typed!r} disagree")
    text = action.text or typed
    if not text:
        raise MalformedMessage("the action is empty")
    return text
