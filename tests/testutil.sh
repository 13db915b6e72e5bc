# testutil.sh - sourced by the shell tests (test_install, test_python,
# test_compare), as testutil.h serves the C tests: the source tree, a
# scratch directory removed at exit, how a test fails, and the project
# installed from the build under test into a temporary prefix.
#
#   test_init NAME   sets src (the source tree) and tmp
#                    (/tmp/qs-test-NAME.XXXXXX, removed at exit)
#   fail MESSAGE     says FAIL: MESSAGE and ends the test
#   test_install_tree
#                    installs QS_BUILD_DIR (set by ctest) into
#                    prefix=$tmp/prefix; sets build, prefix and libdir
#                    (where libquadsolve.so.0 is installed)

test_init() {
    src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    tmp=$(mktemp -d "/tmp/qs-test-$1.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
}

fail() { echo "FAIL: $*"; exit 1; }

test_install_tree() {
    build=${QS_BUILD_DIR:?QS_BUILD_DIR is not set}
    prefix="$tmp/prefix"
    cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" ||
        fail "cmake --install failed: $(tail -3 "$tmp/install.log")"
    libdir=$(dirname "$(find "$prefix" -name 'libquadsolve.so.0' | head -1)")
    [ -e "$libdir/libquadsolve.so.0" ] ||
        fail "libquadsolve.so.0 is not installed"
}
