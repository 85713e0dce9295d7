"""referee/limits.py is where every limit a bot is held to is written: the code that enforces
them takes its numbers from there, and the page bot authors read says the same numbers."""

from __future__ import annotations

from pathlib import Path

from arena.bots import AUTHOR_CHARS, BUILD_LIMITS, BUILD_TIMEOUT, MAX_IMAGE_MB, TOML_DEPTH
from referee import limits
from referee.sandbox import PROFILE
from referee.spec import parse_spec

ROOT = Path(__file__).resolve().parents[1]


def test_the_enforcing_code_takes_its_numbers_from_limits():
    assert (PROFILE.memory_mb, PROFILE.pids, PROFILE.cpus, PROFILE.tmpfs_mb, PROFILE.file_size_mb,
            PROFILE.open_files) == (limits.MEMORY_MB, limits.PIDS, limits.CPUS, limits.TMPFS_MB,
                                    limits.FILE_SIZE_MB, limits.OPEN_FILES)
    assert (BUILD_LIMITS.memory_mb, BUILD_LIMITS.pids, BUILD_TIMEOUT, BUILD_LIMITS.seconds, MAX_IMAGE_MB) == (
        limits.BUILD_MEMORY_MB, limits.BUILD_PIDS, limits.BUILD_TIMEOUT_S, limits.BUILD_TIMEOUT_S, limits.MAX_IMAGE_MB)
    spec = parse_spec({"game": "prohis", "bots": [{"name": f"b{i}", "builtin": "random"} for i in range(3)]})
    assert (spec.time.startup_ms, spec.time.decision_ms, spec.time.bank_ms, spec.max_restarts) == (
        limits.STARTUP_MS, limits.DECISION_MS, limits.BANK_MS, limits.MAX_RESTARTS)


def test_the_bot_authors_page_says_the_same_numbers():
    page = (ROOT / "docs" / "writing-a-bot.md").read_text()
    for row in (f"| memory | {limits.MEMORY_MB} MiB, no swap", f"| processes | {limits.PIDS} (",
                f"`/tmp` is a {limits.TMPFS_MB} MiB tmpfs", f"| file size | {limits.FILE_SIZE_MB} MiB",
                f"{limits.OPEN_FILES} open files", f"the first {limits.LOG_CAP // 2**20} MiB of the match",
                f"read at {limits.LOG_RATE // 2**20} MiB a second",
                f"| memory | {limits.BUILD_MEMORY_MB // 1024} GiB per step", f"| processes | {limits.BUILD_PIDS} for",
                f"| time | {limits.BUILD_TIMEOUT_S // 60} minutes", f"| image | {limits.MAX_IMAGE_MB // 1024} GiB",
                f"says hello within {limits.CHECK_STARTUP_MS // 1000} s",
                f"with {limits.CHECK_SLACK} times the decision",
                f"with code 0 within {limits.CHECK_SHUTDOWN_MS // 1000} s", f"the container's {limits.MEMORY_MB} MiB",
                f"({limits.DECISION_MS // 1000} s a decision, a {limits.BANK_MS // 1000} s bank",
                f"the file is at most {limits.BOT_TOML_KB} KiB", f"at most {TOML_DEPTH} deep",
                f"`author` is at most {AUTHOR_CHARS} characters", f"at most {limits.BUILD_ARGS} build arguments",
                f"and at most {limits.BUILD_ARG_CHARS} characters", f"at most {limits.UPLOAD_PATH_CHARS} characters"):
        assert row in page, f"docs/writing-a-bot.md does not say {row!r}"


def test_uploads_take_their_numbers_from_limits_and_the_page_says_them():
    from arena.uploads import LIMITS

    assert (LIMITS.packed, LIMITS.unpacked, LIMITS.files, LIMITS.depth, LIMITS.path_chars) == (
        limits.UPLOAD_MB * 2**20, limits.UNPACKED_MB * 2**20, limits.UPLOAD_FILES, limits.UPLOAD_PATH_DEPTH,
        limits.UPLOAD_PATH_CHARS)
    page = (ROOT / "docs" / "writing-a-bot.md").read_text()
    for row in (f"| packed | {limits.UPLOAD_MB} MB", f"| unpacked | {limits.UNPACKED_MB} MB",
                f"| files | {limits.UPLOAD_FILES:,} entries", f"at most {limits.UPLOAD_PATH_DEPTH} folders deep and "
                f"{limits.UPLOAD_PATH_CHARS} characters", f"up to {limits.SUBMISSION_LOG_KB} KiB"):
        assert row in page, f"docs/writing-a-bot.md does not say {row!r}"
