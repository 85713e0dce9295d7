"""arena_protocol: the Arena bot protocol in Python, for the referee and the bot kits alike.

* ``arena_protocol.proto``: the code generated from protos/arena/v1 (``make protos``);
* ``arena_protocol.codec``: plain data (view dicts, action strings) <-> those messages;
* :data:`PROTOCOL_VERSION`: the version a bot's hello names and the referee accepts.
"""

PROTOCOL_VERSION = 1

__all__ = ["PROTOCOL_VERSION"]
