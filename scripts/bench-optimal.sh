#!/usr/bin/env bash
# The optimal solver's benchmark (docs/benchmarks.md, issue 6): solves the
# first N cubes of a file optimally with 2 threads and the default
# tables (h48h7 in HTM, the large set in QTM), or the size SIZE names
# (e.g. SIZE=xl),
# one line per cube as it finishes, then quadsolve bench's summary (every
# solution verified) and the peak memory of the run.
# Usage: scripts/bench-optimal.sh [CUBES_FILE] [N] [METRIC]
# (default: the first 100 cubes of ../shared/bench/random-1k.txt, htm).
# Generates the table on first use (minutes). Ctrl-C stops early and
# still prints the summary of the cubes done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${QS_BUILD_DIR:-build}
file=${1:-../shared/bench/random-1k.txt}
n=${2:-100}
metric=${3:-htm}
/usr/bin/time -f "peak RSS %M KiB, %e s wall, %U s user" \
    "$build/cli/quadsolve" bench --optimal --table-size "${SIZE:-h48h7}" --threads 2 \
    --metric "$metric" --limit "$n" "$file"
