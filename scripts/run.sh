#!/usr/bin/env bash
# The main job on the embedded default problem: installs what is missing, builds, schedules
# data/benchmarks/mlsys-2026-1.json (contest budget: 2 s), and evaluates the result.
# Usage: scripts/run.sh [PROBLEM.json] [extra `tilesched schedule` options]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
problem="${1:-data/benchmarks/mlsys-2026-1.json}"
shift || true
mkdir -p out
out="out/$(basename "${problem%.json}").solution.json"
./build/src/cli/tilesched schedule "$problem" -o "$out" --time-limit 2 "$@"
./build/src/cli/tilesched evaluate "$problem" "$out"
