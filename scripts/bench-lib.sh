# bench-lib.sh - sourced by the side-by-side benchmark scripts (bench-robot,
# bench-twophase, bench-robot-optimal): the quadsolve binary of the build
# they measure and a scratch directory removed at exit.
#
#   bench_init      sets qs (quadsolve of $BUILD, default build/) and tmp
#   bench_cubes N S writes N random cubes of seed S to $tmp/cubes and
#                   prints the machine line

bench_init() {
    qs="$PWD/${BUILD:-build}/cli/quadsolve"
    [ -x "$qs" ] || { echo "no $qs: build first (scripts/build.sh)" >&2; exit 2; }
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
}

bench_cubes() {
    "$qs" random "$1" --seed "$2" >"$tmp/cubes"
    echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
}
