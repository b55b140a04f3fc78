#!/usr/bin/env bash
# Installs what is missing (the build dependencies and the programs the report and plot tests
# drive), builds, and runs the whole test suite with nothing skipped: TILESCHED_REQUIRE_TOOLS=1
# turns a missing Graphviz, gnuplot or Chromium into a failure instead of a skip.
# Usage: scripts/test.sh [extra cmake options]   (e.g. -DTILESCHED_SANITIZE=ON with a build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_BUILD_DIR:-build}"
scripts/deps.sh --with-report-tools
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TILESCHED_BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
TILESCHED_REQUIRE_TOOLS=1 ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
