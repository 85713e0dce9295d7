#!/usr/bin/env bash
# Makes sure a Redis answers on 127.0.0.1:6379: the Celery broker of `arena worker` and
# `--executor celery`, and of the worker tests. Installs Debian's redis-server when missing and
# starts one in the background, as user redis, when none answers (there is no systemd here).
# Persistence is on (appendonly), so a restart keeps the queued matches. Idempotent (root).
# scripts/services-down.sh stops it.
set -euo pipefail

port=6379
rundir=/run/redis
pidfile=$rundir/redis-server.pid   # Debian's own path: its init script and this script agree
log=/var/log/redis/redis-server.log

answers() { [ "$(timeout 5 redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; }

if command -v redis-cli >/dev/null 2>&1 && answers; then
  exit 0
fi

if ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-up: installing Debian's redis-server" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
  # the package may have started its own (through its init script): that one will do
  if answers; then exit 0; fi
fi

# /run is a tmpfs on most machines: Debian's init script makes this directory, and without it
# nobody has
install -d -o redis -g redis -m 2775 "$rundir"

# A killed machine leaves the pid file behind, and its pid may since be another process's:
# keep the file only while it names a live redis-server.
if [ -f "$pidfile" ]; then
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != redis-server ]; then
    rm -f "$pidfile"
  fi
fi

if [ ! -f "$pidfile" ]; then
  echo "redis-up: starting redis-server on 127.0.0.1:$port (log: $log)" >&2
  # Debian's configuration (data in /var/lib/redis), on the loopback only, with the append-only
  # file as well as the RDB snapshots: a broker that restarts keeps its queue
  runuser -u redis -- redis-server /etc/redis/redis.conf \
    --daemonize yes --supervised no --bind 127.0.0.1 --port "$port" \
    --pidfile "$pidfile" --logfile "$log" --dir /var/lib/redis --appendonly yes
fi

# a Redis that is loading its data answers LOADING until it is done
for _ in $(seq 1 120); do
  if answers; then
    exit 0
  fi
  sleep 0.25
done
echo "redis-up: no Redis answered on 127.0.0.1:$port within 30 s; last lines of $log:" >&2
tail -20 "$log" >&2 || true
exit 1
