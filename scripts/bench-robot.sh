#!/usr/bin/env bash
# The robot search side by side with qphase (docs/benchmarks.md, "Robot
# search v2"): the same random cubes, the same time limit, 2 threads each,
# runs alternated (ours, qphase, ours, qphase) so the noise of the machine
# shows in the figures.
#
#   QPHASE_DIR=/path/to/qphase bash scripts/bench-robot.sh [COUNT] [TIME_MS] [SEED]
#        (defaults 2000 cubes, 10 ms, seed 20261124; CUBES=FILE takes the
#        first COUNT cubes of FILE instead, e.g. ../shared/bench/random-1k.txt)
#
# QPHASE_DIR is a directory holding a qphase binary built there from
# efrantar/qphase and its qphase.tbl (its first start writes it, about 12
# minutes on 2 cores); it is fetched and built outside this repository.
# Without QPHASE_DIR only our side runs. PROFILE (default "default") and
# OBJECTIVE (moves or time, default moves) choose what our search
# optimises and what both are timed under; PASSES (default 2) how many
# alternations; QPHASE_WARMUP (default 50) qphase's warm-up solves (-w)
# after loading its table, as our solver's first cubes also run warm; THREADS (default 2); TABLE_SIZE (large, medium or small, default
# large); BUILD (default build) the Release build to use.
#
# Every solution is checked: ours by robot_check inside the solver;
# qphase's plan is converted to our robot notation (each move joined with
# its bracketed regrips, `g [rR rL]` = `rR+rL`) and given to
# `quadsolve evaluate --robot`, which replays it as written on the cube and
# plans its turns again. A qphase line that is missing, illegal or does
# not solve its cube counts as a failure. Figures: mean robot moves (ours:
# the plan; qphase: its own count and our re-plan of its turns), mean
# cost_ms under the profile, failures, time per cube, and our phase-1
# nodes per cube and per second.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count=${1:-2000}
time_ms=${2:-10}
seed=${3:-20261124}
threads=${THREADS:-2}
profile=${PROFILE:-default}
objective=${OBJECTIVE:-moves}
passes=${PASSES:-2}
size=${TABLE_SIZE:-large}
warmup=${QPHASE_WARMUP:-50}
source scripts/bench-lib.sh
bench_init

bench_cubes "$count" "$seed"
echo "== $count cubes ($bench_from), $time_ms ms," \
     "$threads threads, profile $profile, objective $objective, tables $size"

ours() {
    local out=$1
    "$qs" solve --metric robot --time-ms "$time_ms" --threads "$threads" \
        --profile "$profile" --objective "$objective" --table-size "$size" \
        --json <"$tmp/cubes" >"$out"
}

qphase() {
    local out=$1
    # The answers come between "Ready!" prompts; its table is loaded first
    # (seconds), outside the timing. Stopped once the prompt after the
    # last answer is out.
    bench_anchor "$QPHASE_DIR" "$out" '^Ready!' "$count" \
        ./qphase -t "$threads" -m "$time_ms" -w "$warmup"
    /usr/bin/python3 - "$tmp/cubes" "$out" "$out.steps" <<'EOF'
import re, sys
cubes = open(sys.argv[1]).read().split()
text = open(sys.argv[2]).read()
segments = text.split("Ready!")[1:]  # the answer to each command follows a prompt
with open(sys.argv[3], "w") as f:
    for i, cube in enumerate(cubes):
        seg = segments[i] if i < len(segments) else ""
        ms = re.search(r"^([0-9.]+)ms$", seg, re.M)
        line = next((l for l in seg.splitlines() if l.endswith("}")), None)
        if line is None:
            f.write(f"{cube} NONE\t{ms.group(1) if ms else -1}\t-1\n")
            continue
        body, tail = line.rsplit("{", 1)
        own = int(tail.split("|")[0])
        steps = []
        for name, regrips in re.findall(r"(\([^)]*\)|\S+) \[([^\]]*)\]", body):
            regs = regrips.split()
            steps.append("+".join(regs) if name == "g" else
                         name + "".join("+" + r for r in regs))
        f.write(f"{cube} {' '.join(steps)}\t{ms.group(1) if ms else -1}\t{own}\n")
EOF
    # The re-plan: robot-frame steps checked as written, turns planned.
    cut -f1 "$out.steps" | grep -v ' NONE$' |
        "$qs" evaluate --robot --json --profile "$profile" \
            --objective "$objective" >"$out.eval" || true
}

for pass in $(seq 1 "$passes"); do
    ours "$tmp/ours-$pass.json"
    if [ -n "${QPHASE_DIR:-}" ]; then
        qphase "$tmp/qphase-$pass.txt"
    fi
done

/usr/bin/python3 - "$tmp" "$passes" "${QPHASE_DIR:+1}" <<'EOF'
import json, sys
tmp, passes, anchor = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"

def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")

for p in range(1, passes + 1):
    rows = [json.loads(l) for l in open(f"{tmp}/ours-{p}.json")]
    ok = [r for r in rows if r["ok"]]
    print(f"pass {p} quadsolve: robot moves {mean([r['robot_moves'] for r in ok]):.3f}, "
          f"cost_ms {mean([r['cost_ms'] for r in ok]):.1f}, "
          f"failures {len(rows) - len(ok)}, "
          f"time/cube {mean([r['time_ms'] for r in rows]):.2f} ms "
          f"(max {max(r['time_ms'] for r in rows):.1f})")
    # The node rate behind the figures (all threads together): quality at
    # a time limit follows it (docs/benchmarks.md).
    nodes = [r["stats"]["phase1_nodes"] for r in rows if "stats" in r]
    ms = sum(r["time_ms"] for r in rows if "stats" in r)
    if nodes and ms > 0:
        print(f"    phase-1 nodes/cube {mean(nodes) / 1e3:.1f} K, "
              f"{sum(nodes) / ms / 1e3:.2f} M/s")
    if not anchor:
        continue
    steps = [l.rstrip("\n").split("\t") for l in open(f"{tmp}/qphase-{p}.txt.steps")]
    found = [s for s in steps if not s[0].endswith(" NONE")]
    evals = [json.loads(l) for l in open(f"{tmp}/qphase-{p}.txt.eval")]
    good = [e for e in evals if e["ok"]]
    bad = [e for e in evals if not e["ok"]]
    own = [int(s[2]) for s in found]
    times = [float(s[1]) for s in steps if float(s[1]) >= 0]
    print(f"pass {p} qphase:    robot moves {mean([e['robot_moves'] for e in good]):.3f} "
          f"re-planned ({mean(own):.3f} its own count), "
          f"cost_ms {mean([e['cost_ms'] for e in good]):.1f}, "
          f"failures {len(steps) - len(found) + len(bad)} "
          f"({len(steps) - len(found)} none, {len(bad)} illegal or wrong), "
          f"time/cube {mean(times):.2f} ms (max {max(times):.1f})")
    for e in bad[:5]:
        print(f"    {e['error']['code']}: {e['error']['message']}")
EOF
