"""Bot builds: the sample bots' build time, cold and cached, and the host disk a build that
writes past the image cap takes before it is refused.

Each sample (python/random, go/random, cpp/random) is copied under a name of its own with a
fresh comment in its source (so no step of it is in the engine's cache), built once (cold)
and then again unchanged (cached), ``--runs`` times; the figures are medians, in seconds, of
``build_bot`` as ``arena bot build`` calls it (the command's own start-up excluded). With
``--disk``: one RUN writing 5 x 1000 MiB under the default 1 GiB cap, and the peak growth of
the used space of the disk holding the engine's files (sampled every 20 ms; other work on the
machine shows in it too) until the build is refused.

The figures are those of whichever checkout the interpreter imports ``arena`` from: run it
with two checkouts' interpreters, one after the other, for a before and after.

    python -m bench.builds [--runs 3] [--disk] [--json]
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import tempfile
import threading
import time
from pathlib import Path

from arena.bots.build import build_bot
from arena.bots.cache import STAGES_REPOSITORY
from arena.bots.config import BotError, load_bot_config
from referee.sandbox import docker_client

from .common import Report, median

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = {"python/random": "bot.py", "go/random": "bot.go", "cpp/random": "bot.cpp"}
COMMENT = {"bot.py": "# {}\n", "bot.go": "// {}\n", "bot.cpp": "// {}\n"}


def fresh_copy(sample: str, parent: Path) -> Path:
    folder = parent / f"{sample.replace('/', '-')}-{secrets.token_hex(4)}"
    shutil.copytree(ROOT / "sample_bots" / sample, folder)
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('name = "', 'name = "bench-', 1))
    source = folder / SAMPLES[sample]
    source.write_text(source.read_text() + COMMENT[source.name].format(secrets.token_hex(8)))
    return folder


def build_times(report: Report, runs: int) -> None:
    client = docker_client(timeout=120)
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        for sample in SAMPLES:
            cold: list[float] = []
            cached: list[float] = []
            for _ in range(runs):
                config = load_bot_config(fresh_copy(sample, Path(tmp)))
                for times in (cold, cached):
                    start = time.monotonic()
                    build_bot(client, config)
                    times.append(time.monotonic() - start)
                client.images.remove(config.tag)
                for image in client.api.images(name=f"{STAGES_REPOSITORY}/{config.name}"):  # a C++ bot's first stage
                    for tag in image["RepoTags"]:
                        client.images.remove(tag)
            report.figure(f"{sample}: cold", median(cold), "s", f"({runs} builds)")
            report.figure(f"{sample}: cached", median(cached), "s")


def disk_peak(report: Report) -> None:
    client = docker_client(timeout=300)
    with tempfile.TemporaryDirectory(prefix="bench-builds-") as tmp:
        folder = Path(tmp) / "writer"
        folder.mkdir()
        (folder / "bot.toml").write_text(f'name = "bench-writer-{secrets.token_hex(4)}"\nversion = "1"\n'
                                         'language = "python"\nauthor = "bench"\n')
        (folder / "Dockerfile").write_text(
            "ARG BASE\nFROM ${BASE}\nRUN python3 -c \"[open(f'/tmp/f{i}', 'wb').write(b'x' * 1000 * 2**20) "
            "for i in range(5)]\"\n")
        fs = os.statvfs("/var/lib/docker")
        start_used = (fs.f_blocks - fs.f_bfree) * fs.f_frsize
        peak, done = [0], threading.Event()

        def sample() -> None:
            while not done.wait(0.02):
                now = os.statvfs("/var/lib/docker")
                peak[0] = max(peak[0], (now.f_blocks - now.f_bfree) * now.f_frsize - start_used)

        thread = threading.Thread(target=sample, daemon=True)
        thread.start()
        start = time.monotonic()
        try:
            build_bot(client, load_bot_config(folder))
            outcome = "built (!)"
        except BotError as exc:
            outcome = str(exc).splitlines()[0][:160]
        took = time.monotonic() - start
        done.set()
        thread.join()
        report.figure("5 x 1000 MiB under a 1 GiB cap: peak disk", peak[0] / 2**30, "GiB", outcome)
        report.figure("5 x 1000 MiB under a 1 GiB cap: refused after", took, "s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--disk", action="store_true", help="also the disk of a build past the cap")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = Report("builds", args.json)
    build_times(report, args.runs)
    if args.disk:
        disk_peak(report)


if __name__ == "__main__":
    main()
