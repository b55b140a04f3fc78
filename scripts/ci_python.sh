#!/usr/bin/env bash
# CI stage of the Python package (docs/python.md): `pip install .` into a fresh virtual
# environment with Debian's packages only (--system-site-packages, --no-build-isolation), the
# module built in the build tree scripts/test.sh made (TILESCHED_BUILD_DIR; without it pip
# configures a tree of its own, which takes a full build); then, from outside the source tree,
# `import tilesched` and the example script with the installed package. The package's tests run
# in scripts/test.sh (the ctest test `python`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$(cd "${TILESCHED_BUILD_DIR:-build}" && pwd)
scripts/deps.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
TILESCHED_BUILD_DIR="$build" "$work/venv/bin/pip" install --no-build-isolation --quiet "$root"
cd "$work"
"$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
import tilesched
assert tilesched.__file__.startswith(sys.argv[1]), tilesched.__file__
problem = tilesched.Problem.from_dict({
    "widths": [128, 128, 128], "heights": [128, 128, 128], "op_types": ["MatMul"],
    "inputs": [[0, 1]], "outputs": [[2]], "base_costs": [1000.0],
    "fast_memory_capacity": 50000, "slow_memory_bandwidth": 10.0, "native_granularity": [128, 128]})
result = tilesched.schedule(problem, iterations=10)
assert result.latency == tilesched.evaluate(problem, result.schedule).total
print("tilesched imported from", tilesched.__file__, "- one MatMul scheduled:", result)
PY
cd "$root"
# The example's paths are the source tree's; the package is the installed one (sys.path[0] is
# examples/, not the tree's python/).
MPLBACKEND=Agg "$work/venv/bin/python" examples/python_workflow.py "$work/example" >/dev/null
test -s "$work/example/capacity.png"
echo "ci_python: pip install, import outside the tree and examples/python_workflow.py: ok"
