"""Bot images kept in the store (arena/bots/archives.py), on the real Docker engine: archived,
removed from the engine, loaded back with the same image ID; a damaged or tampered archive is
refused; several threads load an image once; a moved tag is put back. The images are tiny
(`docker import` of a few files), made afresh for each test and removed after it."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import tarfile
import threading
import uuid

import docker.errors
import pytest
from click.testing import CliRunner
from sqlalchemy import delete, event, func, select, update

from arena.bots.archives import ArchiveError, archive_image, delete_archive, ensure_image, has_archive
from arena.bots.registry import register_bot
from arena.cli import main as arena
from arena.store import ImageArchive, ImageChunk, open_store

from ..docker_fixtures import TEST_IMAGES

SMALL = 2048  # bytes per chunk, so that a tiny image's archive has several


@pytest.fixture
def tiny(docker_client):
    """Makes tiny images (a few files, one of random bytes) tagged ``$ARENA_TEST_IMAGES/archives-*``;
    each call returns (tag, image ID). All are removed at the end."""
    made: list[str] = []

    def make(tag: str | None = None) -> tuple[str, str]:
        tag = tag or f"{TEST_IMAGES}/archives-{uuid.uuid4().hex[:12]}:1"
        data = io.BytesIO()
        with tarfile.open(fileobj=data, mode="w") as tar:
            for name, content in (("bot/hello.txt", b"hello\n"), ("bot/noise", os.urandom(6000)),
                                  ("etc/passwd", b"bot:x:10001:10001::/bot:/bin/false\n")):
                info = tarfile.TarInfo(name)
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
        repository, _, version = tag.rpartition(":")
        docker_client.api.import_image_from_data(data.getvalue(), repository=repository, tag=version)
        image_id = docker_client.images.get(tag).id
        made.append(image_id)
        return tag, image_id

    yield make
    for image_id in made:
        with contextlib.suppress(docker.errors.ImageNotFound):
            docker_client.images.remove(image_id, force=True)


def remove(client, image_id: str) -> None:
    client.images.remove(image_id, force=True)
    with pytest.raises(docker.errors.ImageNotFound):
        client.images.get(image_id)


def test_an_archived_image_is_loaded_with_its_id_where_the_engine_lacks_it(store, docker_client, tiny):
    tag, image_id = tiny()
    assert archive_image(store, tag, image_id, docker_client, chunk_bytes=SMALL) is True
    assert archive_image(store, tag, image_id, docker_client, chunk_bytes=SMALL) is False  # once
    with store() as session:
        archive = session.scalar(select(ImageArchive))
        chunks = session.execute(select(func.count(), func.max(func.length(ImageChunk.data)))).one()
    assert (archive.image_id, archive.image) == (image_id, tag)
    assert archive.chunks > 2 and chunks == (archive.chunks, SMALL)
    assert has_archive(store, image_id)

    assert ensure_image(store, tag, image_id, docker_client) == "present"
    remove(docker_client, image_id)
    assert ensure_image(store, tag, image_id, docker_client) == "loaded"
    assert docker_client.images.get(tag).id == image_id
    assert ensure_image(store, tag, image_id, docker_client) == "present"


def test_no_archive_or_the_wrong_local_image_is_refused_with_the_image_named(store, docker_client, tiny):
    tag, image_id = tiny()
    other_tag, other_id = tiny()
    remove(docker_client, image_id)
    with pytest.raises(ArchiveError, match=f"lacks {tag} \\(image {image_id}\\), and the store keeps no archive "
                                           "of it \\(store sqlite:///.*arena images archive"):
        ensure_image(store, tag, image_id, docker_client)
    with pytest.raises(ArchiveError, match=f"cannot archive {tag}: this host's Docker engine has no such image"):
        archive_image(store, tag, image_id, docker_client)
    with pytest.raises(ArchiveError, match=f"cannot archive {other_tag}: on this host it is image {other_id}, "
                                           f"but the store registered {image_id}"):
        archive_image(store, other_tag, image_id, docker_client)
    with pytest.raises(ArchiveError, match="'sha256:x' is not a Docker image ID"):
        ensure_image(store, tag, "sha256:x", docker_client)
    with store() as session:
        assert session.scalar(select(func.count()).select_from(ImageChunk)) == 0


def test_a_damaged_or_tampered_archive_is_refused_and_loads_nothing(store, docker_client, tiny):
    tag, image_id = tiny()
    archive_image(store, tag, image_id, docker_client, chunk_bytes=SMALL)
    remove(docker_client, image_id)
    with store() as session, session.begin():  # one byte of the middle chunk flipped
        chunk = session.scalar(select(ImageChunk).where(ImageChunk.seq == 1))
        chunk.data = chunk.data[:100] + bytes([chunk.data[100] ^ 0xFF]) + chunk.data[101:]
    with pytest.raises(ArchiveError, match=f"archive of {tag} \\(image {image_id}\\).*(damaged|failed)"):
        ensure_image(store, tag, image_id, docker_client)
    with store() as session, session.begin():  # a chunk missing
        session.execute(delete(ImageChunk).where(ImageChunk.seq == 1))
    with pytest.raises(ArchiveError, match=f"archive of {tag} \\(image {image_id}\\) is damaged .*: it should be "
                                           "[0-9]+ chunk\\(s\\) of [0-9]+ bytes in all, the store has"):
        ensure_image(store, tag, image_id, docker_client)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(image_id)

    # another image's intact archive under this image's ID: it loads, and is refused and removed
    assert delete_archive(store, image_id)
    other_tag, other_id = tiny()
    archive_image(store, other_tag, other_id, docker_client)
    remove(docker_client, other_id)
    with store() as session, session.begin():
        session.execute(update(ImageChunk).values(image_id=image_id))
        session.execute(update(ImageArchive).values(image_id=image_id))
    with pytest.raises(ArchiveError, match=f"archive of {tag} does not hold image {image_id}: loading it gave "
                                           f"{other_id} \\(a tampered archive\\)"):
        ensure_image(store, tag, image_id, docker_client)
    for gone in (image_id, other_id):
        with pytest.raises(docker.errors.ImageNotFound):
            docker_client.images.get(gone)


def test_threads_asking_for_one_image_at_once_load_it_once(store, docker_client, tiny):
    tag, image_id = tiny()
    results: list[bool | str] = []
    start = threading.Barrier(2)

    def run(work) -> None:
        start.wait()
        results.append(work())

    archivers = [threading.Thread(target=run, args=(lambda: archive_image(store, tag, image_id, docker_client),))
                 for _ in range(2)]
    for thread in archivers:
        thread.start()
    for thread in archivers:
        thread.join()
    assert sorted(results) == [False, True]

    remove(docker_client, image_id)
    results.clear()
    loaders = [threading.Thread(target=run, args=(lambda: ensure_image(store, tag, image_id, docker_client),))
               for _ in range(2)]
    for thread in loaders:
        thread.start()
    for thread in loaders:
        thread.join()
    assert sorted(results) == ["loaded", "present"]
    assert docker_client.images.get(tag).id == image_id


def test_two_hosts_archiving_one_image_at_once_end_with_one_archive(store, db_url, docker_client, tiny, tmp_path):
    """The other host is a process with a lock folder of its own; it archives the image while
    this one is about to add its archive row. Chunks a dead archiver left long ago are removed,
    a live one's are not."""
    tag, image_id = tiny()
    hex64 = image_id.removeprefix("sha256:")
    dead, live = f"{hex64}.00000001.aaaaaa", f"{hex64}.ffffffff.bbbbbb"
    with store() as session, session.begin():
        session.add_all([ImageChunk(image_id=key, seq=0, data=b"left behind") for key in (dead, live)])
    code = ("from arena.bots.archives import archive_image; from arena.store import open_store; "
            f"print(archive_image(open_store({db_url!r}), {tag!r}, {image_id!r}, chunk_bytes={SMALL}))")
    other: list[subprocess.CompletedProcess] = []

    def other_host_first(connection, cursor, statement, *args) -> None:
        if statement.startswith("INSERT INTO image_archives") and not other:
            other.append(subprocess.run([sys.executable, "-c", code], env={**os.environ, "TMPDIR": str(tmp_path)},
                                        capture_output=True, text=True, timeout=120))

    event.listen(store.engine, "before_cursor_execute", other_host_first)
    assert archive_image(store, tag, image_id, docker_client, chunk_bytes=SMALL) is False
    assert other[0].stdout == "True\n", other[0].stderr
    with store() as session:
        assert session.scalar(select(func.count()).select_from(ImageArchive)) == 1
        assert set(session.scalars(select(ImageChunk.image_id))) == {image_id, live}
    remove(docker_client, image_id)
    assert ensure_image(store, tag, image_id, docker_client) == "loaded"


def test_a_tag_moved_to_another_image_is_put_back(store, docker_client, tiny):
    tag, image_id = tiny()
    _, other_id = tiny()
    archive_image(store, tag, image_id, docker_client)
    repository, _, version = tag.rpartition(":")

    docker_client.images.get(other_id).tag(repository, version)
    assert ensure_image(store, tag, image_id, docker_client) == "present"
    assert docker_client.images.get(tag).id == image_id

    remove(docker_client, image_id)
    docker_client.images.get(other_id).tag(repository, version)
    assert ensure_image(store, tag, image_id, docker_client) == "loaded"
    assert docker_client.images.get(tag).id == image_id
    assert tag not in docker_client.images.get(other_id).tags


def test_arena_images_archive_keeps_registered_bots_images(store, db_url, docker_client, tiny):
    tag, image_id = tiny()
    _, other_id = tiny()
    for name, digest in (("tiny", image_id), ("moved", other_id)):
        register_bot(store, name=name, version="1", image=tag, image_digest=digest, language="python",
                     author="a", games=[], league=None)

    result = CliRunner().invoke(arena, ["images", "archive", "tiny", "--db", db_url])
    assert result.exit_code == 0, result.output
    assert f"tiny@1 ({tag}): archived, 0.0 MiB gzipped from a 0.0 MiB image in" in result.output
    result = CliRunner().invoke(arena, ["images", "archive", "--all", "--db", db_url])
    assert result.exit_code == 1, result.output
    assert f"tiny@1 ({tag}): archived already (0.0 MiB)" in result.output
    assert f"moved@1 ({tag}): cannot archive {tag}: on this host it is image {image_id}, but the store " \
           f"registered {other_id}" in result.output
    assert "Error: 1 image(s) could not be archived" in result.output
    result = CliRunner().invoke(arena, ["images", "archive", "--db", db_url])
    assert result.exit_code == 2 and "name the bots (NAME or NAME@VERSION), or give --all" in result.output


def test_an_archive_on_postgresql_is_loaded(docker_client, tiny, private_postgres):
    """On a server of the test's own: the setup's test database is tests/league/test_postgres.py's,
    which empties it, perhaps in the other test process meanwhile."""
    pg = open_store(private_postgres.url)
    tag, image_id = tiny()
    try:
        assert archive_image(pg, tag, image_id, docker_client, chunk_bytes=SMALL) is True
        remove(docker_client, image_id)
        assert ensure_image(pg, tag, image_id, docker_client) == "loaded"
        assert docker_client.images.get(tag).id == image_id
    finally:
        delete_archive(pg, image_id)
        pg.engine.dispose()
