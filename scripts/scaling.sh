#!/usr/bin/env bash
# Scaling table of docs/scaling.md: `tilesched schedule --strategy greedy --threads 2` (with a
# 3600 s limit, so that nothing is cut off by the default 10 s budget) on
# generated transformer stacks (`tilesched generate stack --blocks N`). Prints one Markdown row
# per size: blocks, ops, time to the first fused schedule (the "greedy fusion" report line),
# whole run (wall and CPU: on a shared machine the CPU time is the steadier figure), peak RSS,
# latency / lower bound, configurations costed.
#   scripts/scaling.sh [BLOCKS...]   (default 1 4 16 64 256; TILESCHED=path picks the binary)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TILESCHED:-build/src/cli/tilesched}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 4 16 64 256)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "| blocks | ops | first fused schedule | whole run | CPU (user+sys) | peak RSS | latency / bound | configurations |"
echo "|---|---|---|---|---|---|---|---|"
for n in "${sizes[@]}"; do
  build/src/cli/tilesched generate stack --blocks "$n" -o "$dir/stack.json"
  /usr/bin/time -f "%e %M %U %S" -o "$dir/time" "$bin" schedule "$dir/stack.json" -o "$dir/out.json" \
    --strategy greedy --threads 2 --time-limit 3600 --verbose 2> "$dir/err"
  fused=$(sed -n 's/.*\[ *\([0-9.]*\)s\] greedy fusion.*/\1/p' "$dir/err")
  read -r wall rss user sys < "$dir/time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  ratio=$(sed -n 's/.*ratio \([0-9.]*\),.*/\1/p' "$dir/err")
  configs=$(sed -n 's/.* \([0-9,]*\) configurations;.*/\1/p' "$dir/err")
  echo "| $n | $((15 * n)) | ${fused} s | ${wall} s | ${cpu} s | $((rss / 1024)) MB | ${ratio} | ${configs} |"
done
