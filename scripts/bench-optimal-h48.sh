#!/usr/bin/env bash
# The optimal solver side by side with nissy-core's H48 solver and with
# vcube (docs/benchmarks.md, issue 16): the same random cubes, 2 threads
# each, runs alternated (ours, H48, vcube, ours, H48, vcube) so the noise
# of the machine shows.
#
#   NISSY_DIR=DIR VCUBE_DIR=DIR2 bash scripts/bench-optimal-h48.sh [COUNT] [SEED]
#        (defaults 8 cubes, seed 20261125; CUBES=FILE takes the first
#        COUNT cubes of FILE instead, e.g. ../shared/bench/random-1k.txt)
#
# DIR is a checkout of sebastianotronto/nissy-core built there with
# NISSY_BUILD_THREADS=2 (./build.sh shell makes nissy.o), its tool
# tools/301_solve_file compiled against nissy.o as DIR/solve_file, and the
# table of NISSY_SOLVER (default h48h3) in DIR/tables (its shell's
# `gendata -solver h48h3`, about 13 minutes here); all of it fetched and
# built outside this repository. DIR2 is a checkout of Voltara/vcube built
# with CMake into DIR2/build (clang, AVX2), its table of coordinate
# VCUBE_COORD (default 112: nxopt's corner split, edge orientation and
# slice places, 2.42 GiB, the coset space of our `xl`) generated there by
# `vc-optimal -c 112 -n` (7.5 minutes here), and 2 MiB huge pages
# reserved for it as its README advises (`echo 1300 >
# /proc/sys/vm/nr_hugepages`; without them it runs a third slower here).
# CUBEOPT_DIR=DIR3 adds Chen Shuang's cube48opt (an H48-class solver,
# published only as WebAssembly: a checkout of cs0x7f/cubeopt-wasm, run
# by node.js, which its README says runs at about half the speed of the
# native solver) with the table of CUBEOPT_SIZE (default 7, 3.89 GB;
# 6 is 1.95 GB): the driver below generates it into
# DIR3/cube48optN.tbl on its first run (about 17 minutes for size 7 here)
# and loads it from there afterwards.
# Without NISSY_DIR, VCUBE_DIR or CUBEOPT_DIR that side does not run.
# TABLE_SIZE (xl, large, small, compact, h48, large+h48 or h48h7; default large,
# as when the earlier sections of docs/benchmarks.md ran it; several,
# space-separated, run one after the other in each pass) picks our
# optimal tables, PASSES (default 2) the alternations, THREADS (default 2)
# our threads, BUILD (default build) our build.
#
# Time per cube is each solver's own, with its table already in memory:
# ours is the solve's time_ms, H48's the solve_file tool's "Total time"
# (it loads the table before it starts the clock). vcube solves one cube
# per thread, so it runs every cube in one process with $THREADS workers;
# its time per cube is that run's wall time (after its table is loaded)
# divided by the cubes, printed as "wall per cube" beside each cube's own
# single-thread time. The anchors are given each cube as a scramble: the
# inverse of our 10 ms two-phase solution, which makes the same cube.
# Every solution of every side is applied to its cube by `quadsolve
# compare`; a missing or wrong one counts as a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

count=${1:-8}
seed=${2:-20261125}
threads=${THREADS:-2}
passes=${PASSES:-2}
sizes=${TABLE_SIZE:-large}
solver=${NISSY_SOLVER:-h48h3}
nissy=${NISSY_DIR:-}
vcube=${VCUBE_DIR:-}
coord=${VCUBE_COORD:-112}
cubeopt=${CUBEOPT_DIR:-}
cubeopt_size=${CUBEOPT_SIZE:-7}
if [ -n "$vcube" ] && [ ! -x "$vcube/build/vc-optimal" ]; then
    echo "VCUBE_DIR: no $vcube/build/vc-optimal (build vcube there first)" >&2
    exit 2
fi
if [ -n "$cubeopt" ] && [ ! -r "$cubeopt/cube48opt$cubeopt_size.mjs" ]; then
    echo "CUBEOPT_DIR: no $cubeopt/cube48opt$cubeopt_size.mjs" \
         "(a checkout of cs0x7f/cubeopt-wasm)" >&2
    exit 2
fi
if [ -n "$cubeopt" ] && ! command -v node >/dev/null; then
    echo "CUBEOPT_DIR: cube48opt needs node.js (apt-get install nodejs)" >&2
    exit 2
fi
source scripts/bench-lib.sh
bench_init

bench_cubes "$count" "$seed"
anchors="${nissy:+, nissy-core $solver}${vcube:+, vcube $coord}"
anchors+="${cubeopt:+, cube48opt$cubeopt_size}"
echo "== $count cubes ($bench_from), $threads threads, our tables $sizes$anchors"
# vcube takes 2 MiB pages only from the reserved pool; without them its
# figures would be a third slower than the anchor's own.
if [ -n "$vcube" ] &&
   [ "$(awk '/^HugePages_Total:/ {print $2}' /proc/meminfo 2>/dev/null)" = 0 ]; then
    echo "== warning: no huge pages reserved, vcube runs about a third" \
         "slower (echo 1300 > /proc/sys/vm/nr_hugepages)" >&2
fi

# scrambles: the inverse of a two-phase solution of each cube
"$qs" solve --metric htm --time-ms 10 --threads "$threads" <"$tmp/cubes" |
    /usr/bin/python3 -c '
import sys
inv = {"": "'"'"'", "'"'"'": "", "2": "2"}
for line in sys.stdin:
    print(" ".join(m[0] + inv[m[1:]] for m in reversed(line.split())))
' >"$tmp/scrambles"

ours() {
    "$qs" solve --optimal --threads "$threads" --table-size "$2" --json \
        <"$tmp/cubes" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
out, ms = open(sys.argv[1], "w"), open(sys.argv[2], "w")
for line in sys.stdin:
    r = json.loads(line)
    print(r.get("moves", "") if r.get("ok") else "", file=out)
    print(r.get("time_ms", -1), file=ms)
' "$1" "$1.ms"
}

# h48 OUT: one solve_file run per cube, so that each time is one cube's.
h48() {
    : >"$1"
    : >"$1.ms"
    while IFS= read -r scramble; do
        printf '%s\n' "$scramble" >"$tmp/one"
        (cd "$nissy" && ./solve_file "$solver" "$tmp/one") 2>/dev/null |
            /usr/bin/python3 -c '
import re, sys
text = sys.stdin.read()
sol = re.search(r"Solutions:\n(.*)\n", text)
ms = re.search(r"Total time: ([0-9.]+)s", text)
print(sol.group(1).strip() if sol else "", file=open(sys.argv[1], "a"))
print(float(ms.group(1)) * 1000 if ms else -1, file=open(sys.argv[1] + ".ms", "a"))
' "$1"
    done <"$tmp/scrambles"
}

# vcube OUT: one run over every scramble, $threads cubes at a time.
vcube_run() {
    (cd "$vcube/build" && ./vc-optimal -c "$coord" -w "$threads" -O) \
        <"$tmp/scrambles" 2>"$1.err" | /usr/bin/python3 -c '
import re, sys
out, ms = open(sys.argv[1], "w"), open(sys.argv[1] + ".ms", "w")
for line in sys.stdin:
    # "index seconds length moves...": the moves are the fields that are
    # face turns (a solved cube has none)
    f = line.split()
    print(" ".join(m for m in f[3:] if re.fullmatch(r"[URFDLB][2\x27]?", m)),
          file=out)
    print(float(f[1]) * 1000, file=ms)
' "$1"
    sed -n 's/^Total time: \([0-9.]*\) real.*/\1/p' "$1.err" >"$1.wall"
}

# cubeopt OUT: every scramble in one node process, one cube at a time
# on $threads threads (its own clock, "tt", leaves out loading the table).
cubeopt_run() {
    cat >"$tmp/cubeopt.mjs" <<'EOF'
// Drives cube48opt's WebAssembly build: solves each scramble of a file
// and writes "moves<TAB>ms" per line; the table is loaded from (or, the
// first time, generated into) cube48optN.tbl beside the module.
globalThis.navigator ??= { hardwareConcurrency: 2 };
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';
const [, , dir, n, threads, file, out] = process.argv;
const T = Number(threads);
const mod = path.resolve(dir, `cube48opt${n}.mjs`);
const { default: create } = await import(pathToFileURL(mod).href);
let said = [];
const m = await create({ print: t => said.push(t), printErr: t => said.push(t) });
const size = Number(m.get_table_size());
const tbl = path.resolve(dir, `cube48opt${n}.tbl`);
const t0 = Date.now();
if (fs.existsSync(tbl) && fs.statSync(tbl).size === size) {
    const base = Number(m._get_mem_ptr()), fd = fs.openSync(tbl, 'r');
    for (let off = 0; off < size; off += 1 << 26) {
        const len = Math.min(1 << 26, size - off);
        fs.readSync(fd, m.HEAPU8.subarray(base + off, base + off + len), 0, len, off);
    }
    fs.closeSync(fd);
    if (m.init(0, T) !== 0) throw new Error(`${tbl}: rejected by the solver`);
} else {
    if (m.init(T, T) !== 0) throw new Error('table generation failed');
    const base = Number(m._get_mem_ptr());
    const fd = fs.openSync(tbl + '.tmp', 'w');
    for (let off = 0; off < size; off += 1 << 26) /* writes stop at 2 GiB */
        fs.writeSync(fd, m.HEAPU8.subarray(base + off, base + Math.min(off + (1 << 26), size)));
    fs.closeSync(fd);
    fs.renameSync(tbl + '.tmp', tbl);
    console.error(`generated ${tbl} in ${(Date.now() - t0) / 1000} s`);
}
const lines = [];
for (const s of fs.readFileSync(file, 'utf8').split('\n').filter(l => l.trim())) {
    said = [];
    m.solve_scramble(s, T, 1, 1);
    const sol = said.map(l => /Solution found!:(.*)/.exec(l)).find(x => x);
    const tt = said.map(l => /tt=([0-9.]+) ms/.exec(l)).find(x => x);
    lines.push(`${sol ? sol[1].trim().split(/\s+/).join(' ') : ''}\t${tt ? tt[1] : -1}`);
}
fs.writeFileSync(out, lines.join('\n') + '\n');
process.exit(0);
EOF
    if ! node "$tmp/cubeopt.mjs" "$cubeopt" "$cubeopt_size" "$threads" \
        "$tmp/scrambles" "$1.tsv" 2>"$1.err"; then
        echo "cube48opt failed:" \
             "$(grep -m1 'Error' "$1.err" || tail -1 "$1.err")" >&2
        exit 1
    fi
    cut -f1 "$1.tsv" >"$1"
    cut -f2 "$1.tsv" >"$1.ms"
}
labels=()
for pass in $(seq 1 "$passes"); do
    for size in $sizes; do
        ours "$tmp/$size-$pass" "$size"
        labels+=("$size-$pass=$tmp/$size-$pass")
    done
    if [ -n "$nissy" ]; then
        h48 "$tmp/nissy-$pass"
        labels+=("nissy-$pass=$tmp/nissy-$pass")
    fi
    if [ -n "$vcube" ]; then
        vcube_run "$tmp/vcube-$pass"
        labels+=("vcube-$pass=$tmp/vcube-$pass")
    fi
    if [ -n "$cubeopt" ]; then
        cubeopt_run "$tmp/cubeopt-$pass"
        labels+=("cubeopt-$pass=$tmp/cubeopt-$pass")
    fi
done
"$qs" compare "$tmp/cubes" "${labels[@]}" --json >"$tmp/all.json" || true
/usr/bin/python3 - "$tmp" "${labels[@]}" <<'EOF'
import json, statistics, sys
tmp, labels = sys.argv[1], [l.split("=", 1) for l in sys.argv[2:]]
rows = [json.loads(l) for l in open(f"{tmp}/all.json")][1:]
for label, path in labels:
    ms = [float(x) for x in open(path + ".ms")]
    good = [r["solutions"][label] for r in rows
            if r["solutions"][label].get("ok")]
    fails = len(rows) - len(good)
    lens = [s["lengths"]["htm"] for s in good]
    t = [x / 1000 for x in ms if x >= 0]
    print(f"{label}: {len(good)} solved, {fails} failures, mean length "
          f"{sum(lens) / max(len(lens), 1):.2f}; time per cube mean "
          f"{statistics.mean(t) if t else 0:.2f} s, median "
          f"{statistics.median(t) if t else 0:.2f} s, max "
          f"{max(t) if t else 0:.2f} s")
    try:
        wall = float(open(path + ".wall").read())
        print(f"  wall per cube {wall / len(rows):.2f} s ({wall:.1f} s for "
              f"{len(rows)} cubes, one per thread at a time)")
    except (OSError, ValueError):
        pass
    print("  per cube (s):", " ".join(f"{x / 1000:.2f}" for x in ms))
EOF
