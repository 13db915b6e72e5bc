#!/usr/bin/env bash
# Controller benchmark (docs/benchmarks.md, "Controller: quadctl"): solves
# N cubes with quadsolved + quadsim --speed 0 + quadctl and reports the
# host overhead per protocol step (controller and protocol, the simulated
# robot taking no time) and the gap between the time the robot profile
# predicts and the time the simulated robot reports. Then the same with a
# profile that `quadctl calibrate` measured on the simulator.
#
#   bash scripts/bench-quadctl.sh [N] [CUBES]     (defaults 1000, random-1k)
#
# Needs a Release build in build/ (BUILD=dir to change) and the robot
# tables (QUADSOLVE_TABLES). Every process it starts is stopped at exit.
set -euo pipefail

n=${1:-1000}
cubes=${2:-../shared/bench/random-1k.txt}
build=${BUILD:-build}
profile=${PROFILE:-default}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# Starts a program in the background, its first stdout line into $line.
start() {
    local out=$tmp/out.$RANDOM
    "$@" > "$out" 2>/dev/null &
    pids+=($!)
    last_pid=$!
    for _ in $(seq 1 500); do
        if [ -s "$out" ] && line=$(head -n 1 "$out") && [ -n "$line" ]; then
            return 0
        fi
        sleep 0.01
    done
    echo "bench-quadctl: $1 did not start" >&2
    exit 1
}

start "$build/daemon/quadsolved" --bind tcp://127.0.0.1:0 --metrics robot
endpoint=${line#listening }
echo "quadsolved at $endpoint" >&2

# One pass: every cube on a fresh simulator, one JSON line per solve.
run_pass() {
    local prof=$1 out=$2 i=0
    : > "$out"
    while IFS= read -r cube && [ "$i" -lt "$n" ]; do
        [ ${#cube} -eq 54 ] || continue
        i=$((i + 1))
        start "$build/sim/quadsim" --tcp 0 --speed 0 --profile "$profile" \
            --cube "$cube" -q
        local sim=$last_pid port=${line##*:}
        "$build/ctl/quadctl" "$cube" --server "$endpoint" \
            --port "tcp:127.0.0.1:$port" --profile "$prof" --json -q \
            >> "$out" || echo "bench-quadctl: cube $i failed" >&2
        kill "$sim"
        wait "$sim" 2>/dev/null || true
    done < "$cubes"
}

summarise() {
    python3 - "$1" "$2" <<'EOF'
import json, statistics, sys
label, path = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path) if l.strip()]
ok = [r for r in rows if r["ok"]]
t = [r["total"] for r in ok]
prims = sum(x["prims"] for x in t)
wall = sum(x["wall_ms"] for x in t)
per = sorted(x["wall_ms"] / x["prims"] * 1000 for x in t if x["prims"])
run = sorted(x["run_ms"] for x in t)
pred = sum(x["predicted_ms"] for x in t)
expect = sum(x["expected_ms"] for x in t)
meas = sum(x["measured_ms"] for x in t)
gaps = sorted((x["measured_ms"] - x["predicted_ms"]) / x["predicted_ms"] * 100
              for x in t if x["predicted_ms"])
q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
print(f"## {label}: {len(ok)} of {len(rows)} solved, {prims} protocol steps")
print(f"host overhead per step: mean {wall / prims * 1000:.1f} us, "
      f"per solve p50 {q(per, .5):.1f} us, p95 {q(per, .95):.1f} us, "
      f"max {per[-1]:.1f} us")
print(f"quadctl run (request, connect, home, execute, confirm): "
      f"mean {statistics.mean(run):.1f} ms, p50 {q(run, .5):.1f} ms, "
      f"p95 {q(run, .95):.1f} ms")
print(f"predicted {pred / len(t):.1f} ms, simulated {meas / len(t):.1f} ms "
      f"per solve: gap {100 * (meas - pred) / pred:+.2f}% "
      f"(per solve: mean {statistics.mean(gaps):+.2f}%, min {gaps[0]:+.2f}%, "
      f"max {gaps[-1]:+.2f}%)")
print(f"expected (timed schedule of the primitives) {expect / len(t):.1f} ms "
      f"per solve: {100 * (meas - expect) / expect:+.2f}% from simulated")
EOF
}

run_pass "$profile" "$tmp/plain.jsonl"
summarise "profile $profile" "$tmp/plain.jsonl"

# Calibrate on a simulator of the same robot, then solve with the result.
start "$build/sim/quadsim" --tcp 0 --speed 0 --profile "$profile" -q
sim=$last_pid
"$build/ctl/quadctl" calibrate --port "tcp:127.0.0.1:${line##*:}" \
    --profile "$profile" --rounds 3 --out "$tmp/calibrated.json"
kill "$sim"
cat "$tmp/calibrated.json" >&2
run_pass "$tmp/calibrated.json" "$tmp/calibrated.jsonl"
summarise "calibrated profile" "$tmp/calibrated.jsonl"
