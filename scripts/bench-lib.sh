# bench-lib.sh - sourced by the side-by-side benchmark scripts (bench-robot,
# bench-twophase, bench-robot-optimal, bench-optimal-h48): the quadsolve
# binary of the build they measure and a scratch directory removed at exit.
# With BENCH_KEEP=DIR (relative to the repository's root, where the scripts
# run) the cubes and every pass's answers (ours and the anchor's) are
# written to DIR instead and kept: the figures come from them
# after the last pass, so a run stopped part-way would otherwise lose them.
#
#   bench_init      sets qs (quadsolve of $BUILD, default build/) and tmp
#   bench_cubes N S writes N random cubes of seed S to $tmp/cubes and
#                   prints the machine line
#   bench_machine   prints the machine line (cores, load average and, when
#                   built, the random-read latency of bench/qs_memlat)
#   bench_anchor DIR OUT PATTERN COUNT CMD...
#                   runs CMD in DIR with one "solve CUBE" line per cube on
#                   its input and its output in OUT, and stops it once OUT
#                   has more than COUNT lines matching PATTERN (the anchors
#                   do not exit at the end of their input)

bench_init() {
    qs="$PWD/${BUILD:-build}/cli/quadsolve"
    [ -x "$qs" ] || { echo "no $qs: build first (scripts/build.sh)" >&2; exit 2; }
    if [ -n "${BENCH_KEEP:-}" ]; then
        mkdir -p "$BENCH_KEEP" || exit 2
        tmp=$(cd "$BENCH_KEEP" && pwd)
        echo "== answers kept in $tmp"
    else
        tmp=$(mktemp -d)
        trap 'rm -rf "$tmp"' EXIT
    fi
}

bench_machine() {
    # The searches' speed follows the memory's latency, which has differed
    # twofold between VMs of one name: printed beside every figure.
    local lat="" probe="$PWD/${BUILD:-build}/bench/qs_memlat"
    [ -x "$probe" ] && lat="; $("$probe")"
    echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)$lat"
}

bench_cubes() {
    "$qs" random "$1" --seed "$2" >"$tmp/cubes"
    bench_machine
}

bench_anchor() {
    local dir=$1 out=$2 pattern=$3 want=$4
    shift 4
    sed 's/^/solve /' "$tmp/cubes" >"$tmp/commands"
    # OUT exists before the anchor starts: the loop may look before the
    # background job has opened it, and an empty count ended the loop (and
    # the anchor) at once.
    : >"$out"
    (cd "$dir" && exec "$@") <"$tmp/commands" >"$out" &
    local pid=$!
    while kill -0 "$pid" 2>/dev/null &&
        [ "$(grep -c "$pattern" "$out" || true)" -le "$want" ]; do
        sleep 0.2
    done
    sleep 0.5
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
