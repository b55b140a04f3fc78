#!/usr/bin/env bash
# Configures build/ (Release) and builds the command-line programs, tilesched and mlsys: what
# scripts/run.sh needs (the tests and benchmarks build with scripts/test.sh). Extra arguments go
# to cmake.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)" --target tilesched mlsys
