"""Small disks for the tests of a full disk: a size-limited tmpfs mounted for one test (the
suite runs as root), filled up at the moment the test chooses, unmounted after it."""

from __future__ import annotations

import errno
import pwd
import subprocess
from pathlib import Path

import pytest


class SmallDisk:
    """A size-limited tmpfs mounted for one test (as root): the disk of a store or of a records
    folder, filled up at the moment the test chooses."""

    def __init__(self, path: Path, size_mb: int = 16, owner: str | None = None) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        options = f"size={size_mb}m,mode=0777"
        if owner is not None:  # the disk of a PostgreSQL tablespace: its server's user's alone
            user = pwd.getpwnam(owner)
            options = f"size={size_mb}m,mode=0700,uid={user.pw_uid},gid={user.pw_gid}"
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            pytest.fail(f"these tests mount a small tmpfs, which needs root: {done.stderr.strip()}")
        self.filler = path / "filler"

    def fill(self) -> None:
        """Writes until not a byte more fits."""
        with open(self.filler, "ab", buffering=0) as f:
            for size in (2**20, 2**12, 1):
                try:
                    while True:
                        f.write(b"\0" * size)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def unmount(self) -> None:
        subprocess.run(["umount", "-l", str(self.path)], check=True)


@pytest.fixture
def small_disk(tmp_path):
    disks: list[SmallDisk] = []

    def mount(path: Path, size_mb: int = 16, owner: str | None = None) -> SmallDisk:
        disks.append(SmallDisk(path, size_mb, owner))
        return disks[-1]

    yield mount
    for disk in disks:
        disk.unmount()
