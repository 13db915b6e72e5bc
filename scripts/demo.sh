#!/usr/bin/env bash
# The main job on its default settings: installs what is missing, builds,
# makes sure the pruning tables exist (generating them on first use, with
# progress), then draws random cubes and solves each in all four metrics,
# every solution verified by the CLI before it is printed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/build.sh >/dev/null
qs="${QS_BUILD_DIR:-build}/cli/quadsolve"
"$qs" tables generate
cubes=$("$qs" random "${QS_DEMO_CUBES:-5}")
for metric in htm qtm axht axqt; do
    echo
    echo "== $metric, 10 ms per cube, $(nproc) threads =="
    paste -d ' ' <(echo "$cubes") <(echo "$cubes" | "$qs" solve --metric "$metric") |
        sed 's/^\(.\{54\}\) /\1  ->  /'
done
