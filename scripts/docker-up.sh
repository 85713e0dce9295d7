#!/usr/bin/env bash
# Makes sure a Docker engine answers: installs Debian's docker.io when dockerd is missing (and
# gcc with libc6-dev for arena-init, the first process of every bot container, when missing),
# starts dockerd in the background when no engine answers, and waits for it.
# Idempotent; safe on a fresh machine (run as root). No registry is needed or used.
set -euo pipefail

log=/var/log/arena-dockerd.log

answers() { timeout 15 docker info >/dev/null 2>&1; }

# Every bot container starts under arena-init (referee/init.c), which the referee builds once,
# statically, with the host's C compiler: a C compiler and the C library's static files.
if ! command -v cc >/dev/null 2>&1 || ! ls /usr/lib/*-linux-gnu/libc.a >/dev/null 2>&1; then
  echo "docker-up: installing Debian's gcc and libc6-dev (arena-init is built with them)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null
fi

if answers; then
  exit 0
fi

# A dockerd that runs but does not answer is wedged: Debian's 20.10 engine can deadlock in
# libnetwork when many containers come and go (moby/moby#42545). Only a restart helps.
if pgrep -x dockerd >/dev/null 2>&1; then
  echo "docker-up: dockerd runs but does not answer; restarting it" >&2
  pkill -KILL -x dockerd || true
  pkill -KILL -x containerd || true
  for _ in $(seq 1 20); do
    pgrep -x dockerd >/dev/null 2>&1 || break
    sleep 0.5
  done
fi

if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-up: installing Debian's docker.io" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends docker.io >/dev/null
fi

# A machine whose processes were killed leaves a pid file behind, and dockerd then refuses
# to start ("pid file found"): remove it when the process in it is gone.
for pidfile in /var/run/docker.pid /run/containerd/containerd.pid; do
  if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    rm -f "$pidfile"
  fi
done

if ! pgrep -x dockerd >/dev/null 2>&1; then
  echo "docker-up: starting dockerd (log: $log)" >&2
  nohup dockerd >"$log" 2>&1 </dev/null &
fi

for _ in $(seq 1 120); do
  if answers; then
    exit 0
  fi
  sleep 0.5
done
echo "docker-up: the Docker engine did not answer within 60 s; last lines of $log:" >&2
tail -20 "$log" >&2 || true
exit 1
