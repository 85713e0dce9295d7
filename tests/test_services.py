"""The servers the worker tests stop and start (tests/services.py): what a stop, a kill and a
start do to their data, and the setup's Redis."""

from __future__ import annotations

import uuid

import pytest
import redis
import redis.exceptions
from sqlalchemy import select

from arena.league import create_league, get_league
from arena.league.schedule import ScheduleOptions
from arena.store import StoreError, open_store
from arena.store.models import League
from tests.services import redis_answers


def test_the_setups_redis_answers_on_its_tests_database(redis_url):
    assert redis_url == "redis://127.0.0.1:6379/15"
    client = redis.Redis.from_url(redis_url)
    key = f"test-services-{uuid.uuid4().hex}"  # the database is shared with other sessions
    try:
        client.set(key, "here", ex=60)
        assert client.get(key) == b"here"
        assert client.connection_pool.connection_kwargs["db"] == 15
    finally:
        client.delete(key)
        client.close()


def test_a_private_redis_keeps_its_queue_through_a_stop_a_kill_and_a_start(private_redis):
    port, url = private_redis.port, private_redis.url
    client = redis.Redis.from_url(url, socket_timeout=5)
    client.rpush("queue", "match-1", "match-2")

    private_redis.stop()  # SHUTDOWN SAVE
    assert not private_redis.running() and not redis_answers(url, timeout=0.2)
    with pytest.raises(redis.exceptions.ConnectionError):
        client.llen("queue")
    private_redis.start()
    assert private_redis.running() and (private_redis.port, private_redis.url) == (port, url)
    assert client.lrange("queue", 0, -1) == [b"match-1", b"match-2"]  # the same client reconnects

    # SIGKILL: no save, but the append-only file has every write acknowledged before it
    client.rpush("queue", "match-3")
    private_redis.kill()
    assert not private_redis.running() and not redis_answers(url, timeout=0.2)
    private_redis.start()
    assert client.lrange("queue", 0, -1) == [b"match-1", b"match-2", b"match-3"]
    assert (private_redis.directory / "dump.rdb").is_file()
    assert (private_redis.directory / "appendonlydir").is_dir()
    client.close()


def test_a_private_postgres_holds_an_arena_store_through_a_stop_and_a_start(private_postgres):
    url = private_postgres.url
    assert url.startswith("postgresql+psycopg://arena:arena@127.0.0.1:") and url.endswith("/arena")
    store = open_store(url)  # Arena's migrations, on the server's database arena
    create_league(store, "kept", "prohis", 3, {}, ScheduleOptions())

    private_postgres.stop()
    assert not private_postgres.running()
    with pytest.raises(StoreError, match="cannot reach the database at postgresql"):
        open_store(url, create=False)

    private_postgres.start()
    assert private_postgres.running()
    # the store opened before the stop carries on: its pool replaces the closed connections
    with store() as session:
        assert get_league(session, "kept").game == "prohis"
    again = open_store(url, create=False)
    with again() as session:
        assert session.scalars(select(League.name)).all() == ["kept"]
    store.engine.dispose()
    again.engine.dispose()


def test_private_servers_are_their_own(private_postgres, private_redis, _postgres_template):
    # another private PostgreSQL, from the same template, starts empty of the first one's data
    from tests.services import PostgresServer

    create_league(open_store(private_postgres.url), "mine", "prohis", 3, {}, ScheduleOptions())
    other = PostgresServer(_postgres_template)
    try:
        assert other.port != private_postgres.port and other.data != private_postgres.data
        store = open_store(other.url)
        with store() as session:
            assert session.scalars(select(League.name)).all() == []
        store.engine.dispose()
    finally:
        other.remove()
    assert not other.running() and not other.root.exists()
    assert private_postgres.running() and private_redis.port not in (other.port, private_postgres.port)
