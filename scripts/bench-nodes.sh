#!/usr/bin/env bash
# Times two builds of quadsolve on the same search. A node limit on one
# thread makes a two-phase search the same on any machine, so a change
# that should only make nodes cheaper (a table laid out anew, a read
# skipped) shows here as the same answers in less time, free of the
# noise that real-time quality figures carry. The runs alternate in pairs,
# the order flipped at every pair (A B, B A, ...), because this machine's
# speed drifts within minutes; each run's user CPU seconds are printed,
# then both medians and the median of the per-pair ratios B/A with its
# quartiles. Table loading is in every run (about 0.4 s with the robot
# set in the page cache), so give each run a few seconds of search.
#
# Usage: scripts/bench-nodes.sh A_QUADSOLVE B_QUADSOLVE CUBES [NODES] [PAIRS]
#   A_QUADSOLVE, B_QUADSOLVE: the two binaries (e.g. the commit before a
#   change and after), sharing the table cache; CUBES: a file of facelet
#   strings (e.g. `quadsolve random 1000 --seed 4103 | sed -n 101,120p`);
#   NODES: phase-1 nodes per cube (default 1000000); PAIRS (default 16).
#   METRIC (default robot) is the search's metric. A_TABLES and B_TABLES
#   give each binary a table directory of its own, for builds whose table
#   kinds differ (both default to QUADSOLVE_TABLES or ~/.cache/quadsolve).
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 A_QUADSOLVE B_QUADSOLVE CUBES [NODES] [PAIRS]" >&2
    exit 2
fi
a=$1
b=$2
cubes=$3
nodes=${4:-1000000}
pairs=${5:-16}
metric=${METRIC:-robot}
export QUADSOLVE_TABLES="${QUADSOLVE_TABLES:-${HOME:-/tmp}/.cache/quadsolve}"
a_tables=${A_TABLES:-$QUADSOLVE_TABLES}
b_tables=${B_TABLES:-$QUADSOLVE_TABLES}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run SIDE BIN: one run, with SIDE's table directory; its user seconds
# are appended to $tmp/SIDE.times and its answers kept as $tmp/SIDE.out.
run() {
    local tables=$a_tables
    [ "$1" = B ] && tables=$b_tables
    QUADSOLVE_TABLES=$tables /usr/bin/time -f %U -o "$tmp/$1.time" \
        "$2" solve --metric "$metric" \
        --time-ms 0 --max-nodes "$nodes" --threads 1 <"$cubes" \
        >"$tmp/$1.out" 2>/dev/null
    cat "$tmp/$1.time" >>"$tmp/$1.times"
}

echo "== $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== A: $a"
echo "== B: $b"
echo "== $(grep -c . "$cubes") cubes of $cubes, $metric, $nodes nodes each, 1 thread, $pairs pairs"
for pair in $(seq "$pairs"); do
    if [ $((pair % 2)) = 1 ]; then run A "$a"; run B "$b"; else run B "$b"; run A "$a"; fi
    echo "pair $pair: A $(tail -1 "$tmp/A.times") s, B $(tail -1 "$tmp/B.times") s"
done
if cmp -s "$tmp/A.out" "$tmp/B.out"; then
    echo "answers: the same"
else
    echo "answers: $(paste "$tmp/A.out" "$tmp/B.out" | awk -F'\t' '$1 != $2' | wc -l) of $(grep -c . "$cubes") cubes differ (not quite the same search)"
fi
paste "$tmp/A.times" "$tmp/B.times" | python3 -c '
import statistics, sys
p = [tuple(map(float, line.split())) for line in sys.stdin]
r = sorted(b / a for a, b in p)
q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
print("median A %.3f s, B %.3f s; ratio B/A: median %.3f (quartiles %.3f-%.3f)"
      % (statistics.median(a for a, _ in p), statistics.median(b for _, b in p),
         statistics.median(r), q[0], q[2]))'
