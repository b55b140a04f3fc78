#!/usr/bin/env bash
# CI for the report and plot commands: installs the external tools they drive (Graphviz for the
# DAG, gnuplot for sweep plots, Chromium for the headless rendering test) when running as root
# and they are missing, builds, and runs the report / plot tests with TILESCHED_REQUIRE_TOOLS=1
# so that a missing tool fails them instead of skipping them.
# Usage: scripts/ci_report.sh            (build directory: $TILESCHED_BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_BUILD_DIR:-build}"

# Chromium renders text with whatever fonts are installed; DejaVu keeps the screenshot legible.
packages=(graphviz gnuplot-nox chromium fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "ci_report: missing Debian packages: ${missing[*]} (install them as root:" \
         "apt-get install ${missing[*]})" >&2
    exit 1
  fi
  echo "ci_report: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE="${TILESCHED_BUILD_TYPE:-Release}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target tilesched tilesched_tests
TILESCHED_REQUIRE_TOOLS=1 ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$(nproc)" \
  -R '^(ReportDot|ReportHtml|ReportCommand|PlotCsv|PlotScript|PlotGnuplot|PlotCommand)\.'
