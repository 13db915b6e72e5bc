#!/usr/bin/env bash
# test_install.sh - quadsolve as installed software (the install rules of
# every folder, lib/): `cmake --install` into a temporary prefix (and with
# DESTDIR) puts the four programs, libquadsolve with its headers and
# quadsolve.pc, the systemd unit, the man pages and the docs where they
# belong; the installed programs run and their man pages render; the
# example robot program of examples/c builds with `pkg-config --cflags
# --libs quadsolve` against the installed tree and solves a cube in the
# robot metric in-process; and the library exports only prefixed names.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testutil.sh"

test_init install
test_install_tree
for f in bin/quadsolve bin/quadsolved bin/quadctl bin/quadsim \
    include/quadsolve/quadsolve.h include/quadsolve/qtab.h \
    include/quadsolve/robot.h include/quadsolve/qsservice.h \
    lib/systemd/system/quadsolved.service share/doc/quadsolve/README.md \
    share/doc/quadsolve/protocol.md share/doc/quadsolve/examples/c/robot_solve.c \
    share/man/man1/quadsolve.1.gz share/man/man1/quadsolved.1.gz \
    share/man/man1/quadctl.1.gz share/man/man1/quadsim.1.gz; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
done

# The man pages: made from each program's --help (an option of each
# shows) and its man/*.h2m (a section of each shows), and man formats
# them without complaint. Each has a SYNOPSIS: help2man makes one only
# from a first line "Usage: PROGRAM ..." (capital U), so a usage text
# starting "usage:" would silently lose it.
man1="$prefix/share/man/man1"
check_page() { # PAGE OPTION TEXT
    local text
    text=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$man1/$1.1.gz" \
        2>"$tmp/man.err" | col -b) || fail "man -l $1.1.gz failed"
    [ ! -s "$tmp/man.err" ] || fail "man warns on $1.1: $(head -3 "$tmp/man.err")"
    # Here-strings, not `echo | grep -q`: bash's echo writes a long text
    # in pieces, grep -q exits at its first match, and the echo's next
    # write then dies of SIGPIPE, which pipefail reports as a failure
    # (once in CI, on a loaded machine).
    grep -q -- "$2" <<<"$text" || fail "$1.1 lacks $2 (from --help)"
    grep -q -- "$3" <<<"$text" || fail "$1.1 lacks $3 (from man/$1.h2m)"
    grep -qx "SYNOPSIS" <<<"$text" ||
        fail "$1.1 has no SYNOPSIS (does $1 --help start with \"Usage: $1\"?)"
    sed -n '/^SYNOPSIS$/,/^DESCRIPTION$/p' <<<"$text" | grep -q "^ *$1 " ||
        fail "$1.1's SYNOPSIS does not show the command line"
}
check_page quadsolve --metric QUADSOLVE_TABLES
check_page quadsolved --robot-tables QUADSOLVED_OPTS
check_page quadctl --recover firmware-protocol.md
check_page quadsim --jitter quadsim.md
ls "$libdir"/libquadsolve.so.*.*.* >/dev/null 2>&1 ||
    fail "the versioned libquadsolve.so is not installed"
[ -L "$libdir/libquadsolve.so" ] || fail "no libquadsolve.so link"
[ -e "$libdir/pkgconfig/quadsolve.pc" ] || fail "no quadsolve.pc"
grep -q "ExecStart=$prefix/bin/quadsolved" \
    "$prefix/lib/systemd/system/quadsolved.service" ||
    fail "the unit does not start the installed quadsolved"

# DESTDIR stages the same tree under another root.
DESTDIR="$tmp/stage" cmake --install "$build" --prefix /usr/local \
    >/dev/null
[ -x "$tmp/stage/usr/local/bin/quadsolve" ] || fail "DESTDIR is ignored"

# The installed programs run.
"$prefix/bin/quadsolve" --version | grep quadsolve >/dev/null ||
    fail "quadsolve --version"
"$prefix/bin/quadsolved" --version | grep quadsolve >/dev/null ||
    fail "quadsolved --version"
"$prefix/bin/quadctl" --version | grep quadctl >/dev/null || fail "quadctl --version"
"$prefix/bin/quadsim" --version | grep quadsim >/dev/null || fail "quadsim --version"
moves=$("$prefix/bin/quadsolve" solve --scramble "R U F' L2")
[ -n "$moves" ] && [ "${moves#error}" = "$moves" ] ||
    fail "the installed quadsolve did not solve: $moves"

# Only prefixed names leave the library.
# (names carry the version of exports.map: robot_solve@@QUADSOLVE_0)
exports=$(nm -D --defined-only "$libdir/libquadsolve.so" |
    awk '$2 ~ /^[TDBRVWiu]$/ { sub(/@.*/, "", $3); print $3 }')
bad=$(echo "$exports" | grep -vE '^(qs_|qtab_|robot_|qsv_)' || true)
[ -z "$bad" ] || fail "unprefixed exports: $(echo $bad | head -c 300)"
echo "$exports" | grep -x robot_solve >/dev/null || fail "robot_solve is not exported"
echo "$exports" | grep -x qsv_solve >/dev/null || fail "qsv_solve is not exported"

# A robot program built with pkg-config against the installed tree.
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc -Wall -Wextra -Werror "$src/examples/c/robot_solve.c" \
    $(pkg-config --cflags --libs quadsolve) -o "$tmp/robot_solve" ||
    fail "the example does not build with pkg-config"
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/robot_solve" -s "R U2 F' L D")
echo "$out" | grep "robot moves" >/dev/null || fail "the example did not solve: $out"
echo "$out" | grep "(checked)" >/dev/null || fail "the example's plan: $out"
LD_LIBRARY_PATH="$libdir" ldd "$tmp/robot_solve" | grep "$libdir/libquadsolve.so" >/dev/null ||
    fail "the example is not linked to the installed library"
# The Debian package: the same files under /usr, its dependencies, the
# maintainer scripts that make the daemon's user, and no tables.
(cd "$build" && cpack -G DEB -B "$tmp/pkg" >"$tmp/cpack.log") ||
    fail "cpack -G DEB failed: $(tail -3 "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/quadsolve_*.deb)
info=$(dpkg-deb -I "$deb")
for dep in libzmq5 libserialport0 libcjson1 libxxhash0; do
    echo "$info" | grep -E "^ Depends:.*$dep" >/dev/null ||
        fail "the package does not depend on $dep"
done
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }')
for f in ./usr/bin/quadsolved ./usr/bin/quadsolve ./usr/bin/quadctl \
    ./usr/bin/quadsim ./usr/include/quadsolve/robot.h \
    ./usr/lib/systemd/system/quadsolved.service \
    ./usr/share/man/man1/quadsolve.1.gz ./usr/share/man/man1/quadctl.1.gz; do
    echo "$files" | grep -x "$f" >/dev/null || fail "$f is not in the package"
done
echo "$files" | grep -E 'libquadsolve\.so\.0$' >/dev/null ||
    fail "libquadsolve.so.0 is not in the package"
echo "$files" | grep -E '\.qst$' >/dev/null && fail "tables in the package"
dpkg-deb -e "$deb" "$tmp/control"
grep "adduser --system" "$tmp/control/postinst" >/dev/null ||
    fail "postinst does not create the daemon's user"
echo "test_install: installed tree, programs, library exports, the C example and the Debian package all fine"
