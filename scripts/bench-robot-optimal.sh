#!/usr/bin/env bash
# Robot solver vs robot optimum (docs/benchmarks.md, "Robot-metric
# optima"): on a deterministic sample of short scrambles, the robot moves
# and the execution time (cost_ms under the robot profile) of
# `quadsolve solve --metric robot --time-ms 10` against the fewest robot
# moves (`solve --optimal --metric robot`), and how long the optimum took.
#
#   bash scripts/bench-robot-optimal.sh [COUNT] [MOVES] [SEED]
#        (defaults 50 scrambles of 10 face turns, seed 1: about a minute
#        on 2 idle cores; 11 face turns take tens of minutes, as some of
#        their optima reach 16 or 17 robot moves)
#
# A scramble is MOVES random face turns (HTM; never the same face twice
# in a row, and of two opposite faces in a row the U, R or F one first),
# drawn from a fixed generator, so a seed always gives the same sample.
# Needs a Release build in build/ (BUILD=dir to change), the robot tables
# (QUADSOLVE_TABLES or the cache) and /usr/bin/python3 for the summary.
# THREADS (default 2) threads for both solvers; PROFILE (default
# "default") for cost_ms; TIMES (default "10 100 1000") the robot
# solver's time limits in ms, each compared with the optimum (0: no limit,
# the two-phase search run to its end; its time per scramble is printed
# with the others). Each run covers the whole sample, so the tables are
# loaded once per run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count=${1:-50}
moves=${2:-10}
seed=${3:-1}
threads=${THREADS:-2}
profile=${PROFILE:-default}
times=${TIMES:-10 100 1000}
source scripts/bench-lib.sh
bench_init

# awk numbers are doubles, so the generator is Park and Miller's minimal
# standard one, whose products stay below 2^46 and so are exact.
awk -v count="$count" -v moves="$moves" -v seed="$seed" 'BEGIN {
    split("U R F D L B", face, " ")
    turn[1] = ""; turn[2] = "2"; turn[3] = "\047"
    x = seed % 2147483646 + 1
    for (i = 0; i < count; i++) {
        line = ""; last = -1
        for (k = 0; k < moves; k++) {
            do {
                x = x * 16807 % 2147483647
                f = x % 6
            } while (f == last || (last >= 0 && f % 3 == last % 3 && f < last))
            x = x * 16807 % 2147483647
            q = x % 3
            line = line (k ? " " : "") face[f + 1] turn[q + 1]
            last = f
        }
        print line
    }
}' >"$tmp/scrambles"

args=()
while IFS= read -r s; do args+=(--scramble "$s"); done <"$tmp/scrambles"

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "== sample: $count scrambles of $moves face turns, seed $seed; $threads threads; profile $profile"
for t in $times; do
    "$qs" solve --metric robot --time-ms "$t" --threads "$threads" \
        --profile "$profile" --json "${args[@]}" >"$tmp/fast-$t.json"
done
start=$(date +%s.%N)
"$qs" solve --optimal --metric robot --threads "$threads" \
    --profile "$profile" --json "${args[@]}" >"$tmp/optimal.json" \
    2>"$tmp/progress"
end=$(date +%s.%N)
echo "optimal run: $(echo "$end - $start" | bc) s in all (tables included)"

/usr/bin/python3 - "$tmp" $times <<'EOF'
import json, sys

tmp, limits = sys.argv[1], sys.argv[2:]
scrambles = open(f"{tmp}/scrambles").read().splitlines()

def load(name):
    rows = [json.loads(l) for l in open(f"{tmp}/{name}.json")]
    assert len(rows) == len(scrambles)
    bad = [r["input"] for r in rows if not r["ok"]]
    if bad:
        sys.exit("not solved: " + ", ".join(bad))
    return rows

def mean(xs):
    return sum(xs) / len(xs)

best = load("optimal")
fast = {t: load(f"fast-{t}") for t in limits}
n = len(best)
print(f"{'':22}{'robot moves':>12}{'cost_ms':>10}{'tilts':>7}{'regrips':>8}")
rows = [(f"robot_solve {t} ms", fast[t]) for t in limits]
for name, rs in rows + [("optimum", best)]:
    print(f"{name:22}{mean([r['robot_moves'] for r in rs]):12.2f}"
          f"{mean([r['cost_ms'] for r in rs]):10.1f}"
          f"{mean([r['tilts'] for r in rs]):7.2f}"
          f"{mean([r['full_regrips'] for r in rs]):8.2f}")
print(f"optimal lengths: {min(r['robot_moves'] for r in best)}.."
      f"{max(r['robot_moves'] for r in best)}")
for t in limits:
    gap = [f["robot_moves"] - b["robot_moves"] for f, b in zip(fast[t], best)]
    gap_ms = [f["cost_ms"] - b["cost_ms"] for f, b in zip(fast[t], best)]
    if min(gap) < 0:
        sys.exit(f"an optimum longer than a {t} ms solution: a bug")
    print(f"{t} ms: gap in robot moves mean {mean(gap):.2f}, max {max(gap)}, "
          f"optimal {gap.count(0)}/{n}; distribution " + ", ".join(
              f"{g}: {gap.count(g)}" for g in range(max(gap) + 1)
              if gap.count(g)))
    print(f"{t} ms: gap in cost_ms mean {mean(gap_ms):.1f}, "
          f"max {max(gap_ms):.1f}, min {min(gap_ms):.1f}")
    took = [f["time_ms"] for f in fast[t]]
    print(f"{t} ms: robot_solve time per scramble mean {mean(took):.1f} ms, "
          f"max {max(took):.1f} ms")
# The first length searched for each cube is its root's lower bound.
roots, first = [], True
for line in open(f"{tmp}/progress"):
    if line.startswith("optimal: length "):
        if first:
            roots.append(int(line.split()[2].rstrip(":")))
        first = ": found" in line
if len(roots) == n:
    under = [b["robot_moves"] - r for b, r in zip(best, roots)]
    print(f"root bound below the optimum: mean {mean(under):.2f}, "
          f"max {max(under)}")
times = [r["time_ms"] / 1000 for r in best]
print(f"optimal solve time: mean {mean(times):.3f} s, max {max(times):.3f} s")
EOF
