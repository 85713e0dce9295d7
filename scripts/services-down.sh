#!/usr/bin/env bash
# Stops the services the setup started for the tests: the Redis of scripts/redis-up.sh and the
# PostgreSQL cluster of scripts/postgres-up.sh, each gracefully (Redis saves its data, PostgreSQL
# stops in fast mode). .ci/run calls it after the tests, whatever their outcome. Stopping what
# is not running is not an error; a service that will not stop is. Idempotent (root).
set -uo pipefail

status=0

# Redis: the one whose pid file redis-up.sh (or Debian's init script) wrote, and only while
# that pid is still a redis-server
pidfile=/run/redis/redis-server.pid
if [ -f "$pidfile" ]; then
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = redis-server ]; then
    echo "services-down: stopping redis-server (pid $pid)" >&2
    kill -TERM "$pid" 2>/dev/null || true   # SIGTERM: Redis saves, then exits
    for _ in $(seq 1 120); do
      [ -d "/proc/$pid" ] || break
      sleep 0.25
    done
    if [ -d "/proc/$pid" ]; then
      echo "services-down: redis-server (pid $pid) did not stop within 30 s" >&2
      status=1
    fi
  fi
  [ -d "/proc/${pid:-0}" ] || rm -f "$pidfile"
fi

# PostgreSQL: every online cluster of Debian's packaging
if command -v pg_lsclusters >/dev/null 2>&1; then
  while read -r version cluster _port state _rest; do
    case "$state" in
      online*)
        echo "services-down: stopping PostgreSQL $version/$cluster" >&2
        pg_ctlcluster "$version" "$cluster" stop -m fast || status=1
        ;;
    esac
  done < <(pg_lsclusters -h)
fi

exit $status
