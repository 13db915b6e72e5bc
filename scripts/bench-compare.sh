#!/usr/bin/env bash
# Compares two builds of quadsolve side by side on the same cubes, in one
# sitting, alternating the runs (A, B, A, B) so that machine noise shows
# in both figures of each: the mean length at 10 ms per cube with 2
# threads in every metric (HTM, QTM, AXHT, AXQT, robot), and the time to a
# solution of at most 20 HTM moves with one thread.
#
# Usage: scripts/bench-compare.sh A_QUADSOLVE B_QUADSOLVE CUBES [N]
#   A_QUADSOLVE, B_QUADSOLVE: the two quadsolve binaries (e.g. one built
#   from the commit before a change, one from after), sharing the table
#   cache ($QUADSOLVE_TABLES, default ~/.cache/quadsolve);
#   CUBES: a file of facelet strings, e.g. from `quadsolve random 1000
#   --seed S`; N: how many of them (default all).
# Prints one line per run; the figures of docs/benchmarks.md are these.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 A_QUADSOLVE B_QUADSOLVE CUBES [N]" >&2
    exit 2
fi
a=$1
b=$2
cubes=$3
n=${4:-$(grep -c . "$cubes")}
export QUADSOLVE_TABLES="${QUADSOLVE_TABLES:-${HOME:-/tmp}/.cache/quadsolve}"

# summary LABEL ARGS...: one bench run, reduced to its figures.
summary() {
    local label=$1
    shift
    "$@" | awk -v label="$label" '
        /^solved:/ { solved = $2 " of " $4 }
        /^average length:/ { len = $3 " " $4 }
        /^time per cube/ { t = $0; sub(/^time per cube \(ms\): /, "", t) }
        /^robot execution/ { for (i = 1; i <= NF; i++) if ($i == "cost_ms") cost = $(i + 1) }
        END {
            printf "%-34s solved %s  mean %s", label, solved, len
            if (cost != "") printf "  cost_ms %s", cost
            printf "  ms: %s\n", t
        }'
}

echo "== $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "== A: $a"
echo "== B: $b"
echo "== $n cubes of $cubes"
for metric in htm qtm axht axqt robot; do
    for pass in 1 2; do
        for side in A B; do
            bin=$a
            [ "$side" = B ] && bin=$b
            summary "$metric 10 ms, 2 threads, $side$pass" \
                "$bin" bench "$cubes" --metric "$metric" --time-ms 10 \
                --threads 2 --limit "$n"
        done
    done
done
for pass in 1 2; do
    for side in A B; do
        bin=$a
        [ "$side" = B ] && bin=$b
        summary "htm <= 20 moves, 1 thread, $side$pass" \
            "$bin" bench "$cubes" --metric htm --time-ms 0 --max-len 20 \
            --threads 1 --limit "$n"
    done
done
