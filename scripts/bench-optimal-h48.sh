#!/usr/bin/env bash
# The optimal solver side by side with nissy-core's H48 solver
# (docs/benchmarks.md, issue 16): the same random cubes, 2 threads each,
# runs alternated (ours, H48, ours, H48) so the noise of the machine shows.
#
#   NISSY_DIR=DIR bash scripts/bench-optimal-h48.sh [COUNT] [SEED]
#        (defaults 8 cubes, seed 20261125)
#
# DIR is a checkout of sebastianotronto/nissy-core built there with
# NISSY_BUILD_THREADS=2 (./build.sh shell makes nissy.o), its tool
# tools/301_solve_file compiled against nissy.o as DIR/solve_file, and the
# table of NISSY_SOLVER (default h48h3) in DIR/tables (its shell's
# `gendata -solver h48h3`, about 13 minutes here); all of it fetched and
# built outside this repository. Without NISSY_DIR only our side runs.
# TABLE_SIZE (xl, large, small, compact, h48 or large+h48; default large,
# as when the earlier sections of docs/benchmarks.md ran it; several,
# space-separated, run one after the other in each pass) picks our
# optimal tables, PASSES (default 2) the alternations, THREADS (default 2)
# our threads, BUILD (default build) our build.
#
# Time per cube is each solver's own, with its table already in memory:
# ours is the solve's time_ms, H48's the solve_file tool's "Total time"
# (it loads the table before it starts the clock). H48 is given each cube
# as a scramble: the inverse of our 10 ms two-phase solution, which makes
# the same cube. Every solution of both sides is applied to its cube by
# `quadsolve compare`; a missing or wrong one counts as a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count=${1:-8}
seed=${2:-20261125}
threads=${THREADS:-2}
passes=${PASSES:-2}
sizes=${TABLE_SIZE:-large}
solver=${NISSY_SOLVER:-h48h3}
nissy=${NISSY_DIR:-}
source scripts/bench-lib.sh
bench_init

bench_cubes "$count" "$seed"
echo "== $count cubes (quadsolve random $count --seed $seed), $threads" \
     "threads, our tables $sizes${nissy:+, nissy-core $solver}"

# scrambles: the inverse of a two-phase solution of each cube
"$qs" solve --metric htm --time-ms 10 --threads "$threads" <"$tmp/cubes" |
    /usr/bin/python3 -c '
import sys
inv = {"": "'"'"'", "'"'"'": "", "2": "2"}
for line in sys.stdin:
    print(" ".join(m[0] + inv[m[1:]] for m in reversed(line.split())))
' >"$tmp/scrambles"

ours() {
    "$qs" solve --optimal --threads "$threads" --table-size "$2" --json \
        <"$tmp/cubes" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
out, ms = open(sys.argv[1], "w"), open(sys.argv[2], "w")
for line in sys.stdin:
    r = json.loads(line)
    print(r.get("moves", "") if r.get("ok") else "", file=out)
    print(r.get("time_ms", -1), file=ms)
' "$1" "$1.ms"
}

# h48 OUT: one solve_file run per cube, so that each time is one cube's.
h48() {
    : >"$1"
    : >"$1.ms"
    while IFS= read -r scramble; do
        printf '%s\n' "$scramble" >"$tmp/one"
        (cd "$nissy" && ./solve_file "$solver" "$tmp/one") 2>/dev/null |
            /usr/bin/python3 -c '
import re, sys
text = sys.stdin.read()
sol = re.search(r"Solutions:\n(.*)\n", text)
ms = re.search(r"Total time: ([0-9.]+)s", text)
print(sol.group(1).strip() if sol else "", file=open(sys.argv[1], "a"))
print(float(ms.group(1)) * 1000 if ms else -1, file=open(sys.argv[1] + ".ms", "a"))
' "$1"
    done <"$tmp/scrambles"
}

labels=()
for pass in $(seq 1 "$passes"); do
    for size in $sizes; do
        ours "$tmp/$size-$pass" "$size"
        labels+=("$size-$pass=$tmp/$size-$pass")
    done
    if [ -n "$nissy" ]; then
        h48 "$tmp/nissy-$pass"
        labels+=("nissy-$pass=$tmp/nissy-$pass")
    fi
done
"$qs" compare "$tmp/cubes" "${labels[@]}" --json >"$tmp/all.json" || true
/usr/bin/python3 - "$tmp" "${labels[@]}" <<'EOF'
import json, statistics, sys
tmp, labels = sys.argv[1], [l.split("=", 1) for l in sys.argv[2:]]
rows = [json.loads(l) for l in open(f"{tmp}/all.json")][1:]
for label, path in labels:
    ms = [float(x) for x in open(path + ".ms")]
    good = [r["solutions"][label] for r in rows
            if r["solutions"][label].get("ok")]
    fails = len(rows) - len(good)
    lens = [s["lengths"]["htm"] for s in good]
    t = [x / 1000 for x in ms if x >= 0]
    print(f"{label}: {len(good)} solved, {fails} failures, mean length "
          f"{sum(lens) / max(len(lens), 1):.2f}; time per cube mean "
          f"{statistics.mean(t) if t else 0:.2f} s, median "
          f"{statistics.median(t) if t else 0:.2f} s, max "
          f"{max(t) if t else 0:.2f} s")
    print("  per cube (s):", " ".join(f"{x / 1000:.2f}" for x in ms))
EOF
