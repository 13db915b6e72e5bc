#!/usr/bin/env bash
# One shard of an offline study on a Slurm cluster, as a job array: each
# task solves its share of the cubes with quadsolve (every N-th cube from
# the task's index) and compares them with the other solvers' solutions;
# once the array is done, `quadsolve compare --merge` joins the shards.
#
#   sbatch --array=0-15 contrib/slurm/compare-array.sh CUBES OUTDIR [LABEL=FILE...]
#   quadsolve compare --merge OUTDIR/compare-*.json --html OUTDIR/report.html
#
# CUBES: facelet strings, one per line, on a filesystem every node sees.
# OUTDIR: where each task writes solve-K.txt (its own solutions) and
# compare-K.json. LABEL=FILE: other solvers' solutions, one line per cube
# of CUBES (all of them). SOLVE_ARGS (default "--time-ms 100") are passed
# to `quadsolve solve`, e.g. "--optimal" for optimal solutions, and
# COMPARE_ARGS (default empty) to `quadsolve compare`, e.g. "--profile
# lego". QUADSOLVE is the binary (default: quadsolve on PATH); its tables
# come from QUADSOLVE_TABLES, generated once beforehand on a shared disk
# (`quadsolve tables generate`), so the tasks only read them.
#
# The body needs nothing from Slurm but SLURM_ARRAY_TASK_ID and
# SLURM_ARRAY_TASK_COUNT, so it also runs by hand with those two set.
#SBATCH --job-name=quadsolve-compare
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --output=quadsolve-compare-%A_%a.log
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: sbatch --array=0-(N-1) $0 CUBES OUTDIR [LABEL=FILE...]" >&2
    exit 2
fi
cubes=$1
outdir=$2
shift 2
k=${SLURM_ARRAY_TASK_ID:?not in a Slurm job array (sbatch --array)}
n=${SLURM_ARRAY_TASK_COUNT:?not in a Slurm job array (sbatch --array)}
qs=${QUADSOLVE:-quadsolve}
threads=${SLURM_CPUS_PER_TASK:-2}
mkdir -p "$outdir"

# Written under a temporary name and renamed, so a file that exists is
# complete even if the task was killed.
# Exit status 1 with an "error: CODE:" line for a cube the solver could
# not solve (a bad cube, a length or time limit) is a result: compare
# records it. A failed solve is not: another status (bad SOLVE_ARGS, a
# crash, a kill), or a line saying the solver itself could not work
# (tables that cannot be opened, a daemon that does not answer), would
# otherwise become a shard of failures that merges like a real one. The
# task fails instead, with the reason on stderr (GNU parallel then stops
# the study: contrib/parallel runs this body).
solve_status=0
# shellcheck disable=SC2086
"$qs" solve ${SOLVE_ARGS:---time-ms 100} --threads "$threads" \
    --shard "$k/$n" <"$cubes" >"$outdir/solve-$k.txt.tmp" || solve_status=$?
cube_errors='LENGTH|CHARACTER|CENTER|COLOR_COUNT|CORNER|EDGE|DUP_CORNER'
cube_errors+='|DUP_EDGE|TWIST|FLIP|PARITY|MOVE|INVALID_CUBE|INVALID_MOVES'
cube_errors+='|TIMEOUT|NOT_FOUND|DEADLINE'
failed=$(grep -E '^error: ' "$outdir/solve-$k.txt.tmp" |
    grep -E -v -m 1 "^error: ($cube_errors):" || true)
if [ "$solve_status" -gt 1 ] || [ -n "$failed" ]; then
    echo "compare-array.sh: task $k: quadsolve solve failed" \
        "(exit status $solve_status)${failed:+: $failed}" >&2
    exit $((solve_status > 1 ? solve_status : 1))
fi
mv "$outdir/solve-$k.txt.tmp" "$outdir/solve-$k.txt"

# Exit status 1 means some solution failed its check; that is recorded in
# the JSON and belongs to the result, so only worse stops the task.
status=0
# shellcheck disable=SC2086
"$qs" compare "$cubes" quadsolve="$outdir/solve-$k.txt" "$@" \
    ${COMPARE_ARGS:-} --shard "$k/$n" --shard-input quadsolve \
    --json >"$outdir/compare-$k.json.tmp" || status=$?
if [ "$status" -gt 1 ]; then
    exit "$status"
fi
mv "$outdir/compare-$k.json.tmp" "$outdir/compare-$k.json"
