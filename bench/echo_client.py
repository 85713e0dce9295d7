"""The bare baseline's client: echoes every message of one bidirectional stream back."""

from __future__ import annotations

import asyncio
import sys
from typing import cast

import grpc


async def main(address: str) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream("/bench.Echo/Play", request_serializer=bytes,
                                     response_deserializer=bytes)()
        await call.write(b"hello")
        while True:
            msg = await call.read()
            if msg is grpc.aio.EOF:
                return
            await call.write(cast(bytes, msg))  # types-grpcio types read() as object (EOF or a reply)


if __name__ == "__main__":
    if "--uvloop" in sys.argv:
        import uvloop

        uvloop.run(main(sys.argv[1]))
    else:
        asyncio.run(main(sys.argv[1]))
