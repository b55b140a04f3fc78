#!/bin/bash
# Example Slurm batch script: one `tilesched sweep` split into 8 shards, one per array task.
# Task I runs the grid points with index % 8 == I and writes its own file; when all tasks are
# done, `tilesched merge` joins the shards (see the end of this file and docs/sweeps.md).
#
#   mkdir -p out/sweep && sbatch configs/slurm_sweep.sh  # the sweep of configs/sweeps/modes.json
#   CONFIG=configs/sweeps/native.json sbatch configs/slurm_sweep.sh
#
# Submit from the repository root (the definitions name problems relative to it; Slurm does
# not create the log directory of --output). The number after the slash in --shard must match
# the size of --array.
#SBATCH --job-name=tilesched-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=out/sweep/slurm-%A_%a.log
# Preemption or the time limit: Slurm sends SIGTERM to the batch shell 60 s ahead, which is
# tilesched itself (exec below); it stops after writing its finished rows and exits 143. A
# requeued task starts again with --resume and runs only the missing points.
#SBATCH --signal=B:TERM@60
#SBATCH --requeue
#SBATCH --open-mode=append
set -euo pipefail

CONFIG=${CONFIG:-configs/sweeps/modes.json}
OUT_DIR=${OUT_DIR:-out/sweep}
TILESCHED=${TILESCHED:-./build/src/cli/tilesched}

mkdir -p "$OUT_DIR"
# --resume on a first run just creates the file; --jobs uses the CPUs Slurm gave this task.
exec "$TILESCHED" sweep --plan "$CONFIG" \
  --shard "${SLURM_ARRAY_TASK_ID}/8" \
  --jobs "${SLURM_CPUS_PER_TASK:-0}" \
  --resume \
  -o "$OUT_DIR/shard-${SLURM_ARRAY_TASK_ID}.csv"

# Then merge the shards, either by hand once the array has finished:
#
#   ./build/src/cli/tilesched merge out/sweep/shard-*.csv -o out/sweep/sweep.csv
#
# or as a job that waits for every task to succeed (an interrupted shard exits non-zero,
# so the merge does not run on an incomplete sweep):
#
#   jobid=$(sbatch --parsable configs/slurm_sweep.sh)
#   sbatch --dependency=afterok:$jobid --wrap \
#     "./build/src/cli/tilesched merge out/sweep/shard-*.csv -o out/sweep/sweep.csv"
#
# merge checks that every point of the grid is there exactly once and names the first one
# missing; rerun that shard (same command: --resume finishes it) and merge again.
