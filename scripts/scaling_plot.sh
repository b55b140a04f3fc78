#!/usr/bin/env bash
# Draws the log-log scaling plot of docs/scaling.md from the data file scripts/scaling.sh
# --data writes: time to the first fused schedule (wall) and CPU time of the whole greedy run
# against ops, for the transformer stacks and the random layered DAGs, with a line of slope 1
# (linear growth) for reference. Needs gnuplot (scripts/deps.sh --with-report-tools).
#   scripts/scaling_plot.sh DATA [OUT.svg]      (default docs/img/scaling.svg)
# Regenerate table and plot:
#   scripts/scaling.sh --data docs/img/scaling.dat 1 4 16 64 67 200 667 2000 6667 \
#     random:15 random:150 random:1000 random:3000 random:10000 random:30000 random:100000
#   scripts/scaling_plot.sh docs/img/scaling.dat
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: scripts/scaling_plot.sh DATA [OUT.svg]" >&2; exit 2; }
data=$1
out=${2:-docs/img/scaling.svg}
[ -r "$data" ] || { echo "scaling_plot.sh: cannot read $data" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "scaling_plot.sh: gnuplot not found (scripts/deps.sh --with-report-tools)" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# One file per kind, sorted by ops, so that each series is one unbroken line.
for kind in stack random; do
  awk -v k="$kind" '$1 == k' "$data" | sort -n -k2 > "$dir/$kind"
done
gnuplot <<GNUPLOT
set terminal svg size 720,480 dynamic font "DejaVu Sans,12" background "white"
set output "$out"
set title "tilesched --strategy greedy --threads 2: time against graph size"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set xlabel "ops"
set ylabel "seconds"
set key top left
set grid
set xrange [10:200000]
plot "$dir/stack" using 2:3 with linespoints pt 7 lc rgb "#1f77b4" title "stack: first fused schedule (wall)", \
     "$dir/stack" using 2:(\$5 > 0 ? \$5 : 1/0) with linespoints pt 6 dt 2 lc rgb "#1f77b4" title "stack: whole run (CPU)", \
     "$dir/random" using 2:3 with linespoints pt 5 lc rgb "#d62728" title "random DAG: first fused schedule (wall)", \
     "$dir/random" using 2:(\$5 > 0 ? \$5 : 1/0) with linespoints pt 4 dt 2 lc rgb "#d62728" title "random DAG: whole run (CPU)", \
     [1000:100000] x * 1e-4 with lines lc rgb "#888888" dt 3 title "slope 1 (linear)"
GNUPLOT
echo "wrote $out"
