#!/usr/bin/env bash
# Installs the Debian packages tilesched needs when run as root (or says which are missing):
# the build's, and Python's for the package tilesched (python/).
# Usage: scripts/deps.sh [--with-report-tools] [extra-package ...]
#   --with-report-tools  also the external programs the report and plot commands (and their
#                        tests) drive: Graphviz, gnuplot, headless Chromium and the DejaVu
#                        fonts it renders the report with.
set -euo pipefail
packages=(build-essential cmake libtbb-dev libboost-graph-dev nlohmann-json3-dev
          libbenchmark-dev libgtest-dev libonnx-dev libprotobuf-dev protobuf-compiler
          coinor-libclp-dev pkg-config xz-utils
          # the Python package (docs/python.md): the module, its tests, pip install, the example
          python3-dev pybind11-dev python3-pytest python3-pandas python3-matplotlib
          python3-venv python3-pip python3-setuptools python3-wheel)
report_tools=(graphviz gnuplot-nox chromium fonts-dejavu-core)
for arg in "$@"; do
  if [ "$arg" = "--with-report-tools" ]; then
    packages+=("${report_tools[@]}")
  else
    packages+=("$arg")
  fi
done
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "tilesched: missing Debian packages: ${missing[*]}" >&2
  echo "tilesched: install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "tilesched: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
