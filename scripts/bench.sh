#!/usr/bin/env bash
# Reproduces quadsolve's side of docs/benchmarks.md on this machine:
#   1. table generation from scratch (time, file size) per metric,
#   2. HTM and AXHT at 10 ms per cube with 2 threads over the benchmark
#      cubes (every solution verified by `quadsolve bench`), with the peak
#      memory of the process,
#   3. time to a solution of at most 20 HTM moves with one thread.
# Usage: scripts/bench.sh [CUBES] [N]   (default ../shared/bench/random-10k.txt, all lines)
# Tables are generated into a fresh temporary directory, so the run takes
# a few minutes more than the solves themselves.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cubes=$(realpath "${1:-../shared/bench/random-10k.txt}")
n=${2:-$(grep -c . "$cubes")}
bash scripts/build.sh >/dev/null
qs="$PWD/${QS_BUILD_DIR:-build}/cli/quadsolve"
tables=$(mktemp -d /tmp/quadsolve-bench.XXXXXX)
trap 'rm -rf "$tables"' EXIT
export QUADSOLVE_TABLES=$tables

peak() { # command... : runs it, prints its output, then its peak RSS in MiB
    /usr/bin/time -f "peak-rss-kib %M" "$@" 2>&1 |
        awk '/^peak-rss-kib/ { printf "peak memory: %.0f MiB\n", $2 / 1024; next } { print }'
}

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
for metric in htm axht; do
    echo
    echo "== table generation: $metric (2 threads)"
    start=$(date +%s.%N)
    "$qs" tables generate --metric "$metric" --threads 2 >/dev/null
    end=$(date +%s.%N)
    echo "generated in $(echo "$end - $start" | bc) s"
    du -b "$tables"/"$metric"-* | awk '{ s += $1 } END { printf "table files: %.1f MB\n", s / 1e6 }'
done
for metric in htm axht; do
    echo
    echo "== $metric, 10 ms per cube, 2 threads, $n cubes of $cubes"
    peak "$qs" bench "$cubes" --metric "$metric" --time-ms 10 --threads 2 --limit "$n"
done
echo
echo "== htm, any solution of at most 20 moves, 1 thread, $n cubes"
"$qs" bench "$cubes" --metric htm --time-ms 0 --max-len 20 --threads 1 --limit "$n"
