#!/usr/bin/env bash
# Benchmarks quadsolved as its clients see it (docs/benchmarks.md):
#  1. overhead: a daemon with 1 search thread against in-process solves of
#     the same requests with 1 thread (quadsolve bench-server --compare),
#     for HTM max_len=20 (the same search work both ways) and robot
#     time_ms=10;
#  2. throughput of the default daemon (1 worker, all CPUs per search)
#     with 1, 8 and 64 clients, robot time_ms=10 and HTM max_len=20.
# Usage: scripts/bench-daemon.sh [CUBES_FILE] [N]  (default: the first 300
# cubes of ../shared/bench/random-1k.txt). Tables must exist.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${QS_BUILD_DIR:-build}
file=${1:-../shared/bench/random-1k.txt}
n=${2:-300}
qs=$build/cli/quadsolve
tmp=$(mktemp -d)
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

# start_daemon ARGS...: starts quadsolved, sets $ep, waits for its tables.
start_daemon() {
    "$build/daemon/quadsolved" --bind tcp://127.0.0.1:0 --metrics robot,htm \
        --log-level warn "$@" > "$tmp/out" &
    pid=$!
    for _ in $(seq 1 500); do
        [ -s "$tmp/out" ] && break
        sleep 0.01
    done
    ep=$(head -n 1 "$tmp/out" | sed 's/^listening //')
    # A solve of each metric returns once that metric's tables are loaded.
    "$qs" --server "$ep" --metric robot --scramble "R" > /dev/null
    "$qs" --server "$ep" --metric htm --scramble "R" > /dev/null
}

stop_daemon() {
    kill "$pid"
    wait "$pid" || true
    pid=
}

echo "== overhead: daemon with 1 search thread vs in-process, 1 thread, $n cubes =="
start_daemon --threads 1
echo "-- htm, max_len 20"
"$qs" bench-server "$file" --server "$ep" --limit "$n" --metric htm \
    --max-len 20 --threads 1 --compare
echo "-- robot, time_ms 10"
"$qs" bench-server "$file" --server "$ep" --limit "$n" --metric robot \
    --time-ms 10 --threads 1 --compare
echo "-- floor: the solved cube (no search), htm"
for _ in $(seq 1 "$n"); do
    echo UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB
done > "$tmp/solved.txt"
"$qs" bench-server "$tmp/solved.txt" --server "$ep" --metric htm \
    --max-len 20 --threads 1 --compare
stop_daemon

echo
echo "== throughput: default daemon (1 worker x $(nproc) threads) =="
start_daemon
for clients in 1 8 64; do
    echo "-- robot, time_ms 10, $clients clients"
    "$qs" bench-server "$file" --server "$ep" --limit "$n" --metric robot \
        --time-ms 10 --clients "$clients"
    echo "-- htm, max_len 20, $clients clients"
    "$qs" bench-server "$file" --server "$ep" --limit "$n" --metric htm \
        --max-len 20 --clients "$clients"
done
stop_daemon
