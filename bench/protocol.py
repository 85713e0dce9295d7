"""One decision's round trip through the referee, against a bare gRPC echo.

Referee: a 3-player match in which one seat is a trivial Python bot, a local process
over a Unix socket that answers with the first legal action, and the other two seats
are in-process players. Each of the bot's decisions is timed in the referee from
building the view to applying the reply, so it includes the engine, the referee's
encoding and checks, the record, gRPC over the socket and the bot. The trivial bot does
not decode the view, so the figure is the referee's; the same match with the bot on the
Python kit (which decodes every view into a dict) is reported beside it.

Baseline, in the same run: a bare gRPC bidirectional stream over the same kind of
socket, from Python's grpc.aio with its default event loop, where (as in the protocol)
the server writes a message of the size of a typical decision request and waits for
the client to echo it. The referee and the bots run on uvloop, so the echo on uvloop
is reported too.

The stdio adapter: the kit bot's twin that speaks JSON lines (``trivial_stdio_bot.py``, which
parses every line as JSON) under ``python -m arenabot.stdio``, interleaved with the kit bot;
the difference of their medians is what the adapter adds to a decision (target: 200 µs).

Every language: the random sample bot of each language in its container (``arena-bot/...``
images, ``make images``), the Python kit's one first, in the same match as above. A container
adds the cost of Docker's start and its cgroup to the match, not to a decision: the figures
are comparable with each other, and show what each language's kit costs a decision.
``--no-languages`` leaves them out (they need the Docker engine and the images).

Debug text: the raw bot's twin that sends 1 KiB of debug text with every reply (``--debug``), in
the same repeats: the difference of the medians, and their ratio, is what a bot's debug output
costs a decision (the wire, the referee's escaping and capping, the record's line).

Everything (the referee, its bot, both ends of the echo) runs on one core, as a match
does (``referee/cpu.py``); ``--cpu none`` lets the scheduler place it all instead.

    python -m bench.protocol [--repeats 5] [--games 12] [--cpu auto|none|N] [--no-languages] [--json]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
import docker.errors
import grpc

from referee import cpu
from referee.match import Match, run_async, tune_gc
from referee.spec import parse_spec

from .common import Report, median

ROOT = Path(__file__).resolve().parent.parent


def ratio(ours: list[float], base: list[float]) -> float:
    """Median of the per-repeat ratios: each pair ran back to back, under the same noise."""
    return median([a / b for a, b in zip(ours, base, strict=True)])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def echo_run(turns: int, payload: bytes, uv: bool = False) -> list[float]:
    times: list[float] = []
    done = asyncio.Event()

    async def play(request_iterator, context):
        await context.read()  # the client's hello
        for _ in range(turns):
            t0 = time.perf_counter()
            await context.write(payload)
            await context.read()
            times.append(time.perf_counter() - t0)
        done.set()

    with tempfile.TemporaryDirectory(prefix="bench-arena-", dir="/tmp") as tmp:
        address = f"unix://{tmp}/echo.sock"
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {
            "Play": grpc.stream_stream_rpc_method_handler(play, request_deserializer=bytes,
                                                          response_serializer=bytes)}),))
        server.add_insecure_port(address)
        await server.start()
        client = subprocess.Popen([sys.executable, "-m", "bench.echo_client", address,
                                   *(["--uvloop"] if uv else [])], cwd=ROOT,
                                  env={**os.environ, "GRPC_VERBOSITY": "ERROR"})  # not its "goaway" at the end
        try:
            await done.wait()
        finally:
            await server.stop(None)
            client.kill()
            client.wait()
    return times


# The random sample bot of each language, by its image (built by ``make images``).
LANGUAGE_BOTS = {"python": "arena-bot/random:1.0.0", "javascript": "arena-bot/js-random:1.0.0",
                 "cpp": "arena-bot/random-cpp:1.0.0", "go": "arena-bot/go-random:1.0.0",
                 "stdio-awk": "arena-bot/shell-random:1.0.0"}


def trivial_bot(kind: str) -> dict[str, object]:
    """Seat 0 of :func:`referee_run`: the raw bot, the kit bot, or its stdio twin."""
    script = str(ROOT / "bench" / "trivial_bot.py")
    if kind == "raw":
        return {"name": "trivial", "command": [sys.executable, script]}
    if kind == "kit":
        return {"name": "trivial", "command": [sys.executable, script, "--kit"]}
    if kind == "debug":
        return {"name": "trivial", "command": [sys.executable, script, "--debug"]}
    if kind == "stdio":
        return {"name": "trivial", "command": [sys.executable, "-m", "arenabot.stdio", "--name=trivial", "--",
                                               sys.executable, str(ROOT / "bench" / "trivial_stdio_bot.py")]}
    return {"name": "trivial", "image": kind}


def referee_run(games: int, seed: int, out: Path, bot: str) -> list[float]:
    spec = parse_spec({"match_id": "bench", "game": "prohis", "games": games, "seed": seed,
                       "bots": [trivial_bot(bot),
                                {"name": "p1", "builtin": "random"}, {"name": "p2", "builtin": "random"}]})
    match = Match(spec, out)
    tune_gc()  # as the referee process does
    run_async(match.run())
    return [t for b, t in match.decision_times if b == 0]


def typical_request_size() -> int:
    """Median serialised size of the decision requests of a few random games."""
    import random

    from arena_games import get_game
    from arena_protocol import codec
    from arena_protocol.proto import arena_pb2 as pb

    sizes = []
    spec = get_game("prohis")
    for seed in range(5):
        state, rng = spec.new_game(3, seed), random.Random(seed)
        while not state.is_terminal():
            view, events = codec.encode_view(state.view(state.current_player()))
            legal = state.legal_actions()
            msg = pb.RefereeMessage(decision=pb.DecisionRequest(
                view=view, events=events, legal_actions=[codec.encode_action("prohis", a) for a in legal]))
            sizes.append(msg.ByteSize())
            state.apply(rng.choice(legal))
    return int(statistics.median(sizes))


@click.command()
@click.option("--repeats", default=5, show_default=True)
@click.option("--games", default=12, show_default=True, help="Games per referee run.")
@click.option("--cpu", "cpu_option", default=cpu.AUTO, show_default=True,
              help="Where everything runs, as the referee's --cpu: by default one core, as a match does.")
@click.option("--languages/--no-languages", default=True, show_default=True,
              help="Time each language's sample bot in its container (needs Docker and the images).")
@click.option("--json", "as_json", is_flag=True)
def main(repeats: int, games: int, cpu_option: str, languages: bool, as_json: bool) -> None:
    report = Report("protocol", as_json)
    # The referee, its bot and both ends of the echo all run where a match would run.
    cpus = cpu.place(cpu_option)
    size = typical_request_size()
    ref_p50, ref_p99, ref_rate, echo_p50, echo_p99, echo_rate, kit_p50, echo_uv, stdio_p50, debug_p50 = (
        [] for _ in range(10))
    images = available(LANGUAGE_BOTS) if languages else {}
    lang_p50: dict[str, list[float]] = {language: [] for language in images}
    with tempfile.TemporaryDirectory(prefix="bench-arena-runs-") as tmp:
        for r in range(repeats):  # interleaved, so that machine noise hits all alike
            times = referee_run(games, r, Path(tmp) / f"run{r}", "raw")
            ref_p50.append(percentile(times, 0.5))
            ref_p99.append(percentile(times, 0.99))
            ref_rate.append(len(times) / sum(times))
            debug_p50.append(percentile(referee_run(games, r, Path(tmp) / f"debug{r}", "debug"), 0.5))
            kit_p50.append(percentile(referee_run(games, r, Path(tmp) / f"kit{r}", "kit"), 0.5))
            stdio_p50.append(percentile(referee_run(games, r, Path(tmp) / f"stdio{r}", "stdio"), 0.5))
            for language, image in images.items():
                lang_p50[language].append(percentile(referee_run(games, r, Path(tmp) / f"{image}-{r}", image), 0.5))
            echo = asyncio.run(echo_run(len(times), b"x" * size))
            echo_uv.append(percentile(run_async(echo_run(len(times), b"x" * size, uv=True)), 0.5))
            echo_p50.append(percentile(echo, 0.5))
            echo_p99.append(percentile(echo, 0.99))
            echo_rate.append(len(echo) / sum(echo))
    us = 1e6
    where = f"CPU {cpu.format_set(cpus)}" if cpus else "any CPU"
    report.figure("referee_round_trip_p50", median(ref_p50) * us, "us", f"(referee, bots and echo on {where})")
    report.figure("referee_round_trip_p99", median(ref_p99) * us, "us")
    report.figure("referee_decisions_per_s", median(ref_rate), "decisions/s")
    report.figure("echo_round_trip_p50", median(echo_p50) * us, "us")
    report.figure("echo_round_trip_p99", median(echo_p99) * us, "us")
    report.figure("echo_turns_per_s", median(echo_rate), "turns/s")
    report.figure("echo_payload_bytes", size, "bytes")
    report.figure("kit_bot_round_trip_p50", median(kit_p50) * us, "us")
    report.figure("ratio_p50_referee_over_echo", ratio(ref_p50, echo_p50), "x", "(target <= 1.5)")
    report.figure("echo_on_uvloop_round_trip_p50", median(echo_uv) * us, "us")
    report.figure("ratio_p50_referee_over_echo_on_uvloop", ratio(ref_p50, echo_uv), "x")
    report.figure("ratio_p50_kit_bot_over_echo", ratio(kit_p50, echo_p50), "x")
    report.figure("stdio_bot_round_trip_p50", median(stdio_p50) * us, "us", "(the kit bot twin, stdio)")
    report.figure("stdio_adapter_adds_p50", median([a - b for a, b in zip(stdio_p50, kit_p50, strict=True)]) * us,
                  "us", "(stdio bot minus kit bot, per repeat; target <= 200)")
    report.figure("debug_1k_round_trip_p50", median(debug_p50) * us, "us",
                  "(the raw bot, 1 KiB of debug text with every reply)")
    report.figure("debug_1k_adds_p50", median([a - b for a, b in zip(debug_p50, ref_p50, strict=True)]) * us, "us",
                  "(1 KiB of debug text minus none, per repeat)")
    report.figure("ratio_p50_debug_1k_over_none", ratio(debug_p50, ref_p50), "x")
    for language, times in lang_p50.items():
        report.figure(f"container_round_trip_p50[{language}]", median(times) * us, "us", f"({images[language]})")
    if "python" in lang_p50:
        for language, times in lang_p50.items():
            report.figure(f"ratio_p50_container_over_python[{language}]", ratio(times, lang_p50["python"]), "x")
    for language in set(LANGUAGE_BOTS) - set(images) if languages else ():
        report.note(f"{language}: no image {LANGUAGE_BOTS[language]} (make images) or no Docker engine: not timed")


def available(bots: dict[str, str]) -> dict[str, str]:
    """The bots whose images are on the Docker engine (none without an engine)."""
    from referee.sandbox import NoDockerEngine, client

    try:
        engine = client()
    except NoDockerEngine:
        return {}
    found = {}
    for language, image in bots.items():
        try:
            engine.images.get(image)
        except docker.errors.ImageNotFound:
            continue
        found[language] = image
    return found


if __name__ == "__main__":
    main()
