# procs-lib.sh - sourced by the scripts that run the robot stack
# (demo-robot, bench-quadctl): a scratch directory and the programs they
# start in the background, every one stopped, and the directory removed,
# at exit.
#
#   procs_init NAME  sets tmp and the exit trap; NAME begins messages
#   start PROG ARGS  starts PROG in the background, its first stdout line
#                    into $line and its pid into $last_pid; exits when no
#                    line comes within 10 s

procs_init() {
    procs_name=$1
    tmp=$(mktemp -d)
    pids=()
    started=0
    trap procs_cleanup EXIT
}

procs_cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$tmp"
}

start() {
    # A file per start: a name used before would hold a stale first line.
    started=$((started + 1))
    local out=$tmp/out.$started
    "$@" > "$out" 2>/dev/null &
    pids+=($!)
    last_pid=$!
    for _ in $(seq 1 1000); do
        if [ -s "$out" ] && line=$(head -n 1 "$out") && [ -n "$line" ]; then
            return 0
        fi
        sleep 0.01
    done
    echo "$procs_name: $1 did not start" >&2
    exit 1
}
