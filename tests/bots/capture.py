"""A bot that keeps everything the referee sends it, as a hostile author's bot would.

    python tests/bots/capture.py FILE

Appends to FILE one JSON line when it starts (its environment and arguments), then one per
message received: the message's kind and its bytes exactly as they came off the wire (hex).
It answers every decision with the first legal action.
"""

from __future__ import annotations

import json
import os
import queue
import sys

import grpc

from arena_protocol.proto import arena_pb2 as pb


def main(path: str) -> None:
    with open(path, "a") as out:
        out.write(json.dumps({"kind": "process", "environ": dict(os.environ), "argv": sys.argv}) + "\n")
        channel = grpc.insecure_channel(os.environ["ARENA_SOCKET"])
        play = channel.stream_stream("/arena.v1.Referee/Play", request_serializer=pb.BotMessage.SerializeToString,
                                     response_deserializer=lambda raw: raw)  # keep the bytes as sent
        outbox: queue.Queue[pb.BotMessage | None] = queue.Queue()
        outbox.put(pb.BotMessage(hello=pb.Hello(name="capture", version="1", protocol_version=1)))
        for raw in play(iter(outbox.get, None)):
            message = pb.RefereeMessage.FromString(raw)
            kind = message.WhichOneof("message")
            out.write(json.dumps({"kind": kind, "bytes": raw.hex()}) + "\n")
            out.flush()
            if kind == "decision":
                outbox.put(pb.BotMessage(reply=pb.Reply(decision_id=message.decision.decision_id,
                                                        action=message.decision.legal_actions[0])))
            elif kind == "match_end":
                outbox.put(None)
                break


if __name__ == "__main__":
    main(sys.argv[1])
