#!/usr/bin/env bash
# Installs missing dependencies, then configures and builds quadsolve in
# Release mode into build/ (or $QS_BUILD_DIR). Extra arguments go to the
# cmake configure step, e.g. scripts/build.sh -DQS_SANITIZE=ON.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
build_dir=${QS_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build_dir" -j"$(nproc)"
