#!/usr/bin/env bash
# The main job on its default settings: installs what is missing, builds,
# makes sure the pruning tables exist (generating them on first use, with
# progress), then draws random cubes and solves each in every metric, the
# robot metric with its robot-frame plan, every solution verified by the
# CLI before it is printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh >/dev/null
qs="${QS_BUILD_DIR:-build}/cli/quadsolve"
"$qs" tables generate
cubes=$("$qs" random "${QS_DEMO_CUBES:-5}")
for metric in htm qtm axht axqt robot; do
    echo
    echo "== $metric, 10 ms per cube, $(nproc) threads =="
    paste -d ' ' <(echo "$cubes") <(echo "$cubes" | "$qs" solve --metric "$metric") |
        sed 's/^\(.\{54\}\) /\1  ->  /'
done
echo
echo "== robot plans (default profile): robot moves, cost, robot-frame steps =="
echo "$cubes" | "$qs" solve --metric robot --json |
    python3 -c 'import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(r["robot_moves"], "moves", r["cost_ms"], "ms:", r["robot"]) if r["ok"] else print("error:", r["error"]["code"], r["error"]["message"])'
echo
bash scripts/demo-robot.sh
