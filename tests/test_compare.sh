#!/usr/bin/env bash
# test_compare.sh - `quadsolve compare` at scale and in a browser
# (cli/compare_cmd.c, compare_data.c, report.c; contrib/slurm and
# contrib/parallel): a study split into shards by GNU parallel and by the
# Slurm array script's body (its array variables set by hand) merges into
# exactly the unsharded result, and the HTML report renders in headless
# Chromium with the plots it should have. Needs QUADSOLVE_CLI, GNU
# parallel and chromium (scripts/deps.sh installs them).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/testutil.sh"

qs=${QUADSOLVE_CLI:?QUADSOLVE_CLI is not set}
for tool in parallel chromium python3; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/deps.sh)"
done
test_init compare

"$qs" random 12 --seed 31 >"$tmp/cubes"
# One thread and a length limit: the first solution of a single-threaded
# search is the same in every run, so shards and the whole run agree.
export SOLVE_ARGS="--threads 1 --max-len 30 --time-ms 0"
export SLURM_CPUS_PER_TASK=1
export QUADSOLVE="$qs"
"$qs" solve --metric axht --threads 1 --max-len 30 --time-ms 0 \
    <"$tmp/cubes" >"$tmp/axht.txt"

# The whole study in one run, as the shards do it.
"$qs" solve $SOLVE_ARGS <"$tmp/cubes" >"$tmp/solve-all.txt"
"$qs" compare "$tmp/cubes" quadsolve="$tmp/solve-all.txt" \
    axht="$tmp/axht.txt" --json >"$tmp/all.json"

# GNU parallel, 3 shards.
bash "$src/contrib/parallel/compare-parallel.sh" "$tmp/cubes" "$tmp/par" 3 \
    axht="$tmp/axht.txt" >/dev/null
cmp "$tmp/all.json" "$tmp/par/result.json" ||
    fail "GNU parallel shards merged differ from the whole run"
[ -s "$tmp/par/report.html" ] || fail "no report from the parallel run"

# The Slurm array script's body, 2 tasks run by hand.
for k in 0 1; do
    SLURM_ARRAY_TASK_ID=$k SLURM_ARRAY_TASK_COUNT=2 \
        bash "$src/contrib/slurm/compare-array.sh" "$tmp/cubes" "$tmp/slurm" \
        axht="$tmp/axht.txt"
done
"$qs" compare --merge "$tmp/slurm/compare-1.json" "$tmp/slurm/compare-0.json" \
    --json >"$tmp/slurm.json"
cmp "$tmp/all.json" "$tmp/slurm.json" ||
    fail "Slurm shards merged differ from the whole run"
if SLURM_ARRAY_TASK_COUNT=2 bash "$src/contrib/slurm/compare-array.sh" \
    "$tmp/cubes" "$tmp/x" 2>/dev/null; then
    fail "the Slurm body ran without SLURM_ARRAY_TASK_ID"
fi
# A failed solve fails the task (and so the GNU parallel study) instead of
# becoming a shard of failures: a usage error (exit 2), and tables that
# cannot be opened (exit 1, an "error: TABLES:" line per cube). A cube
# the solver rejects is a result, recorded in the shard.
if SOLVE_ARGS=--no-such-option SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2 \
    bash "$src/contrib/slurm/compare-array.sh" "$tmp/cubes" "$tmp/bad" \
    2>"$tmp/bad.err"; then
    fail "the Slurm body succeeded when quadsolve solve exited 2"
fi
grep -q "quadsolve solve failed (exit status 2)" "$tmp/bad.err" ||
    fail "the failed solve is not reported: $(cat "$tmp/bad.err")"
if QUADSOLVE_TABLES=/proc/no-tables SLURM_ARRAY_TASK_ID=0 \
    SLURM_ARRAY_TASK_COUNT=2 bash "$src/contrib/slurm/compare-array.sh" \
    "$tmp/cubes" "$tmp/bad" 2>"$tmp/bad.err"; then
    fail "the Slurm body succeeded without tables"
fi
grep -q "error: TABLES:" "$tmp/bad.err" ||
    fail "the missing tables are not reported: $(cat "$tmp/bad.err")"
[ ! -e "$tmp/bad/compare-0.json" ] && [ ! -e "$tmp/bad/solve-0.txt" ] ||
    fail "a failed solve left a shard behind"
if SOLVE_ARGS=--no-such-option bash "$src/contrib/parallel/compare-parallel.sh" \
    "$tmp/cubes" "$tmp/badpar" 2 >/dev/null 2>&1; then
    fail "the GNU parallel study succeeded when its solves failed"
fi
{ cat "$tmp/cubes"; echo "not a cube"; } >"$tmp/cubes-bad" # cube 12: task 0
SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=2 \
    bash "$src/contrib/slurm/compare-array.sh" "$tmp/cubes-bad" "$tmp/rejected" ||
    fail "a rejected cube failed the task"
grep -q '^error: LENGTH:' "$tmp/rejected/solve-0.txt" ||
    fail "the rejected cube is not in the shard's solutions"

# The report in a real browser: it loads, and its DOM has the bars,
# points and timeline operations the data calls for.
"$qs" compare "$tmp/cubes" quadsolve="$tmp/solve-all.txt" \
    axht="$tmp/axht.txt" --profile default --profile servo --json \
    --html "$tmp/report.html" >"$tmp/report.json"
browser=(chromium --headless --no-sandbox --disable-gpu --disable-quic
    --no-first-run --disable-background-networking
    --disable-component-update --disable-sync
    --user-data-dir="$tmp/chromium")
"${browser[@]}" --enable-logging=stderr --v=0 --dump-dom \
    "file://$tmp/report.html" >"$tmp/dom.html" 2>"$tmp/chromium.log" ||
    fail "chromium could not load the report"
# The page logs nothing to its console (a script error, a resource that
# failed): chromium writes such messages as ":CONSOLE" lines.
if grep -q ':CONSOLE' "$tmp/chromium.log"; then
    grep ':CONSOLE' "$tmp/chromium.log"
    fail "the report logged errors in the browser"
fi
"${browser[@]}" --screenshot="$tmp/report.png" --window-size=1000,1800 \
    "file://$tmp/report.html" >/dev/null 2>>"$tmp/chromium.log" ||
    fail "chromium could not take a screenshot"
[ -s "$tmp/report.png" ] || fail "empty screenshot"
python3 - "$tmp/report.json" "$tmp/dom.html" "$tmp/report.html" <<'PY'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
dom = open(sys.argv[2]).read()
# Self-contained: nothing to fetch, no script.
raw = open(sys.argv[3]).read()
for ref in ("<script", "<link", "src=", "url(", "http:", "https:", "@import"):
    assert ref not in raw, "the report refers outside itself: " + ref
labels = ["quadsolve", "axht"]
profiles = ["default", "servo"]
def count(cls):
    return len(re.findall(r'class="%s"' % cls, dom))
# Histograms: per profile, one bar per solver and robot-move count in the
# range seen.
want_bars = 0
for p in profiles:
    moves = [r["solutions"][l]["robot"][p]["robot_moves"]
             for r in rows for l in labels if r["solutions"][l]["ok"]]
    want_bars += (max(moves) - min(moves) + 1) * len(labels)
# Scatter: a point per solved cube and solver, per profile.
want_points = sum(1 for r in rows for l in labels
                  if r["solutions"][l]["ok"]) * len(profiles)
got = (count("bar"), count("point"))
assert got == (want_bars, want_points), (got, want_bars, want_points)
assert count("hist") == 2 and count("scatter") == 2, "plots missing"
assert count("stats") == 2 and count("pairs") == 2, "tables missing"
# Timelines: the median and the slowest cube of each solver by cost under
# the first profile, with a marker (and the face on top) at each tilt.
want_gantt = want_tilts = 0
for l in labels:
    solved = sorted((r for r in rows if r["solutions"][l]["ok"]),
                    key=lambda r: r["solutions"][l]["robot"]["default"]["cost_ms"])
    picks = {solved[(len(solved) - 1) // 2]["cube"]: solved[(len(solved) - 1) // 2],
             solved[-1]["cube"]: solved[-1]}
    want_gantt += len(picks)
    want_tilts += sum(r["solutions"][l]["robot"]["default"]["tilts"]
                      for r in picks.values())
assert count("gantt") == want_gantt, (count("gantt"), want_gantt)
assert count("tilt") == want_tilts, (count("tilt"), want_tilts)
assert want_tilts > 0, "no tilt in the timelines: a weak check"
assert count("gantt-op") > 40, count("gantt-op")
assert "<h1>quadsolve compare</h1>" in dom
PY
echo "test_compare: shards (GNU parallel, Slurm body) merge to the whole run;"
echo "test_compare: the report renders in chromium with every plot"
