#!/usr/bin/env bash
# Fuzzing for CI (docs/reliability.md): builds the libFuzzer targets of fuzz/ with clang,
# ASan and UBSan in build-fuzz, replays every saved crasher of tests/fuzz_regressions/, then
# runs each target for a bounded time from the seed corpus. Fails on any crash, leak, timeout,
# out-of-memory or sanitizer report, naming the input that caused it; prints the executions
# of each target (libFuzzer's final "Done N runs" line).
#
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_RSS_MB (default 2048),
# FUZZ_TIMEOUT (seconds per input, default 10), TILESCHED_FUZZ_BUILD_DIR (default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${TILESCHED_FUZZ_BUILD_DIR:-build-fuzz}"
seconds="${FUZZ_SECONDS:-60}"
rss_mb="${FUZZ_RSS_MB:-2048}"
timeout="${FUZZ_TIMEOUT:-10}"

# clang and its sanitizer runtimes (libFuzzer ships in libclang-rt-14-dev on Debian 12).
scripts/deps.sh clang libclang-rt-14-dev
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTILESCHED_FUZZ=ON -DTILESCHED_BUILD_TESTS=OFF -DTILESCHED_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_targets

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:${UBSAN_OPTIONS:-}"
common=(-rss_limit_mb="$rss_mb" -timeout="$timeout" -dict=fuzz/json.dict)

# Saved crashers first: tests/fuzz_regressions/<target suffix>-<name>, e.g. evaluate-x.txt.
for file in tests/fuzz_regressions/*-*; do
  [[ -f "$file" ]] || continue
  target="fuzz_$(basename "$file" | cut -d- -f1)"
  "$build/fuzz/$target" "${common[@]}" "$file" >/dev/null 2>"$build/replay.log" || {
    cat "$build/replay.log" >&2
    echo "ci_fuzz: saved crasher $file fails again under $target" >&2
    exit 1
  }
done

# The three targets run at the same time (one minute of wall time for all, on 2 cores).
declare -A pids
for kind in problem solution evaluate; do
  target="fuzz_$kind"
  work="$build/corpus/$kind"  # libFuzzer adds new inputs to the first directory only
  artifacts="$build/artifacts/$kind/"
  mkdir -p "$work" "$artifacts"
  seeds=(fuzz/corpus/"$kind")
  # Benchmarks are problems, and the first part of an evaluate input.
  [[ "$kind" == problem ]] && seeds+=(data/benchmarks)
  echo "== $target for ${seconds} s"
  "$build/fuzz/$target" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$work" "${seeds[@]}" >"$build/$target.log" 2>&1 &
  pids[$kind]=$!
done

failed=0
summary=""
for kind in problem solution evaluate; do
  target="fuzz_$kind"
  artifacts="$build/artifacts/$kind/"
  log="$build/$target.log"
  status=0
  wait "${pids[$kind]}" || status=$?
  # A clean run ends with "Done N runs in S second(s)"; a crashed one only prints its stats.
  done_line=$(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -n 1 || true)
  if [[ -n "$done_line" ]]; then
    summary+="$target: $(awk '{print $2 " executions in " $5 " s"}' <<<"$done_line")"$'\n'
  else
    units=$(grep -Eo 'number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)
    summary+="$target: ${units:-?} executions, then FAILED"$'\n'
  fi
  if [[ $status -ne 0 ]]; then
    failed=1
    grep -E 'ERROR|SUMMARY|invariant broken|runtime error|Test unit written' "$log" >&2 || tail -n 40 "$log" >&2
    echo "ci_fuzz: $target failed (exit $status); full log $log, inputs in $artifacts" >&2
    echo "ci_fuzz: minimize with: $build/fuzz/$target -minimize_crash=1 -runs=10000 FILE" >&2
  fi
done
echo "== fuzz executions"
printf '%s' "$summary"
exit "$failed"
