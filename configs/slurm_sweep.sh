#!/bin/bash
# Slurm batch script: one `tilesched sweep` split into SHARDS shards, one per array task. Task I
# runs the grid points with index % SHARDS == I and writes OUT_DIR/shard-I.csv; a dependent job
# merges the shards once every task has succeeded. docs/sweeps.md ("Slurm") has the commands;
# scripts/ci_slurm.sh runs them on a local one-node cluster in CI.
#
#   mkdir -p out/sweep                    # Slurm does not create the directory of --output
#   jobid=$(sbatch --parsable configs/slurm_sweep.sh)
#   sbatch --dependency=afterok:$jobid --kill-on-invalid-dep=yes --output=out/sweep/merge-%j.log \
#     --wrap "./build/src/cli/tilesched merge out/sweep/shard-*.csv -o out/sweep/sweep.csv"
#
# A failed task (the merge job is then cancelled): `tilesched merge` names the first missing
# point; resubmit its shard with `sbatch --array=I configs/slurm_sweep.sh` and merge after it.
#
# Submit from the repository root (jobs start in the submit directory; sweep plans name
# problems relative to it). Environment (sbatch passes the submitting shell's on):
#   PLAN       sweep plan (default configs/sweeps/modes.json)
#   OUT_DIR    where the shard files go (default out/sweep; give sbatch a matching --output)
#   SHARDS     shards in the whole sweep (default 8); must be the size of the full --array
#              range, also when resubmitting a few tasks with --array=3,5
#   TILESCHED  the binary (default ./build/src/cli/tilesched)
# Arguments after the script name go to `tilesched sweep` (e.g. --iterations 200).
#SBATCH --job-name=tilesched-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=out/sweep/slurm-%A_%a.log
#SBATCH --open-mode=append
#SBATCH --requeue
# 60 s (Slurm: up to 60 s more) before the time limit Slurm sends USR1 to this shell: it stops
# tilesched, which keeps every finished row, and requeues the task, which starts again (after
# Slurm's requeue delay, 2 min by default) with --resume and runs only the missing points.
# A TERM (scancel, preemption, `scontrol requeue`) stops tilesched the same way; whether the
# task comes back is then Slurm's decision (requeue: yes; scancel: no).
#SBATCH --signal=B:USR1@60
set -euo pipefail

PLAN=${PLAN:-configs/sweeps/modes.json}
OUT_DIR=${OUT_DIR:-out/sweep}
SHARDS=${SHARDS:-8}
TILESCHED=${TILESCHED:-./build/src/cli/tilesched}
task=${SLURM_ARRAY_TASK_ID:?submit with sbatch --array: each array task runs one shard}
if [ "$task" -ge "$SHARDS" ]; then
  echo "slurm_sweep: array task $task but SHARDS=$SHARDS (the --array range must be 0-$((SHARDS - 1)))" >&2
  exit 2
fi
out="$OUT_DIR/shard-$task.csv"
mkdir -p "$OUT_DIR"

rows() {  # finished rows in the shard file (CSV rows start with the point, JSON Lines with {)
  local n
  n=$(grep -c '^[0-9{]' "$out" 2>/dev/null) || true
  echo "${n:-0}"
}
rows_before=$(rows)
pid=
interrupted=0
near_limit=0
trap 'interrupted=1; near_limit=1; kill -TERM "$pid" 2>/dev/null || true' USR1
# scancel, the time limit itself, preemption and `scontrol requeue` send TERM to every process
# of the job, tilesched included (a second TERM would end it at once, without its message):
# this shell only keeps waiting for it.
trap 'interrupted=1' TERM

# tilesched runs in the background so that this shell can take the signals; --resume on a
# first run just creates the file; --jobs uses the CPUs Slurm gave this task.
"$TILESCHED" sweep --plan "$PLAN" --shard "$task/$SHARDS" --jobs "${SLURM_CPUS_PER_TASK:-0}" \
  --resume -o "$out" "$@" &
pid=$!
while :; do
  interrupted=0
  status=0
  wait "$pid" || status=$?
  # A trapped signal ends `wait` early: wait again for tilesched's own exit status.
  [ "$interrupted" = 1 ] || break
done

if [ "$near_limit" = 1 ] && [ "$status" -ne 0 ]; then
  rows_after=$(rows)
  if [ "$rows_after" -gt "$rows_before" ]; then
    echo "slurm_sweep: time limit near; $((rows_after - rows_before)) new rows; requeueing task $task" >&2
    scontrol requeue "$SLURM_JOB_ID"
  else
    # Requeueing would loop: some point takes longer than the whole --time.
    echo "slurm_sweep: time limit near and no new row since this task started; not requeueing;" \
      "resubmit this shard with a longer --time: sbatch --array=$task --time=... (docs/sweeps.md)" >&2
  fi
fi
exit "$status"
