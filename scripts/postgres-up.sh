#!/usr/bin/env bash
# Makes sure a local PostgreSQL answers on 127.0.0.1:5432 with a database "arena_test" owned by
# role "arena" (password "arena"), for the store's tests against a real server.
# Installs Debian's postgresql when missing; starts the cluster when it is down. Idempotent (root).
set -euo pipefail

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "postgres-up: installing Debian's postgresql" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends postgresql >/dev/null
fi

version=$(ls /etc/postgresql | sort -V | tail -1)
if [ -z "$version" ]; then
  pg_createcluster "$(ls /usr/lib/postgresql | sort -V | tail -1)" main >/dev/null
  version=$(ls /etc/postgresql | sort -V | tail -1)
fi
# a killed machine leaves a stale pid file behind
pidfile="/var/lib/postgresql/$version/main/postmaster.pid"
if [ -f "$pidfile" ] && ! kill -0 "$(head -1 "$pidfile")" 2>/dev/null; then
  rm -f "$pidfile"
fi
if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
  pg_ctlcluster "$version" main start
fi
for _ in $(seq 1 60); do
  if su postgres -c "psql -qAtc 'select 1'" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
su postgres -c "psql -qAtc \"select 1 from pg_roles where rolname='arena'\"" | grep -q 1 \
  || su postgres -c "psql -qc \"create role arena login password 'arena'\""
su postgres -c "psql -qAtc \"select 1 from pg_database where datname='arena_test'\"" | grep -q 1 \
  || su postgres -c "createdb -O arena arena_test"
