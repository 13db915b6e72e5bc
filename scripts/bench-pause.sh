#!/usr/bin/env bash
# Solves after a pause, as a robot asks for them: N random cubes (seed S)
# are fed to one `quadsolve solve --json` process one at a time, PAUSE
# seconds apart, with the tables kept warm (--keep-warm 50, the default)
# and without (--keep-warm 0), alternated over PASSES passes. Prints for
# each run the mean robot moves (or length), phase-1 nodes and time per
# cube, and the longest time. With PAUSE 0 the cubes come back to back,
# which is what the other benchmarks measure (docs/tables.md, "Keeping
# the pages warm between solves").
#
# Usage: scripts/bench-pause.sh N S PAUSE [PASSES]
#   METRIC (default robot), TIME_MS (default 10), THREADS (default 2);
#   CUBES=FILE takes the first N cubes of FILE instead of seed S's.
set -euo pipefail
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

if [ $# -lt 3 ]; then
    echo "usage: $0 N SEED PAUSE [PASSES]" >&2
    exit 2
fi
n=$1 seed=$2 pause=$3 passes=${4:-2}
metric=${METRIC:-robot} time_ms=${TIME_MS:-10} threads=${THREADS:-2}
bench_init
bench_cubes "$n" "$seed"
echo "== $n cubes ($bench_from), $metric, $time_ms ms, $threads threads, a pause of $pause s before each"

# run KEEP: one pass with --keep-warm KEEP; prints its means.
run() {
    while read -r cube; do
        echo "$cube"
        sleep "$pause"
    done <"$tmp/cubes" |
        "$qs" solve --metric "$metric" --time-ms "$time_ms" \
            --threads "$threads" --json --keep-warm "$1" >"$tmp/out"
    python3 - "$tmp/out" "$1" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
bad = [r for r in rows if not r.get("ok")]
rows = [r for r in rows if r.get("ok")]
n = len(rows)
size = [r["robot_moves"] if "robot_moves" in r else r["length"][r["metric"]]
        for r in rows]
nodes = [r["stats"]["phase1_nodes"] for r in rows]
ms = [r["time_ms"] for r in rows]
print("--keep-warm %-3s moves %.3f  nodes %.0f  time %.2f ms (longest %.2f)%s"
      % (sys.argv[2], sum(size) / n, sum(nodes) / n, sum(ms) / n, max(ms),
         "  %d failed" % len(bad) if bad else ""))
PY
}

for pass in $(seq "$passes"); do
    echo "pass $pass:"
    if [ $((pass % 2)) = 1 ]; then run 0; run 50; else run 50; run 0; fi
done
