#!/usr/bin/env bash
# CI for the report and plot commands: installs the external tools they drive (Graphviz for the
# DAG, gnuplot for sweep plots, Chromium for the headless rendering test; scripts/deps.sh
# --with-report-tools) when running as root and they are missing, builds, and runs the report /
# plot tests with TILESCHED_REQUIRE_TOOLS=1 so that a missing tool fails them instead of
# skipping them. (scripts/test.sh now runs them too; this stage keeps them visible in CI.)
# Usage: scripts/ci_report.sh            (build directory: $TILESCHED_BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_BUILD_DIR:-build}"

# Chromium renders text with whatever fonts are installed; deps.sh --with-report-tools installs
# DejaVu with it so that the screenshot is legible.
scripts/deps.sh --with-report-tools
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TILESCHED_BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target tilesched tilesched_tests
TILESCHED_REQUIRE_TOOLS=1 ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)" \
  -R '^(ReportDot|ReportHtml|ReportCommand|PlotCsv|PlotScript|PlotGnuplot|PlotCommand)\.'
