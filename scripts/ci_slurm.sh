#!/usr/bin/env bash
# CI: configs/slurm_sweep.sh end to end on a one-node Slurm cluster of this machine
# (scripts/slurm_local.sh; as root). The sweep configs/sweeps/slurm_test.json (12 points,
# --iterations, so rows are deterministic) runs with the commands of docs/sweeps.md:
#   1. an array of 4 shards and a merge job with --dependency=afterok: the merged file has the
#      rows of one local unsharded `tilesched sweep`, every column but wall_s, in the same order;
#   2. an array of 2 shards whose task 0 is stopped twice in the middle of its shard: first by
#      USR1 (what Slurm sends 60 s before the time limit: the script requeues the task), then by
#      `scontrol requeue`; it comes back each time, resumes, and the merge is still identical;
#   3. an array of 4 shards whose task 0 is cancelled: the merge job never runs, `tilesched
#      merge` names the missing point, and resubmitting that one shard plus a new merge job
#      gives the identical file.
#   4. the no-cluster recipe: the same 4 shards through GNU parallel, shard 0 stopped by TERM
#      mid-shard, then the same command again (--resume): the merge is identical.
# Installs slurm-wlm, munge and parallel when missing (scripts/deps.sh; CI only, not the user
# install). The cluster is stopped on exit, whatever happens; the stage fails if a daemon is left.
# Usage: scripts/ci_slurm.sh   (build directory: $TILESCHED_BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TILESCHED_BUILD_DIR:-build}
config=configs/sweeps/slurm_test.json
points=12
# passed after the script name, as a user would: a seed other than the default shows in every
# row, so a shard that ran without these arguments cannot match the local sweep
sweep_args=(--seeds 2)
export TILESCHED_SLURM_DIR=${TILESCHED_SLURM_DIR:-/tmp/tilesched-slurm}
export SLURM_CONF=$TILESCHED_SLURM_DIR/slurm.conf
export TILESCHED=$PWD/$build/src/cli/tilesched
work=$(mktemp -d /tmp/tilesched-ci-slurm.XXXXXX)
start=$SECONDS

scripts/deps.sh slurm-wlm munge parallel
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TILESCHED_BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target tilesched >/dev/null

finish() {
  local status=$?
  scripts/slurm_local.sh stop || status=1
  [ "$status" -eq 0 ] && rm -rf "$work"
  exit "$status"
}
trap finish EXIT

fail() {
  echo "ci_slurm: FAIL: $*" >&2
  squeue -r -t all -o '%.12i %.10T %.25r %.9M' >&2 || true
  local log
  for log in "$work"/*/*.log; do
    [ -f "$log" ] && { echo "--- $log"; cat "$log"; }
  done >&2
  exit 1
}
say() { echo "ci_slurm: $* ($((SECONDS - start)) s)"; }

# waits for COMMAND... to succeed, up to LIMIT seconds
wait_for() {
  local what=$1 limit=$2
  shift 2
  local end=$((SECONDS + limit))
  until "$@"; do
    [ "$SECONDS" -lt "$end" ] || fail "no $what after $limit s"
    sleep 0.2
  done
}
field() { scontrol show job "$1" 2>/dev/null | grep -o "\b$2=[^ ]*" | head -n 1 | cut -d= -f2; }
state_is() { [ "$(field "$1" JobState)" = "$2" ]; }
# waits until job $1 is in state $2; fails at once if it ends in another state
wait_end() {
  local state end=$((SECONDS + 120))
  while state=$(field "$1" JobState); [ "$state" != "$2" ]; do
    case $state in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
        fail "job $1 ended $state, not $2" ;;
    esac
    [ "$SECONDS" -lt "$end" ] || fail "job $1 is still ${state:-unknown} after 120 s, not $2"
    sleep 0.2
  done
}
rows() {
  local n
  n=$(grep -c '^[0-9]' "$1" 2>/dev/null) || true
  echo "${n:-0}"
}
has_rows() { [ "$(rows "$1")" -ge "$2" ]; }
# every line of $2 is a line of file $1 (rows written before a stop, wall_s included, are kept)
kept_in() {
  local line
  while IFS= read -r line; do
    grep -qxF "$line" "$1" || fail "row not kept in $1: $line"
  done <<<"$2"
}
running_with_rows() { state_is "$1" RUNNING && has_rows "$2" "$3"; }
restarted() { [ "$(field "$1" Restarts)" = "$2" ] && state_is "$1" RUNNING; }

# The sweep of docs/sweeps.md, sized for this machine: SHARDS shards, one CPU per task.
submit_sweep() {  # DIR SHARDS [sbatch options]: prints the job id
  local dir=$1 shards=$2
  shift 2
  mkdir -p "$dir"
  PLAN=$config OUT_DIR=$dir SHARDS=$shards sbatch --parsable --cpus-per-task=1 --time=10 \
    --output="$dir/slurm-%A_%a.log" "$@" configs/slurm_sweep.sh "${sweep_args[@]}"
}
submit_merge() {  # DIR JOBID: prints the merge job's id
  sbatch --parsable --dependency=afterok:"$2" --kill-on-invalid-dep=yes \
    --output="$1/merge-%j.log" --wrap "$TILESCHED merge $1/shard-*.csv -o $1/sweep.csv"
}
# every row equal to the unsharded sweep's, wall_s (column 21, the time a point took) aside
same_rows() {
  [ "$(head -n 1 "$1" | cut -d, -f21)" = wall_s ] || fail "$1: column 21 is not wall_s"
  [ "$(rows "$1")" -eq "$points" ] || fail "$1 has $(rows "$1") rows, not $points"
  diff <(cut -d, -f1-20,22- "$work/local.csv") <(cut -d, -f1-20,22- "$1") >&2 ||
    fail "$1 differs from the unsharded sweep (diff above: < local, > merged)"
}

scripts/slurm_local.sh start
say "cluster up"
"$TILESCHED" sweep --plan "$config" "${sweep_args[@]}" --quiet -o "$work/local.csv"
grep -q ',2,portfolio,ok,' "$work/local.csv" || fail "the local sweep has no ok row of seed 2"
say "local unsharded sweep done"

# 1. The plain run: 4 array tasks, then the merge job.
dir=$work/array
job=$(submit_sweep "$dir" 4 --array=0-3)
merge=$(submit_merge "$dir" "$job")
wait_end "$merge" COMPLETED
for task in 0 1 2 3; do
  state_is "${job}_$task" COMPLETED || fail "task ${job}_$task is $(field "${job}_$task" JobState)"
done
same_rows "$dir/sweep.csv"
say "array of 4 + dependent merge: identical rows"

# 2. Task 0 (the points 0, 2, ..., 10; 4 and 6 take seconds) stopped twice mid-shard.
dir=$work/requeue
job=$(submit_sweep "$dir" 2 --array=0-1)
merge=$(submit_merge "$dir" "$job")
shard=$dir/shard-0.csv
wait_for "2 rows of task ${job}_0" 60 running_with_rows "${job}_0" "$shard" 2
# Both tasks run (2 CPUs): with a task of the array pending, Slurm 22.05 answers a signal with
# "Job can not be altered now" and scancel sends it again a few seconds later.
[ -z "$(squeue -h -r -t pending -j "$job")" ] || fail "a task of $job is pending"
kept_usr1=$(grep '^[0-9]' "$shard")
scancel --batch --signal=USR1 "${job}_0"
wait_for "task ${job}_0 requeued by the script and running again" 60 restarted "${job}_0" 1
grep -q '^slurm_sweep: time limit near; .* requeueing task 0' "$dir/slurm-${job}_0.log" ||
  fail "task 0 did not requeue itself after USR1"
wait_for "3 rows of task ${job}_0" 60 has_rows "$shard" 3
kept_requeue=$(grep '^[0-9]' "$shard")
scontrol requeue "${job}_0"
wait_for "task ${job}_0 back after scontrol requeue" 60 restarted "${job}_0" 2
wait_end "$merge" COMPLETED
[ "$(grep -c '^sweep: stopped; ' "$dir/slurm-${job}_0.log")" -eq 2 ] ||
  fail "task 0's log does not show two stops"
kept_in "$shard" "$kept_usr1"
kept_in "$shard" "$kept_requeue"
same_rows "$dir/sweep.csv"
say "USR1 + self-requeue, scontrol requeue, resume: identical rows"

# 3. Task 0 cancelled mid-shard: it cannot finish, the merge must not run.
dir=$work/cancel
job=$(submit_sweep "$dir" 4 --array=0-3)
merge=$(submit_merge "$dir" "$job")
wait_for "a row of task ${job}_0" 60 running_with_rows "${job}_0" "$dir/shard-0.csv" 1
scancel "${job}_0"
wait_end "$merge" CANCELLED
[ "$(field "$merge" Reason)" = DependencyNeverSatisfied ] ||
  fail "merge job $merge: reason $(field "$merge" Reason)"
[ ! -e "$dir/sweep.csv" ] && ! ls "$dir"/merge-*.log >/dev/null 2>&1 || fail "the merge job ran"
status=0
"$TILESCHED" merge "$dir"/shard-*.csv -o "$dir/sweep.csv" 2>"$dir/merge.err" || status=$?
[ "$status" -eq 2 ] || fail "merge of an incomplete sweep exited $status, not 2"
grep -q "^tilesched merge: point 4 of $points is missing" "$dir/merge.err" ||
  fail "merge did not name point 4: $(cat "$dir/merge.err")"
[ ! -e "$dir/sweep.csv" ] || fail "merge of an incomplete sweep wrote $dir/sweep.csv"
job=$(submit_sweep "$dir" 4 --array=0)
merge=$(submit_merge "$dir" "$job")
wait_end "$merge" COMPLETED
same_rows "$dir/sweep.csv"
say "cancelled shard: merge job not run, merge names point 4; shard resubmitted: identical rows"

# 4. GNU parallel over --shard, no cluster: the recipe of docs/sweeps.md.
dir=$work/parallel
mkdir -p "$dir"
sweep_shards() {
  parallel -j 2 "$TILESCHED" sweep --plan "$config" "${sweep_args[@]}" --shard {}/4 --jobs 1 \
    --resume --quiet -o "$dir/shard-{}.csv" ::: 0 1 2 3
}
sweep_shards 2>"$dir/parallel-1.log" &
runner=$!
wait_for "a row of shard 0 under parallel" 60 has_rows "$dir/shard-0.csv" 1
shard0=
for pid in $(pgrep -f -- "--shard 0/4 .*-o $dir/shard-0.csv" || true); do
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = tilesched ] && shard0=$pid
done
[ -n "$shard0" ] || fail "shard 0 is not running under parallel"
kill -TERM "$shard0"
status=0
wait "$runner" || status=$?
[ "$status" -eq 1 ] || fail "parallel exited $status, not 1 (one shard stopped)"
grep -q '^sweep: stopped; ' "$dir/parallel-1.log" || fail "shard 0 was not stopped mid-shard"
"$TILESCHED" merge "$dir"/shard-*.csv -o "$dir/sweep.csv" 2>/dev/null && fail "merge of a stopped shard succeeded"
sweep_shards 2>"$dir/parallel-2.log" || fail "parallel --resume run failed"
"$TILESCHED" merge "$dir"/shard-*.csv -o "$dir/sweep.csv"
same_rows "$dir/sweep.csv"
say "GNU parallel, shard stopped and resumed: identical rows"
