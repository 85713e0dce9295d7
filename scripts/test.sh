#!/usr/bin/env bash
# `make test`'s run, after setup and lint: the engines' and the search's tests (tests/games and
# tests/search: pure Python, no Docker, no services; minutes of one core) run while the machine builds the images and starts
# the services the other tests need, then the rest of the suite runs. Both reports are printed;
# the exit status is the first failure's. Overlapping them saves most of the engines' minutes on
# a fresh machine, whose set-up is mostly downloads and unpacking.
set -uo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}

games_log=$(mktemp)
trap 'rm -f "$games_log"' EXIT
# the engines' tests in two processes: the images' build is mostly downloads, unpacking and
# waiting on Docker, and they are the longest part of this overlap (about 210 s in one process,
# 40-50 s for the images on a machine that has the base packages cached); then the search's in
# one, as before: its clock test measures a decision's CPU time, which a sibling process inflated
# (175 ms where a search keeps 15, twice in four runs)
( "$BIN/python" -m pytest -n 2 tests/games; games=$?
  "$BIN/python" -m pytest tests/search; search=$?
  [ "$games" -eq 0 ] && exit "$search"; exit "$games" ) >"$games_log" 2>&1 &
games=$!

make --no-print-directory images postgres redis protoc browser
prepared=$?
echo "test: images and services ready after ${SECONDS} s"

wait "$games"
games_status=$?
echo "== tests/games and tests/search (run while the images were built and the services started; both done after ${SECONDS} s) =="
cat "$games_log"
if [ "$prepared" -ne 0 ]; then
  echo "test: setting up the images or services failed (status $prepared)" >&2
  exit "$prepared"
fi

# Two processes: most of these tests' time is waiting on containers, servers and sockets, and
# tests/conftest.py keeps together what must not run side by side.
echo "== the rest of the suite (two processes) =="
"$BIN/python" -m pytest -n 2 --ignore=tests/games --ignore=tests/search
rest=$?
if [ "$games_status" -ne 0 ]; then
  exit "$games_status"
fi
exit "$rest"
