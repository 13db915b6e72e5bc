#!/usr/bin/env bash
# The full test suite: a Release build and its ctest run, then (unless
# QS_SKIP_SANITIZE is set) an ASan/UBSan build in build-asan/ and its ctest
# run, then (unless QS_SKIP_FUZZ is set) the libFuzzer harnesses built with
# clang in build-fuzz/ and a smoke run of each from its seed corpus. Both
# runs share one table cache, so the slow table generation happens at most
# once. Exits non-zero if anything fails; the last lines printed are
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

status=0
if ! QS_BUILD_DIR=build bash scripts/build.sh; then
    echo "test.sh: release build failed" >&2
    exit 1
fi
run_ctest build || status=1

asan_ran=0
if [ -z "${QS_SKIP_SANITIZE:-}" ]; then
    if QS_BUILD_DIR=build-asan bash scripts/build.sh -DQS_SANITIZE=ON; then
        asan_ran=1
        run_ctest build-asan || status=1
    else
        echo "test.sh: sanitizer build failed" >&2
        status=1
    fi
fi

fuzz_ran=0
if [ -z "${QS_SKIP_FUZZ:-}" ]; then
    # Only the harnesses are built: the rest of the project is what they
    # call, compiled in with the fuzzer's instrumentation.
    if CC=clang cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release \
        -DQS_FUZZ=ON >/dev/null &&
        cmake --build build-fuzz -j"$(nproc)" --target fuzzers >/dev/null; then
        fuzz_ran=1
        ctest --test-dir build-fuzz -R '^fuzz_smoke_' -j"$jobs" --output-on-failure \
            --no-tests=error 2>&1 | tee build-fuzz/ctest.log
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    else
        echo "test.sh: fuzz build failed" >&2
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
