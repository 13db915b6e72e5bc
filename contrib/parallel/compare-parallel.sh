#!/usr/bin/env bash
# An offline study split into N shards run by GNU parallel (Debian package
# `parallel`), on this machine or, with PARALLEL_ARGS="--sshlogin
# 4/host1,4/host2 --workdir ." (hosts that see the same paths), on several;
# then the shards are merged into one result and report.
#
#   contrib/parallel/compare-parallel.sh CUBES OUTDIR N [LABEL=FILE...]
#
# Each shard runs the body of contrib/slurm/compare-array.sh (the same
# SOLVE_ARGS, COMPARE_ARGS and QUADSOLVE variables apply), so a study runs
# the same under Slurm and under GNU parallel. Writes OUTDIR/result.json
# (the merged `compare --json`) and OUTDIR/report.html; prints the summary.
set -euo pipefail

if [ $# -lt 3 ]; then
    echo "usage: $0 CUBES OUTDIR N [LABEL=FILE...]" >&2
    exit 2
fi
cubes=$1
outdir=$2
n=$3
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
body="$here/../slurm/compare-array.sh"
qs=${QUADSOLVE:-quadsolve}
mkdir -p "$outdir"
rm -f "$outdir"/compare-*.json

# shellcheck disable=SC2086
seq 0 $((n - 1)) | parallel --will-cite ${PARALLEL_ARGS:-} --halt now,fail=1 \
    SLURM_ARRAY_TASK_ID={} SLURM_ARRAY_TASK_COUNT="$n" \
    "$body" "$cubes" "$outdir" "$@"

shards=()
for k in $(seq 0 $((n - 1))); do
    shards+=("$outdir/compare-$k.json")
done
status=0
"$qs" compare --merge "${shards[@]}" --json >"$outdir/result.json" ||
    status=$?
"$qs" compare --merge "${shards[@]}" --html "$outdir/report.html" ||
    status=$?
exit "$status"
