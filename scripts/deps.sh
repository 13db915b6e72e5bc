#!/usr/bin/env bash
# Installs the Debian packages quadsolve needs to build, test and run its
# demos, but only those not installed yet, so a ready machine (and CI) pays
# nothing: apt-get update runs only when something is missing.
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    libzmq3-dev libserialport-dev libcjson-dev libcmocka-dev libxxhash-dev
    python3-zmq python3-jsonschema valgrind time bc
    help2man man-db bsdextrautils
    python3-venv python3-pytest python3-setuptools python3-wheel
    parallel chromium clang libclang-rt-14-dev
)

installed() {
    # dpkg -s also succeeds for removed packages whose config files remain.
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "deps.sh: installing ${missing[*]}" >&2
# env, not an exported variable: sudo would drop it.
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
