#!/usr/bin/env bash
# Builds quadsolve for 64-bit ARM (Raspberry Pi 3/4/5 with a 64-bit OS)
# with Debian's cross compiler into build-arm64/ (or $QS_BUILD_DIR), then
# runs the unit tests that need no pruning tables under qemu-user, and the
# four programs' --version and a table-free command. Installs what it needs
# first, only when missing: the arm64 architecture for dpkg (multiarch),
# crossbuild-essential-arm64, the arm64 -dev packages of the dependencies,
# and qemu-user. Needs root or sudo for that, as scripts/deps.sh.
# Extra arguments go to the cmake configure step.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(crossbuild-essential-arm64 qemu-user file
    libzmq3-dev:arm64 libserialport-dev:arm64 libcjson-dev:arm64
    libcmocka-dev:arm64 libxxhash-dev:arm64)
installed() {
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "cross-arm64.sh: installing ${missing[*]}" >&2
    dpkg --print-foreign-architectures | grep -qx arm64 ||
        "${sudo[@]}" dpkg --add-architecture arm64
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

build=${QS_BUILD_DIR:-build-arm64}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" "$@"
cmake --build "$build" -j"$(nproc)"

# The programs are arm64 and run (under qemu-aarch64, the toolchain's
# CMAKE_CROSSCOMPILING_EMULATOR, which ctest uses too).
file -L "$build/cli/quadsolve" | grep -q 'ARM aarch64' ||
    { echo "cross-arm64.sh: quadsolve is not an aarch64 program" >&2; exit 1; }
for p in cli/quadsolve daemon/quadsolved ctl/quadctl sim/quadsim; do
    qemu-aarch64 "$build/$p" --version
done
qemu-aarch64 "$build/cli/quadsolve" random 2 --seed 18
# The table-free unit tests: the tests' own list (QS_TESTS_WITHOUT_TABLES),
# which ctest labels "notables".
ctest --test-dir "$build" -L notables --output-on-failure --no-tests=error
