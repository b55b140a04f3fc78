#!/usr/bin/env bash
# ThreadSanitizer for CI (docs/reliability.md): builds with -DTILESCHED_TSAN=ON in build-tsan,
# runs the multi-threaded tests (search strategies, determinism across thread counts, the
# property tests) and a short two-thread `tilesched schedule` on a mid-size benchmark, and
# fails on the first data race.
#
# oneTBB is built from Debian's source package with TSan first: the packaged libtbb is not
# instrumented, so TSan cannot see the synchronization inside its scheduler (task hand-off,
# the join at the end of a parallel_for) and reports every value a worker hands back as a
# race: thousands of false reports, which no narrow suppression can separate from real
# ones. scripts/tsan.supp lists the remaining suppressions, each explained there.
#
# Environment: TSAN_TEST_FILTER (gtest filter, default
# 'Search*:Strategies*:Property*:Tier2.SameResultAtAnyThreadCount'), TILESCHED_TSAN_BUILD_DIR
# (default build-tsan).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_TSAN_BUILD_DIR:-build-tsan}"
filter="${TSAN_TEST_FILTER:-Search*:Strategies*:Property*:Tier2.SameResultAtAnyThreadCount}"

# oneTBB with TSan, from the source of the installed version (apt-get source, with private
# lists so that the system's apt configuration is untouched); about a minute on 2 cores.
tbb="$PWD/$build/onetbb"
if [[ ! -f "$tbb/install/lib/cmake/TBB/TBBConfig.cmake" ]]; then
  echo "== oneTBB with TSan (from Debian's onetbb source package)"
  rm -rf "$tbb"
  mkdir -p "$tbb/apt/parts" "$tbb/apt/lists/partial" "$tbb/apt/cache/archives/partial"
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    >"$tbb/apt/parts/src.sources"
  apt_dirs=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$tbb/apt/parts"
            -o Dir::State::Lists="$tbb/apt/lists" -o Dir::Cache="$tbb/apt/cache")
  apt-get "${apt_dirs[@]}" update >/dev/null
  version=$(dpkg-query -W -f='${Version}' libtbb-dev)
  (cd "$tbb" && apt-get "${apt_dirs[@]}" source --download-only "onetbb=$version" >/dev/null 2>&1)
  tar -xf "$tbb"/onetbb_*.orig.tar.* -C "$tbb"
  src=$(find "$tbb" -maxdepth 1 -type d -name 'oneTBB-*' | head -n 1)
  cmake -S "$src" -B "$tbb/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBB_SANITIZE=thread \
    -DTBB_TEST=OFF -DTBB_STRICT=OFF -DTBBMALLOC_BUILD=OFF -DTBB_DISABLE_HWLOC_AUTOMATIC_SEARCH=ON \
    -DCMAKE_INSTALL_PREFIX="$tbb/install" >/dev/null
  cmake --build "$tbb/build" -j"$(nproc)" >/dev/null
  cmake --install "$tbb/build" >/dev/null
fi

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
  -DTILESCHED_TSAN=ON -DTILESCHED_BUILD_BENCH=OFF -DTBB_DIR="$tbb/install/lib/cmake/TBB" >/dev/null
cmake --build "$build" -j"$(nproc)" --target tilesched_tests tilesched

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/scripts/tsan.supp ${TSAN_OPTIONS:-}"
# TSan's shadow memory needs the classic address layout; kernels with high mmap randomization
# make it abort with "unexpected memory mapping". setarch -R turns randomization off.
run=()
if setarch "$(uname -m)" -R true 2>/dev/null; then run=(setarch "$(uname -m)" -R); fi

echo "== tests under TSan: $filter"
"${run[@]}" "$build/tests/tilesched_tests" --gtest_filter="$filter"

echo "== tilesched schedule --threads 2 --time-limit 3 under TSan (benchmark 13)"
problem=data/benchmarks/mlsys-2026-13.json
out="$build/tsan-schedule-13.json"
rm -f "$out"
# The time limit is the search's; the bound only guards against a hang.
timeout 120 "${run[@]}" "$build/src/cli/tilesched" schedule "$problem" -o "$out" \
  --threads 2 --time-limit 3 --quiet
"${run[@]}" "$build/src/cli/tilesched" evaluate "$problem" "$out" >/dev/null
echo "== TSan: no data race reported"
