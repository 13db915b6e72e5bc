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
#                   built, the random-read latency of bench/qs_memlat),
#                   then bench_settle
#   bench_settle    waits BENCH_SETTLE seconds (below)
#   bench_anchor DIR OUT PATTERN COUNT CMD...
#                   runs CMD in DIR with one "solve CUBE" line per cube on
#                   its input and its output in OUT, and stops it once OUT
#                   has more than COUNT lines matching PATTERN (the anchors
#                   do not exit at the end of their input)
#
# After the memory probe and after each anchor run, the scripts wait
# BENCH_SETTLE seconds (default 8) before the next run. On this project's
# VMs memory that a process has just freed (the probe's 2 GiB, qphase's
# table) is given back to the host a couple of seconds later, and the run
# then going takes the hit: its threads stood still for 20-50 ms at a
# time, a few times per run (steal time in /proc/stat), so that a few
# 10 ms solves took 40-50 ms and searched less. Our side ran right after
# the probe and after each qphase pass, so the loss was ours. With 8
# seconds the stalls after qphase went from 3 to 1 in a run of 200 cubes
# (docs/benchmarks.md, forty-sixth session).

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
    bench_settle
}

bench_settle() {
    sleep "${BENCH_SETTLE:-8}"
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
    bench_settle
}
