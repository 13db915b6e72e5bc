# shellcheck shell=bash
# bench-lib.sh - sourced by the side-by-side benchmark scripts (bench-robot,
# bench-twophase, bench-robot-optimal, bench-optimal-h48): the quadsolve
# binary of the build they measure and a scratch directory removed at exit.
# With BENCH_KEEP=DIR (relative to the repository's root, where the scripts
# run) the cubes and every pass's answers (ours and the anchor's) are
# written to DIR instead and kept: the figures come from them
# after the last pass, so a run stopped part-way would otherwise lose them.
#
#   bench_init      sets qs (quadsolve of $BUILD, default build/) and tmp
#   bench_cubes N S writes N cubes to $tmp/cubes: the first N lines of
#                   the file $CUBES when it is set (e.g.
#                   ../shared/bench/random-1k.txt, relative to the
#                   repository's root; fewer lines is an error), else N
#                   random cubes of seed S; sets bench_from
#                   to say which, and prints the machine line
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
    # twofold between VMs of one name, and the processor model, which has
    # changed between sittings: both printed beside every figure.
    local lat="" probe="$PWD/${BUILD:-build}/bench/qs_memlat" cpu
    [ -x "$probe" ] && lat="; $("$probe")"
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
    echo "== machine: $(nproc) cores (${cpu:-unknown}), load $(cut -d' ' -f1-3 /proc/loadavg)$lat"
    bench_idle_check
    bench_settle
}

# Warns when something else is using the processors: a process left
# running (an anchor that did not exit, a build) took half a core through
# a whole benchmark in the forty-eighth session, and our side searched a
# quarter fewer nodes in one pass, while the load average alone did not
# show it clearly. Samples the processors' busy time and each process's
# over one second.
bench_idle_check() {
    local before after
    before=$(bench_cpu_times)
    sleep 1
    after=$(bench_cpu_times)
    awk -v self="$$" -v hz="$(getconf CLK_TCK)" '
        FNR == 1 { file++ }
        file == 1 { t0[$1] = $2; next }
        { d = $2 - t0[$1] }
        $1 == "up" { ticks = hz * d; next }  # clock ticks that passed
        $1 == "all" { busy = d; next }
        d > 0 && $1 != self { top[$1] = d }
        END {
            if (ticks > 0 && busy > 0.1 * ticks) {
                printf "== warning: the machine is not idle: %.0f %% of a core was busy over %.1f s", 100 * busy / ticks, ticks / hz
                for (n = 1; n <= 3; n++) {  # the three busiest, busiest first
                    best = ""
                    for (p in top) if (best == "" || top[p] > top[best]) best = p
                    if (best == "" || top[best] < 0.05 * ticks) break
                    cmd = ""; getline cmd < ("/proc/" best "/comm")
                    printf "%s %s (pid %s, %.0f %%)", (n == 1 ? "; busiest:" : ","), cmd, best, 100 * top[best] / ticks
                    delete top[best]
                }
                printf "\n"
            }
        }' <(echo "$before") <(echo "$after")
}

# "up SECONDS" (the uptime), "all BUSY" (user, nice, system, irq, softirq
# and steal ticks of all processors) and "PID TICKS" for each process, in
# one awk so that the sampling itself hardly shows. Each file is read
# with getline, which fails softly: a process may exit between the glob
# and its read, and awk (mawk) stops with status 2 at a file named on
# its command line that it cannot open, which `set -e` would make fatal.
bench_cpu_times() {
    awk 'BEGIN {
        for (i = 1; i < ARGC; i++) {
            f = ARGV[i]
            if ((getline line < f) <= 0)
                continue
            close(f)
            split(line, x, " ")
            if (f == "/proc/uptime")
                print "up", x[1]
            else if (f == "/proc/stat")
                print "all", x[2] + x[3] + x[4] + x[7] + x[8] + x[9]
            else {
                # comm (field 2) may hold spaces: count the fields after its ")"
                sub(/^.*\) /, "", line)
                split(line, y, " ")
                print x[1], y[12] + y[13]
            }
        }
    }' /proc/uptime /proc/stat /proc/[0-9]*/stat
}

bench_settle() {
    sleep "${BENCH_SETTLE:-8}"
}

# bench_from is read by the scripts that source this file.
# shellcheck disable=SC2034
bench_cubes() {
    if [ -n "${CUBES:-}" ]; then
        if [ ! -r "$CUBES" ]; then
            echo "CUBES: cannot read $CUBES" >&2
            exit 2
        fi
        head -n "$1" "$CUBES" >"$tmp/cubes"
        local have
        have=$(wc -l <"$tmp/cubes")
        if [ "$have" -lt "$1" ]; then
            echo "CUBES: $CUBES has $have lines, $1 asked for" >&2
            exit 2
        fi
        bench_from="the first $1 of $CUBES"
    else
        "$qs" random "$1" --seed "$2" >"$tmp/cubes"
        bench_from="quadsolve random $1 --seed $2"
    fi
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
