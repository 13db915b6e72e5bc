#!/usr/bin/env bash
# test_python.sh - the Python package (python/) as a user gets it: the
# project installed into a temporary prefix, the package installed from a
# copy of python/ into a fresh virtual environment (offline: pip
# --no-index --no-build-isolation with Debian's setuptools, which the
# environment sees through --system-site-packages, as it sees pytest and
# pyzmq), then its pytest suite run from outside the source tree against
# the installed libquadsolve (found by its soname on LD_LIBRARY_PATH) and
# the installed quadsolved.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testutil.sh"

test_init python
test_install_tree

# A copy: pip builds in the tree it is given (build/, *.egg-info).
cp -r "$src/python" "$tmp/pkg"
/usr/bin/python3 -m venv --system-site-packages "$tmp/venv" ||
    fail "python3 -m venv failed (Debian: python3-venv)"
"$tmp/venv/bin/pip" install -q --no-index --no-build-isolation \
    --disable-pip-version-check "$tmp/pkg" >"$tmp/pip.log" 2>&1 ||
    fail "pip install failed: $(tail -5 "$tmp/pip.log")"
# The tests must import the installed package, not the copy.
rm -rf "$tmp/pkg/quadsolve"
where=$(cd "$tmp" && "$tmp/venv/bin/python" -c \
    'import quadsolve; print(quadsolve.__file__)')
case "$where" in
"$tmp/venv/"*) ;;
*) fail "quadsolve is imported from $where, not the virtual environment" ;;
esac
# (a here-string: with pipefail, `| grep -q` can fail the writer)
help=$("$tmp/venv/bin/quadsolve-client" --help) ||
    fail "the quadsolve-client script is not installed"
grep -q -- --endpoint <<<"$help" ||
    fail "quadsolve-client --help does not list --endpoint"

# The small robot set in process (728 MB instead of 2.98 GB), as on a
# small robot computer: the machine is shared.
cd "$tmp"
QUADSOLVE_TABLE_SIZE=small \
LD_LIBRARY_PATH="$libdir" QUADSOLVED="$prefix/bin/quadsolved" \
    QUADSOLVE_SOURCE_DIR="$src" \
    "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider "$tmp/pkg/tests"
