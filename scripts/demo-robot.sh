#!/usr/bin/env bash
# The whole robot stack on its defaults: the solver daemon quadsolved, the
# firmware simulator quadsim (at 20 times real speed) and the controller
# quadctl, solving random cubes in a simulated quad-arm robot: a clean
# link, a lossy one, and a cable pulled mid-solve that --recover finishes.
# Called by scripts/demo.sh after the build; the tables must exist.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build=${QS_BUILD_DIR:-build}
source scripts/procs-lib.sh
procs_init demo-robot

start "$build/daemon/quadsolved" --bind tcp://127.0.0.1:0 --metrics robot
endpoint=${line#listening }

# Solves one cube on a fresh simulator with extra quadsim options.
solve() {
    local cube=$1
    shift
    local sim_opts=() ctl_opts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do sim_opts+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    ctl_opts=("$@")
    start "$build/sim/quadsim" --tcp 0 --speed 20 --cube "$cube" -q \
        "${sim_opts[@]}"
    local sim=$last_pid
    "$build/ctl/quadctl" "$cube" --server "$endpoint" \
        --port "tcp:${line#listening tcp:}" -q "${ctl_opts[@]}" || true
    kill "$sim"
    wait "$sim" 2>/dev/null || true
}

mapfile -t cubes < <("$build/cli/quadsolve" random 4)
echo
echo "== quadsolved + quadsim + quadctl: one cube, step by step =="
solve "${cubes[0]}"
echo
echo "== a lossy link: 5% of frames lost, 1% damaged, 2% duplicated =="
solve "${cubes[1]}" --drop 0.05 --corrupt 0.01 --dup 0.02 | tail -n 3
echo
echo "== the cable pulled after 12 steps: the failure, then --recover =="
solve "${cubes[2]}" --disconnect-after 12 | tail -n 4
solve "${cubes[3]}" --disconnect-after 12 -- --recover | grep -E '^(plan|time|result)'
