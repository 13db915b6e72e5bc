#!/usr/bin/env bash
# Controller benchmark (docs/benchmarks.md, "Controller: quadctl" and
# "Predicted equals executed"): solves N cubes per profile with quadsolved
# + quadsim --speed 0 + quadctl and reports the host overhead per protocol
# step (controller and protocol, the simulated robot taking no time), the
# gap between the time the plan predicts and the time the simulated robot
# reports (in total and per solve), the same with quadsim --jitter, and
# what `quadctl calibrate` recovers of the true durations under jitter.
#
#   bash scripts/bench-quadctl.sh [N] [CUBES]     (defaults 1000, random-1k)
#
# PROFILES (default "default lego servo"), JITTER (default 0.1; 0 skips the
# jitter pass), ROUNDS (calibration rounds, default 20; 0 skips it).
# Needs a Release build in build/ (BUILD=dir to change) and the robot
# tables (QUADSOLVE_TABLES). Every process it starts is stopped at exit.
set -euo pipefail

n=${1:-1000}
cubes=${2:-../shared/bench/random-1k.txt}
build=${BUILD:-build}
profiles=${PROFILES:-default lego servo}
jitter=${JITTER:-0.1}
rounds=${ROUNDS:-20}
source "$(dirname "${BASH_SOURCE[0]}")/procs-lib.sh"
procs_init bench-quadctl

start "$build/daemon/quadsolved" --bind tcp://127.0.0.1:0 --metrics robot
endpoint=${line#listening }
echo "quadsolved at $endpoint" >&2

# One pass: every cube on a fresh simulator of profile $1 (extra quadsim
# options after the output path), one JSON line per solve.
run_pass() {
    local prof=$1 out=$2 i=0
    shift 2
    : > "$out"
    while IFS= read -r cube && [ "$i" -lt "$n" ]; do
        [ ${#cube} -eq 54 ] || continue
        i=$((i + 1))
        start "$build/sim/quadsim" --tcp 0 --speed 0 --profile "$prof" \
            --cube "$cube" --seed "$i" -q "$@"
        local sim=$last_pid port=${line##*:}
        "$build/ctl/quadctl" "$cube" --server "$endpoint" \
            --port "tcp:127.0.0.1:$port" --profile "$prof" --json -q \
            >> "$out" ||
            echo "bench-quadctl: cube $i failed: $(tail -n 1 "$out" |
                cut -c 1-400)" >&2
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
within = sum(1 for g in gaps if abs(g) <= 2.0)
q = lambda v, p: v[min(len(v) - 1, int(p * len(v)))]
print(f"## {label}: {len(ok)} of {len(rows)} solved, {prims} protocol steps")
print(f"host overhead per step: mean {wall / prims * 1000:.1f} us, "
      f"per solve p50 {q(per, .5):.1f} us, p95 {q(per, .95):.1f} us, "
      f"max {per[-1]:.1f} us")
print(f"quadctl run (request, connect, home, execute, confirm): "
      f"mean {statistics.mean(run):.1f} ms, p50 {q(run, .5):.1f} ms, "
      f"p95 {q(run, .95):.1f} ms")
print(f"predicted {pred / len(t):.1f} ms, simulated {meas / len(t):.1f} ms "
      f"per solve: gap {100 * (meas - pred) / pred:+.3f}% "
      f"(per solve: mean {statistics.mean(gaps):+.3f}%, min {gaps[0]:+.2f}%, "
      f"max {gaps[-1]:+.2f}%, within 2%: {within} of {len(gaps)})")
print(f"expected (timed schedule of the steps) {expect / len(t):.1f} ms "
      f"per solve: {100 * (meas - expect) / expect:+.3f}% from simulated")
EOF
}

# Calibration under jitter: what quadctl calibrate measures against the
# profile quadsim really times (the settle is the base's, so a turn and a
# tilt are compared with the settle moved over).
check_calibration() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
prof, base, path = sys.argv[1], sys.argv[2], sys.argv[3]
builtin = {
 "default": dict(quarter_ms=55, half_ms=90, pair_quarter_ms=60, pair_half_ms=95,
                 tilt_ms=110, regrip_ms=85, open_ms=15, close_ms=15, settle_ms=5),
 "lego": dict(quarter_ms=36, half_ms=99, pair_quarter_ms=36, pair_half_ms=99,
              tilt_ms=72, regrip_ms=76, open_ms=20, close_ms=20, settle_ms=0),
 "servo": dict(quarter_ms=250, half_ms=450, pair_quarter_ms=270, pair_half_ms=470,
               tilt_ms=500, regrip_ms=600, open_ms=200, close_ms=200, settle_ms=50),
}
real, b, cal = builtin[prof], builtin[base], json.load(open(path))
moved = real["settle_ms"] - b["settle_ms"]
worst = 0
out = []
for k in ("quarter_ms", "half_ms", "pair_quarter_ms", "pair_half_ms", "tilt_ms",
          "regrip_ms", "open_ms", "close_ms"):
    want = real[k] + (moved if k in ("quarter_ms", "half_ms", "pair_quarter_ms",
                                      "pair_half_ms", "tilt_ms") else 0)
    err = (cal[k] - want) / want * 100
    worst = max(worst, abs(err))
    out.append(f"{k} {cal[k]:.1f}/{want:.1f} ({err:+.2f}%)")
print(f"calibrated on {prof} with jitter: worst {worst:.2f}%: " + ", ".join(out))
EOF
}

for profile in $profiles; do
    run_pass "$profile" "$tmp/plain.jsonl"
    summarise "profile $profile, --speed 0" "$tmp/plain.jsonl"
    if [ "$jitter" != 0 ]; then
        run_pass "$profile" "$tmp/jitter.jsonl" --jitter "$jitter"
        summarise "profile $profile, --speed 0 --jitter $jitter" \
            "$tmp/jitter.jsonl"
    fi
    if [ "$rounds" != 0 ] && [ "$jitter" != 0 ]; then
        start "$build/sim/quadsim" --tcp 0 --speed 0 --profile "$profile" \
            --jitter "$jitter" --seed 7 -q
        sim=$last_pid
        "$build/ctl/quadctl" calibrate --port "tcp:127.0.0.1:${line##*:}" \
            --profile default --rounds "$rounds" --out "$tmp/cal.json" \
            2>/dev/null
        kill "$sim"
        wait "$sim" 2>/dev/null || true
        check_calibration "$profile" default "$tmp/cal.json"
    fi
done
