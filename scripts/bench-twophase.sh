#!/usr/bin/env bash
# The plain two-phase search side by side with rob-twophase (docs/benchmarks.md,
# "Robot search v2"): HTM and AXHT, the same random cubes, the same time
# limit, 2 threads each, runs alternated (ours, anchor, ours, anchor).
#
#   RTP_HTM_DIR=DIR RTP_AXHT_DIR=DIR bash scripts/bench-twophase.sh [COUNT] [TIME_MS] [SEED]
#        (defaults 2000 cubes, 10 ms, seed 20261124; CUBES=FILE takes the
#        first COUNT cubes of FILE instead, e.g. ../shared/bench/random-1k.txt)
#
# Each DIR holds a `twophase` binary built there from efrantar/rob-twophase
# (plain for HTM, with -DAX for AXHT) and the table its first start writes;
# they are fetched and built outside this repository. Without a DIR only
# our side of that metric runs. PASSES (default 2) sets the alternations,
# THREADS (default 2) the threads, BUILD (default build) our build.
#
# Every solution of both sides is applied to its cube by `quadsolve
# compare`; a missing or wrong one counts as a failure. Figures: mean
# length in the metric, failures, and the anchor's own time per cube.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count=${1:-2000}
time_ms=${2:-10}
seed=${3:-20261124}
threads=${THREADS:-2}
passes=${PASSES:-2}
source scripts/bench-lib.sh
bench_init

bench_cubes "$count" "$seed"
echo "== $count cubes ($bench_from), $time_ms ms," \
     "$threads threads"

# anchor DIR OUT: one "solve" command per cube; each answer is a time line
# ("12.3ms") and a solution line ending in its length ("... (19)"). The
# anchor does not exit at the end of its input, so it is stopped once the
# last answer is out.
anchor() {
    local dir=$1 out=$2
    bench_anchor "$dir" "$out" 'ms$' "$((count - 1))" \
        ./twophase -t "$threads" -m "$time_ms"
    /usr/bin/python3 - "$out" "$count" >"$out.moves" 2>"$out.ms" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
count = int(sys.argv[2])
answers = []
for i, l in enumerate(lines):
    m = re.fullmatch(r"([0-9.]+)ms", l.strip())
    if m:
        sol = lines[i + 1] if i + 1 < len(lines) else ""
        sol = re.sub(r"\(\d+\)\s*$", "", sol).strip()
        answers.append((sol, m.group(1)))
for k in range(count):
    sol, ms = answers[k] if k < len(answers) else ("", "-1")
    print(sol)
    print(ms, file=sys.stderr)
EOF
}

for metric in htm axht; do
    dir_var=RTP_$(echo "$metric" | tr a-z A-Z)_DIR
    dir=${!dir_var:-}
    labels=()
    for pass in $(seq 1 "$passes"); do
        "$qs" solve --metric "$metric" --time-ms "$time_ms" \
            --threads "$threads" <"$tmp/cubes" >"$tmp/$metric-ours-$pass"
        labels+=("ours$pass=$tmp/$metric-ours-$pass")
        if [ -n "$dir" ]; then
            anchor "$dir" "$tmp/$metric-rtp-$pass"
            labels+=("rob-twophase$pass=$tmp/$metric-rtp-$pass.moves")
        fi
    done
    "$qs" compare "$tmp/cubes" "${labels[@]}" --json >"$tmp/$metric.json" ||
        true
    /usr/bin/python3 - "$tmp" "$metric" "$passes" <<'EOF'
import json, sys
tmp, metric, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [json.loads(l) for l in open(f"{tmp}/{metric}.json")][1:]
labels = list(rows[0]["solutions"]) if rows else []
for label in labels:
    good = [r["solutions"][label] for r in rows
            if r["solutions"][label].get("ok")]
    fails = len(rows) - len(good)
    mean = sum(s["lengths"][metric] for s in good) / max(len(good), 1)
    extra = ""
    if label.startswith("rob-twophase"):
        ms = [float(x) for x in open(f"{tmp}/{metric}-rtp-{label[-1]}.ms")]
        ms = [x for x in ms if x >= 0]
        extra = f", its time per cube {sum(ms) / max(len(ms), 1):.2f} ms"
    print(f"{metric} {label}: mean {mean:.3f} over {len(good)} cubes, "
          f"{fails} failures{extra}")
EOF
done
