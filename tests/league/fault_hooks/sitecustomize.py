"""Faults planted in real referee processes, for tests/league/test_faults.py: a referee started
with this folder on its PYTHONPATH and ``ARENA_TEST_CUT_RESULT=MATCH_ID`` plays the match as
always, then cuts its result.json in half (as a fault of the disk or of a copy would), so the
runner that reads it finds a file it cannot parse."""

import os

_CUT = os.environ.get("ARENA_TEST_CUT_RESULT")
if _CUT:
    import referee.match

    _run = referee.match.Match.run

    async def _run_then_cut(self):
        result = await _run(self)
        if self.spec.match_id == _CUT:
            path = self.out_dir / "result.json"
            text = path.read_bytes()
            path.write_bytes(text[: len(text) // 2])
        return result

    referee.match.Match.run = _run_then_cut  # type: ignore[method-assign]  # the fault, planted
