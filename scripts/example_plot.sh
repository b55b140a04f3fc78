#!/usr/bin/env bash
# Regenerates the README's example plot, docs/img/sweep-capacity.svg, and its data,
# docs/img/sweep-capacity.csv: contest benchmarks 1 and 3 re-scheduled by `tilesched sweep` at
# ten fast-memory capacities with a fixed work budget (--iterations, so every run reproduces the
# same latencies; only the wall_s column changes), then drawn by `tilesched plot`.
# Needs a build (scripts/build.sh) and gnuplot (Debian package gnuplot-nox).
# Usage: scripts/example_plot.sh [BUILD_DIR]        (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/src/cli/tilesched"
[ -x "$bin" ] || { echo "example_plot: $bin not found; build first (scripts/build.sh)" >&2; exit 2; }

mkdir -p docs/img
"$bin" sweep data/benchmarks/mlsys-2026-1.json data/benchmarks/mlsys-2026-3.json \
  --capacity 10000,15000,20000,30000,45000,60000,90000,120000,180000,240000 \
  --iterations 1000 --seeds 1 --quiet -o docs/img/sweep-capacity.csv
"$bin" plot docs/img/sweep-capacity.csv -o docs/img/sweep-capacity.svg --x capacity --log-x \
  --title "Latency and lower bound vs fast memory capacity (benchmarks 1 and 3)"
