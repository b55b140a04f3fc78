#!/usr/bin/env bash
# Regenerates the scheduler-made part of the seed corpus: a solution of a few benchmarks from
# `tilesched schedule` (fuzz/corpus/solution/bench_N.json) and the benchmark joined with it
# (fuzz/corpus/evaluate/bench_N.txt, see kSeparator in fuzz/fuzz_checks.h). The SPEC.md
# section 8 vectors (spec_*) are written by hand and not touched.
# Usage: fuzz/make_corpus.sh [TILESCHED_BINARY]   (default build/src/cli/tilesched)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build/src/cli/tilesched}"
for n in 1 2 3 4 5 7 9 13 17; do
  problem="data/benchmarks/mlsys-2026-$n.json"
  solution="fuzz/corpus/solution/bench_$n.json"
  # A work budget, not a time limit, so that the seeds do not depend on the machine.
  "$bin" schedule "$problem" -o "$solution" --iterations 200 --threads 1 --quiet
  { cat "$problem"; printf '\n----\n'; cat "$solution"; } >"fuzz/corpus/evaluate/bench_$n.txt"
done
