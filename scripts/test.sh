#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite.
# Usage: scripts/test.sh [extra cmake options]   (e.g. -DTILESCHED_SANITIZE=ON with a build dir)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_BUILD_DIR:-build}"
scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TILESCHED_BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
