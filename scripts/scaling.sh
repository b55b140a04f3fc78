#!/usr/bin/env bash
# Scaling table of docs/scaling.md: `tilesched schedule --strategy greedy --threads 2` (with a
# 3600 s limit, so that nothing is cut off by the default 10 s budget) on generated workloads:
# transformer stacks (`tilesched generate stack --blocks N`) and random layered DAGs of bounded
# degree (`tilesched generate random --ops N`). Prints one Markdown row per workload: kind, ops,
# time to the first fused schedule (the "greedy fusion" report line), whole run (wall and CPU:
# on a shared machine the CPU time is the steadier figure), configurations costed and per second
# of CPU, peak RSS, latency / lower bound. Then, per kind, the growth exponent fitted (least
# squares on log time against log ops) over the rows with 1,000 to 100,000 ops, of the first
# fused schedule and of the CPU time.
#   scripts/scaling.sh [--data FILE] [WORKLOAD...]
#     WORKLOAD: N or stack:N (N blocks, 15 N ops), random:N (N ops); default 1 4 16 64 256
#     --data FILE: also write the rows as whitespace-separated columns (scripts/scaling_plot.sh)
#     TILESCHED=path picks the binary (default build/src/cli/tilesched)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TILESCHED:-build/src/cli/tilesched}
[ -x "$bin" ] || { echo "scaling.sh: $bin not found; build first (scripts/build.sh)" >&2; exit 2; }
data=""
if [ "${1:-}" = "--data" ]; then
  [ $# -ge 2 ] || { echo "scaling.sh: --data needs a file name" >&2; exit 2; }
  data=$2
  shift 2
fi
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 4 16 64 256)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rows="$dir/rows"
: > "$rows"
echo "| workload | ops | first fused schedule | whole run | CPU (user+sys) | configurations | configurations / CPU s | peak RSS | latency / bound |"
echo "|---|---|---|---|---|---|---|---|---|"
for w in "${sizes[@]}"; do
  case "$w" in
    random:*) kind=random; n=${w#random:}; "$bin" generate random --ops "$n" -o "$dir/p.json" ;;
    stack:*) kind=stack; n=${w#stack:}; "$bin" generate stack --blocks "$n" -o "$dir/p.json" ;;
    *) kind=stack; n=$w; "$bin" generate stack --blocks "$n" -o "$dir/p.json" ;;
  esac
  /usr/bin/time -f "%e %M %U %S" -o "$dir/time" "$bin" schedule "$dir/p.json" -o "$dir/out.json" \
    --strategy greedy --threads 2 --time-limit 3600 --verbose 2> "$dir/err"
  ops=$("$bin" info "$dir/p.json" | sed -n "1s/^\([0-9]*\) ops.*/\1/p")
  fused=$(sed -n 's/.*\[ *\([0-9.]*\)s\] greedy fusion.*/\1/p' "$dir/err")
  read -r wall rss user sys < "$dir/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  latency=$(sed -n 's/^done after .*: latency \([0-9.]*\) .*/\1/p' "$dir/err")
  bound=$(sed -n 's/.*lower bound \([0-9.]*\),.*/\1/p' "$dir/err")
  ratio=$(awk -v l="$latency" -v b="$bound" 'BEGIN { printf "%.3f", l / b }')
  configs=$(sed -n 's/.* \([0-9,]*\) configurations;.*/\1/p' "$dir/err" | tr -d ,)
  rate=$(awk -v c="$configs" -v t="$cpu" 'BEGIN { if (t > 0) printf "%.0f", c / t; else print "-" }')
  label=$([ "$kind" = stack ] && echo "stack ($n blocks)" || echo "random DAG")
  echo "| $label | $ops | ${fused} s | ${wall} s | ${cpu} s | $configs | $rate | $((rss / 1024)) MB | $ratio |"
  echo "$kind $ops $fused $wall $cpu $configs $rate $((rss / 1024)) $ratio" >> "$rows"
done
echo
for kind in stack random; do
  awk -v kind="$kind" '
    $1 == kind && $2 >= 1000 && $2 <= 100000 && $3 > 0 && $5 > 0 {
      x = log($2); n++; sx += x; sxx += x * x
      y = log($3); sy += y; sxy += x * y
      z = log($5); sz += z; sxz += x * z
    }
    END {
      if (n < 2) exit
      d = n * sxx - sx * sx
      printf "%s: growth exponent over %d sizes of 1,000-100,000 ops: first fused schedule %.2f, CPU %.2f\n",
             kind, n, (n * sxy - sx * sy) / d, (n * sxz - sx * sz) / d
    }' "$rows"
done
if [ -n "$data" ]; then
  { echo "# kind ops first_fused_s wall_s cpu_s configurations configurations_per_cpu_s peak_rss_mb latency_over_bound"
    cat "$rows"; } > "$data"
fi
