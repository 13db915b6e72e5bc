#!/usr/bin/env bash
# The full test suite: a Release build and its ctest run, then (unless
# QS_SKIP_SANITIZE is set) an ASan/UBSan build in build-asan/ and its ctest
# run, then (unless QS_SKIP_FUZZ is set) the libFuzzer harnesses built with
# clang in build-fuzz/ and a smoke run of each from its seed corpus. The
# two extra builds are made beside the release run, at the lowest
# priority. Both runs share one table cache, so the slow table generation
# happens at most once. Exits non-zero if anything fails; the last lines printed are
# the ctest summaries, the sanitizer run's last.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

export QUADSOLVE_TABLES="${QUADSOLVE_TABLES:-${HOME:-/tmp}/.cache/quadsolve}"
mkdir -p "$QUADSOLVE_TABLES" || exit 1
# Make UBSan reports come with a stack and stop the test.
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# Tests run two at a time (QS_TEST_JOBS to change it): many wait on
# sockets, a simulated robot or the kernel's page zeroing rather than on
# the CPU, and two at once fit in memory even with the large tables.
jobs="${QS_TEST_JOBS:-2}"

# run_ctest DIR: runs the suite of one build, keeping its output in
# DIR/ctest.log for the summary; returns ctest's status.
run_ctest() {
    ctest --test-dir "$1" -j"$jobs" --output-on-failure --no-tests=error 2>&1 |
        tee "$1/ctest.log"
    return "${PIPESTATUS[0]}"
}

summary() {
    local line
    line=$(grep -E '^[0-9]+% tests passed' "$1/ctest.log" 2>/dev/null | tail -n 1)
    echo "${line:-$1: no ctest summary (see above)}"
}

# waited_build PID NAME LOG: waits for a background build; on failure
# prints the end of its log and returns non-zero.
waited_build() {
    if wait "$1"; then
        return 0
    fi
    echo "test.sh: $2 build failed; the end of $3:" >&2
    tail -n 40 "$3" >&2
    return 1
}

status=0
if ! QS_BUILD_DIR=build bash scripts/build.sh; then
    echo "test.sh: release build failed" >&2
    exit 1
fi

# The sanitizer and fuzz builds run beside the release suite at the
# lowest priority: they take the CPU the suite leaves idle (tests waiting
# on sockets, simulated robots, single-threaded stretches) instead of
# adding their minutes after it, and give way to it otherwise. Their
# output is kept in build-asan/build.log and build-fuzz/build.log.
asan_pid=""
if [ -z "${QS_SKIP_SANITIZE:-}" ]; then
    mkdir -p build-asan
    QS_BUILD_DIR=build-asan nice -n 19 bash scripts/build.sh \
        -DQS_SANITIZE=ON >build-asan/build.log 2>&1 &
    asan_pid=$!
fi
fuzz_pid=""
if [ -z "${QS_SKIP_FUZZ:-}" ]; then
    # Only the harnesses are built: the rest of the project is what they
    # call, compiled in with the fuzzer's instrumentation.
    mkdir -p build-fuzz
    (CC=clang nice -n 19 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release \
        -DQS_FUZZ=ON &&
        nice -n 19 cmake --build build-fuzz -j"$(nproc)" --target fuzzers) \
        >build-fuzz/build.log 2>&1 &
    fuzz_pid=$!
fi

run_ctest build || status=1

asan_ran=0
if [ -n "$asan_pid" ]; then
    if waited_build "$asan_pid" sanitizer build-asan/build.log; then
        asan_ran=1
        run_ctest build-asan || status=1
    else
        status=1
    fi
fi

fuzz_ran=0
if [ -n "$fuzz_pid" ]; then
    if waited_build "$fuzz_pid" fuzz build-fuzz/build.log; then
        fuzz_ran=1
        ctest --test-dir build-fuzz -R '^fuzz_smoke_' -j"$jobs" --output-on-failure \
            --no-tests=error 2>&1 | tee build-fuzz/ctest.log
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    else
        status=1
    fi
fi

echo
echo "== release (build/) =="
summary build
if [ "$fuzz_ran" = 1 ]; then
    echo "== fuzz smoke (build-fuzz/) =="
    summary build-fuzz
fi
if [ "$asan_ran" = 1 ]; then
    echo "== asan+ubsan (build-asan/) =="
    summary build-asan
fi
exit "$status"
