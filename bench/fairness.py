"""What a bot that computes while others think costs them, with and without the guard.

A thinker (tests/bots/thinker.py: the same CPU work for every decision) plays a Prohis
game beside a calm bot (the random sample), beside a spinner (tests/bots/adversary.py
``spin``: four processes spinning for the whole match) or beside the credit bot (``credit``:
it idles 5 ms of each turn and computes 4 ms right after each reply), and an in-process
random player. Reported: the thinker's p50 and p90 think time as charged by the referee, calm,
spun and beside the credit bot, with the fairness guard on (the default,
``referee/fairness.py``) and off, and the ratios to calm per repeat (median). Everything runs
on one core, as a match does.

Needs the Docker engine and the sample images (``make images``); builds its own three images.

    python -m bench.fairness [--repeats 3] [--json]
"""

from __future__ import annotations

import io
import shutil
import statistics
import tempfile
from pathlib import Path

import click

from arena.bots.images import PYTHON_BASE
from referee import cpu, fairness
from referee.match import run_match
from referee.records import read_record
from referee.sandbox import docker_client
from referee.spec import parse_spec

from .common import Report, median

ROOT = Path(__file__).resolve().parent.parent
THINKER, SPINNER, CALM = "arena-bench/thinker:1", "arena-bench/spinner:1", "arena-bot/random:1.0.0"
CREDIT = "arena-bench/credit:1"


def build_images() -> None:
    client = docker_client()
    with tempfile.TemporaryDirectory(prefix="bench-arena-fair-") as tmp:
        context = Path(tmp)
        for bot in ("thinker.py", "adversary.py"):
            shutil.copy(ROOT / "tests/bots" / bot, context / bot)
        (context / "Dockerfile").write_text("ARG BASE\nFROM ${BASE}\nCOPY . /bot/\n")
        client.images.build(path=str(context), tag="arena-bench/fair-base:1", buildargs={"BASE": PYTHON_BASE.tag},
                            rm=True, forcerm=True)
    for tag, command in ((THINKER, '["python3", "/bot/thinker.py"]'),
                         (SPINNER, '["python3", "/bot/adversary.py", "spin"]'),
                         (CREDIT, '["python3", "/bot/adversary.py", "credit"]')):
        dockerfile = f"FROM arena-bench/fair-base:1\nCMD {command}\n"
        client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True, forcerm=True)


def thinker_times(other: str, out: Path) -> tuple[list[float], int]:
    """The thinker's think times (ms) in one game beside ``other``, and the failures."""
    spec = parse_spec({"match_id": "bench-fair", "game": "prohis", "seed": 11, "plan": [["0", 0]],
                       "bots": [{"name": "thinker", "image": THINKER}, {"name": "other", "image": other},
                                {"name": "inproc", "builtin": "random"}],
                       "time": {"startup_ms": 20000, "decision_ms": 2000, "bank_ms": 5000}})
    result = run_match(spec, out)
    game = result["games"][0]
    record = read_record(out / game["record"])
    seat = game["bots"].index(0)
    return [d["ms"] for d in record.decisions if d["seat"] == seat], sum(1 for f in game["failures"] if f)


def p90(values: list[float]) -> float:
    return sorted(values)[9 * len(values) // 10]


@click.command()
@click.option("--repeats", default=3, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def main(repeats: int, as_json: bool) -> None:
    report = Report("fairness", as_json)
    cpu.place(cpu.AUTO)
    build_images()
    figures: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-arena-fair-runs-") as tmp:
        for r in range(repeats):  # interleaved, so that machine noise hits all alike
            for guard in ("on", "off"):
                fairness.ENABLED = guard == "on"
                calm, calm_failed = thinker_times(CALM, Path(tmp) / f"{r}-{guard}-calm")
                spun, spun_failed = thinker_times(SPINNER, Path(tmp) / f"{r}-{guard}-spun")
                credit, credit_failed = thinker_times(CREDIT, Path(tmp) / f"{r}-{guard}-credit")
                for key, value in (("calm_p50", statistics.median(calm)), ("spun_p50", statistics.median(spun)),
                                   ("calm_p90", p90(calm)), ("spun_p90", p90(spun)),
                                   ("credit_p50", statistics.median(credit)), ("credit_p90", p90(credit)),
                                   ("ratio_p50", statistics.median(spun) / statistics.median(calm)),
                                   ("credit_ratio_p50", statistics.median(credit) / statistics.median(calm)),
                                   ("failures", calm_failed + spun_failed + credit_failed)):
                    figures.setdefault(f"guard_{guard}_{key}", []).append(value)
    fairness.ENABLED = True
    for guard in ("on", "off"):
        for key in ("calm_p50", "spun_p50", "credit_p50", "calm_p90", "spun_p90", "credit_p90"):
            report.figure(f"guard_{guard}_thinker_{key}", median(figures[f"guard_{guard}_{key}"]), "ms")
        report.figure(f"guard_{guard}_ratio_p50_spun_over_calm", median(figures[f"guard_{guard}_ratio_p50"]), "x",
                      "(target <= 1.10)" if guard == "on" else "")
        report.figure(f"guard_{guard}_ratio_p50_credit_over_calm", median(figures[f"guard_{guard}_credit_ratio_p50"]),
                      "x", "(target <= 1.10)" if guard == "on" else "")
        report.figure(f"guard_{guard}_failed_seats", sum(figures[f"guard_{guard}_failures"]), "seats")


if __name__ == "__main__":
    main()
