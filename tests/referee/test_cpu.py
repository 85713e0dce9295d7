"""Where a match runs: the --cpu forms, and a core per league slot."""

from __future__ import annotations

import os

import pytest

from arena.league.executor import slot_cores
from referee import cpu


def test_cpu_option_forms():
    allowed = cpu.allowed()
    assert cpu.parse("none") is None
    auto = cpu.parse("auto")
    assert auto is not None and len(auto) == 1 and auto <= set(allowed)
    assert cpu.parse(str(allowed[-1])) == {allowed[-1]}
    assert cpu.parse(",".join(map(str, allowed))) == set(allowed)
    if allowed == list(range(allowed[0], allowed[-1] + 1)):
        assert cpu.parse(f"{allowed[0]}-{allowed[-1]}") == set(allowed)
    for bad in ("", "x", "1-", "-1", "99999"):
        with pytest.raises(cpu.CpuOptionError):
            cpu.parse(bad)


def test_each_league_slot_gets_a_core_in_turn(monkeypatch):
    allowed = cpu.allowed()
    monkeypatch.delenv("ARENA_CPU", raising=False)
    cores = slot_cores(len(allowed) + 1)
    given = [cores.get() for _ in range(len(allowed) + 1)]
    assert given == [str(c) for c in allowed] + [str(allowed[0])]
    monkeypatch.setenv("ARENA_CPU", "none")
    assert slot_cores(2).get() is None  # each referee reads ARENA_CPU itself


def test_pinning_moves_every_thread_and_bots_follow():
    import threading

    everywhere = set(cpu.allowed())
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait)  # a thread that exists before pinning
    worker.start()
    try:
        cpu.pin({max(everywhere)})
        for tid in os.listdir("/proc/self/task"):
            assert os.sched_getaffinity(int(tid)) == {max(everywhere)}
        assert cpu.cpuset() == (str(max(everywhere)) if len(everywhere) > 1 else None)
    finally:
        cpu.pin(everywhere)
        stop.set()
        worker.join()
    assert cpu.cpuset() is None or len(everywhere) < (os.cpu_count() or 0)
