"""An image's layers are walked once per host, not once per referee process (a league starts
one per match): the walk is kept in the referee's cache, and read back only for the very folder
it was made of (referee/isolation.py)."""

from __future__ import annotations

import json
import os

import pytest

from referee import isolation


@pytest.fixture
def walks(tmp_path, monkeypatch):
    """A fresh cache of walks, and no layer known to this process yet."""
    monkeypatch.setattr(isolation, "WALKS", tmp_path / "walks")
    monkeypatch.setattr(isolation, "_LAYERS", {})
    return tmp_path / "walks"


def a_layer(folder, writable: bool = False):
    (folder / "bot").mkdir(parents=True)
    (folder / "bot" / "bot.py").write_text("print('hello')\n")
    (folder / "bot" / "empty").write_text("")
    (folder / "bot" / "odd \udcff name").write_text("x")
    if writable:
        (folder / "bot" / "bot.py").chmod(0o666)
    return folder


def test_a_walk_is_kept_and_read_back_as_it_was_made(tmp_path, walks):
    folder = a_layer(tmp_path / "layer", writable=True)
    first = isolation.layer(folder)
    assert sorted(first.files) == sorted([(os.fsencode(folder / "bot" / "bot.py"), 15),
                                          (os.fsencode(folder / "bot" / "odd \udcff name"), 1)])
    assert len(first.problems) == 1 and "may be written by any user" in first.problems[0]
    isolation._LAYERS.clear()  # as a new referee process
    (folder / "bot" / "later").write_text("not walked again")  # a layer never changes: this shows the kept walk is read
    again = isolation.layer(folder)
    assert (sorted(again.files), again.problems) == (sorted(first.files), first.problems)


def test_a_kept_walk_of_another_folder_at_that_path_or_a_damaged_one_is_not_used(tmp_path, walks):
    folder = a_layer(tmp_path / "layer")
    isolation.layer(folder)
    record = next(walks.glob("*.json"))
    for damaged in (b"{not json", json.dumps({"folder": str(folder)}).encode()):
        record.write_bytes(damaged)
        isolation._LAYERS.clear()
        assert len(isolation.layer(folder).files) == 2
    # the folder removed, and another made at its path: a walk of its own
    for path in sorted(folder.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    folder.rmdir()
    (folder / "other").mkdir(parents=True)
    (folder / "other" / "x").write_text("abc")
    isolation._LAYERS.clear()
    assert isolation.layer(folder).files == [(os.fsencode(folder / "other" / "x"), 3)]


def test_a_layer_warmed_lately_is_not_warmed_again_and_gone_layers_are_pruned(tmp_path, walks):
    folder = a_layer(tmp_path / "layer")
    assert isolation.warm([folder])[0] >= 0  # read (or found cached) and stamped
    isolation._LAYERS.clear()
    assert isolation.warm([folder]) == (0, 0)  # stamped by a "referee" of this boot just now
    stamp = next(walks.glob("*.warm"))
    boot, _ = stamp.read_text().split()
    stamp.write_text(f"{boot} {0.0}")  # long ago: warmed (checked) again
    isolation._LAYERS.clear()
    isolation.warm([folder])
    assert float(stamp.read_text().split()[1]) > 0
    assert isolation.prune_walks() == 0
    for path in sorted(folder.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    folder.rmdir()
    assert isolation.prune_walks() == 1 and list(walks.iterdir()) == []
